"""The play contract (tests/contracts.py) on every shipped spec, variant and
tests/good spec, at every player count it allows, over seeded random play:
outcome, chance probabilities, hidden data, JSON round trip, clones; and a
pinned digest of each seeded game, so that a change to seeded play (a random
stream that no longer advances, a draw that picks another item) is seen.

The digests live in tests/play_digests.json. After a change to the rules
or the engine that is meant to change seeded play, regenerate them with
``ATOLL_UPDATE_DIGESTS=1 pytest tests/test_contracts.py -k digest`` and
review the diff (benchmarks/play_digest.py shows whether a spec's play
changed). A missing digest fails; it is written only by that command.
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

import atoll
from contracts import check_outcome, digest, play, hidden_slots
from helpers import ROOT, card, pos, position

TESTS = Path(__file__).resolve().parent
DIGESTS = TESTS / "play_digests.json"
UPDATE = os.environ.get("ATOLL_UPDATE_DIGESTS") == "1"
MOVES = 40          # moves per pinned game
GAMES = 1           # seeds per spec and player count (each played with auto and explicit chance)

SPECS = (sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll"))
         + sorted((TESTS / "good").glob("*.atoll")))
# Option sets beyond the defaults that change who wins (teams, a lone Corsair).
EXTRA = [(ROOT / "spec" / "masterislands.atoll", 4, {"mode": "cooperative"}),
         (ROOT / "spec" / "masterislands.atoll", 3, {"mode": "corsair"})]


def configs():
    out = []
    for path in SPECS:
        lo, hi = atoll.compile_spec(path).program.player_range
        out += [(path, n, {}) for n in range(lo, hi + 1)]
    return out + EXTRA


CONFIGS = configs()


def key(path: Path, n: int, options: dict) -> str:
    name = path.relative_to(ROOT).as_posix()
    opts = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{name}@{n}" + (f"[{opts}]" if opts else "")


IDS = [key(*c) for c in CONFIGS]
_games: dict = {}


def game_of(path, n, options):
    k = key(path, n, options)
    if k not in _games:
        _games[k] = atoll.load(path, players=n, options=options)
    return _games[k]


@pytest.mark.parametrize("path,n,options", CONFIGS, ids=IDS)
def test_play_keeps_the_contract(path, n, options):
    game = game_of(path, n, options)
    pool: dict = {}
    seen = [play(game, seed, chance=chance, pool=pool)
            for seed in range(GAMES) for chance in ("auto", "explicit")]
    assert all(s["steps"] > 0 for s in seen)
    if hidden_slots(game):
        assert sum(s["hidden"] for s in seen) > 0, "no hidden data was ever compared"


def test_every_kind_of_ending_is_played():
    """Seeded games of the small specs and of MasterIslands' modes reach every
    kind of outcome check_outcome tells apart, so each branch of the contract
    is tried (a plain `=> tie` ending is left out: no shipped game reaches one
    in a few games)."""
    kinds = set()
    small = [c for c in CONFIGS if c[0].parent.name == "good"
             or (c[0].name == "masterislands.atoll" and (c[1] == 2 or c[2]))]
    for path, n, options in small:
        game = game_of(path, n, options)
        for seed in range(4):
            state = game.new_initial_state(seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
            kinds.add(check_outcome(game, state))
    assert {"win", "rank-alone", "rank-shared", "rank-tie", "action"} <= kinds, kinds


def test_a_team_ranking_keeps_the_contract():
    """A rank ending won by a team (rare in random play: MasterIslands'
    cooperative mode is nearly always won by a conquest), set up by hand."""
    game = game_of(ROOT / "spec" / "masterislands.atoll", 4, {"mode": "cooperative"})
    st = position(game, "conquest", 0, hand=[[], [], [], []], pile=[card("blue", 2)],
                  taken=[[card("red", 1)], [], [card("red", 1)], []], fleet=[[pos(0, 0), pos(0, 0)]] * 4)
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "pass_conquest"))
    assert st.ending() == "pile_empty"
    assert check_outcome(game, st) == "rank-team" and st.winners() == (0, 2)
    assert st.returns() == [1.0, -1.0, 1.0, -1.0]


def _pinned() -> dict:
    return json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}


@pytest.mark.parametrize("path,n,options", CONFIGS, ids=IDS)
def test_seeded_play_digest_is_pinned(path, n, options):
    game = game_of(path, n, options)
    got = {f"{chance} seed {seed}": digest(game, seed, MOVES, chance)
           for seed in (0, 1) for chance in ("auto", "explicit")}
    k = key(path, n, options)
    if UPDATE:
        pins = _pinned()
        pins[k] = got
        DIGESTS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
    pins = _pinned()
    assert k in pins, (f"no digest pinned for {k}: run ATOLL_UPDATE_DIGESTS=1 pytest "
                       f"tests/test_contracts.py -k digest and review tests/play_digests.json")
    assert pins[k] == got, f"seeded play of {k} changed: {pins[k]} -> {got}"


def test_no_stale_digests():
    assert set(_pinned()) <= set(IDS), sorted(set(_pinned()) - set(IDS))
