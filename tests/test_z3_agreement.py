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
from atoll.verify.z3sem import Coll, Opt, SMap, Unsupported, Z3Eval, eq

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


def _compile_header(header: str, result: str, expr: str):
    """The small spec ``header`` with ``result`` and ``expr`` put in, compiled
    and instantiated once (cached)."""
    key = (header, result, expr)
    if key not in _compiled:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "agree.atoll"
            path.write_text(header.replace("RESULT", result).replace("EXPR", expr))
            comp = atoll.compile_spec(path)
            game = atoll.compiler.pipeline.instantiate(comp, 2)
        _compiled[key] = (comp, game)
    return _compiled[key]


def compile_expr(result: str, expr: str):
    return _compile_header(HEADER, result, expr)


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
    if agree(result, expr, v) is None:
        assume(False)   # a partial operation (indexing a missing key): no meaning to compare


def agree(result: str, expr: str, v: dict):
    """Compare the Python and z3 meanings of ``expr`` on inputs ``v``; fail the
    test when they differ. Returns the Python value (None when Python has no
    value: a partial operation)."""
    comp, game = compile_expr(result, expr)
    args = (v["a"], v["b"], tuple(v["xs"]), frozenset(v["s"]), v["c"], (v["rk"], v["rc"]))
    try:
        py = game.ns["d_f"](None, *args)
    except EvalError:
        return None
    ev = Z3Eval(comp.program, game, fold=False)
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
    return py


# ---------------------------------------------------------------- every operator at its boundaries
# Random expressions seldom hit a boundary (equal operands, a zero divisor,
# an empty collection), where a wrong meaning shows: `<=` read as `<` agrees
# everywhere but on equal operands. Each operator is tried on each boundary.

def _inputs(a=0, b=0, xs=(), s=(), c=0):
    return dict(a=a, b=b, xs=list(xs), s=set(s), c=c, rk=0, rc=0)


PAIRS = [(2, 2), (0, 0), (-3, -3), (1, 2), (2, 1), (-1, 0), (0, -1)]   # equal, and one apart either way
DIVISIONS = [(a, b) for a in (0, 5, -5, 6, -6) for b in (0, 1, -1, 3, -3, 5)]
BOOLS = [(a, b) for a in (0, 1) for b in (0, 1)]                        # a == 1, b == 1 as bools
EMPTY_AND_NOT = [((), ()), ((0,), (0,)), ((2, 2), (2,)), ((-1, 3), (3, -1))]

BOUNDARY = (
    [("bool", f"(a {op} b)", [_inputs(a, b) for a, b in PAIRS]) for op in ("<", "<=", ">", ">=", "==", "!=")]
    + [("int", f"(a {op} b)", [_inputs(a, b) for a, b in DIVISIONS]) for op in ("+", "-", "*", "/", "%")]
    + [("int", "(-a)", [_inputs(a) for a in (0, 1, -1)])]
    + [("bool", f"((a == 1) {op} (b == 1))", [_inputs(a, b) for a, b in BOOLS]) for op in ("and", "or")]
    + [("bool", "(not (a == 1))", [_inputs(a) for a in (0, 1)])]
    + [("bool", f"(a {op} xs)", [_inputs(a, xs=xs) for a in (0, 2) for xs, _ in EMPTY_AND_NOT])
       for op in ("in", "not in")]
    + [("bool", f"(a {op} s)", [_inputs(a, s=s) for a in (0, 3) for _, s in EMPTY_AND_NOT])
       for op in ("in", "not in")]
    + [("int", f"{f}(v for v in xs)", [_inputs(xs=xs) for xs, _ in EMPTY_AND_NOT]) for f in ("sum", "min", "max")]
    + [("int", f"{f}(v + a for v in s)", [_inputs(a=1, s=s) for _, s in EMPTY_AND_NOT]) for f in ("sum", "min", "max")]
    + [("int", "count(v for v in xs if v <= a)", [_inputs(a, xs=xs) for a in (-1, 2) for xs, _ in EMPTY_AND_NOT])]
    + [("bool", f"{f}(v < a for v in xs)", [_inputs(a, xs=xs) for a in (-1, 2, 3) for xs, _ in EMPTY_AND_NOT])
       for f in ("all", "any")]
    + [("int", "size(xs) + 10 * size(s)", [_inputs(xs=xs, s=s) for xs, s in EMPTY_AND_NOT])]
    + [("set[int]", f"(s {op} distinct(xs))", [_inputs(xs=xs, s=s2) for xs, _ in EMPTY_AND_NOT
                                                for _, s2 in EMPTY_AND_NOT]) for op in ("+", "-")]
    + [("list[int]", "(xs + [v for v in xs if v < a])", [_inputs(a, xs=xs) for a in (0, 3) for xs, _ in EMPTY_AND_NOT])]
    + [("bool", "(distinct(xs) == s)", [_inputs(xs=xs, s=s) for xs, _ in EMPTY_AND_NOT for _, s in EMPTY_AND_NOT])]
    + [("bool", "(sorted(s) == xs)", [_inputs(xs=xs, s=s) for xs, s in EMPTY_AND_NOT])]
    + [("int", "(if a <= b then a else b)", [_inputs(a, b) for a, b in PAIRS])]
    + [("int", "match a { 0 => 5, 1 => b, _ => a * 2 }", [_inputs(a, 7) for a in (-1, 0, 1, 2)])]
    + [("int", f"{f}(a, b)", [_inputs(a, b) for a, b in PAIRS]) for f in ("min2", "max2")]
    + [("int", "abs(a)", [_inputs(a) for a in (-2, 0, 2)])]
    + [("int", "count_of(xs, a)", [_inputs(a, xs=xs) for a in (0, 2) for xs, _ in EMPTY_AND_NOT])]
)


@pytest.mark.parametrize("result,expr,inputs", BOUNDARY, ids=[b[1] for b in BOUNDARY])
def test_every_operator_agrees_at_its_boundaries(result, expr, inputs):
    for v in inputs:
        agree(result, expr, v)


def test_the_boundary_cases_cover_every_operator():
    """Every operator the z3 meaning knows (verify/z3sem.py, binop_values) has
    boundary cases above, and the comparisons are tried on equal operands."""
    import inspect
    from atoll.grammar import ast as A
    from atoll.verify import z3sem
    src = inspect.getsource(z3sem.Z3Eval.binop_values)
    known = set(re.findall(r'op == "([^"]+)"', src))
    for group in re.findall(r"op in \(([^)]*)\)", src):
        known |= set(re.findall(r'"([^"]+)"', group))
    assert {"<", "<=", "and", "%", "notin"} <= known, known
    covered = set()
    for result, expr, _ in BOUNDARY:
        comp, _ = compile_expr(result, expr)
        covered |= {x.op for x in A.walk(comp.program.defs["f"].body) if isinstance(x, A.BinOp)}
    assert known <= covered, f"operators without boundary cases: {sorted(known - covered)}"
    for op in ("<", "<=", ">", ">="):
        inputs = next(i for _, e, i in BOUNDARY if e == f"(a {op} b)")
        assert any(v["a"] == v["b"] for v in inputs)


def test_less_or_equal_read_as_less_is_caught(monkeypatch):
    """The point of the boundary cases: a z3 meaning of `<=` as `<` fails them."""
    from atoll.verify import z3sem
    real = z3sem.Z3Eval.binop_values

    def wrong(self, e, a, b):
        if e.op == "<=":
            return a < b
        return real(self, e, a, b)
    monkeypatch.setattr(z3sem.Z3Eval, "binop_values", wrong)
    with pytest.raises(AssertionError, match="z3 disagrees"):
        test_every_operator_agrees_at_its_boundaries("bool", "(a <= b)", [_inputs(2, 2)])


def test_the_agreement_test_can_fail():
    """A planted disagreement (z3 told a different value) is caught."""
    comp, game = compile_expr("int", "(a / b)")
    ev = Z3Eval(comp.program, game, fold=False)
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


# ---------------------------------------------------------------- every supported function, symbolic inputs
# Each function the z3 layer gives a meaning (its tables SYMBOLIC_FUNCTIONS
# and SHAPE_FUNCTIONS) is compared with Python on collections whose
# membership is symbolic: a z3 Bool per candidate item, pinned to a random
# choice. A function added to those tables without an entry here fails
# `test_every_z3_function_is_covered_with_symbolic_collections`.
SYM_HEADER = """
game agree2 { players: 2..2 }
state { x: int = 0 }
phase p { action go() { end phase } }
flow { round { turns in seats: p } }
def f(a: int, b: int, s: set[int], t: set[int], xs: list[int], bg: bag[int], m: map[int, int],
      ps: set[Pos], o: maybe[int]): RESULT = EXPR
"""
S_UNIVERSE = list(range(-2, 5))
T_UNIVERSE = [0, 1, 2, 3]
XS_CANDIDATES = [3, -1, 3, 0, 2]          # a list: the present ones, in this order
BAG_CANDIDATES = [-1, 0, 0, 2, 3, 3]      # a bag: sorted, duplicates allowed
M_KEYS = [0, 1, 2, 4]
GRID = [(x, y) for y in range(3) for x in range(3)] + [(3, 3)]

SYMBOLIC_CASES = {
    "size": [("int", "size(s) + 10 * size(m) + 100 * size(bg) + 1000 * size(xs)")],
    "keys": [("set[int]", "keys(m)")],
    "get": [("int", "get(m, a, b)"), ("int", "sum(get(m, k, 0) for k in s)")],
    "abs": [("int", "abs(a - size(s))")],
    "min2": [("int", "min2(a, size(t))")],
    "max2": [("int", "max2(size(s), b)")],
    "pos": [("bool", "pos(a, b) in ps")],
    "orth": [("list[Pos]", "[q for q in orth(pos(a, b)) if q in ps]")],
    "around": [("int", "count(q for q in around(pos(a, b)) if q in ps)")],
    "distinct": [("set[int]", "distinct(xs)"), ("set[int]", "distinct(bg)")],
    "bag": [("list[int]", "to_list(bag(xs))"), ("bool", "bag(xs) == bag(to_list(s))"),
            ("list[int]", "[v for v in bag(xs) + bg]")],
    "count_of": [("int", "count_of(bg, a) + 10 * count_of(xs, b)")],
    "without": [("list[int]", "without(xs, s)"), ("set[int]", "without(s, t)"),
                ("list[int]", "to_list(without(bg, t))")],
    "without_keys": [("set[int]", "keys(without_keys(m, s))"),
                     ("int", "sum(get(without_keys(m, t), k, 0) for k in keys(m))")],
    "sorted": [("list[int]", "sorted(s)"), ("list[int]", "sorted(xs)"), ("list[int]", "sorted(bg)")],
    "to_list": [("list[int]", "to_list(s)"), ("list[int]", "to_list(xs)"), ("list[int]", "to_list(m)")],
    "lines": [("list[list[Pos]]", "lines(ps)"), ("int", "size(lines(ps))")],
    "collinear_subsets": [("list[set[Pos]]", "collinear_subsets({q for q in ps if q.y < 2})"),
                          # each group is a set: a union with it drops what it holds already
                          ("int", "sum(size(g + {pos(0, 0)}) for g in collinear_subsets({q for q in ps if q.y < 2}))")],
    "range": [("list[int]", "[v for v in range(4) if v in s]")],
    "between": [("list[int]", "[v for v in between(-1, 2) if v in t]")],
    "subsets": [("list[set[int]]", "subsets(t)"), ("int", "count(u for u in subsets(t) if size(u) == 2)")],
    "rotate": [("list[int]", "rotate(xs, a)"), ("list[int]", "rotate(to_list(s), b - a)"),
               ("list[Pos]", "rotate(orth(pos(a, b)), a)"), ("list[int]", "rotate([v for v in xs if v > a], -b)")],
    "leaders": [("set[int]", "leaders(m)"), ("set[int]", "leaders(xs)"), ("set[int]", "leaders([a, b, a])"),
                ("set[int]", "leaders(without_keys(m, leaders(m)))")],
    "squares": [("set[Pos]", "squares(ps)"), ("int", "size(squares({q for q in ps if q.x != a}))")],
    "columns": [("list[list[Pos]]", "columns(ps)"), ("int", "count(c for c in columns(ps) if size(c) >= 3)")],
    "rows": [("list[list[Pos]]", "rows(ps)"), ("list[int]", "[size(r) for r in rows(ps) if r[0].x == a]")],
    "frontier": [("set[Pos]", "frontier(ps)"), ("int", "size(frontier({q for q in ps if q.y != b})) + 10 * size(frontier(ps))")],
    "some": [("maybe[int]", "some(a)"), ("bool", "some(a) == o"), ("list[maybe[int]]", "[some(v) for v in xs]")],
    "value_or": [("int", "value_or(o, b)"), ("int", "value_or(if a in s then some(a) else none, b)"),
                 ("list[int]", "value_or(if o == a then some(xs) else none, [b])")],
}

SYM_INPUTS = st.fixed_dictionaries({
    "a": st.integers(-2, 4), "b": st.integers(-2, 4),
    "s": st.lists(st.booleans(), min_size=len(S_UNIVERSE), max_size=len(S_UNIVERSE)),
    "t": st.lists(st.booleans(), min_size=len(T_UNIVERSE), max_size=len(T_UNIVERSE)),
    "xs": st.lists(st.booleans(), min_size=len(XS_CANDIDATES), max_size=len(XS_CANDIDATES)),
    "bg": st.lists(st.booleans(), min_size=len(BAG_CANDIDATES), max_size=len(BAG_CANDIDATES)),
    "m": st.lists(st.booleans(), min_size=len(M_KEYS), max_size=len(M_KEYS)),
    "mv": st.lists(st.integers(-3, 3), min_size=len(M_KEYS), max_size=len(M_KEYS)),
    "ps": st.lists(st.booleans(), min_size=len(GRID), max_size=len(GRID)),
    "o": st.one_of(st.none(), st.integers(-2, 4)),
})


def compile_sym(result: str, expr: str):
    return _compile_header(SYM_HEADER, result, expr)


def symbolic_collections(v):
    """Python values and z3 values (membership as Bools pinned to ``v``)."""
    cons = []

    def flags(name, n):
        bs = [z3.Bool(f"{name}!{i}") for i in range(n)]
        cons.extend(b == bool(x) for b, x in zip(bs, v[name]))
        return bs
    a, b = z3.Int("a"), z3.Int("b")
    cons += [a == v["a"], b == v["b"]]
    fs, ft, fx, fb, fm, fp = (flags("s", len(S_UNIVERSE)), flags("t", len(T_UNIVERSE)),
                              flags("xs", len(XS_CANDIDATES)), flags("bg", len(BAG_CANDIDATES)),
                              flags("m", len(M_KEYS)), flags("ps", len(GRID)))
    mv = [z3.Int(f"mv{i}") for i in range(len(M_KEYS))]
    cons += [x == y for x, y in zip(mv, v["mv"])]
    o_has, o_val = z3.Bool("o!has"), z3.Int("o!val")
    cons.append(o_has == (v["o"] is not None))
    if v["o"] is not None:
        cons.append(o_val == v["o"])
    iv = z3.IntVal

    def pos(c):
        return (iv(c[0]), iv(c[1]))
    env = {"a": a, "b": b,
           "s": Coll("set", [(iv(u), f) for u, f in zip(S_UNIVERSE, fs)]),
           "t": Coll("set", [(iv(u), f) for u, f in zip(T_UNIVERSE, ft)]),
           "xs": Coll("list", [(iv(u), f) for u, f in zip(XS_CANDIDATES, fx)]),
           "bg": Coll("bag", [(iv(u), f) for u, f in zip(BAG_CANDIDATES, fb)]),
           "m": SMap([(iv(k), x, f) for k, x, f in zip(M_KEYS, mv, fm)]),
           "ps": Coll("set", [(pos(c), f) for c, f in zip(GRID, fp)]),
           "o": Opt(o_has, o_val)}
    py = (v["a"], v["b"],
          frozenset(u for u, x in zip(S_UNIVERSE, v["s"]) if x),
          frozenset(u for u, x in zip(T_UNIVERSE, v["t"]) if x),
          tuple(u for u, x in zip(XS_CANDIDATES, v["xs"]) if x),
          tuple(sorted(u for u, x in zip(BAG_CANDIDATES, v["bg"]) if x)),
          {k: val for k, val, x in zip(M_KEYS, v["mv"], v["m"]) if x},
          frozenset(c for c, x in zip(GRID, v["ps"]) if x),
          v["o"])
    return env, cons, py


def test_every_z3_function_is_covered_with_symbolic_collections():
    from atoll.verify import z3sem
    assert set(SYMBOLIC_CASES) == z3sem.SYMBOLIC_FUNCTIONS | z3sem.SHAPE_FUNCTIONS
    for name, cases in SYMBOLIC_CASES.items():   # each case calls its function
        for result, expr in cases:
            comp, _ = compile_sym(result, expr)
            called = {ref[1] for ref in comp.program.refs.values() if ref[0] == "stdlib"}
            assert name in called, (name, expr)


SYM_PARAMS = [(name, result, expr) for name, cases in sorted(SYMBOLIC_CASES.items())
              for result, expr in cases]


@pytest.mark.parametrize("name,result,expr", SYM_PARAMS, ids=[f"{p[0]}:{p[2]}" for p in SYM_PARAMS])
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(v=SYM_INPUTS)
def test_symbolic_collections_agree_with_python(name, result, expr, v):
    agree_on_symbolic_collections(result, expr, v, partial=False)


def agree_on_symbolic_collections(result, expr, v, partial: bool):
    """`f` = ``expr`` over the symbolic collections ``v``: Python's value
    equals z3's for every model of their membership. ``partial``: an input
    where Python fails is skipped (the expression may be undefined there)."""
    from atoll.compiler.check import Checker
    from atoll.diagnostics import Reporter
    comp, game = compile_sym(result, expr)
    env, cons, args = symbolic_collections(v)
    try:
        py = game.ns["d_f"](None, *args)
    except EvalError:
        if not partial:
            raise
        assume(False)
    ev = Z3Eval(comp.program, game, fold=False)
    d = comp.program.defs["f"]
    try:
        sym = ev.ev(d.body, env)
    except Unsupported as e:
        pytest.fail(f"no z3 meaning for `{expr}`: {e}")
    want = ev.lift(Checker(comp.program, Reporter()).resolve(d.type), py)
    s = z3.Solver()
    s.add(*cons)
    s.add(z3.Not(eq(sym, want)))
    assert s.check() == z3.unsat, f"`{expr}` with {v}: Python gives {py!r}, z3 disagrees"


# ---------------------------------------------------------------- let and tuples
# `let` (one name, several, a tuple taken apart; names that hide the inputs
# `a` and `b`) and tuples (literals, items, equality, as set items, map keys,
# sorted, taken apart in comprehensions), over the random expressions above
# and a symbolic tuple input `pr`.
LET_HEADER = HEADER.replace("r: Rec)", "r: Rec, pr: tuple[int, bool])")


def _named(text: str, old: str, new: str) -> str:
    return re.sub(rf"\b{old}\b", new, text)


def let_ints(depth):
    i, b, L = ints(depth), bools(depth), lists(depth)
    return st.one_of(
        st.tuples(i, i).map(lambda t: f"let a = {t[0]} in {t[1]}"),                 # hides the input a
        st.tuples(i, i, i).map(lambda t: f"let v = {t[0]}, w = v * 2 in {_v(t[1])} + w * {t[2]}"),
        st.tuples(i, i, i).map(lambda t: f"let (p, q) = ({t[0]}, {t[1]}) in "
                                         f"{_named(_named(t[2], 'a', 'p'), 'b', 'q')}"),
        st.tuples(i, b).map(lambda t: f"let (p, ok) = ({t[0]}, ({t[1]})) in (if ok then p else -p)"),
        st.tuples(i, b).map(lambda t: f"({t[0]}, ({t[1]}))[0] + (if pr[1] then pr[0] else 0)"),
        st.tuples(i, L).map(lambda t: f"sum(p * q for (p, q) in [({_v(t[0])}, v) for v in {t[1]}])"),
        L.map(lambda x: f"count((p, q) for (p, q) in [(v % 2, v) for v in {x}] if p == 0)"
              .replace("count((p, q) for", "count(p for")),
        st.tuples(i, i).map(lambda t: f"get({{(a, b): {t[0]}, (b, a): 2}}, ({t[1]}, b), 5)"),
        st.tuples(i, i).map(lambda t: f"let m = {{(a, 1): {t[0]}, (b, 1): {t[1]}}} in m[(a, 1)]"),
    )


def let_bools(depth):
    i, b, L = ints(depth), bools(depth), lists(depth)
    return st.one_of(
        st.tuples(i, i, b, b).map(lambda t: f"(({t[0]}, ({t[2]})) == ({t[1]}, ({t[3]})))"),
        st.tuples(i, L).map(lambda t: f"(({t[0]}, b) in [(v, v + 1) for v in {t[1]}])"),
        st.tuples(b, b).map(lambda t: f"let x1 = ({t[0]}), x2 = ({t[1]}) in x1 != x2"),
        st.tuples(i, b).map(lambda t: f"let (k, ok) = pr in (ok == ({t[1]})) or k < {t[0]}"),
    )


def let_lists(depth):
    i, L, S = ints(depth), lists(depth), sets(depth)
    return st.one_of(
        st.tuples(i, L).map(lambda t: f"[p + q for (p, q) in [(v, {_v(t[0])}) for v in {t[1]}] if p < q]"),
        S.map(lambda x: f"[q for (p, q) in sorted({{(v % 3, v) for v in {x}}})]"),
        L.map(lambda x: f"let ys = {x} in ys + [size(ys)]"),
    )


LET_EXPRS = st.one_of(
    st.tuples(st.just("int"), let_ints(1)),
    st.tuples(st.just("bool"), let_bools(1)),
    st.tuples(st.just("list[int]"), let_lists(1)),
)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.filter_too_much])
@given(case=LET_EXPRS, v=INPUTS, k=st.integers(-3, 4), ok=st.booleans())
@example(case=("int", "let a = a + 1, b = a * 2 in a + b"), v=dict(a=2, b=9, xs=[], s=set(), c=0, rk=0, rc=0),
         k=0, ok=False)
@example(case=("list[int]", "[q for (p, q) in sorted({(v % 3, v) for v in s})]"),
         v=dict(a=0, b=0, xs=[], s={-3, 1, 4, 5}, c=0, rk=0, rc=0), k=0, ok=False)
def test_let_and_tuples_agree(case, v, k, ok):
    result, expr = case
    comp, game = _compile_header(LET_HEADER, result, expr)
    args = (v["a"], v["b"], tuple(v["xs"]), frozenset(v["s"]), v["c"], (v["rk"], v["rc"]), (k, ok))
    try:
        py = game.ns["d_f"](None, *args)
    except EvalError:
        assume(False)
    ev = Z3Eval(comp.program, game, fold=False)
    env, cons = symbolic_inputs(v, ev)
    pk, pok = z3.Int("pk"), z3.Bool("pok")
    env["pr"] = (pk, pok)
    cons += [pk == k, pok == ok]
    try:
        sym = ev.ev(comp.program.defs["f"].body, env)
    except Unsupported as e:
        pytest.fail(f"no z3 meaning for `{expr}`: {e}")
    s = z3.Solver()
    s.add(*cons)
    s.add(z3.Not(eq(sym, ev.lift(TYPES[result], py))))
    assert s.check() == z3.unsat, f"`{expr}` with {v}, pr=({k}, {ok}): Python gives {py!r}, z3 disagrees"


# ---------------------------------------------------------------- update and typed empty forms, symbolic inputs
# `m with {k: v}` (keys and values symbolic, a key given twice), `r with
# {field: v}`, and typed empty collections, compared as above.
FORM_CASES = [
    ("set[int]", "keys(m with {a: 1, b: 2})"),
    ("int", "sum(get(m with {a: b}, k, 100) for k in between(-2, 4))"),
    ("int", "get(m with {a: 1, a: b}, a, 0) * 10 + get(m with {a: b, 1: a}, 1, 7)"),
    ("int", "(m with {a: b})[a]"),
    ("int", "size(m with {a: b, 1: a, b: 3})"),
    ("list[int]", "to_list(m with {b: a})"),
    ("int", "(pos(a, b) with {x: b + 1}).x * 10 + (pos(a, b) with {x: b + 1, y: size(s)}).y"),
    ("bool", "(pos(a, b) with {y: a, x: b}) == pos(b, a)"),
    ("int", "size(list[int]()) + size(set[Pos]()) + size(bag[int]()) + size(map[int, int]())"),
    ("list[int]", "xs + list[int]()"),
    ("set[int]", "(s + set[int]()) - set[int]()"),
    ("list[int]", "to_list(bg + bag[int]())"),
    ("set[int]", "keys(map[int, int]() with {a: b, b: a})"),
    ("bool", "a in set[int]() or a in list[int]() or a in map[int, int]()"),
]


@pytest.mark.parametrize("result,expr", FORM_CASES, ids=[c[1] for c in FORM_CASES])
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(v=SYM_INPUTS)
def test_update_and_empty_forms_agree_with_python(result, expr, v):
    # `(m with {a: b})[a]` always has its key; the others are total
    agree_on_symbolic_collections(result, expr, v, partial=True)


# ---------------------------------------------------------------- optional values, symbolic inputs
# `maybe[T]`: the input `o` is none or an int (its presence a z3 Bool); the
# lifted comparisons (`o == a` is false when `o` is none), `none`, the
# order (none first: sorted, sets, bags), membership and `if` over maybes.
MAYBE_CASES = [
    ("bool", "o == a"),
    ("bool", "o != a"),
    ("bool", "a == o"),
    ("bool", "o == none"),
    ("bool", "none != o"),
    ("bool", "o in xs"),
    ("bool", "o in s"),
    ("bool", "some(b) in [o, none]"),
    ("bool", "o == (if a > b then some(a) else none)"),
    ("int", "count(v for v in [o, none, some(a)] if v == none)"),
    ("list[maybe[int]]", "sorted([o, some(a), none, some(b)])"),
    ("list[maybe[int]]", "to_list({o, some(a), none})"),
    ("list[maybe[int]]", "to_list(bag([some(b), o, none]))"),
    ("int", "size({o, some(a), none})"),
    ("maybe[int]", "if o == a then none else o"),
    ("int", "sum(value_or(v, 10) for v in [o, none, some(b)])"),
    ("bool", "[v for v in [o, some(a)] if v != none] == [some(a)]"),
]


@pytest.mark.parametrize("result,expr", MAYBE_CASES, ids=[c[1] for c in MAYBE_CASES])
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(v=SYM_INPUTS)
@example(v=dict(a=1, b=1, s=[False] * 7, t=[False] * 4, xs=[True] * 5, bg=[False] * 6, m=[False] * 4,
                mv=[0] * 4, ps=[False] * 10, o=None))
def test_optional_values_agree_with_python(result, expr, v):
    agree_on_symbolic_collections(result, expr, v, partial=False)


def test_a_wrong_lifted_comparison_is_caught(monkeypatch):
    """The maybe cases can fail: `none == a` read as true (an absent value
    equal to everything) disagrees with Python."""
    from atoll.verify import z3values

    real = z3values.eq

    def wrong(a, b):
        if isinstance(a, Opt) and not isinstance(b, Opt):
            return z3.Or(z3.Not(a.has), real(a, b))
        return real(a, b)
    monkeypatch.setattr(z3values, "eq", wrong)
    monkeypatch.setattr("atoll.verify.z3sem.eq", wrong)
    v = dict(a=1, b=2, s=[False] * 7, t=[False] * 4, xs=[False] * 5, bg=[False] * 6, m=[False] * 4,
             mv=[0] * 4, ps=[False] * 10, o=None)
    with pytest.raises(AssertionError, match="z3 disagrees"):
        agree_on_symbolic_collections("bool", "o == a", v, partial=False)
