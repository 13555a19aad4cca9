"""The lean playout path (atoll.compiler.playout): the same games as play
through legal_actions()/apply_action, with the same histories, states and
errors, at every kind of node (chance, simultaneous, a choice in an effect)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import atoll
from atoll.compiler.playout import Moves, move_kind, play_random
from atoll.compiler.runtime import IllegalAction, ModelError
from atoll.simulation import play_random_game

ROOT = Path(__file__).resolve().parent.parent
SPECS = [ROOT / "spec" / "masterislands.atoll", ROOT / "spec" / "kanaloa.atoll",
         ROOT / "tests" / "golden" / "countdown.atoll"] + sorted((ROOT / "tests" / "good").glob("*.atoll"))


def _by_actions(game, seed: int, cap: int, chance: str = "auto"):
    st = game.new_initial_state(seed=seed, chance=chance)
    rng = random.Random(seed)
    for _ in range(cap):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        if not legal:
            break
        st.apply_action(legal[rng.randrange(len(legal))])
    return st


def _by_moves(game, seed: int, cap: int, chance: str = "auto"):
    st = game.new_initial_state(seed=seed, chance=chance)
    rng = random.Random(seed)
    for _ in range(cap):
        if st.is_terminal():
            break
        legal = st.legal_moves()
        if not legal:
            break
        st.apply_move(rng.randrange(len(legal)))
    return st


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_lean_path_plays_the_same_games(spec):
    try:
        game = atoll.load(str(spec))
    except Exception as e:   # a spec that needs options or files given: not this test's business
        pytest.skip(f"does not load with defaults: {e}")
    for seed in range(3):
        for chance in ("auto", "explicit"):
            try:
                a = _by_actions(game, seed, 300, chance)
            except ModelError as e:
                with pytest.raises(ModelError, match=re.escape(str(e)[:40])):
                    _by_moves(game, seed, 300, chance)
                continue
            b = _by_moves(game, seed, 300, chance)
            assert b.history == a.history
            assert b.to_json() == a.to_json()


def test_moves_match_legal_actions_in_order():
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=3)
    st = game.new_initial_state(seed=4)
    rng = random.Random(4)
    for _ in range(60):
        moves = st.legal_moves()
        assert moves.__class__ is Moves
        kinds = [game.actions[move_kind(moves, i)].name for i in range(len(moves))]
        c = st.clone()
        acts = c.legal_actions()
        assert [(a.kind, a.params) for a in acts] == list(zip(kinds, moves))
        # asking for the Actions after the moves gives the same list
        assert [(a.kind, a.params) for a in st.legal_actions()] == list(zip(kinds, moves))
        st.apply_move(rng.randrange(len(moves)))


def test_apply_move_refuses_what_is_not_a_move():
    game = atoll.load(str(ROOT / "tests" / "golden" / "countdown.atoll"))
    st = game.new_initial_state(seed=0)
    n = len(st.legal_moves())
    before = st.to_json()
    for bad in (n, -1, "0", 1.0, True):
        with pytest.raises(IllegalAction):
            st.apply_move(bad)
    assert st.to_json() == before


def test_play_random_and_simulation_agree_with_the_action_path():
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=2)
    for seed in range(3):
        a = _by_actions(game, seed, 10_000)
        st, steps = play_random(game, seed)
        assert st.history == a.history and steps == len(a.history)
        st2, steps2, err = play_random_game(game, seed, check=True)
        assert err is None and st2.history == a.history


def test_explicit_chance_outcome_finds_its_action_without_listing():
    """An action that waits for chance is resumed from the id it was kept
    under; the pending outcome list is computed once per chance node."""
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=2)
    st = game.new_initial_state(seed=1, chance="explicit")
    rng = random.Random(1)
    seen = 0
    while not st.is_terminal() and seen < 5:
        if st.is_chance_node():
            assert st.chance_outcomes() == st.chance_outcomes()
            assert st._chance_counts() is st._chance_counts()
            seen += 1
            st.apply_action(st.sample_chance())
        else:
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
    assert seen == 5
    again = game.state_from_json(st.to_json())
    assert again.to_json() == st.to_json()


FAILING_LISTING = """
game failing_listing { title: "Failing listing" players: 2..2 }
state {
  table: map[int, int] = {1: 10} visible all
  n: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
  action first(i: int in range(FIRST)) { n = n + 1  end phase }
  action second(k: int in [1, 2], i: int in range(SECOND))
    when table[k] > 0
  { n = n + 1  end phase }
}
ending over after_turn when n > 5 => tie
"""


@pytest.mark.parametrize("first,second,error", [
    (3, 1, "the choices of action `second`.*KeyError"),          # a listing that fails
    (60000, 1, "the choices of action `second`.*KeyError"),      # (after many moves)
    (60000, 45000, "second.*more than 100,000 legal actions"),   # the second listing passes the limit
])
def test_a_listing_that_fails_is_worded_as_legal_actions_words_it(tmp_path, first, second, error):
    path = tmp_path / "failing.atoll"
    text = FAILING_LISTING.replace("FIRST", str(first)).replace("SECOND", str(second))
    if second > 1:
        text = text.replace("table[k] > 0", "k > 0")
    path.write_text(text)
    game = atoll.load(str(path), players=2)
    st = game.new_initial_state(seed=0)
    with pytest.raises(ModelError, match=error) as by_actions:
        st.clone().legal_actions()
    with pytest.raises(ModelError, match=error) as by_moves:
        st.legal_moves()
    assert str(by_moves.value) == str(by_actions.value)
