"""The standard library of the expression language: generic operations any
game can use, each with a typing rule (for the checker) and a Python
implementation (for the model). Nothing here knows any game.

Values at run time: ints, bools, strs (enum members too), tuples (lists,
records, positions), frozensets (sets), sorted tuples (bags) and dicts (maps,
never mutated in place: effects copy on write).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import factorial
from typing import Callable, Optional

from atoll.compiler import limits
from atoll.compiler import stdlib_tiles as _tiles
from atoll.compiler import types as T
from atoll.compiler.planarity import planar as _planar
from atoll.compiler.values import INT_BOUND, sort_values


class EvalError(Exception):
    """A rule could not be evaluated (the only partial operations are here)."""


# ---------------------------------------------------------------- implementations

# The neighbours of a position are asked for again and again: the last few
# thousand answers are kept (they are tuples, never changed). A neighbour
# stays within the bound of ints (values.INT_BOUND), so that positions that
# step from position to position never need testing (compiler/intbound.py);
# the test runs only when an answer is not kept yet.
@lru_cache(maxsize=4096)
def _orth(p):
    x, y = p
    _inside(p)
    return ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))


@lru_cache(maxsize=4096)
def _around(p):
    x, y = p
    _inside(p)
    return tuple((x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy)


def _inside(p):
    if not all(-INT_BOUND + 1 < c < INT_BOUND - 1 for c in p):
        raise EvalError(f"the neighbours of {p} are past the bound of ints (|n| < 10**18)")


_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _lines(cells):
    """Maximal groups (of 2 or more) of the given positions that lie on one
    horizontal, vertical or diagonal line; gaps are allowed. Directions in the
    order of ``_DIRECTIONS``; within one, groups by their constant key."""
    if not isinstance(cells, (set, frozenset, dict)):
        cells = set(cells)
    # For each direction, a key that is constant along it: y, x, y - x, y + x.
    rows, cols, diagonals, antidiagonals = {}, {}, {}, {}
    for p in cells:
        x, y = p
        rows.setdefault(y, []).append(p)
        cols.setdefault(x, []).append(p)
        diagonals.setdefault(y - x, []).append(p)
        antidiagonals.setdefault(y + x, []).append(p)
    out = []
    for groups in (rows, cols, diagonals, antidiagonals):
        for key in sorted(groups):
            g = groups[key]
            if len(g) >= 2:
                g.sort()
                out.append(tuple(g))
    return tuple(out)


def _collinear_subsets(cells):
    """Every set of two or more of the given positions lying on one line
    (horizontal, vertical or diagonal; not necessarily consecutive)."""
    out = []
    for line in _lines(cells):
        for k in range(2, len(line) + 1):
            for combo in combinations(line, k):
                out.append(frozenset(combo))
    return tuple(out)


def _span_covered(line, cover):
    """Every grid position between the first and the last of ``line`` (which
    lie on one line) is in ``cover``."""
    ps = sorted(line)
    if len(ps) < 2:
        return True
    (x0, y0), (x1, y1) = ps[0], ps[-1]
    n = max(abs(x1 - x0), abs(y1 - y0))
    dx, dy = (x1 - x0) // n, (y1 - y0) // n
    cover = cover if isinstance(cover, (set, frozenset, dict)) else set(cover)
    return all((x0 + k * dx, y0 + k * dy) in cover for k in range(n + 1))


def _collinear_subsets_summing(weights, total):
    """The sets of 2+ positions (keys of ``weights``) on one line whose weights
    add up to ``total``, in the order of ``lines``. Within a line of positive
    weights, a pruned search gives them in the lexicographic order of their
    indices; a line with a weight <= 0 is searched exhaustively, by size."""
    out = []
    if weights and min(weights.values()) <= 0:
        for line in _lines(weights):
            ws = [weights[q] for q in line]
            if min(ws) <= 0:   # no pruning possible: try every subset
                out.extend(s for s in _collinear_subsets(line) if sum(weights[q] for q in s) == total)
            elif sum(ws) >= total:
                _subsets_summing(line, ws, total, out)
        return tuple(out)
    # Group as lines() does, adding up each group's weight on the way: a line
    # worth less than the total in all holds no subset worth the total.
    rows, cols, diagonals, antidiagonals = {}, {}, {}, {}   # by y, x, y - x, y + x
    for p, w in weights.items():
        x, y = p
        # each group is [its total weight, its positions...] (written out four times: hot)
        e = rows.get(y)
        if e is None:
            rows[y] = [w, p]
        else:
            e[0] += w
            e.append(p)
        e = cols.get(x)
        if e is None:
            cols[x] = [w, p]
        else:
            e[0] += w
            e.append(p)
        e = diagonals.get(y - x)
        if e is None:
            diagonals[y - x] = [w, p]
        else:
            e[0] += w
            e.append(p)
        e = antidiagonals.get(y + x)
        if e is None:
            antidiagonals[y + x] = [w, p]
        else:
            e[0] += w
            e.append(p)
    for g in (rows, cols, diagonals, antidiagonals):
        # only the groups of 2+ positions worth the total or more, in the order of their keys
        keys = [key for key, entry in g.items() if len(entry) >= 3 and entry[0] >= total]
        if len(keys) > 1:
            keys.sort()
        for key in keys:
            entry = g[key]
            if len(entry) == 3:   # two positions: a subset only when they make the total together
                if entry[0] == total:
                    out.append(frozenset(entry[1:]))
                continue
            line = sorted(entry[1:])
            _subsets_summing(line, [weights[q] for q in line], total, out)
    return tuple(out)


def _subsets_summing(line, ws, total, out) -> None:
    """Append the subsets (2+ items) of ``line`` whose positive weights ``ws``
    add up to ``total``, in the lexicographic order of their indices."""
    n = len(ws)
    rest = [0] * (n + 1)   # rest[i]: the weight of line[i:], to cut hopeless branches
    for i in range(n - 1, -1, -1):
        rest[i] = rest[i + 1] + ws[i]

    def search(i, acc, chosen):
        # Extend ``chosen`` (worth ``acc``) with line[j], j >= i, in order.
        for j in range(i, n):
            a = acc + ws[j]
            if a < total:
                if a + rest[j + 1] >= total:
                    search(j + 1, a, chosen + (line[j],))
            elif a == total and chosen:
                out.append(frozenset(chosen + (line[j],)))
    search(0, 0, ())


def _reach(adj, starts):
    """Every node reachable from ``starts`` along the links of ``adj``
    (a map from each node to its neighbours), the starts included."""
    seen = set(starts)
    todo = list(starts)
    while todo:
        n = todo.pop()
        for m in adj.get(n, ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return frozenset(seen)


def _two_way(adj):
    """``adj`` with every link also followed backwards (a group is connected
    whichever way its links were written)."""
    out = {n: set(ms) for n, ms in adj.items()}
    for n, ms in adj.items():
        for m in ms:
            if m not in out:
                out[m] = set()
            out[m].add(n)
    return out


def _components(adj):
    """The connected groups of nodes of ``adj``, its links taken both ways,
    in the order of their smallest node."""
    both = _two_way(adj)
    out, seen = [], set()
    for n in sort_values(both):
        if n not in seen:
            comp = _reach(both, [n])
            seen |= comp
            out.append(comp)
    return tuple(out)


def _graph(nodes, links):
    """The map from each node to the set of its neighbours, for the given
    nodes and two-way links (pairs); a link's ends are nodes too."""
    out = {n: set() for n in nodes}
    for a, b in links:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {n: frozenset(ms) for n, ms in out.items()}


def _connected(adj):
    return len(_components(adj)) <= 1


def _seats_from(first, n):
    _items(n)
    return tuple((first + i) % n for i in range(n)) if n > 0 else ()


def _remove(xs, x):
    if x not in xs:
        raise EvalError(f"remove: {x!r} is not in the list")
    i = xs.index(x)
    return xs[:i] + xs[i + 1:]


def _swap(xs, old, new):
    if old not in xs:
        raise EvalError(f"swap: {old!r} is not in the list")
    i = xs.index(old)
    return xs[:i] + (new,) + xs[i + 1:]


def _without_keys(m, ks):
    return {k: v for k, v in m.items() if k not in ks}


def _without(xs, ys):
    ys = set(ys)
    if isinstance(xs, frozenset):
        return xs - ys
    if isinstance(xs, dict):
        return {k: v for k, v in xs.items() if k not in ys}
    return tuple(x for x in xs if x not in ys)


def no_case(names):
    raise EvalError(f"no case applies (cases: {', '.join(names)}); `atoll verify` with a "
                    "`well_defined` property finds such inputs")


def too_many_choices():
    raise EvalError(f"more than {limits.MAX_CHOICES:,} candidate choices in one state (a limit of the "
                    "model: narrow the parameters' domains, or test them earlier)")


class _Absent:
    """A key's value where a map has none (``f_absent``, see lower.py
    ``present_equal``): equal to no value of the language (the default
    ``==`` of an object: itself only)."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "f_absent"


ABSENT = _Absent()


def meets(xs, ys):
    """``any(x in ys for x in xs)``, what the lowering gives for that
    aggregate when ``ys`` cannot fail (it is evaluated once, where the
    aggregate would evaluate it once per item: the same value). An empty
    ``ys`` holds nothing, so nothing of ``xs`` need be looked at."""
    if not ys:
        return False
    for x in xs:
        if x in ys:
            return True
    return False


def unique(xs):
    """The distinct items of a list, in order (choices that are equal collapse)."""
    try:
        return tuple(dict.fromkeys(xs))
    except TypeError:   # items holding maps are not hashable
        out = []
        for x in xs:
            if x not in out:
                out.append(x)
        return tuple(out)


def at(xs, i):
    """``xs[i]`` for a list: the only way to index one, with the bound checked."""
    if not 0 <= i < len(xs):
        raise EvalError(f"index {i} is outside 0..{len(xs) - 1}")
    return xs[i]


def _get(m, k, default):
    return m.get(k, default)


def _sorted(xs):
    return tuple(sort_values(xs))


def _bag(xs):
    return tuple(sort_values(xs))


def _some(x):
    """A present maybe is the value itself at run time."""
    return x


def _value_or(m, default):
    return default if m is None else m


def _count_of(xs, x):
    if xs.__class__ is tuple:   # a list or a bag: counted in C (by ==, as below; no value
        return xs.count(x)      # of the language is unequal to itself, so `is` agrees)
    return sum(1 for y in xs if y == x)


def _abs(x):
    return -x if x < 0 else x


def _min2(a, b):
    return a if a <= b else b


def _max2(a, b):
    return a if a >= b else b


def _items(n: int) -> None:
    """A collection of ``n`` items may be built (see limits.MAX_ITEMS)."""
    if n > limits.MAX_ITEMS:
        raise EvalError(f"a list of {n} items is too long (at most {limits.MAX_ITEMS:,})")


def _range(n):
    _items(n)
    return tuple(range(n))


def _between(lo, hi):
    _items(hi - lo + 1)
    return tuple(range(lo, hi + 1))


@lru_cache(maxsize=64)
def _dice_bag(n: int, faces: int) -> tuple:
    bag = []
    for roll in combinations_with_replacement(range(1, faces + 1), n):
        ways = factorial(n)
        for f in set(roll):
            ways //= factorial(roll.count(f))
        bag.extend([roll] * ways)
    return tuple(bag)


def _dice(n, faces):
    """Every roll of ``n`` dice of ``faces`` faces, as sorted lists, each as
    often as the ordered rolls that give it (a bag of faces ** n items)."""
    if n < 0 or faces < 1:
        raise EvalError(f"dice({n}, {faces}): the number of dice must be 0 or more and the faces 1 or more")
    _items(faces ** n if n < 64 else limits.MAX_ITEMS + 1)
    return _dice_bag(n, faces)


def _subsets(xs):
    items = sort_values(set(xs))
    if len(items) > 16:
        raise EvalError(f"subsets of {len(items)} items is too many (at most 16)")
    return tuple(frozenset(c) for k in range(len(items) + 1) for c in combinations(items, k))


def _pos(x, y):
    return (x, y)


def _distinct(xs):
    return frozenset(xs)


def _to_list(xs):
    return tuple(sort_values(xs)) if isinstance(xs, (frozenset, dict)) else tuple(xs)


def _keys(m):
    return frozenset(m)


def _values(m):
    return tuple(m[k] for k in sort_values(m))


def _size(xs):
    return len(xs)


# ---------------------------------------------------------------- typing rules
# Each rule gets the argument types and returns (result type, error or None).

Rule = Callable[[list], tuple]


def _need(pred, what):
    def check(t):
        return t == T.UNKNOWN or pred(t), what
    return check


def _is(kind):
    return lambda t: isinstance(t, tuple) and t[0] == kind


def _rule(arity: int, result: Callable[[list], T.Type], *checks) -> Rule:
    def rule(args):
        if len(args) != arity:
            return T.UNKNOWN, f"takes {arity} argument{'s' * (arity != 1)}, not {len(args)}"
        for i, (a, chk) in enumerate(zip(args, checks)):
            if chk is None:
                continue
            ok, what = chk(a)
            if not ok:
                return T.UNKNOWN, f"argument {i + 1} must be {what}, not {T.show(a)}"
        return result(args), None
    return rule


_coll = _need(T.is_collection, "a collection")
_list = _need(_is("list"), "a list")
_map = _need(_is("map"), "a map")
_int = _need(lambda t: t == T.INT, "an int")
_pos_t = _need(lambda t: t == T.POS, "a Pos")
_pos_coll = _need(lambda t: T.is_collection(t) and T.compatible(T.POS, T.element(t)),
                  "a collection of Pos")


def _elem_rule(arity, result, first_check):
    def rule(args):
        res, err = _rule(arity, result, first_check)(args)
        if err:
            return res, err
        elem = T.element(args[0])
        for i, a in enumerate(args[1:], start=2):
            if not T.compatible(elem, a):
                return T.UNKNOWN, f"argument {i} must be {T.show(elem)}, not {T.show(a)}"
        return res, None
    return rule


def _value_or_rule(args):
    if len(args) != 2:
        return T.UNKNOWN, f"takes 2 arguments, not {len(args)}"
    m, d = args
    if m == T.UNKNOWN:
        return d, None
    if not T.is_maybe(m):
        return T.UNKNOWN, f"argument 1 must be a maybe, not {T.show(m)}"
    if not (T.compatible(m[1], d) or T.compatible(d, m[1])):
        return T.UNKNOWN, f"argument 2 must be {T.show(m[1])} (what the maybe holds), not {T.show(d)}"
    return T.join(m[1], d), None


def _is_link_list(t, node):
    """``t`` is a collection of pairs of ``node``s (tuples of two items)."""
    link = T.element(t)
    return T.is_collection(t) and (link == T.UNKNOWN or (
        isinstance(link, tuple) and link[0] == "tuple" and len(link) == 3
        and T.compatible(node, link[1]) and T.compatible(node, link[2])))


def _graph_rule(args):
    if len(args) != 2:
        return T.UNKNOWN, f"takes 2 arguments, not {len(args)}"
    nodes, links = args
    if nodes != T.UNKNOWN and not T.is_collection(nodes):
        return T.UNKNOWN, f"argument 1 must be a collection of nodes, not {T.show(nodes)}"
    node = T.element(nodes)
    if links != T.UNKNOWN and not _is_link_list(links, node):
        return T.UNKNOWN, (f"argument 2 must be a collection of links `(a, b)` of two "
                           f"{T.show(node)}, not {T.show(links)}")
    if node == T.UNKNOWN and links != T.UNKNOWN and T.element(links) != T.UNKNOWN:
        node = T.element(links)[1]
    return ("map", node, ("set", node)), None


def _leaders_rule(args):
    if len(args) != 1:
        return T.UNKNOWN, f"takes 1 argument, not {len(args)}"
    m = args[0]
    if m == T.UNKNOWN:
        return ("set", T.UNKNOWN), None
    if _is("map")(m) and m[2] in (T.INT, T.UNKNOWN):
        return ("set", m[1]), None
    if _is("list")(m) and m[1] in (T.INT, T.UNKNOWN):
        return ("set", T.INT), None
    return T.UNKNOWN, f"argument 1 must be a map to ints or a list of ints, not {T.show(m)}"


# name -> (python implementation, typing rule, one-line doc)
FUNCTIONS: dict[str, tuple[Callable, Rule, str]] = {
    "size": (_size, _rule(1, lambda a: T.INT, _coll),
             "size(c): the number of items of a list, set, bag or map."),
    "keys": (_keys, _rule(1, lambda a: ("set", a[0][1]) if a[0] != T.UNKNOWN else T.UNKNOWN, _map),
             "keys(m): the set of keys of a map."),
    "values": (_values, _rule(1, lambda a: ("list", a[0][2]) if a[0] != T.UNKNOWN else T.UNKNOWN, _map),
               "values(m): the values of a map, ordered by key."),
    "get": (_get, lambda a: (a[0][2] if len(a) == 3 and isinstance(a[0], tuple) and a[0][0] == "map"
                             else T.UNKNOWN,
                             None if len(a) == 3 and (a[0] == T.UNKNOWN or _is("map")(a[0]))
                             else "takes a map, a key and a default value"),
            "get(m, k, d): the value of key k in map m, or d if there is none."),
    "remove": (_remove, _elem_rule(2, lambda a: a[0], _list),
               "remove(xs, x): the list without one occurrence of x (x must be in it)."),
    "swap": (_swap, _elem_rule(3, lambda a: a[0], _list),
             "swap(xs, old, new): the list with one occurrence of old replaced by new."),
    "without": (_without, _rule(2, lambda a: a[0], _coll, _coll),
                "without(xs, ys): the items of xs that are not in ys."),
    "without_keys": (_without_keys, _rule(2, lambda a: a[0], _map, _coll),
                     "without_keys(m, ks): the map without the keys in ks."),
    "sorted": (_sorted, _rule(1, lambda a: ("list", T.element(a[0])), _coll),
               "sorted(c): the items in increasing order, as a list."),
    "to_list": (_to_list, _rule(1, lambda a: ("list", T.element(a[0])), _coll),
                "to_list(c): the items as a list (sets and maps in increasing order)."),
    "distinct": (_distinct, _rule(1, lambda a: ("set", T.element(a[0])), _coll),
                 "distinct(c): the set of the items of c."),
    "bag": (_bag, _rule(1, lambda a: ("bag", T.element(a[0])), _coll),
            "bag(c): an unordered pile of the items; drawing from it is a chance event."),
    "count_of": (_count_of, _elem_rule(2, lambda a: T.INT, _coll),
                 "count_of(c, x): how many times x occurs in c."),
    "range": (_range, _rule(1, lambda a: ("list", T.INT), _int),
              "range(n): the list 0, 1, ..., n-1."),
    "between": (_between, _rule(2, lambda a: ("list", T.INT), _int, _int),
                "between(lo, hi): the list lo, lo+1, ..., hi (empty if hi < lo)."),
    "dice": (_dice, _rule(2, lambda a: ("bag", ("list", T.INT)), _int, _int),
             "dice(n, f): every roll of n dice with faces 1..f, each a sorted list, as often as "
             "the ordered rolls that give it (4 six-sided dice: 126 rolls, 1,296 items); "
             "`roll r from dice(n, f)` rolls them."),
    "subsets": (_subsets, _rule(1, lambda a: ("list", ("set", T.element(a[0]))), _coll),
                "subsets(c): every set of items of c (at most 16 distinct items)."),
    "abs": (_abs, _rule(1, lambda a: T.INT, _int), "abs(n): the absolute value."),
    "min2": (_min2, _rule(2, lambda a: T.INT, _int, _int), "min2(a, b): the smaller int."),
    "max2": (_max2, _rule(2, lambda a: T.INT, _int, _int), "max2(a, b): the larger int."),
    "pos": (_pos, _rule(2, lambda a: T.POS, _int, _int), "pos(x, y): a grid position."),
    "orth": (_orth, _rule(1, lambda a: ("list", T.POS), _pos_t),
             "orth(p): the 4 orthogonal neighbours of p (up, right, down, left)."),
    "around": (_around, _rule(1, lambda a: ("list", T.POS), _pos_t),
               "around(p): the 8 neighbours of p (orthogonal and diagonal)."),
    "lines": (_lines, _rule(1, lambda a: ("list", ("list", T.POS)), _pos_coll),
              "lines(ps): the maximal groups of 2+ of the positions on one horizontal, "
              "vertical or diagonal line (gaps allowed)."),
    "collinear_subsets_summing": (
        _collinear_subsets_summing,
        _rule(2, lambda a: ("list", ("set", T.POS)),
              _need(lambda t: _is("map")(t) and T.compatible(T.POS, t[1]) and t[2] in (T.INT, T.UNKNOWN),
                    "a map from Pos to int"), _int),
        "collinear_subsets_summing(weights, total): the sets of 2+ positions of the map, on one "
        "horizontal, vertical or diagonal line, whose weights add up to total."),
    "reach": (_reach, _rule(2, lambda a: ("set", a[0][1]) if a[0] != T.UNKNOWN else T.UNKNOWN,
                            _need(lambda t: _is("map")(t) and T.is_collection(t[2]) and T.compatible(t[1], T.element(t[2])),
              "a map from each node to a collection of its neighbours"), _coll),
              "reach(adj, starts): every node reachable from starts along the links of adj "
              "(a map from each node to its neighbours; a link is followed one way, from the "
              "node that lists it)."),
    "components": (_components, _rule(1, lambda a: ("list", ("set", a[0][1])) if a[0] != T.UNKNOWN
                                      else T.UNKNOWN, _need(lambda t: _is("map")(t) and T.is_collection(t[2]) and T.compatible(t[1], T.element(t[2])),
              "a map from each node to a collection of its neighbours")),
                   "components(adj): the connected groups of nodes of a graph given as a map "
                   "from each node to its neighbours (links taken both ways), ordered by their "
                   "least node."),
    "connected": (_connected, _rule(1, lambda a: T.BOOL, _need(lambda t: _is("map")(t) and T.is_collection(t[2]) and T.compatible(t[1], T.element(t[2])),
              "a map from each node to a collection of its neighbours")),
                  "connected(adj): all the nodes of the graph form one group (links taken both ways)."),
    "planar": (lambda adj: _planar(adj), _rule(1, lambda a: T.BOOL, _need(lambda t: _is("map")(t) and T.is_collection(t[2]) and T.compatible(t[1], T.element(t[2])),
              "a map from each node to a collection of its neighbours")),
               "planar(adj): the graph can be drawn in the plane without two links crossing."),
    "graph": (_graph, _graph_rule,
              "graph(nodes, links): the map from each node to the set of its neighbours, for "
              "two-way links given as pairs `(a, b)` (for `reach`, `components`, `connected`)."),
    "some": (_some, _rule(1, lambda a: ("maybe", a[0]),
                          _need(lambda t: not T.is_maybe(t), "a value that is not a maybe already")),
             "some(x): x as a present optional value, of type maybe[T]; `none` is the absent one."),
    "value_or": (_value_or, _value_or_rule,
                 "value_or(m, d): the value an optional value m holds, or d when it is none."),
    "seats_from": (_seats_from, _rule(2, lambda a: ("list", T.INT), _int, _int),
                   "seats_from(p, n): the n seats in turn order, starting with seat p."),
    "span_covered": (_span_covered, _rule(2, lambda a: T.BOOL, _pos_coll, _pos_coll),
                     "span_covered(line, cover): every position from the first to the last of a "
                     "straight line of positions is in cover (no gap outside it)."),
    "rotate": (_tiles.rotate, _rule(2, lambda a: a[0], _list, _int),
               "rotate(xs, k): the list turned k places: the item at i moves to (i + k) mod its size "
               "(a tile's edges turned k steps; a negative k turns back)."),
    "squares": (_tiles.squares, _rule(1, lambda a: ("set", T.POS), _pos_coll),
                "squares(ps): the 2x2 blocks of positions all in ps, each named by its corner with "
                "the least x and y (blocks may overlap)."),
    "columns": (_tiles.columns, _rule(1, lambda a: ("list", ("list", T.POS)), _pos_coll),
                "columns(ps): the maximal vertical runs of the positions (one x, consecutive y), "
                "single positions included, by x and then y."),
    "rows": (_tiles.rows, _rule(1, lambda a: ("list", ("list", T.POS)), _pos_coll),
             "rows(ps): the maximal horizontal runs of the positions (one y, consecutive x), "
             "single positions included, by y and then x."),
    "frontier": (_tiles.frontier, _rule(1, lambda a: ("set", T.POS), _pos_coll),
                 "frontier(ps): the positions outside ps that share an edge with one in it (an "
                 "area is enclosed by cover when its frontier lies inside cover)."),
    "leaders": (_tiles.leaders, _leaders_rule,
                "leaders(m): the keys of a map to ints (the indices of a list of ints) holding its "
                "greatest value, every tied one included; empty when m is."),
    "collinear_subsets": (_collinear_subsets, _rule(1, lambda a: ("list", ("set", T.POS)), _pos_coll),
                          "collinear_subsets(ps): every set of 2+ of the positions that lie on "
                          "one horizontal, vertical or diagonal line, consecutive or not."),
}

# The arguments (by position) whose order never changes a function's result:
# the function reads them as a set, sorts them or groups them. A collection
# built for such an argument need not be built in a fixed order.
ORDER_FREE: dict[str, tuple[int, ...]] = {
    "size": (0,), "keys": (0,), "distinct": (0,), "sorted": (0,), "bag": (0,), "count_of": (0,),
    "without": (1,), "without_keys": (1,), "lines": (0,), "collinear_subsets": (0,),
    "collinear_subsets_summing": (0,), "span_covered": (0, 1), "reach": (0, 1),
    "components": (0,), "connected": (0,), "graph": (0, 1),
    "squares": (0,), "columns": (0,), "rows": (0,), "frontier": (0,),
}

# Aggregates: func(elem for x in xs if c). Result type from the element type.
AGGREGATES: dict[str, tuple[Optional[str], str, str]] = {
    # name -> (required element type or None, result type, doc)
    "sum": ("int", "int", "sum(e for ...): the total (0 if there is nothing)."),
    "count": (None, "int", "count(e for ...): how many items are generated."),
    "min": ("int", "int", "min(e for ...): the least value (0 if there is nothing)."),
    "max": ("int", "int", "max(e for ...): the greatest value (0 if there is nothing)."),
    "all": ("bool", "bool", "all(e for ...): every item is true (true if there is nothing)."),
    "any": ("bool", "bool", "any(e for ...): some item is true (false if there is nothing)."),
}

# Names the runtime provides in every rule.
BUILTIN_VALUES = {
    "players": (("list", T.INT), "players: all seats, 0 to player_count - 1."),
    "seats": (("list", T.INT), "seats: the seats in turn order, starting with the first player."),
    "player_count": (T.INT, "player_count: the number of players."),
    "current_round": (T.INT, "current_round: the round being played, from 1."),
    "none": (("maybe", T.UNKNOWN), "none: the absent optional value (of any type maybe[T])."),
}
# Names that only exist inside actions and phases.
CONTEXT_VALUES = {
    "me": (T.INT, "me: the player whose turn it is (inside phases and actions)."),
}
# Special forms handled by the checker and the lowering.
SPECIAL_FORMS = {
    "can": "can(a): action a of the current phase has at least one legal choice now.",
    "team_of": "team_of(p): the list of the players on p's team (p alone without teams).",
}
