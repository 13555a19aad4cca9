"""`k in m and m[k] == v` lowered as one lookup, ``m.get(k, f_absent) == v``
(compiler/lower.py ``present_equal``).

The generated code takes the new way where it may and stands aside where
``v`` can fail; the game plays exactly as the same spec lowered without the
rule (the same legal moves in the same order at every step, the same state
after every move), at 2 and 3 players; ``f_absent`` equals no value."""
import pytest

from atoll.compiler import names as N
from atoll.compiler import stdlib
from atoll.compiler.lower import Lowerer
from helpers import ROOT
from test_lowering_walks import _compile, _function, _lockstep

PRESENT = ROOT / "tests" / "good" / "present_keys.atoll"


def _plain():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Lowerer, "present_equal", lambda self, e: None)
        return _compile(PRESENT)


def test_the_generated_code_takes_the_new_way():
    _, games = _compile(PRESENT)
    g = games[2]
    src = g.source
    holder = g.layout.slots[("state", "holder")]
    marks = g.layout.slots[("state", "marks")]
    k, p = N.local("k"), N.local("p")
    # both ways round: one lookup, no `in` test
    for d in ("held", "held_back"):
        body = _function(src, N.def_fn(d))
        assert f"S[{holder}].get({k}, f_absent) == {p}" in body
        assert f"in S[{holder}]" not in body
    # a map whose values may be none: compared with None, the absent key is f_absent
    assert f"S[{marks}].get({k}, f_absent) == None" in _function(src, N.def_fn("unmarked"))
    # a when of a listing
    assert f"S[{holder}].get({N.local('c')}, f_absent) == me" in _function(src, N.action("choices", "hold"))
    # a right side that can fail: the plain way (the map is not read where the key is absent)
    first = _function(src, N.def_fn("first_held"))
    assert "f_absent" not in first and f"({k} in S[{holder}]) and " in first


def test_it_plays_as_the_plain_way():
    _, new = _compile(PRESENT)
    _, plain = _plain()
    assert new[2].source != plain[2].source
    for n in (2, 3):
        assert _lockstep(new[n], plain[n], range(25)) > 300


def test_the_defs_agree_with_the_plain_way_on_states_set_by_hand():
    _, new = _compile(PRESENT)
    _, plain = _plain()
    for n in (2, 3):
        a, b = new[n], plain[n]
        st = a.new_initial_state(seed=1)
        S = list(st.S)
        holder = a.layout.slots[("state", "holder")]
        marks = a.layout.slots[("state", "marks")]
        for own, mk in (({}, {}), ({0: 0, 3: 1, 7: 0}, {1: None, 6: 1}), ({k: 0 for k in range(8)}, {0: 0})):
            S[holder], S[marks] = own, mk
            for name in ("held", "held_back"):
                for p in range(n):
                    assert a.ns[N.def_fn(name)](S, p) == b.ns[N.def_fn(name)](S, p)
            assert a.ns[N.def_fn("unmarked")](S) == b.ns[N.def_fn("unmarked")](S)


def test_absent_equals_no_value():
    for v in (None, 0, 1, -1, True, False, "", "a", (), (0,), frozenset(), {}, {0: 1}):
        assert not (stdlib.ABSENT == v) and not (v == stdlib.ABSENT)
        assert stdlib.ABSENT != v
