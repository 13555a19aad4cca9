"""Profile the compiled MasterIslands model (or another spec) under random play.

    python benchmarks/profile_model.py [--games 100] [--players 2 3 4] [--spec spec/masterislands.atoll]
                                       [--top 30] [--hand]

Prints the functions with the most time of their own (tottime) and the most
time including callees (cumtime), and the calls per action of the busiest
generated rule functions. ``--hand`` profiles the hand-written MasterIslands
instead, for comparison.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import atoll  # noqa: E402
from run import play_hand, play_model  # noqa: E402


def split_by_phase(games: dict, n_games: int) -> dict:
    """Without the profiler: seconds in legal_actions() and in apply_action(),
    by the phase the state was in, over the same random games."""
    clock = time.perf_counter
    out: dict = {}
    for game in games.values():
        for s in range(n_games):
            st = game.new_initial_state(seed=s)
            rng = random.Random(s)
            while not st.is_terminal():
                phase = st.phase()
                t0 = clock()
                legal = st.legal_actions()
                t1 = clock()
                a = legal[rng.randrange(len(legal))]
                t2 = clock()
                st.apply_action(a)
                t3 = clock()
                row = out.setdefault(phase, [0, 0.0, 0.0])
                row[0] += 1
                row[1] += t1 - t0
                row[2] += t3 - t2
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Profile random play of a compiled game.")
    ap.add_argument("--spec", default=str(HERE.parent / "spec" / "masterislands.atoll"))
    ap.add_argument("--games", type=int, default=100, help="games per player count (default 100)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--hand", action="store_true", help="profile the hand-written MasterIslands")
    args = ap.parse_args(argv)

    games = {n: atoll.load(args.spec, players=n) for n in args.players}
    # One profile per player count, added up: each count runs a module of its
    # own, whose functions carry the same file and line as the others' (one
    # profile would keep only one of each).
    st = None
    actions = 0
    for n, game in games.items():
        prof = cProfile.Profile()
        prof.enable()
        for s in range(args.games):
            actions += play_hand(n, s) if args.hand else play_model(game, s)
        prof.disable()
        if st is None:
            st = pstats.Stats(prof)
        else:
            st.add(prof)
    total_games = args.games * len(args.players)
    print(f"{'hand-written' if args.hand else args.spec}: {total_games} random games, "
          f"{actions} actions")
    for key in ("tottime", "cumulative"):
        buf = io.StringIO()
        st.stream = buf
        st.sort_stats(key).print_stats(args.top)
        print(buf.getvalue().replace(str(HERE.parent) + "/", ""))
    by_file: dict = {}
    for (file, _, _), (_, _, tt, _, _) in st.stats.items():
        where = "<generated rules>" if file.startswith("<") else Path(file).name if file != "~" else "<builtins>"
        by_file[where] = by_file.get(where, 0.0) + tt
    total = sum(by_file.values())
    print("own time by file:")
    for where, tt in sorted(by_file.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  {where:<32} {tt:>7.3f} s {tt / total:>6.1%}")
    print()
    print("calls per action of the busiest functions:")
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][1])[:args.top]
    for (file, line, name), (cc, nc, tt, ct, _) in rows:
        print(f"  {nc / actions:>9.1f}  {Path(file).name}:{line}({name})")
    if not args.hand:
        print()
        print("without the profiler, by phase (the same games):")
        split = split_by_phase(games, args.games)
        total = sum(r[1] + r[2] for r in split.values())
        print(f"  {'phase':<12} {'decisions':>9} {'legal_actions':>14} {'apply_action':>13} "
              f"{'us/decision':>12}")
        for phase, (k, tl, ta) in split.items():
            print(f"  {phase:<12} {k:>9} {tl:>8.2f} s {tl / total:>4.0%} {ta:>7.2f} s {ta / total:>4.0%} "
                  f"{(tl + ta) / k * 1e6:>12.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
