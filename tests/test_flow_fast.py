"""The flow's fast steps (compiler/lower_flow.py, FlowEngine._act): a
`done when` that keeps the choices it lists for the listing, and the step
after an action written out; both must play exactly the games of the plain
engine (`_transact` and the plain `done` test)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.compiler import names as N

ROOT = Path(__file__).resolve().parent.parent
MI = ROOT / "spec" / "masterislands.atoll"
SPECS = [MI, ROOT / "spec" / "kanaloa.atoll", ROOT / "tests" / "golden" / "countdown.atoll",
         ROOT / "tests" / "good" / "dice_race.atoll"]


def _play(game, seed, chance="auto", cap=400):
    st = game.new_initial_state(seed=seed, chance=chance)
    rng = random.Random(seed)
    for _ in range(cap):
        if st.is_terminal():
            break
        moves = st.legal_moves()
        if not moves:
            break
        st.apply_move(rng.randrange(len(moves)))
    return st


def _plain(game):
    """The game with the fast steps off: no kept choices, every action through _transact."""
    game._phase_step = {k: v[:-1] + (None,) for k, v in game._phase_step.items()}
    game._act = lambda st, ai, params, forced: game._transact(st, (game.actions[ai], params), forced)
    return game


def test_done_keeps_the_choices_of_its_own_actions():
    game = atoll.load(str(MI), players=2)
    assert N.phase("donem", "discovery") in game.ns      # `done when ... can(place) or can(sail)`
    assert N.phase("donem", "conquest") not in game.ns   # no `can` in its `done`
    calls = {"n": 0}

    def counting(fast):
        g = atoll.load(str(MI), players=2)
        if not fast:
            _plain(g)
        # the walk over the phase's actions, whose listings are counted here
        # (the generated phase listings, tests/test_phase_listing.py, take the same kept lists)
        g._phase_list = {ph: None for ph in g._phase_list}
        ai = g.action_by_name["place"].index
        choices = g._choices[ai]

        def wrapped(S, me):
            calls["n"] += 1
            return choices(S, me)
        g._move_listing = {ph: tuple((w, wrapped if i == ai else c, i) for w, c, i in rows)
                           for ph, rows in g._move_listing.items()}
        calls["n"] = 0
        states = [_play(g, s) for s in range(3)]
        return calls["n"], [st.history for st in states]

    fast_calls, fast_hist = counting(True)
    plain_calls, plain_hist = counting(False)
    assert fast_hist == plain_hist
    assert fast_calls < plain_calls / 2   # the listing takes the kept lists


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_fast_steps_play_the_plain_games(spec):
    fast, plain = atoll.load(str(spec)), _plain(atoll.load(str(spec)))
    failed = []

    def watched(donem):   # the kept-choices test must not fail where the plain one works
        def run(S, me, M):
            try:
                return donem(S, me, M)
            except Exception as e:
                failed.append(e)
                raise
        return None if donem is None else run
    fast._phase_step = {k: v[:-1] + (watched(v[-1]),) for k, v in fast._phase_step.items()}
    fast._act_steps = [s[:-1] + (watched(s[-1]),) for s in fast._act_steps]
    for seed in range(3):
        for chance in ("auto", "explicit"):
            a, b = _play(fast, seed, chance), _play(plain, seed, chance)
            assert a.history == b.history and a.to_json() == b.to_json()
            assert a.legal_moves() == b.legal_moves()
    assert not failed


def test_a_done_test_that_fails_falls_back_to_the_plain_one():
    fast, plain = atoll.load(str(MI), players=3), _plain(atoll.load(str(MI), players=3))

    def broken(S, me, M):
        M[0] = ["not a choice"]   # what it kept before failing must not be used
        raise KeyError("boom")
    fast._phase_step = {k: v[:-1] + ((broken,) if v[-1] is not None else (None,))
                        for k, v in fast._phase_step.items()}
    fast._act_steps = [s[:-1] + ((broken,) if s[-1] is not None else (None,)) for s in fast._act_steps]
    for seed in range(3):
        assert _play(fast, seed).to_json() == _play(plain, seed).to_json()


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_move_ids_are_the_action_ids(spec):
    """verify.runs.move_id (the verifier's play on the lean path) names
    each move by the id of its Action, at every kind of node."""
    from atoll.verify.runs import move_id
    game = atoll.load(str(spec))
    for chance in ("auto", "explicit"):
        st = game.new_initial_state(seed=1, chance=chance)
        rng = random.Random(1)
        for _ in range(80):
            if st.is_terminal() or not st.legal_moves():
                break
            moves = st.legal_moves()
            i = rng.randrange(len(moves))
            want = st.clone().legal_actions()[i].id   # a clone: st keeps its lean listing
            assert move_id(st, moves, i) == want
            st.apply_move(i)


STEPS = """
game steps { title: "Steps" players: 2 }
state { player walked: int = 0 visible all }
phase walk "Step as often as you like, then stop." {
  action step() { walked[me] = walked[me] + 1 }
  action stop() { end turn }
}
flow { round { turns in players: walk } }
ending arrived immediately when any(walked[p] >= 3 for p in players) => rank p by walked[p]
ending late after_round when current_round >= 5 => rank p by walked[p] else shared
"""


def test_an_immediate_ending_after_an_action_that_goes_on_in_the_phase(tmp_path):
    # The fast step after an action is taken only when nothing ends: a `step`
    # neither ends the turn nor the phase, so the third one must end the game
    # at once (a fast step that let it go on ended it later or never)
    spec = tmp_path / "steps.atoll"
    spec.write_text(STEPS)
    for game in (atoll.load(spec, players=2), _plain(atoll.load(spec, players=2))):
        st = game.new_initial_state(seed=0)
        for k in range(3):
            assert not st.is_terminal()
            st.apply_action(next(a for a in st.legal_actions() if a.kind == "step"))
        assert st.is_terminal() and st.ending() == "arrived"
        assert st.winners() == (0,) and st.history == [st.history[0]] * 3


BONUS = """
game bonus { title: "Bonus" players: 2 }
state {
  player bonus: int = 0 visible all
  player walked: int = 0 visible all
}
phase collect "Collect a bonus on entering; again while fewer than three." {
  on enter { bonus[me] = bonus[me] + 1 }
  done when not can(take) "nothing to take"
  repeat when bonus[me] < 3 "fewer than three bonuses"
  action take() when walked[me] > 100 { walked[me] = 0 }
}
phase walk "Walk one step." {
  action step() { walked[me] = walked[me] + 1  end turn }
}
flow { round { turns in players: collect, walk } }
ending late after_round when current_round >= 2 => rank p by bonus[p] else shared
"""


def test_a_phase_done_on_entering_repeats_through_the_automatic_steps(tmp_path):
    # `collect` is over as soon as it is entered (its `done when` asks can()
    # of its own action): it repeats, entering again, until the third bonus,
    # with no decision in between, then the player walks
    spec = tmp_path / "bonus.atoll"
    spec.write_text(BONUS)
    for game in (atoll.load(spec, players=2), _plain(atoll.load(spec, players=2))):
        st = game.new_initial_state(seed=0)
        assert st.observation(0)["state"]["bonus"] == [3, 0]
        assert [a.kind for a in st.legal_actions()] == ["step"]
        st.apply_action(st.legal_actions()[0])
        assert st.observation(0)["state"]["bonus"] == [3, 3]
        assert st.observation(0)["state"]["walked"] == [1, 0]
