"""The generated turn flow against the interpreter, in one process.

    python benchmarks/flow_ab.py [--spec spec/masterislands.atoll] [--players 2 3 4]
                                 [--games 60] [--blocks 5] [--chance auto|explicit]

Plays the same seeded random games (the lean path, as ``atoll simulate``)
on two instances of the game, one of them with ``_flend = None`` (every
step of the flow by the interpreter, ``compiler/flow_engine.py``), and, for
MasterIslands, on the hand-written game; the blocks alternate, each way
counts its quickest block (CPU time, ``time.process_time``). Prints actions
per second and the ratios. See benchmarks/README.md, "The turn flow
generated (issue 15, item 1): a fourth step".
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import atoll  # noqa: E402
import handwritten_masterislands as hand  # noqa: E402
from atoll.compiler import playout  # noqa: E402


def play(game, seed: int, chance: str) -> int:
    if chance == "auto":
        return playout.play_random(game, seed)[1]
    st = game.new_initial_state(seed=seed, chance=chance)
    rng = random.Random(seed)
    steps = 0
    while st.outcome is None:
        moves = st.legal_moves()
        if not moves:
            break
        st.apply_move(rng.randrange(len(moves)))
        steps += 1
    return steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=str(HERE.parent / "spec" / "masterislands.atoll"))
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--blocks", type=int, default=5)
    ap.add_argument("--chance", choices=("auto", "explicit"), default="auto")
    args = ap.parse_args(argv)
    with_hand = Path(args.spec).name == "masterislands.atoll" and args.chance == "auto"
    for n in args.players:
        gen = atoll.load(args.spec, players=n)
        interp = atoll.load(args.spec, players=n)
        interp._flend = None
        ways = {"generated": lambda s: play(gen, s, args.chance),
                "interpreter": lambda s: play(interp, s, args.chance)}
        if with_hand:
            ways["hand-written"] = lambda s: hand.play_random(n, s)[1]
        best = {k: float("inf") for k in ways}
        actions = {}
        for _ in range(args.blocks):
            for k, fn in ways.items():
                t = time.process_time()
                actions[k] = sum(fn(s) for s in range(args.games))
                best[k] = min(best[k], time.process_time() - t)
        line = f"{n} players: " + ", ".join(f"{k} {actions[k] / best[k]:,.0f} actions/s" for k in ways)
        line += f"; generated / interpreter {best['interpreter'] / best['generated']:.3f}"
        if with_hand:
            line += (f"; compiled / hand-written (playouts) {best['hand-written'] / best['generated']:.3f}"
                     f" (interpreter: {best['hand-written'] / best['interpreter']:.3f})")
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
