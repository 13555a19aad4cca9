"""Play evaluates a property about one state again only when a slot it reads
has changed (verify.reads); a clone keeps its position's legal moves; the
z3 meaning compares literal map keys without z3. Each shortcut must give
what the long way gives: these tests fail if one of them skips what it
must not."""
from __future__ import annotations

from pathlib import Path

import pytest

from atoll.compiler import names as N
from atoll.compiler import pipeline
from atoll.compiler.frame import Frame
from atoll.verify import reads
from atoll.verify import verdicts as V
from atoll.verify.play import check_by_play
from atoll.verify.runs import PlayCheck

ROOT = Path(__file__).resolve().parent.parent

# `quiet` holds in every state unless `spent` and `left` are both large: it
# reads `left` only through a function, and `spent` through a function that
# calls another (defs called with a sum are not inlined). A read set that missed either would let the state that breaks it
# pass unseen (each slot changes alone, in its own action).
SPEC = '''game g { title: "G" players: 2..2 }
state {
  left: int = 0 visible all "left"
  spent: int = 0 visible all "spent"
  idle: int = 0 visible all "idle"
}
def left_at_least(k: int): bool = left >= k
def spent_over(k: int): bool = spent >= k
def spent_at_least(k: int): bool = spent_over(k + 0)
def over(): bool = left_at_least(1 + 2) and spent_at_least(2 + 1)
flow { round { turns in seats: go } }
phase go "go" {
  action up_left() "left" when left < 5 { left = left + 1  end phase }
  action up_spent() "spent" when spent < 5 { spent = spent + 1  end phase }
  action rest() "rest" when idle < 40 { idle = idle + 1  end phase }
  action finish() "finish" when idle >= 40 { win [me] }
}
property quiet "never both high" invariant not over()
property calm "idle alone" invariant idle <= 40
property both "both high" reachable over()
'''


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    p = tmp_path_factory.mktemp("reads") / "g.atoll"
    p.write_text(SPEC)
    comp = pipeline.compile_spec(p)
    return pipeline.instantiate(comp, 2, {}), str(p), comp.program


def _index(g, name):
    return g.layout.names.index(name)


def test_the_slots_read_follow_the_functions_called(game):
    g, _, _ = game
    assert "d_spent_over(S" in g.source and "d_left_at_least(S" in g.source
    assert reads.slots_read(g, N.prop("quiet")) == {_index(g, "left"), _index(g, "spent")}
    assert reads.slots_read(g, N.prop("calm")) == {_index(g, "idle")}


def test_a_violation_reached_through_a_def_is_found_by_play(game):
    g, path, prog = game
    for name, want in (("quiet", V.VIOLATED), ("both", V.WITNESS_FOUND)):
        verdict, _, _ = check_by_play(g, prog.properties[name], 30, 0, path, max_states=5)
        assert verdict == want, name


def test_skipping_gives_the_runs_of_checking_every_state(game):
    """The same runs (violations, steps, distinct states) with the read
    sets as without them (every state checked)."""
    g, _, prog = game
    for name in ("quiet", "calm", "both"):
        fast, slow = PlayCheck(g, prog.properties[name]), PlayCheck(g, prog.properties[name])
        slow.reads = None
        fast.record_states = slow.record_states = True
        assert fast.reads is not None
        for seed in range(12):
            a, b = fast.play(seed), slow.play(seed)
            assert (a.violation, a.actions, a.outcome, sorted(a.states)) == \
                (b.violation, b.actions, b.outcome, sorted(b.states)), (name, seed)


class _Fake:
    def __init__(self, source):
        self.source = source
        self.ns = {}
        exec(compile(source, "<fake>", "exec"), self.ns)


@pytest.mark.parametrize("body", [
    "T = S\n    return T[1] > 0",                 # an alias
    "return len(S) > 0",                      # passed to a function not of the module
    "return S[1:] == []",                     # a slice
    "return helper(S=S)",                     # by keyword
    "return (lambda S: S[0])(S)",             # a name that hides it
    "return S[-1] > 0",                       # from the end
])
def test_any_other_use_of_the_state_reads_everything(body):
    src = f"def helper(S):\n    return S[2]\n\ndef prop_x(S):\n    {body}\n"
    assert reads.slots_read(_Fake(src), "prop_x") is None


def test_a_function_that_is_not_the_one_parsed_reads_everything():
    src = "def helper(S):\n    return S[2]\n\ndef prop_x(S):\n    return helper(S) and S[0]\n"
    fake = _Fake(src)
    assert reads.slots_read(fake, "prop_x") == {0, 2}
    fake2 = _Fake(src)
    fake2.ns["helper"] = lambda S: S[5]   # replaced at run time: not what the source says
    assert reads.slots_read(fake2, "prop_x") is None


@pytest.mark.parametrize("spec", ["masterislands", "kanaloa", "isle_of_skye", "la_isla"])
def test_shipped_properties_read_what_the_rules_say(spec):
    """For the shipped games, the slots found in the generated code are
    among those the compiler's own analysis (compiler.frame) says the
    property reads, and every invariant has a read set."""
    comp = pipeline.compile_spec(ROOT / "spec" / f"{spec}.atoll")
    prog = comp.program
    g = pipeline.instantiate(comp, prog.player_range[0], {})
    frame = Frame(prog)
    for pr in prog.properties.values():
        if pr.kind not in ("invariant", "reachable", "terminates"):
            continue
        found = reads.slots_read(g, N.prop(pr.name))
        assert found is not None, pr.name
        said = {0 if slot == ("round",) else g.layout.slots[slot] for slot in frame.reads(pr.body, {})}
        assert found <= said, (pr.name, found - said)


def test_a_clone_keeps_the_legal_moves_and_a_move_lists_them_again(game):
    g, _, _ = game
    st = g.new_initial_state(seed=1)
    before = list(st.legal_moves())
    c = st.clone()
    assert list(c.legal_moves()) == before
    c.apply_move(0)
    fresh = g.new_initial_state(seed=1)
    fresh.apply_move(0)
    assert list(st.legal_moves()) == before
    assert list(c.legal_moves()) == list(fresh.legal_moves())
    assert [str(a) for a in c.legal_actions()] == [str(a) for a in fresh.legal_actions()]


def test_literal_map_keys_give_the_same_lookups():
    import z3
    from atoll.verify.z3values import SMap, SYMBOLIC, TRUE, literal
    from atoll.verify.z3sem import Z3Eval
    assert literal(z3.IntVal(3)) == literal(z3.IntVal(3)) != literal(z3.IntVal(4))
    assert literal(z3.StringVal("a")) != literal(z3.IntVal(0))
    assert literal((z3.IntVal(1), z3.Int("x"))) is SYMBOLIC
    x = z3.Int("x")
    m = Z3Eval.make_map(None, [(z3.IntVal(1), z3.IntVal(10), TRUE), (x, z3.IntVal(20), TRUE),
                               (z3.IntVal(1), z3.IntVal(30), TRUE), (z3.IntVal(2), z3.IntVal(40), TRUE)])
    assert isinstance(m, SMap)
    # the first entry is hidden by the third (same literal key); the second by none of the
    # literal ones unless x is 1 or 2; the last two stand
    s = z3.Solver()
    assert s.check(m.entries[0][2]) == z3.unsat
    assert s.check(m.entries[1][2], x == 1) == z3.unsat and s.check(m.entries[1][2], x == 5) == z3.sat
    assert s.check(z3.Not(m.entries[3][2])) == z3.unsat
    assert s.check(m.entries[2][2], x == 1) == z3.sat


# ---------------------------------------------------------------- the premise

def _containers(v, out: dict) -> None:
    """Every mutable container reachable from ``v`` (lists, dicts, sets and
    anything else with a ``__dict__``), by identity."""
    if isinstance(v, (str, bytes, int, float, bool, type(None))):
        return
    if isinstance(v, (list, dict, set, bytearray)) or hasattr(v, "__dict__"):
        if id(v) in out:
            return
        out[id(v)] = v
    items = v.values() if isinstance(v, dict) else v.__dict__.values() if hasattr(v, "__dict__") \
        else v if isinstance(v, (list, tuple, set, frozenset)) else ()
    if isinstance(v, dict):
        for k in v:
            _containers(k, out)
    for x in items:
        _containers(x, out)


_GOOD = sorted((ROOT / "tests" / "good").glob("*.atoll"))
_SHIPPED = sorted((ROOT / "spec").glob("*.atoll"))


@pytest.mark.parametrize("path", _SHIPPED + _GOOD, ids=lambda p: p.stem)
def test_no_value_of_a_state_is_changed_in_place(path):
    """What verify.reads (and the kept def answers of compiler/lower_memo.py)
    rest on: an action never changes a value of the state in place, so a
    slot that holds the same object holds the same value. Every mutable
    container reachable from the state's values before an action (a map is
    a dict) is copied; after the action, each one the state still reaches
    must equal its copy. (Where every value is immutable, ints and tuples,
    the premise holds by construction and there is nothing to check.)"""
    import copy
    import random

    import atoll
    try:
        game = atoll.load(path, players=atoll.compile_spec(path).program.player_range[0])
    except Exception as e:   # a good spec that needs options to load
        pytest.skip(f"does not load with defaults: {e}")
    rng = random.Random(3)
    st = game.new_initial_state(seed=3)
    checked = 0
    for _ in range(400):
        if st.is_terminal():
            break
        before: dict = {}
        for v in st.S:
            _containers(v, before)
        copies = {k: copy.deepcopy(v) for k, v in before.items()}
        st.apply_action(st.sample_chance() if st.is_chance_node() else rng.choice(st.legal_actions()))
        after: dict = {}
        for v in st.S:
            _containers(v, after)
        for k, v in after.items():
            if k in before and before[k] is v:
                assert v == copies[k], f"{path.name}: a value of the state was changed in place: {copies[k]!r} -> {v!r}"
                checked += 1
    if path in _SHIPPED:   # their maps are dicts: the check must have met some
        assert checked > 0


# ---------------------------------------------------------------- a player's own values

def _own_of(src: str):
    import ast
    tree = ast.parse(src)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    return reads._own_direct(defs["f"], defs)


def test_a_slot_read_only_as_the_players_own_element_is_told_apart_from_one_read_whole():
    w, o, calls, passed = _own_of("def f(S, me, x):\n    return S[3][me] + len(S[4]) + S[5][0] + S[6][x]\n")
    assert (w, o) == ({4, 5, 6}, {3})
    # passed on with (S, me): followed the same way; passed otherwise: read whole by the callee
    w, o, calls, passed = _own_of("def g(S, me):\n    return 0\n"
                                  "def f(S, me, x):\n    return g(S, me) + g(S, x)\n")
    assert calls == ["g"] and passed == [("g", 0)]


@pytest.mark.parametrize("body", ["    me = 1 - me\n    return S[3][me]\n",
                                  "    for me in range(2):\n        pass\n    return S[3][me]\n",
                                  "    return [S[3][me] for me in range(2)]\n",
                                  "    return (lambda me: S[3][me])(0)\n",
                                  "    T = S\n    return T[3][me]\n"])
def test_me_bound_again_or_s_aliased_leaves_the_reads_unknown(body):
    """``S[k][me]`` is the player's own element only while ``me`` is the
    parameter: bound again (or S under another name), nothing is told."""
    assert _own_of("def f(S, me):\n" + body) is None


def test_the_own_reads_of_a_generated_listing_are_the_slots_it_reads():
    game = pipeline.instantiate(pipeline.compile_spec(str(ROOT / "spec" / "la_isla.atoll")), 3, {})
    for name, listing in game._listing.items():
        for entry in listing:
            fn = entry[1].__name__
            got = reads.own_reads(game, fn)
            assert got is not None and got[0] | got[1] == reads.slots_read(game, fn)
    # the card phase's listing reads each player's own hand only (the rules: cards from one's hand)
    hand = game.layout.names.index("hand")
    assert reads.own_reads(game, "achoices_assign") == (frozenset(), frozenset({hand}))
