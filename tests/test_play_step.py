"""The random playout's written-out step (``playout.play_random``): where one
player decides, the listing, the choice and ``FlowEngine._act`` run inside the
loop, with one ``Transaction`` per game made fresh for each action. It must
play exactly the games of the general way (``legal_moves``/``apply_move``,
which call ``_act``), with the same states, events, random streams and
errors."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.compiler import pipeline, playout
from atoll.compiler.runtime import ModelError

ROOT = Path(__file__).resolve().parent.parent
SPECS = (sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll"))
         + [ROOT / "tests" / "golden" / "countdown.atoll"] + sorted((ROOT / "tests" / "good").glob("*.atoll")))


def _general(game, seed: int, cap: int):
    """``play_random`` the general way: every step through ``legal_moves``/``apply_move``."""
    st = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    steps = 0
    while st.outcome is None:
        moves = playout.legal_moves(game, st)
        if not moves:
            break
        playout.apply_move(game, st, rng.randrange(len(moves)))
        steps += 1
        if steps == cap:
            break
    return st, steps


def _seen(st):
    return (st.history, st.S, st.ctl, st.outcome, st.rng, st._events, st.pending, st.choosing, st.chosen)


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_written_out_step_plays_the_general_games(spec):
    comp = atoll.compile_spec(str(spec))
    lo, hi = comp.program.player_range
    for n in sorted({lo, hi}):
        game = pipeline.instantiate(comp, n)
        for seed in range(3):
            a, sa = playout.play_random(game, seed, max_steps=300)
            b, sb = _general(game, seed, 300)
            assert sa == sb
            assert _seen(a) == _seen(b), (spec.stem, n, seed)


def test_the_step_is_taken():
    """MasterIslands' random games run the written-out step, not _act."""
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=3)
    calls = []
    act = game._act
    game._act = lambda *a: (calls.append(a), act(*a))[1]
    st, steps = playout.play_random(game, 0)
    assert steps > 50 and len(calls) == 0


FAILS = """
game failing_step { title: "Failing step" players: 2..2 }
state {
  table: map[int, int] = {1: 10, 2: 20} visible all
  n: int = 1 visible all
}
flow { round { turns in seats: go } }
phase go {
  action add(k: int in [KEYS]) { n = n + table[k]  end phase }
  action grow() { n = n * GROW  end phase }
}
ending over after_turn when n > 100000 and GROW == 1 => tie
"""


@pytest.mark.parametrize("keys,grow,error", [
    ("1, 2, 3", 1, r"evaluating action `add`.*KeyError: 3"),    # a missing key: the effect fails
    ("1, 2", 1000000, "`n` holds an int past the bound"),      # an int past the bound (the ints watched)
])
def test_a_failing_step_is_reported_as_apply_move_reports_it(tmp_path, keys, grow, error):
    path = tmp_path / "failing.atoll"
    path.write_text(FAILS.replace("GROW", str(grow)).replace("KEYS", keys))
    game = atoll.load(str(path), players=2)
    for seed in range(6):
        with pytest.raises(ModelError, match=error) as fast:
            playout.play_random(game, seed, max_steps=100)
        with pytest.raises(ModelError, match=error) as general:
            _general(game, seed, 100)
        assert str(fast.value) == str(general.value)
    # and where it fails, the general way leaves the state as it was
    st = game.new_initial_state(seed=0)
    rng = random.Random(0)
    while True:
        before = (list(st.S), list(st.ctl), list(st.history))
        moves = playout.legal_moves(game, st)
        try:
            playout.apply_move(game, st, rng.randrange(len(moves)))
        except ModelError:
            assert (st.S, st.ctl, st.history) == before
            break


CHOOSE_THEN_DRAW = """
game choose_draw { title: "Choose then draw" players: 2..2 }
enum Crop { wheat, corn, beet }
state {
  sack: bag[Crop] = bag([wheat, corn, beet, wheat, corn, beet, wheat, corn, beet, wheat, corn, beet]) visible all
  player got: list[Crop] = [] visible all
  player takes: int = 0 visible all
}
phase work {
  action pick() when size(sack) > 0 {
    end turn
    choose w: Crop in [wheat, corn] by me
    draw c from sack
    got[me] = got[me] + [c, w]
  }
  action take() when size(sack) > 0 {
    draw c from sack
    got[me] = got[me] + [c]
    takes[me] = takes[me] + 1
  }
  action rest() { end turn }
}
flow { round { turns in players: work } }
ending empty immediately when size(sack) == 0 => tie
"""


def test_the_transaction_kept_for_the_game_starts_afresh_after_a_choice(tmp_path):
    """An action stopped by a choice inside its effect leaves the game's
    Transaction with its `end turn` signal set and no draw made; the choice
    is then made the general way, which draws. The next action must start
    from the state's stream and without the signal."""
    path = tmp_path / "choose_draw.atoll"
    path.write_text(CHOOSE_THEN_DRAW)
    game = atoll.load(str(path), players=2)
    waited = 0
    for seed in range(8):
        a, sa = playout.play_random(game, seed, max_steps=200)
        b, sb = _general(game, seed, 200)
        assert sa == sb and _seen(a) == _seen(b), seed
        waited += sum(1 for h in a.history if h >= 1 << 16)   # the picks (their ids carry the choice)
    assert waited


def test_a_generator_of_its_own_is_asked_by_randrange():
    """play_random draws from random.Random by its _randbelow (what randrange(n)
    returns for n >= 1); a subclass with a randrange of its own is asked by it."""
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=2)

    class Last(random.Random):
        def randrange(self, n):
            return n - 1

    a, _ = playout.play_random(game, 0, rng=Last(0), max_steps=40)
    st = game.new_initial_state(seed=0)
    for _ in range(40):
        moves = playout.legal_moves(game, st)
        if st.outcome is not None or not moves:
            break
        playout.apply_move(game, st, len(moves) - 1)
    assert a.history == st.history
    b, _ = playout.play_random(game, 0, rng=random.Random(0), max_steps=40)
    c, _ = playout.play_random(game, 0, max_steps=40)
    assert b.history == c.history == _general(game, 0, 40)[0].history
