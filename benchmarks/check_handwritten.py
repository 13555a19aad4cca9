"""Plays the compiled model of spec/masterislands.atoll and the hand-written
implementation side by side, with the same draws and the same choices, and
asserts at every step that both offer the same legal actions (compared as
sorted lists of readable (kind, params) tuples), that the position is the
same (board, hands, conquered cards, galleons, player to move) and that the
games end with the same winners.

    python benchmarks/check_handwritten.py [--games N] [--players 2 3 4] [--seed S]

The model runs with chance="explicit": each card it draws is picked at random
(weighted by the chance outcomes' probabilities) and handed to the
hand-written game through its ``draws`` queue.

Three styles of play take turns (by seed), so that every ending is reached:

* ``uniform``: every legal action equally likely (games end by a conquest);
* ``hoard``: a conquest is declined nine times in ten, so the pile often runs
  out (the Alternative Ending, with its ties);
* ``scramble``: as ``hoard``, and at some Conquest decisions every galleon is
  put on a random space of the board or an empty space near it, in both
  implementations alike (the check writes the model's state slot directly),
  so that galleons float, Discoveries get stuck and games stall.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import deque
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import atoll  # noqa: E402
from handwritten_masterislands import COLOURS, MasterIslands  # noqa: E402

SPEC = HERE.parent / "spec" / "masterislands.atoll"


class Mismatch(AssertionError):
    pass


def card_of(model_card) -> tuple:
    colour, value = model_card
    return (COLOURS[colour], value)


def key_of_model(action) -> tuple:
    """The readable form of a model action, in the hand-written vocabulary."""
    p = action.params
    if action.kind == "place":
        return ("place", card_of(p[0]), p[1])
    if action.kind == "sail":
        return ("sail", p[0], p[1])
    if action.kind == "conquer":
        return ("conquer", tuple(sorted(p[0])))
    return (action.kind,) + tuple(p)


def resolve_chance(st, rng: random.Random, draws: deque) -> None:
    while st.is_chance_node():
        outcomes = st.chance_outcomes()
        a = rng.choices([a for a, _ in outcomes], weights=[w for _, w in outcomes])[0]
        draws.append(card_of(a.params[0]))
        st.apply_action(a)


def model_position(game, st) -> dict:
    names = {n: i for i, n in enumerate(game.layout.names)}
    S = st.S
    return {
        "pile": sorted(card_of(c) for c in S[names["pile"]]),
        "board": {q: card_of(c) for q, c in S[names["board"]].items()},
        "hands": [[card_of(c) for c in h] for h in S[names["hand"]]],
        "taken": [[card_of(c) for c in t] for t in S[names["taken"]]],
        "fleets": [list(f) for f in S[names["fleet"]]],
        "idle": S[names["idle"]],
    }


def hand_position(hw: MasterIslands) -> dict:
    return {"pile": sorted(hw.pile), "board": dict(hw.board), "hands": [list(h) for h in hw.hands],
            "taken": [list(t) for t in hw.taken], "fleets": [list(f) for f in hw.fleets],
            "idle": hw.idle}


STYLES = ("uniform", "hoard", "scramble")
ENDINGS = {"action conquer": "conquest"}


def scramble_fleets(game, st, hw: MasterIslands, rng: random.Random) -> None:
    """Put every galleon on a random card or empty space near the cards."""
    xs = [q[0] for q in hw.board] or [0]
    ys = [q[1] for q in hw.board] or [0]
    spaces = [(x, y) for x in range(min(xs) - 2, max(xs) + 3) for y in range(min(ys) - 2, max(ys) + 3)]
    fleets = tuple(tuple(rng.choice(spaces) for _ in f) for f in hw.fleets)
    st.S[game.layout.names.index("fleet")] = fleets
    st._legal = None
    hw.fleets = [list(f) for f in fleets]
    hw._legal = None


def check_game(game, players: int, seed: int, style: str = "uniform") -> tuple:
    """One game side by side; returns (actions, ending) or raises Mismatch."""
    rng = random.Random(seed)
    st = game.new_initial_state(seed=seed, chance="explicit")
    draws: deque = deque()
    resolve_chance(st, rng, draws)
    hw = MasterIslands(players, draws=draws)
    trail = []

    def fail(msg):
        raise Mismatch(f"{players} players, seed {seed}, after {len(trail)} actions "
                       f"{trail}: {msg}")

    if draws:
        fail(f"setup: draws not used by the hand-written game: {list(draws)}")
    while True:
        if (style == "scramble" and not st.is_terminal() and st.phase() == "conquest"
                and rng.random() < 0.2):
            scramble_fleets(game, st, hw, rng)
        if st.is_terminal() != hw.is_terminal():
            fail(f"terminal: model {st.is_terminal()} (ending {st.ending()}), "
                 f"hand-written {hw.is_terminal()}")
        mp, hp = model_position(game, st), hand_position(hw)
        for k in mp:
            if mp[k] != hp[k]:
                fail(f"{k} differs: model {mp[k]!r}, hand-written {hp[k]!r}")
        if st.is_terminal():
            ending = ENDINGS.get(st.ending(), st.ending())
            if tuple(st.winners()) != tuple(hw.winners()) or ending != hw.ending:
                fail(f"winners: model {st.winners()} (ending {st.ending()}), "
                     f"hand-written {hw.winners()} (ending {hw.ending})")
            return len(trail), ending
        if st.current_player() != hw.current_player():
            fail(f"player to move: model {st.current_player()}, hand-written {hw.current_player()}")
        model_legal = {key_of_model(a): a for a in st.legal_actions()}
        hand_legal = {a: a for a in hw.legal_actions()}
        if len(model_legal) != len(st.legal_actions()) or len(hand_legal) != len(hw.legal_actions()):
            fail("an implementation lists one action twice")
        mk, hk = sorted(model_legal), sorted(hand_legal)
        if mk != hk:
            fail(f"legal actions differ ({len(mk)} vs {len(hk)}): only model "
                 f"{sorted(set(mk) - set(hk))}, only hand-written {sorted(set(hk) - set(mk))}")
        if style != "uniform" and mk[-1] == ("pass_conquest",) and rng.random() < 0.9:
            choice = mk[-1]
        else:
            choice = mk[rng.randrange(len(mk))]
        trail.append(choice)
        st.apply_action(model_legal[choice])
        resolve_chance(st, rng, draws)
        hw.apply(hand_legal[choice])
        if draws:
            fail(f"draws not used by the hand-written game: {list(draws)}")


def check(games: int = 200, players=(2, 3, 4), seed: int = 0, out=sys.stdout) -> bool:
    ok = True
    for n in players:
        game = atoll.load(str(SPEC), players=n)
        t0 = time.perf_counter()
        steps = 0
        failures = 0
        endings: dict = {}
        for s in range(seed, seed + games):
            style = STYLES[s % len(STYLES)]
            try:
                k, ending = check_game(game, n, s, style)
                steps += k
                endings[ending] = endings.get(ending, 0) + 1
            except Mismatch as e:
                failures += 1
                ok = False
                if failures <= 3:
                    print(f"MISMATCH ({style}): {e}", file=out)
        print(f"check {n} players: {games} games, {steps} actions compared step by step, "
              f"{failures} mismatching; endings {dict(sorted(endings.items()))}; "
              f"{time.perf_counter() - t0:.1f} s", file=out)
    return ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games per player count (default 200)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    return 0 if check(args.games, args.players, args.seed) else 1


if __name__ == "__main__":
    sys.exit(main())
