"""The adapters against direct play, in one process (CPU time) or one way
alone (for cachegrind).

    python benchmarks/adapters_ab.py [--players 2] [--games 40] [--blocks 4]
    python benchmarks/adapters_ab.py --only openspiel --games 10 [--passes 2]

The loops are ``benchmarks/run.py``'s (``play_model``: the lean path;
``play_openspiel``; ``play_pettingzoo``), on MasterIslands by default,
seeds 0 .. games-1. Alternating blocks: each way counts its quickest block
(``time.process_time``); prints microseconds per decision and the ratios
to direct, per decision and per game. ``--only WAY`` plays the ``--games``
seeded games of that way ``--passes`` times and nothing else, for
instruction counts: the count with ``--passes 2`` minus the count with
``--passes 1`` is one pass with warm caches (what the adapters keep, as in
the repeated blocks of ``run.py``), divided by the decisions printed (the
heap made before the games is frozen, ``gc.freeze()``, so that a full
collection of it does not fall in one count and not the other):

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        python benchmarks/adapters_ab.py --only pettingzoo --games 10 --passes 2

``--only WAY --opcodes`` counts the Python opcodes per decision of the
last pass instead (``sys.settrace``; a count that the load does not change).

``--before REV`` adds the adapters as they were at git revision ``REV``
(``atoll/{encoding,action_index,pettingzoo,openspiel}.py`` read with ``git
show`` into a temporary package, on the engine of this tree) as two more
ways, ``pettingzoo@REV`` and ``openspiel@REV``, in the same alternating
blocks: a before/after comparison in one process that the load hits alike.

See benchmarks/README.md, "The adapters, a fifth step (issue 15, item 2)" and
"The sixth step: the adapters (adapt18)".
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import atoll  # noqa: E402
from run import MASTERISLANDS, play_model, play_openspiel, play_pettingzoo  # noqa: E402


def ways(spec: str, players: int, before: str = "") -> dict:
    import pyspiel
    import atoll.openspiel as aos
    import atoll.pettingzoo as apz
    game = atoll.load(spec, players=players)
    osg = pyspiel.load_game(aos.register(spec, players=players, name="atoll_adapters_ab"))
    env = apz.env(game)
    out = {"direct": lambda s: play_model(game, s),
           "openspiel": lambda s: play_openspiel(osg, s),
           "pettingzoo": lambda s: play_pettingzoo(env, s)}
    if before:
        old = _adapters_at(before)
        osg_old = pyspiel.load_game(old.openspiel.register(spec, players=players, name="atoll_adapters_ab_old"))
        env_old = old.pettingzoo.env(game)
        out[f"openspiel@{before}"] = lambda s: play_openspiel(osg_old, s)
        out[f"pettingzoo@{before}"] = lambda s: play_pettingzoo(env_old, s)
    return out


def _adapters_at(rev: str):
    """The adapter modules of git revision ``rev`` as a package of their own
    (``atoll_at_<rev>``), importing each other and this tree's engine."""
    import importlib
    import re
    import subprocess
    import tempfile
    root = HERE.parent
    pkg = "atoll_at_" + re.sub(r"[^A-Za-z0-9]", "_", rev)
    where = Path(tempfile.mkdtemp(prefix="adapters_ab_")) / pkg
    where.mkdir()
    (where / "__init__.py").write_text("")
    names = ("action_index", "encoding", "pettingzoo", "openspiel")
    for name in names:
        text = subprocess.run(["git", "show", f"{rev}:atoll/{name}.py"], cwd=root, check=True,
                              capture_output=True, text=True).stdout
        for other in names:
            text = re.sub(rf"\batoll\.{other}\b", f"{pkg}.{other}", text)
        (where / f"{name}.py").write_text(text)
    sys.path.insert(0, str(where.parent))
    importlib.import_module(f"{pkg}.openspiel")
    importlib.import_module(f"{pkg}.pettingzoo")
    return importlib.import_module(pkg)


def _opcodes(name: str, fn, games: int) -> int:
    """Python opcodes executed per decision by ``games`` games of ``fn``, by file."""
    from collections import Counter
    seen: Counter = Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            seen[frame.f_code.co_filename] += 1
        return trace
    sys.settrace(trace)
    try:
        d = sum(fn(s) for s in range(games))
    finally:
        sys.settrace(None)
    print(f"{name}: {sum(seen.values()) / d:.0f} opcodes per decision ({d} decisions)")
    for f, n in seen.most_common(12):
        print(f"  {n / d:8.1f}  {f}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=str(MASTERISLANDS))
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--only", help="direct, openspiel or pettingzoo (or openspiel@REV... with --before)")
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--before", default="", metavar="REV",
                    help="also the adapters of git revision REV, on this tree's engine")
    ap.add_argument("--opcodes", action="store_true",
                    help="with --only: Python opcodes per decision of the last pass (sys.settrace), by file")
    args = ap.parse_args(argv)
    w = ways(args.spec, args.players, args.before)
    if args.only:
        fn = w[args.only]
        gc.collect()
        gc.freeze()   # the heap made so far is never scanned again: a count that does not
                      # depend on when a full collection of it happens to fall
        for k in range(args.passes):
            if args.opcodes and k == args.passes - 1:
                return _opcodes(args.only, fn, args.games)
            d = sum(fn(s) for s in range(args.games))
        print(f"{args.only}: {d} decisions in {args.games} games, {args.passes} passes")
        return 0
    for fn in w.values():
        fn(0)
    best = {k: float("inf") for k in w}
    decisions = {}
    for _ in range(args.blocks):
        for k, fn in w.items():
            t = time.process_time()
            decisions[k] = sum(fn(s) for s in range(args.games))
            best[k] = min(best[k], time.process_time() - t)
    base = best["direct"] / decisions["direct"]
    for k in w:
        per = best[k] / decisions[k]
        print(f"{k:10s} {per * 1e6:6.1f} us/decision  {decisions[k]:6d} decisions  "
              f"per decision {base / per:.3f}  per game {best['direct'] / best[k]:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
