"""A digest of seeded play: the check that a rewrite of a spec (or of the
toolchain) did not change the rules.

For every spec given, every player count of its range and every house-rule
and option combination asked for, plays ``--games`` games: each decision is
picked by a seeded stream over the legal actions (listed in their order),
each chance event by the model's own seeded stream. The digest hashes, per
game, every decision's player and label, every chance outcome, the ending,
the winners and the scores (or, for a game cut at ``--cap`` actions, that it
was cut and the scores then). Two versions of a spec that allow the same moves
in the same order and end the same way give the same digest; the round
number and the names of state variables do not enter it.

    python benchmarks/play_digest.py spec/kanaloa.atoll --games 200
    python benchmarks/play_digest.py spec/kanaloa.atoll --option equal_turns=in_game
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys

import atoll


def digest(path: str, players: int, options: dict, games: int, cap: int) -> tuple[str, int]:
    game = atoll.load(path, players=players, options=options)
    h = hashlib.sha256()
    actions = 0
    for seed in range(games):
        pick = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        for _ in range(cap):   # a game that runs past the cap is cut (recorded as such)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            a = legal[pick.randrange(len(legal))]
            h.update(f"{state.current_player()}:{a}|".encode())
            state.apply_action(a)
            actions += 1
        h.update(json.dumps([state.ending(), list(state.winners()), state.scores()]
                            if state.is_terminal() else ["cut", state.scores()]).encode())
    return h.hexdigest()[:16], actions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--option", action="append", default=[], metavar="K=V")
    ap.add_argument("--players", type=int, action="append")
    ap.add_argument("--cap", type=int, default=3000, help="actions after which a game is cut (default 3000)")
    args = ap.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option)
    for path in args.specs:
        lo, hi = atoll.compile_spec(path).program.player_range
        for n in args.players or range(lo, hi + 1):
            d, k = digest(path, n, options, args.games, args.cap)
            print(f"{path} players={n} options={options} games={args.games} actions={k} digest={d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
