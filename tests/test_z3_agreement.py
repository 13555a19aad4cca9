"""The two meanings of an expression agree: the Python one (the lowering, used
by the model) and the z3 one (used by the verifier), on random well-typed
expressions over random inputs. The inputs reach z3 as free constants pinned
to the values, so z3 evaluates every form symbolically, not by shortcut."""
import re
import tempfile
from pathlib import Path

import pytest
import z3
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import atoll
from atoll.compiler.stdlib import EvalError
from atoll.verify.z3sem import Coll, Unsupported, Z3Eval, eq

HEADER = """
game agree { players: 2..2 }
enum Colour { red, green, blue }
record Rec { k: int, c: Colour }
state { x: int = 0 }
phase p { action go() { end phase } }
flow { round { turns in seats: p } }
def f(a: int, b: int, xs: list[int], s: set[int], c: Colour, r: Rec): RESULT = EXPR
"""
COLOURS = ["red", "green", "blue"]
UNIVERSE = list(range(-3, 6))   # the items a set input may hold

# ---------------------------------------------------------------- expressions by type


def _v(text: str) -> str:
    """Bind the comprehension variable: the free `a` of an element becomes `v`."""
    return re.sub(r"\ba\b", "v", text)


def ints(depth):
    leaf = st.one_of(st.integers(-6, 9).map(str), st.sampled_from(["a", "b", "r.k", "size(xs)", "size(s)"]))
    if depth <= 0:
        return leaf
    i, b, L, S = ints(depth - 1), bools(depth - 1), lists(depth - 1), sets(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(i, st.sampled_from(["+", "-", "*", "/", "%"]), i).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        i.map(lambda x: f"(-{x})"),
        st.tuples(b, i, i).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.tuples(st.sampled_from(["sum", "min", "max"]), i, L).map(
            lambda t: f"{t[0]}({_v(t[1])} for v in {t[2]})"),
        st.tuples(L, b).map(lambda t: f"count(v for v in {t[0]} if {_v(t[1])})"),
        st.tuples(st.sampled_from(["abs"]), i).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["min2", "max2"]), i, i).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(L, i).map(lambda t: f"count_of({t[0]}, {t[1]})"),
        st.tuples(L).map(lambda t: f"size({t[0]})"),
        st.tuples(S).map(lambda t: f"size({t[0]})"),
        st.tuples(i, i).map(lambda t: f"Rec({t[0]}, red).k"),
        st.tuples(i, i, i).map(lambda t: f"get({{1: {t[0]}, 2: {t[1]}}}, a, {t[2]})"),
        st.tuples(i, i).map(lambda t: f"{{1: {t[0]}, 2: {t[1]}, a: 7}}[a]"),
        st.sampled_from(["match c { red => 1, green => a, blue => b }",
                         "match a { 0 => 5, 1 => b, _ => a * 2 }",
                         "cases { low: a < b => a, high: a >= b => b - a }"]),
    )


def bools(depth):
    leaf = st.sampled_from(["true", "false", "a < b", "c == green", "r.c != blue", "a in xs", "b in s"])
    if depth <= 0:
        return leaf
    i, b, L, S = ints(depth - 1), bools(depth - 1), lists(depth - 1), sets(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(b, st.sampled_from(["and", "or"]), b).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        b.map(lambda x: f"(not {x})"),
        st.tuples(i, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), i).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(i, st.sampled_from(["in", "not in"]), L).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(i, st.sampled_from(["in", "not in"]), S).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["all", "any"]), b, L).map(
            lambda t: f"{t[0]}({_v(t[1])} for v in {t[2]})"),
        st.tuples(S, S).map(lambda t: f"({t[0]} == {t[1]})"),
        st.tuples(L, L).map(lambda t: f"(sorted({t[0]}) == sorted({t[1]}))"),
        st.tuples(i, i).map(lambda t: f"(Rec({t[0]}, c) == Rec({t[1]}, c))"),
    )


def lists(depth):
    leaf = st.sampled_from(["xs", "[a, b, 2]", "[]", "sorted(s)", "between(-1, 2)"])
    if depth <= 0:
        return leaf
    i, b, L, S = ints(depth - 1), bools(depth - 1), lists(depth - 1), sets(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(i, i).map(lambda t: f"[{t[0]}, {t[1]}]"),
        st.tuples(L, L).map(lambda t: f"({t[0]} + {t[1]})"),
        st.tuples(i, L, b).map(lambda t: f"[{_v(t[0])} for v in {t[1]} if {_v(t[2])}]"),
        st.tuples(b, L, L).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.tuples(L, S).map(lambda t: f"without({t[0]}, {t[1]})"),
        S.map(lambda x: f"sorted({x})"),
        S.map(lambda x: f"to_list({x})"),
    )


def sets(depth):
    leaf = st.sampled_from(["s", "{a, b}", "distinct(xs)", "keys({1: a, b: 2})"])
    if depth <= 0:
        return leaf
    i, b, L, S = ints(depth - 1), bools(depth - 1), lists(depth - 1), sets(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(S, st.sampled_from(["+", "-"]), S).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(i, L, b).map(lambda t: f"{{{_v(t[0])} for v in {t[1]} if {_v(t[2])}}}"),
        L.map(lambda x: f"distinct({x})"),
        st.tuples(b, S, S).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
    )


EXPRS = st.one_of(
    st.tuples(st.just("int"), ints(2)),
    st.tuples(st.just("bool"), bools(2)),
    st.tuples(st.just("list[int]"), lists(2)),
    st.tuples(st.just("set[int]"), sets(2)),
)
INPUTS = st.fixed_dictionaries({
    "a": st.integers(-4, 6), "b": st.integers(-4, 6),
    "xs": st.lists(st.integers(-3, 5), max_size=4),
    "s": st.sets(st.sampled_from(UNIVERSE), max_size=4),
    "c": st.integers(0, 2), "rk": st.integers(-3, 4), "rc": st.integers(0, 2),
})

_compiled = {}


def compile_expr(result: str, expr: str):
    key = (result, expr)
    if key not in _compiled:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "agree.atoll"
            path.write_text(HEADER.replace("RESULT", result).replace("EXPR", expr))
            comp = atoll.compile_spec(path)
            game = atoll.compiler.pipeline.instantiate(comp, 2)
        _compiled[key] = (comp, game)
    return _compiled[key]


def symbolic_inputs(v, ev):
    """Free z3 constants pinned to the input values."""
    cons = []
    a, b, c = z3.Int("a"), z3.Int("b"), z3.Int("c")
    cons += [a == v["a"], b == v["b"], c == v["c"]]
    xs_items = []
    for i, x in enumerate(v["xs"]):
        e = z3.Int(f"xs{i}")
        cons.append(e == x)
        xs_items.append((e, z3.BoolVal(True)))
    s_items = []
    for u in UNIVERSE:
        m = z3.Bool(f"s_has_{u}")
        cons.append(m == (u in v["s"]))
        s_items.append((z3.IntVal(u), m))
    rk, rc = z3.Int("rk"), z3.Int("rc")
    cons += [rk == v["rk"], rc == v["rc"]]
    env = {"a": a, "b": b, "xs": Coll("list", xs_items), "s": Coll("set", s_items), "c": c, "r": (rk, rc)}
    return env, cons


TYPES = {"int": "int", "bool": "bool", "list[int]": ("list", "int"), "set[int]": ("set", "int")}


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.filter_too_much])
@given(case=EXPRS, v=INPUTS)
# Edge cases every run covers, besides the random ones: floor division and
# modulo by negative numbers and by zero, duplicates in set union, ordering
# of symbolic items, lists whose length depends on the inputs.
@example(case=("int", "(a / b)"), v=dict(a=5, b=-2, xs=[], s=set(), c=0, rk=0, rc=0))
@example(case=("int", "(a % b)"), v=dict(a=-5, b=3, xs=[], s=set(), c=0, rk=0, rc=0))
@example(case=("int", "(a / b) + (a % b)"), v=dict(a=4, b=0, xs=[], s=set(), c=0, rk=0, rc=0))
@example(case=("int", "size({a, b} + s)"), v=dict(a=1, b=1, xs=[], s={1, 2}, c=0, rk=0, rc=0))
@example(case=("list[int]", "sorted(distinct(xs + [a, b]))"), v=dict(a=3, b=-1, xs=[2, 3, -1], s=set(), c=0, rk=0, rc=0))
@example(case=("bool", "([v for v in xs if v > a] == [b])"), v=dict(a=0, b=4, xs=[-1, 4, 0], s=set(), c=0, rk=0, rc=0))
@example(case=("int", "min(v for v in xs) + max(v for v in [])"), v=dict(a=0, b=0, xs=[3, -2, 5], s=set(), c=0, rk=0, rc=0))
@example(case=("int", "match c { red => 1, green => a, blue => b }"), v=dict(a=7, b=8, xs=[], s=set(), c=2, rk=0, rc=0))
def test_python_and_z3_meanings_agree(case, v):
    result, expr = case
    comp, game = compile_expr(result, expr)
    args = (v["a"], v["b"], tuple(v["xs"]), frozenset(v["s"]), v["c"], (v["rk"], v["rc"]))
    try:
        py = game.ns["d_f"](None, *args)
    except EvalError:
        assume(False)   # a partial operation (indexing a missing key): no meaning to compare
    ev = Z3Eval(comp.program, game)
    env, cons = symbolic_inputs(v, ev)
    body = comp.program.defs["f"].body
    try:
        sym = ev.ev(body, env)
    except Unsupported as e:
        pytest.fail(f"no z3 meaning for `{expr}`: {e}")
    want = ev.lift(TYPES[result], py)
    s = z3.Solver()
    s.add(*cons)
    s.add(z3.Not(eq(sym, want)))
    assert s.check() == z3.unsat, f"`{expr}` with {v}: Python gives {py!r}, z3 disagrees"


def test_the_agreement_test_can_fail():
    """A planted disagreement (z3 told a different value) is caught."""
    comp, game = compile_expr("int", "(a / b)")
    ev = Z3Eval(comp.program, game)
    env, cons = symbolic_inputs({"a": 7, "b": -2, "xs": [], "s": set(), "c": 0, "rk": 0, "rc": 0}, ev)
    sym = ev.ev(comp.program.defs["f"].body, env)
    py = game.ns["d_f"](None, 7, -2, (), frozenset(), 0, (0, 0))
    assert py == -4   # floor division, as in the language reference
    s = z3.Solver()
    s.add(*cons, z3.Not(sym == py + 1))
    assert s.check() == z3.sat
    s = z3.Solver()
    s.add(*cons, z3.Not(sym == py))
    assert s.check() == z3.unsat


def test_every_stdlib_function_has_a_declared_z3_status():
    """Each standard-library function is symbolic, shape-only or concrete-only
    in the z3 meaning, and exactly one of these (docs/verify.md lists them)."""
    from atoll.compiler import stdlib
    from atoll.verify import z3sem
    groups = [z3sem.SYMBOLIC_FUNCTIONS, z3sem.SHAPE_FUNCTIONS, z3sem.CONCRETE_ONLY]
    for name in stdlib.FUNCTIONS:
        assert sum(name in g for g in groups) == 1, name
