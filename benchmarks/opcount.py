"""Bytecodes executed per Python function during random playouts: the
compiled model of a spec (``play_random``, seeds 0..n-1) or the hand-written
MasterIslands (``--hand``). A count, not a time: the same on a loaded
machine as on a quiet one, and split by function where cachegrind's
instruction counts are not (work done in C, a sort or a dict lookup, counts
as the one bytecode that asks for it).

    python benchmarks/opcount.py --players 3 --games 10
    python benchmarks/opcount.py --players 3 --games 10 --hand
    python benchmarks/opcount.py --spec spec/kanaloa.atoll --players 3 --games 3
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def count(run) -> collections.Counter:
    """Bytecodes per (function, file) while ``run()`` runs."""
    cnt: collections.Counter = collections.Counter()

    def local(frame, event, arg):
        if event == "opcode":
            c = frame.f_code
            cnt[(c.co_name, Path(c.co_filename).name)] += 1
        return local

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(None)
    return cnt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default=str(ROOT / "spec" / "masterislands.atoll"))
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--hand", action="store_true", help="the hand-written MasterIslands instead")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args(argv)
    actions = [0]
    if args.hand:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import handwritten_masterislands as hand

        def run():
            for s in range(args.games):
                actions[0] += hand.play_random(args.players, s)[1]
    else:
        import atoll
        from atoll.compiler import playout
        game = atoll.load(args.spec, players=args.players)

        def run():
            for s in range(args.games):
                actions[0] += playout.play_random(game, s)[1]
    cnt = count(run)
    total = sum(cnt.values())
    print(f"{total:,} bytecodes, {actions[0]:,} actions: {total / max(1, actions[0]):.0f} per action")
    for (name, file), n in cnt.most_common(args.top):
        print(f"{n:10,d} {n * 100 / total:5.1f}%  {name} ({file})")


if __name__ == "__main__":
    main()
