"""verify/z3sem.py, piece by piece and fast: reading symbolic values back
(`concrete`), the well-formedness of free values (`domain`, `fresh`), the
fields of records, and every function with a z3 meaning compared with Python
on fixed symbolic collections, all compiled in one spec. The random
agreement tests (tests/test_z3_agreement.py) range wider but take seconds
each; these are what mutation testing runs on every mutant."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import z3

import atoll
from atoll.compiler import types as T
from atoll.verify.z3sem import TRUE, Coll, Opt, SMap, Z3Eval, eq

from test_z3_agreement import (BAG_CANDIDATES, GRID, M_KEYS, S_UNIVERSE, SYM_HEADER, SYMBOLIC_CASES,
                               T_UNIVERSE, XS_CANDIDATES, symbolic_collections)

SPEC = """
game units { players: 2..2 }
enum Colour { red, green, blue }
record Rec { k: int, c: Colour }
state { x: int = 0 }
phase p { action go() { end phase } }
flow { round { turns in seats: p } }
"""


@pytest.fixture(scope="module")
def ev():
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "units.atoll"
        path.write_text(SPEC)
        comp = atoll.compile_spec(path)
        game = atoll.compiler.pipeline.instantiate(comp, 2)
    return Z3Eval(comp.program, game, fold=False)


COLOUR = ("enum", "Colour")
REC = ("record", "Rec")
POS = ("record", "Pos")


def sat(*cons) -> bool:
    s = z3.Solver()
    s.add(*cons)
    return s.check() == z3.sat


# ---------------------------------------------------------------- concrete: symbolic -> Python
def test_collections_read_back_by_kind(ev):
    items = [(z3.IntVal(3), TRUE), (z3.IntVal(1), TRUE), (z3.IntVal(2), z3.BoolVal(False)),
             (z3.IntVal(3), TRUE)]
    assert ev.concrete(("list", T.INT), Coll("list", items)) == (3, 1, 3)      # order kept
    assert ev.concrete(("bag", T.INT), Coll("bag", items)) == (1, 3, 3)        # a bag reads sorted
    assert ev.concrete(("set", T.INT), Coll("set", items)) == frozenset({1, 3})


def test_a_map_reads_back_keys_and_values_by_their_types(ev):
    m = SMap([(z3.IntVal(4), z3.IntVal(2), TRUE), (z3.IntVal(5), z3.IntVal(0), z3.BoolVal(False)),
              (z3.IntVal(1), z3.IntVal(1), TRUE)])
    assert ev.concrete(("map", T.INT, COLOUR), m) == {4: 2, 1: 1}
    rk = SMap([((z3.IntVal(7), z3.IntVal(2)), z3.BoolVal(True), TRUE)])
    assert ev.concrete(("map", REC, T.BOOL), rk) == {(7, 2): True}


def test_a_maybe_reads_back_only_when_it_holds(ev):
    assert ev.concrete(("maybe", T.INT), Opt(TRUE, z3.IntVal(5))) == 5
    assert ev.concrete(("maybe", T.INT), Opt(z3.BoolVal(False), z3.IntVal(5))) is None
    assert ev.concrete(("maybe", T.INT), Opt(z3.BoolVal(False), None)) is None
    # under a model: the flag's value in the model decides
    has, v = z3.Bool("h"), z3.Int("v")
    s = z3.Solver()
    s.add(has == False, v == 3)   # noqa: E712 (a z3 term)
    s.check()
    assert ev.concrete(("maybe", T.INT), Opt(has, v), s.model()) is None
    s = z3.Solver()
    s.add(has == True, v == 3)    # noqa: E712
    s.check()
    assert ev.concrete(("maybe", T.INT), Opt(has, v), s.model()) == 3


def test_records_tuples_and_scalars_read_back(ev):
    assert ev.concrete(REC, (z3.IntVal(7), z3.IntVal(2))) == (7, 2)
    assert ev.concrete(POS, (z3.IntVal(1), z3.IntVal(-1))) == (1, -1)
    assert ev.concrete(("tuple", T.INT, T.BOOL), (z3.IntVal(4), z3.BoolVal(True))) == (4, True)
    assert ev.concrete(T.BOOL, z3.BoolVal(False)) is False
    assert ev.concrete(T.STR, z3.StringVal("ab")) == "ab"
    assert ev.concrete(COLOUR, z3.IntVal(1)) == 1


# ---------------------------------------------------------------- fresh values and their domains
def test_record_fields(ev):
    assert ev.fields("Pos") == [("x", T.INT), ("y", T.INT)]
    assert [n for n, _ in ev.fields("Rec")] == ["k", "c"]


def test_two_fresh_values_are_independent(ev):
    a, b = ev.fresh(T.INT), ev.fresh(T.INT)
    assert sat(a != b)
    r, q = ev.fresh(REC, "r"), ev.fresh(REC, "r")
    assert sat(r[0] != q[0], r[1] != q[1])
    o = ev.fresh(("maybe", T.INT))
    assert sat(o.has) and sat(z3.Not(o.has))


@pytest.mark.parametrize("t,get", [
    (COLOUR, lambda v: v),
    (REC, lambda v: v[1]),
    (("tuple", T.INT, COLOUR), lambda v: v[1]),
    (("maybe", COLOUR), lambda v: v.val),
    (("tuple", T.BOOL, ("maybe", COLOUR)), lambda v: v[1].val),
], ids=["enum", "record", "tuple", "maybe", "nested"])
def test_a_free_enum_stays_among_its_members(ev, t, get):
    v = ev.fresh(t)
    dom = ev.domain(t, v)
    c = get(v)
    assert sat(dom, c == 2) and sat(dom, c == 0)
    assert not sat(dom, c == 3) and not sat(dom, c == -1)


def test_a_free_int_has_no_domain(ev):
    v = ev.fresh(T.INT)
    assert sat(ev.domain(T.INT, v), v == -1000)
    r = ev.fresh(POS)
    assert sat(ev.domain(POS, r), r[0] == -5, r[1] == 99)


# ---------------------------------------------------------------- every z3 function, fixed inputs
# The same cases as the random test (test_symbolic_collections_agree_with_python),
# all in one spec (one compile), over a handful of fixed inputs that include
# the empty and the full collections.
def _inputs():
    n = {"s": len(S_UNIVERSE), "t": len(T_UNIVERSE), "xs": len(XS_CANDIDATES), "bg": len(BAG_CANDIDATES),
         "m": len(M_KEYS), "ps": len(GRID)}
    every = {k: [True] * v for k, v in n.items()}
    none = {k: [False] * v for k, v in n.items()}
    odd = {k: [i % 2 == 1 for i in range(v)] for k, v in n.items()}
    even = {k: [i % 2 == 0 for i in range(v)] for k, v in n.items()}
    mixed = {k: [i % 3 != 1 for i in range(v)] for k, v in n.items()}
    return [
        dict(every, a=0, b=3, mv=[1, -2, 3, 0], o=2),
        dict(none, a=-2, b=4, mv=[0, 0, 0, 0], o=None),
        dict(odd, a=1, b=1, mv=[3, 3, -3, 2], o=1),
        dict(even, a=3, b=-1, mv=[-1, 2, 0, 1], o=3),
        dict(mixed, a=2, b=0, mv=[2, -3, 1, -1], o=None),
    ]


CASES = [(name, result, expr) for name, cases in sorted(SYMBOLIC_CASES.items()) for result, expr in cases]


@pytest.fixture(scope="module")
def all_cases():
    head, sig = SYM_HEADER.split("def f(")
    sig = sig.split("): RESULT")[0]
    text = head + "".join(f"def f{i}({sig}): {result} = {expr}\n" for i, (_, result, expr) in enumerate(CASES))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "all.atoll"
        path.write_text(text)
        comp = atoll.compile_spec(path)
        game = atoll.compiler.pipeline.instantiate(comp, 2)
    return comp, game


def test_fixed_inputs_cover_empty_and_full():
    ins = _inputs()
    assert any(all(v["s"]) for v in ins) and any(not any(v["s"]) for v in ins)


@pytest.mark.parametrize("k", range(len(_inputs())))
def test_every_z3_function_agrees_with_python_on_fixed_inputs(all_cases, k):
    from atoll.compiler.check import Checker
    from atoll.diagnostics import Reporter
    comp, game = all_cases
    v = _inputs()[k]
    env, cons, args = symbolic_collections(v)
    ev = Z3Eval(comp.program, game, fold=False)
    checker = Checker(comp.program, Reporter())
    wrong = []
    for i, (name, _, expr) in enumerate(CASES):
        py = game.ns[f"d_f{i}"](None, *args)
        d = comp.program.defs[f"f{i}"]
        sym = ev.ev(d.body, env)
        want = ev.lift(checker.resolve(d.type), py)
        s = z3.Solver()
        s.add(*cons)
        s.add(z3.Not(eq(sym, want)))
        if s.check() != z3.unsat:
            wrong.append(f"{name}: `{expr}` (Python gives {py!r})")
    assert not wrong, wrong


# ---------------------------------------------------------------- names, calls and forms, against Python
FORMS = """
game forms { players: 4..4 }
enum Colour { red, green, blue }
record Rec { k: int, c: Colour }
teams = [[0, 2]]          # 1 and 3 are teams of one
state { x: int = 0 }
phase p { action go() { end phase } }
flow { round { turns in seats: p } }
"""
FORM_CASES = [
    # the first case that holds gives the value (`mid` and `high` overlap)
    ("int", "cases { low: a < 2 => a * 10, mid: a < 5 => a + 100, high: a >= 2 => 7 }"),
    ("int", "match a % 3 { 0 => 5, 1 => a, _ => 9 }"),
    ("int", "match (if a > 2 then red else blue) { red => 1, green => 2, blue => 3 }"),
    ("int", "[a, a + 1, 5][a % 3] + [2, 4][a % 2]"),                      # list items at a symbolic index
    ("list[int]", "team_of(a % 4)"),                                  # a team in z3
    ("int", "sum(q for q in team_of(a % 4)) + size(team_of(a % 4))"),
    ("int", "Rec(c: blue, k: a).k * 10 + (if Rec(c: blue, k: a).c == blue then 1 else 0)"),
    ("list[int]", "[q + a for q in seats]"),
    ("int", "size(players) * 10 + player_count"),
    ("bool", "value_or(none, a) == a"),
    ("int", "sum(get({k: k * a for k in between(0, 3)}, j, 0) for j in between(0, 4))"),
    ("list[int]", "values({1: a, 2: a + 1})"),                          # Python meaning only: concrete inputs
    ("list[int]", "seats_from(2, 4)"),
]


@pytest.fixture(scope="module")
def forms():
    text = FORMS + "".join(f"def f{i}(a: int): {r} = {x}\n" for i, (r, x) in enumerate(FORM_CASES))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "forms.atoll"
        path.write_text(text)
        comp = atoll.compile_spec(path)
        game = atoll.compiler.pipeline.instantiate(comp, 4)
    return comp, game


@pytest.mark.parametrize("i", range(len(FORM_CASES)), ids=[x for _, x in FORM_CASES])
def test_names_calls_and_forms_agree_with_python(forms, i):
    from atoll.compiler.check import Checker
    from atoll.diagnostics import Reporter
    comp, game = forms
    d = comp.program.defs[f"f{i}"]
    t = Checker(comp.program, Reporter()).resolve(d.type)
    for a in (0, 1, 3, 6):
        ev = Z3Eval(comp.program, game, fold=False)
        py = game.ns[f"d_f{i}"](None, a)
        sym = ev.ev(d.body, {"a": z3.IntVal(a)})
        assert not sat(z3.Not(eq(sym, ev.lift(t, py)))), (FORM_CASES[i][1], a, py)
        # with `a` symbolic, the same value under a = constant
        x = z3.Int("a")
        if i < 11:
            sym = ev.ev(d.body, {"a": x})
            assert not sat(x == a, z3.Not(eq(sym, ev.lift(t, py)))), (FORM_CASES[i][1], a, py)
        elif i == 11:   # `values` has a Python meaning only: symbolic inputs have none
            from atoll.verify.z3sem import Unsupported
            with pytest.raises(Unsupported, match="symbolic"):
                ev.ev(d.body, {"a": x})


def test_building_a_meaning_stops_at_its_deadline(ev):
    e = Z3Eval(ev.p, None, fold=False)
    e._deadline = 0.0          # long past
    big = " + ".join(["1"] * 3000)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "big.atoll"
        path.write_text(SPEC + f"def big(a: int): int = a + {big}\n")
        comp = atoll.compile_spec(path)
    e = Z3Eval(comp.program, None, fold=False)
    e._deadline = 0.0
    from atoll.verify.z3sem import Unsupported
    with pytest.raises(Unsupported, match="took more than"):
        e.ev(comp.program.defs["big"].body, {"a": z3.Int("a")})
