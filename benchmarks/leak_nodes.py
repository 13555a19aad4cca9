"""CPU time of `no_leak`'s comparisons alone: every simultaneous node of a
few uniformly random games is collected first, then ``LeakCheck.check``
runs over them (``time.process_time``, best of three passes).

    python benchmarks/leak_nodes.py spec/la_isla.atoll 3 30
"""
from __future__ import annotations

import random
import sys
import time

from atoll.compiler import pipeline
from atoll.verify.secrets import LeakCheck


def main(spec: str, players: int, games: int) -> None:
    game = pipeline.instantiate(pipeline.compile_spec(spec), players, {})
    nodes = []
    for s in range(games):
        st, rng = game.new_initial_state(seed=s), random.Random(s)
        while not st.is_terminal():
            legal = st.legal_actions()
            if not legal:
                break
            if not st.is_chance_node() and st.is_simultaneous_node():
                nodes.append(st.clone())
            st.apply_action(legal[rng.randrange(len(legal))])
    best = None
    for _ in range(3):
        leaks = LeakCheck(game)
        t = time.process_time()
        for st in nodes:
            leaks.check(st)
        t = time.process_time() - t
        best = t if best is None else min(best, t)
    print(f"{len(nodes)} simultaneous nodes, {leaks.met} secret choices compared: {best:.3f} CPU s")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
