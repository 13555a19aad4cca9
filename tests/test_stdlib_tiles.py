"""The standard library's tile and territory operations (rotate, squares,
columns, rows, frontier, leaders): hand-worked cases, empty inputs and ties,
their typing rules, and their z3 status. The Python/z3 agreement of each is
in test_z3_agreement.py (SYMBOLIC_CASES)."""
from atoll.compiler import stdlib
from atoll.compiler import types as T

F = {name: fn for name, (fn, _, _) in stdlib.FUNCTIONS.items()}
RULE = {name: rule for name, (_, rule, _) in stdlib.FUNCTIONS.items()}

# An L of cells plus a 2x2 block:   x: 0 1 2
#                                y=0   # # .
#                                y=1   # # #
#                                y=2   # . #
#                                y=3   . . #
CELLS = {(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2), (2, 3)}


def test_rotate_turns_right_by_k_places():
    edges = ("n", "e", "s", "w")
    # one quarter turn clockwise: the north edge now faces east
    assert F["rotate"](edges, 1) == ("w", "n", "e", "s")
    assert F["rotate"](edges, 1)[1] == "n"
    assert F["rotate"](edges, 2) == ("s", "w", "n", "e")
    assert F["rotate"](edges, 4) == edges and F["rotate"](edges, 0) == edges
    assert F["rotate"](edges, -1) == ("e", "s", "w", "n")     # back one: as 3 forward
    assert F["rotate"](edges, -1) == F["rotate"](edges, 3)
    assert F["rotate"](edges, 9) == F["rotate"](edges, 1)
    assert F["rotate"]((), 3) == () and F["rotate"]((7,), -2) == (7,)


def test_squares_name_each_block_by_its_least_corner():
    # only the block x 0-1, y 0-1 is complete; (1, 1)-(2, 2) lacks (1, 2)
    assert F["squares"](CELLS) == frozenset({(0, 0)})
    three_by_two = {(x, y) for x in range(3) for y in range(2)}
    assert F["squares"](three_by_two) == frozenset({(0, 0), (1, 0)})   # overlapping blocks
    assert F["squares"]({(x, y) for x in range(3) for y in range(3)}) == frozenset(
        {(0, 0), (1, 0), (0, 1), (1, 1)})
    assert F["squares"](set()) == frozenset() and F["squares"]({(5, 5)}) == frozenset()
    assert F["squares"]({(-1, -1): 0, (0, -1): 0, (-1, 0): 0, (0, 0): 0}) == frozenset({(-1, -1)})


def test_columns_and_rows_are_maximal_runs():
    assert F["columns"](CELLS) == (((0, 0), (0, 1), (0, 2)), ((1, 0), (1, 1)), ((2, 1), (2, 2), (2, 3)))
    assert F["rows"](CELLS) == (((0, 0), (1, 0)), ((0, 1), (1, 1), (2, 1)), ((0, 2),), ((2, 2),), ((2, 3),))
    # a gap splits a line into two runs; runs are ordered by line, then start
    gap = [(0, 4), (0, 0), (0, 1), (0, 3)]
    assert F["columns"](gap) == (((0, 0), (0, 1)), ((0, 3), (0, 4)))
    assert F["rows"](gap) == (((0, 0),), ((0, 1),), ((0, 3),), ((0, 4),))
    assert F["columns"](set()) == () and F["rows"](()) == ()
    # columns of three or more, as a game counts them: x = 0 and x = 2
    assert sum(1 for c in F["columns"](CELLS) if len(c) >= 3) == 2


def test_frontier_is_the_empty_edge_neighbours():
    assert F["frontier"]({(0, 0)}) == frozenset({(0, -1), (1, 0), (0, 1), (-1, 0)})
    assert F["frontier"]({(0, 0), (1, 0)}) == frozenset({(0, -1), (1, -1), (2, 0), (0, 1), (1, 1), (-1, 0)})
    assert F["frontier"](set()) == frozenset()
    ring = {(x, y) for x in range(3) for y in range(3)} - {(1, 1)}
    assert (1, 1) in F["frontier"](ring) and len(F["frontier"](ring)) == 13
    # an area is enclosed by a cover when its frontier lies inside the cover
    assert F["frontier"]({(1, 1)}) <= ring


def test_leaders_keep_every_tie():
    assert F["leaders"]({"a": 3, "b": 5, "c": 5}) == frozenset({"b", "c"})
    assert F["leaders"]({"a": 3}) == frozenset({"a"})
    assert F["leaders"]({}) == frozenset() and F["leaders"](()) == frozenset()
    assert F["leaders"]((2, 7, 7, 0)) == frozenset({1, 2})                 # a list: its indices
    assert F["leaders"]((0, 0)) == frozenset({0, 1})                       # all tied, even at 0
    assert F["leaders"]((-3, -1)) == frozenset({1})
    # the next rank: the leaders once the leaders are left out
    m = {0: 4, 1: 9, 2: 4, 3: 1}
    assert F["leaders"]({k: v for k, v in m.items() if k not in F["leaders"](m)}) == frozenset({0, 2})


def test_typing_rules():
    lst_i, pos_set = ("list", T.INT), ("set", T.POS)
    assert RULE["rotate"]([lst_i, T.INT]) == (lst_i, None)
    assert RULE["rotate"]([("set", T.INT), T.INT])[1]            # a set has no order to turn
    assert RULE["rotate"]([lst_i, T.BOOL])[1]
    for name in ("squares", "frontier"):
        assert RULE[name]([pos_set]) == (("set", T.POS), None)
        assert RULE[name]([("map", T.POS, T.INT)]) == (("set", T.POS), None)   # a map's keys
        assert RULE[name]([lst_i])[1]
    for name in ("columns", "rows"):
        assert RULE[name]([pos_set]) == (("list", ("list", T.POS)), None)
        assert RULE[name]([pos_set, pos_set])[1]
    assert RULE["leaders"]([("map", T.STR, T.INT)]) == (("set", T.STR), None)
    assert RULE["leaders"]([lst_i]) == (("set", T.INT), None)
    assert RULE["leaders"]([("map", T.INT, T.BOOL)])[1]
    assert RULE["leaders"]([("list", T.STR)])[1]


def test_z3_status_is_declared_and_honest():
    from atoll.verify import z3sem
    assert {"rotate", "leaders"} <= z3sem.SYMBOLIC_FUNCTIONS
    assert {"squares", "columns", "rows", "frontier"} <= z3sem.SHAPE_FUNCTIONS
