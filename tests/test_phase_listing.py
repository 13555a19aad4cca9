"""The legal moves of a phase in one generated function
(compiler/lower_listing.py, ``phlist_<phase>``): every spec lists the same
moves, with the same ends, and plays the same games as with the walk over
the phase's actions (``playout._list`` with ``Game._phase_list`` switched
off); errors are worded as before; and a listing written in place keeps the
order of its `when`s."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.compiler import names as N
from atoll.compiler import pipeline
from atoll.compiler.playout import Moves, apply_move, legal_moves
from atoll.compiler.runtime import IllegalAction, ModelError

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll")) \
    + [ROOT / "tests" / "golden" / "countdown.atoll"] + sorted((ROOT / "tests" / "good").glob("*.atoll"))


def _games(spec, n):
    comp = atoll.compile_spec(str(spec))
    a = pipeline.instantiate(comp, n)
    b = pipeline.instantiate(comp, n)
    b._phase_list = {name: None for name in b._phase_list}   # the walk
    return a, b


def _counting(game) -> dict:
    """Count the calls of the generated listings of ``game``."""
    calls = {}
    for name, f in game._phase_list.items():
        if f is not None:
            def counted(*args, f=f, name=name):
                calls[name] = calls.get(name, 0) + 1
                return f(*args)
            game._phase_list[name] = counted
    return calls


def _lockstep(a, b, seeds, cap=300):
    """Play both games with the same random choices: the same moves (and
    ends) at every step, the same states, the same errors. Returns the
    number of steps compared."""
    steps = 0
    for seed in seeds:
        x, y = a.new_initial_state(seed=seed), b.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(cap):
            assert x.S == y.S and x.ctl == y.ctl and x.outcome == y.outcome, f"seed {seed}: the states part"
            if x.outcome is not None:
                break
            errs = []
            lists = []
            for g, st in ((a, x), (b, y)):
                try:
                    lists.append(legal_moves(g, st))
                except ModelError as e:
                    errs.append(str(e))
            if errs:
                assert len(errs) == 2 and errs[0] == errs[1], f"seed {seed}: {errs}"
                break
            la, lb = lists
            assert list(la) == list(lb), f"seed {seed}: the moves differ"
            if isinstance(la, Moves) or isinstance(lb, Moves):
                assert la.ends == lb.ends, f"seed {seed}: the ends differ"
            if not la:
                break
            i = rng.randrange(len(la))
            res = []
            for g, st in ((a, x), (b, y)):
                try:
                    apply_move(g, st, i)
                    res.append(None)
                except (ModelError, IllegalAction) as e:
                    res.append(str(e))
            assert res[0] == res[1], f"seed {seed}: {res}"
            steps += 1
            if res[0] is not None:
                break
    return steps


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_every_spec_lists_and_plays_as_the_walk(spec):
    comp = atoll.compile_spec(str(spec))
    lo, hi = comp.program.player_range
    used = 0
    for n in sorted({lo, hi}):
        a, b = _games(spec, n)
        calls = _counting(a)
        _lockstep(a, b, range(4))
        used += sum(calls.values())
    if any(ph.actions for ph in comp.program.phases.values()):
        assert used, "the generated listings were never called"


def test_masterislands_module_has_a_listing_per_phase_and_inlines_parameterless_actions():
    g = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=3)
    for name in ("discovery", "raid", "conquest"):
        assert g._phase_list[name] is not None
    src = g.source.split(f"def {N.phase('list', 'discovery')}(")[1].split("\ndef ")[0]
    assert N.action("choices", "discover_again") not in src   # written in place
    assert f"memo[0] if 0 in memo else {N.action('choices', 'place')}" in src   # kept by the done when
    conquest = g.source.split(f"def {N.phase('list', 'conquest')}(")[1].split("\ndef ")[0]
    assert "memo" not in conquest.split(":", 1)[1]   # nothing kept there: no lookup


ORDER = """
game when_order { title: "When order" players: 2..2 }
state {
  table: map[int, int] = {1: 10} visible all
  n: int = 0 visible all
  slot: int = KEY visible all
}
flow { round { turns in seats: go } }
phase go {
  action pick(i: int in [1, 2]) { n = n + 1  end phase }
  action poke()
    when table[slot] > 0
    when n > 100
  { n = n + 1  end phase }
}
ending over after_turn when n > 5 => tie
"""


@pytest.mark.parametrize("key,error", [(1, None), (2, "the choices of action `poke`.*KeyError")])
def test_a_when_written_in_place_is_tested_in_the_specs_order(tmp_path, key, error):
    """``poke``'s first `when` fails (no key 2) where its second is false:
    the plain listing raises, and so must the one written in place (testing
    the second first would answer ``[]`` and hide the error)."""
    path = tmp_path / "order.atoll"
    path.write_text(ORDER.replace("KEY", str(key)))
    a = atoll.load(str(path), players=2)
    b = atoll.load(str(path), players=2)
    b._phase_list = {name: None for name in b._phase_list}
    assert a._phase_list["go"] is not None
    x, y = a.new_initial_state(seed=0), b.new_initial_state(seed=0)
    if error is None:
        assert list(legal_moves(a, x)) == list(legal_moves(b, y)) == [(1,), (2,)]
        return
    with pytest.raises(ModelError, match=error) as by_walk:
        legal_moves(b, y)
    with pytest.raises(ModelError, match=error) as by_phase:
        legal_moves(a, x)
    assert str(by_phase.value) == str(by_walk.value)
    # the listing written in place raises itself (it does not answer [] for poke)
    S, me = x.S, x.current_player()
    with pytest.raises(KeyError):
        a._phase_list["go"](S, me, (), Moves)


ENSURES = """
game ensured { title: "Ensured" players: 2..2 }
state { n: int = 0 visible all }
flow { round { turns in seats: go } }
phase go {
  action pick(i: int in [1, 2]) { n = n + i  end phase }
  action stay()
    ensures n > 3
  { n = n + 1  end phase }
}
ending over after_turn when n > 8 => tie
"""


def test_a_parameterless_action_with_ensures_keeps_its_listing(tmp_path):
    """``stay`` is legal only once its effect leads past 3: not written in
    place (the test of its `when`s alone would list it from the start)."""
    path = tmp_path / "ensured.atoll"
    path.write_text(ENSURES)
    a = atoll.load(str(path), players=2)
    b = atoll.load(str(path), players=2)
    b._phase_list = {name: None for name in b._phase_list}
    assert list(legal_moves(a, a.new_initial_state(seed=0))) == [(1,), (2,)]
    assert _lockstep(a, b, range(6)) > 10


@pytest.mark.parametrize("spec", [p for p in SPECS if p.parent.name in ("spec", "variants")], ids=lambda p: p.stem)
def test_play_random_lists_in_line_as_legal_moves_does(spec):
    """``play_random`` calls the phase listing itself (legal_moves and
    _list written out): the same games as through legal_moves with the walk."""
    from atoll.compiler.playout import play_random
    comp = atoll.compile_spec(str(spec))
    n = comp.program.player_range[0]
    a = pipeline.instantiate(comp, n)
    b = pipeline.instantiate(comp, n)
    b._phase_list = {name: None for name in b._phase_list}
    calls = _counting(a)
    for seed in range(3):
        x, i = play_random(a, seed, max_steps=300)
        y, j = play_random(b, seed, max_steps=300)
        assert (i, x.S, x.ctl, x.outcome, x._hist) == (j, y.S, y.ctl, y.outcome, y._hist), seed
    assert sum(calls.values()) > 0


LIMITS = """
game many { title: "Many" players: 2..2 }
state { n: int = 0 visible all  table: map[int, int] = {1: 10} visible all }
flow { round { turns in seats: go } }
phase go {
  action first(i: int in range(FIRST)) { n = n + 1  end phase }
  action second(k: int in [1, 2], i: int in range(SECOND))
    when WHEN
  { n = n + 1  end phase }
}
ending over after_turn when n > 5 => tie
"""


@pytest.mark.parametrize("first,second,when,error", [
    (3, 1, "table[k] > 0", "the choices of action `second`.*KeyError"),
    (60000, 45000, "k > 0", "second.*more than 100,000 legal actions"),
])
def test_play_random_words_a_failing_listing_as_legal_moves(tmp_path, first, second, when, error):
    from atoll.compiler.playout import play_random
    path = tmp_path / "many.atoll"
    path.write_text(LIMITS.replace("FIRST", str(first)).replace("SECOND", str(second)).replace("WHEN", when))
    game = atoll.load(str(path), players=2)
    with pytest.raises(ModelError, match=error) as by_moves:
        legal_moves(game, game.new_initial_state(seed=0))
    with pytest.raises(ModelError, match=error) as by_play:
        play_random(game, 0)
    assert str(by_play.value) == str(by_moves.value)
