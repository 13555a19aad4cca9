"""The standard library's Python meaning, function by function, on small cases."""
from atoll.compiler import stdlib

F = {name: fn for name, (fn, _, _) in stdlib.FUNCTIONS.items()}


def test_grid_neighbours():
    assert F["orth"]((0, 0)) == ((0, -1), (1, 0), (0, 1), (-1, 0))
    assert len(F["around"]((2, 2))) == 8 and (2, 2) not in F["around"]((2, 2))


def test_lines_in_eight_directions_with_gaps():
    cells = {(0, 0), (2, 0), (1, 1), (2, 2), (0, 2), (5, 5)}
    lines = {frozenset(l) for l in F["lines"](cells)}
    assert frozenset({(0, 0), (2, 0)}) in lines                     # a row with a gap
    assert frozenset({(0, 0), (1, 1), (2, 2), (5, 5)}) in lines       # a diagonal
    assert frozenset({(2, 0), (1, 1), (0, 2)}) in lines               # the other diagonal
    assert frozenset({(0, 0), (0, 2)}) in lines                     # a column


def test_subsets_summing_agrees_with_the_brute_force():
    weights = {(0, 0): 5, (1, 0): 3, (2, 0): 4, (3, 0): 1, (4, 0): 3, (1, 1): 5, (2, 2): 5}
    fast = set(F["collinear_subsets_summing"](weights, 10))
    slow = {s for s in F["collinear_subsets"](weights) if sum(weights[q] for q in s) == 10}
    assert fast == slow and frozenset({(0, 0), (2, 0), (3, 0)}) in fast


def test_lines_and_summing_subsets_in_their_order_on_random_boards():
    import itertools
    import random
    rng = random.Random(7)
    keys = (lambda p: p[1], lambda p: p[0], lambda p: p[1] - p[0], lambda p: p[1] + p[0])
    for _ in range(300):
        cells = {(rng.randrange(-3, 4), rng.randrange(-3, 4)) for _ in range(rng.randrange(0, 16))}
        expected_lines = []   # rows, columns, diagonals, antidiagonals; each by its key
        for key in keys:
            groups = {}
            for p in cells:
                groups.setdefault(key(p), []).append(p)
            expected_lines += [tuple(sorted(groups[k])) for k in sorted(groups) if len(groups[k]) >= 2]
        assert F["lines"](cells) == tuple(expected_lines)
        assert F["lines"](list(cells) + list(cells)) == tuple(expected_lines)
        low = rng.choice((1, 1, -1))
        weights = {p: rng.randrange(low, 6) for p in cells}
        total = rng.randrange(2, 13)
        # a line of positive weights: its subsets in the lexicographic order of their
        # indices; a line with a weight <= 0: by size, then lexicographic
        expected = []
        for line in expected_lines:
            subsets = [c for k in range(2, len(line) + 1) for c in itertools.combinations(range(len(line)), k)]
            if min(weights[p] for p in line) > 0:
                subsets.sort()
            expected += [frozenset(line[i] for i in idx) for idx in subsets
                         if sum(weights[line[i]] for i in idx) == total]
        assert F["collinear_subsets_summing"](weights, total) == tuple(expected)


def test_span_covered():
    assert F["span_covered"]({(0, 0), (3, 0)}, {(0, 0), (1, 0), (2, 0), (3, 0)})
    assert not F["span_covered"]({(0, 0), (3, 0)}, {(0, 0), (1, 0), (3, 0)})
    assert F["span_covered"]({(0, 0), (2, 2)}, {(0, 0), (1, 1), (2, 2)})


def test_graphs():
    adj = {1: {2}, 2: {1, 3}, 3: {2}, 4: set()}
    assert F["reach"](adj, [1]) == frozenset({1, 2, 3})
    assert F["components"](adj) == (frozenset({1, 2, 3}), frozenset({4}))
    assert not F["connected"](adj) and F["connected"]({1: {2}, 2: {1}})


def test_components_take_links_both_ways():
    """A link written one way joins its two nodes all the same: the groups
    never overlap and cover every node (before, 3 -> 2 made {2, 3} a group
    beside {1, 2})."""
    adj = {1: [2], 3: [2], 5: [4]}
    assert F["components"](adj) == (frozenset({1, 2, 3}), frozenset({4, 5}))
    assert F["connected"]({1: [2], 3: [2]})
    assert F["reach"]({1: [2], 3: [2]}, [1]) == frozenset({1, 2})   # reach follows links one way


def test_graph_from_links():
    g = F["graph"]({1, 2, 3, 4}, [(1, 2), (2, 3), (5, 3)])
    assert g == {1: frozenset({2}), 2: frozenset({1, 3}), 3: frozenset({2, 5}), 4: frozenset(),
                 5: frozenset({3})}
    assert F["components"](g) == (frozenset({1, 2, 3, 5}), frozenset({4}))
    assert F["reach"](g, {4}) == frozenset({4}) and F["reach"](g, {5}) == frozenset({1, 2, 3, 5})


def test_optional_values_and_their_order():
    assert F["some"](3) == 3 and F["value_or"](None, 7) == 7 and F["value_or"](0, 7) == 0
    # none sorts before every value, inside records (tuples) too
    assert F["sorted"]([(2, None), (1, 5), (2, 0), None and (0, 0), (1, None)]) == \
        (None, (1, None), (1, 5), (2, None), (2, 0))
    assert F["bag"]([3, None, 1]) == (None, 1, 3)
    assert F["to_list"](frozenset({None, 2, -1})) == (None, -1, 2)
    assert F["components"]({None: [1], 2: []}) == (frozenset({None, 1}), frozenset({2}))


def test_seats_and_collections():
    assert F["seats_from"](2, 4) == (2, 3, 0, 1)
    assert F["remove"]((1, 2, 1), 1) == (2, 1)
    assert F["swap"]((1, 2, 1), 1, 9) == (9, 2, 1)
    assert F["without"]({1: "a", 2: "b"}, [1]) == {2: "b"}
    assert F["between"](2, 4) == (2, 3, 4) and F["between"](3, 1) == ()
    assert len(F["subsets"]([1, 2, 3])) == 8


def _graph(edges):
    adj = {}
    for a, b in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    return adj


def test_planarity():
    import itertools
    planar = F["planar"]
    assert not planar(_graph(itertools.combinations(range(5), 2)))                 # K5
    assert not planar(_graph([(a, b) for a in range(3) for b in range(3, 6)]))      # K3,3
    petersen = [(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)] + \
        [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    assert not planar(_graph(petersen))            # few edges: only the embedding search can tell
    k33_subdivided = [(0, "a"), ("a", 3)] + [(a, b) for a in range(3) for b in range(3, 6) if (a, b) != (0, 3)]
    assert not planar(_graph(k33_subdivided))
    wheel = [(0, i) for i in range(1, 9)] + [(i, i % 8 + 1) for i in range(1, 9)]
    grid = [((x, y), (x + 1, y)) for x in range(4) for y in range(5)] + \
        [((x, y), (x, y + 1)) for x in range(5) for y in range(4)]
    octahedron = [(a, b) for a, b in itertools.combinations(range(6), 2) if abs(a - b) != 3]
    assert planar(_graph(wheel)) and planar(_graph(grid)) and planar(_graph(octahedron))
    two_blocks = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)]   # joined at a cut node
    assert planar(_graph(two_blocks))


def test_random_triangulations_are_planar_and_one_more_edge_is_not():
    import itertools
    import random
    rng = random.Random(3)
    crossed = 0
    for _ in range(50):
        edges, faces, n = [(0, 1), (1, 2), (0, 2)], [(0, 1, 2), (0, 1, 2)], 3
        for _ in range(rng.randint(1, 15)):
            a, b, c = faces.pop(rng.randrange(len(faces)))
            edges += [(a, n), (b, n), (c, n)]
            faces += [(a, b, n), (b, c, n), (a, c, n)]
            n += 1
        adj = _graph(edges)
        assert F["planar"](adj)
        # a triangulation has 3n - 6 edges: one more cannot be drawn without a crossing
        missing = [(a, b) for a, b in itertools.combinations(range(n), 2) if b not in adj[a]]
        if missing:   # none only for K4 (n == 4), which every edge already joins
            assert not F["planar"](_graph(edges + [rng.choice(missing)]))
            crossed += 1
        else:
            assert n == 4
    assert crossed >= 40, crossed


def test_count_of_and_meets_as_their_plain_meaning():
    """count_of counts a list or bag in C (tuple.count): the same as counting
    by ==, for equal values that are not the same object too; meets(xs, ys)
    is any(x in ys for x in xs), an empty ys without looking at xs."""
    import random
    rng = random.Random(5)
    values = [1, 2, "a", "b", (1, 2), ("a",), frozenset({1}), None, True, 0]
    for _ in range(400):
        xs = tuple(rng.choice(values) for _ in range(rng.randrange(6)))
        x = rng.choice(values)
        copy = tuple(tuple(list(y)) if isinstance(y, tuple) else y for y in xs)   # equal, not the same
        for coll in (xs, tuple(sorted(xs, key=repr)), copy, frozenset(v for v in xs if v is not None)):
            assert F["count_of"](coll, x) == sum(1 for y in coll if y == x)
            if isinstance(x, tuple):
                assert F["count_of"](coll, tuple(list(x))) == sum(1 for y in coll if y == x)
        ys = tuple(rng.choice(values) for _ in range(rng.randrange(4)))
        for coll in (ys, frozenset(ys)):
            assert stdlib.meets(xs, coll) == any(v in coll for v in xs)
    assert F["count_of"]({(1, 2): 0}, (1, 2)) == 1   # a map: its keys
    assert stdlib.meets(iter(()), ()) is False and stdlib.meets(object(), ()) is False   # ys empty: xs not walked
