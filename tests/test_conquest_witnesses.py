"""On a given board, MasterIslands' legal conquests (the model's action
generation) are exactly the z3 witnesses of the rule (the spec's
`conquerable`, read by the z3 meaning, over the collinear subsets of the
unprotected cards). The rulebook's example board is among the cases."""
import z3
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import atoll
from atoll.verify.z3sem import Coll, Z3Eval, eq, member
from helpers import MASTERISLANDS, card, pos, position

GAME = atoll.load(MASTERISLANDS, players=2)
PROG = atoll.compile_spec(MASTERISLANDS).program
COLOURS = ["yellow", "green", "red", "blue"]

boards = st.dictionaries(
    st.tuples(st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.integers(0, 3), st.integers(1, 5)), min_size=2, max_size=9)


def z3_witnesses(board: dict, guarded: set) -> set:
    ev = Z3Eval(PROG, GAME)
    card_t = ("record", "Card")
    b = ev.lift(("map", ("record", "Pos"), card_t), board)
    free = sorted(q for q in board if q not in guarded)
    picks = [z3.Bool(f"pick{i}") for i in range(len(free))]
    line = Coll("set", [(ev.lift(("record", "Pos"), q), p) for q, p in zip(free, picks)])
    fn = PROG.defs["conquerable"]
    rule = ev.ev(fn.body, {"b": b, "line": line})
    shapes = ev.geometric("collinear_subsets", [Coll("set", [(ev.lift(("record", "Pos"), q), z3.BoolVal(True))
                                                             for q in free])], [("set", ("record", "Pos"))])
    s = z3.Solver()
    s.add(rule, member(shapes, line))
    out = set()
    while s.check() == z3.sat:
        m = s.model()
        chosen = frozenset(q for q, p in zip(free, picks) if z3.is_true(m.eval(p, model_completion=True)))
        out.add(chosen)
        s.add(z3.Or([p != m.eval(p, model_completion=True) for p in picks]))
    return out


def model_conquests(board: dict, guarded: set) -> set:
    g = next(iter(guarded)) if guarded else (9, 9)
    st_ = position(GAME, "conquest", 0,
                   board=[[pos(*q), card(COLOURS[c], v)] for q, (c, v) in board.items()],
                   fleet=[[pos(*g), pos(*g)], [pos(9, 9), pos(9, 9)]])
    return {frozenset(a.params[0]) for a in st_.legal_actions() if a.kind == "conquer"}


EXAMPLE = {(0, 0): (0, 5), (1, 0): (2, 3), (2, 0): (3, 4), (3, 0): (1, 1), (4, 0): (3, 3)}


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(board=boards, guard=st.integers(0, 20))
@example(board=EXAMPLE, guard=1)   # the rulebook's example: the 3 at (1,0) bears the galleons
def test_legal_conquests_are_the_z3_witnesses(board, guard):
    keys = sorted(board)
    guarded = {keys[guard % len(keys)]} if guard < 16 else set()
    assert model_conquests(board, guarded) == z3_witnesses(board, guarded)


def test_the_example_board_has_exactly_one_conquest():
    assert model_conquests(EXAMPLE, {(1, 0)}) == {frozenset({(0, 0), (2, 0), (3, 0)})}
    assert z3_witnesses(EXAMPLE, {(1, 0)}) == {frozenset({(0, 0), (2, 0), (3, 0)})}
