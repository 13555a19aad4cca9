"""Where a game's instructions go, by doubling one part of each step.

Run it under cachegrind (instructions do not depend on the machine's load)
once plainly and once with a part done twice; the difference is that part's
cost. Nothing here changes what is played: a doubled listing or effect runs
once more on the side (an effect on a copy of the state, with its chance and
notes thrown away), and the game goes on from the real one.

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        python benchmarks/play_shares.py spec/kanaloa.atoll 3 10 MODE

MODE: ``none`` (the games as they are), ``load`` (no game: the cost of
loading, to subtract), ``listings`` (every listing of legal moves twice),
``choices:ACTION`` (that action's listing twice), ``effect:ACTION`` (that
action's effect twice).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import atoll  # noqa: E402
from atoll.compiler import playout  # noqa: E402


class _Aside:
    """The transaction of an effect run on the side: draws and notes go nowhere."""

    def __init__(self, real):
        self.real = real

    def draw(self, bag, elem_type, how="draw"):
        return bag[0], bag[1:]

    def __getattr__(self, name):
        return lambda *a, **k: None


def main(spec: str, players: int, games: int, mode: str) -> None:
    g = atoll.load(spec, players=players)
    names = [a.name for a in g.actions]
    if mode == "load":
        return
    if mode == "listings":
        once = playout._list

        def twice(g, st):
            once(g, st)
            return once(g, st)
        playout._list = twice
    elif mode.startswith("choices:"):
        ai = names.index(mode.split(":", 1)[1])
        for ph, listing in g._move_listing.items():
            g._move_listing[ph] = tuple(
                (where, (lambda S, me, ch=ch: (ch(S, me), ch(S, me))[1]) if a == ai else ch, a)
                for where, ch, a in listing)
    elif mode.startswith("effect:"):
        ai = names.index(mode.split(":", 1)[1])
        effect = g._act_steps[ai][0]

        def doubled(S, me, X, *params):
            try:
                effect(list(S), me, _Aside(X), *params)
            except Exception:
                pass
            return effect(S, me, X, *params)
        g._act_steps[ai] = (doubled,) + tuple(g._act_steps[ai][1:])
    elif mode != "none":
        raise SystemExit(f"unknown mode {mode!r}")
    for seed in range(games):
        playout.play_random(g, seed)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
