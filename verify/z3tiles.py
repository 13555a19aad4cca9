"""The z3 meaning of the standard library's tile and territory operations
(compiler/stdlib_tiles.py), beside the Python one; the agreement test
(tests/test_z3_agreement.py) compares the two.

* ``rotate`` and ``leaders`` are symbolic: items, their membership, the
  values and the number of places may all be symbolic.
* ``squares``, ``columns``, ``rows`` and ``frontier`` are functions of the
  *shape* of a collection of positions: the candidate positions must be
  concrete, their presence may be symbolic (as ``lines`` in z3sem.py).
"""
from __future__ import annotations

import z3

from atoll.verify.z3values import (MAX_ITEMS, Unsupported, TRUE, FALSE, Coll, SMap, simp, ite,
                                   positions, count, floor_mod)

SYMBOLIC = {"rotate", "leaders"}
SHAPE = {"squares", "columns", "rows", "frontier"}


def call(ev, name: str, args):
    """The z3 value of ``name`` applied to the symbolic ``args`` (``ev``: the
    Z3Eval, for its helpers)."""
    if name == "rotate":
        return rotate(*args)
    if name == "leaders":
        return leaders(args[0])
    present = _present(ev, name, args[0])
    if name == "squares":
        return squares(ev, present)
    if name == "frontier":
        return frontier(ev, present)
    return runs(ev, present, 1 if name == "columns" else 0)


def rotate(xs: Coll, k):
    """Slot j of the result holds the present item whose place p has
    (p + k) mod n == j, n the number of present items."""
    items = xs.items
    if not items:
        return Coll("list", [])
    n = count(items)
    places = [floor_mod(p + k, n) for p in positions(items)]
    out = []
    for j in range(len(items)):
        val = items[-1][0]
        for (v, c), p in reversed(list(zip(items, places))):
            val = ite(z3.And(c, p == j), v, val)
        out.append((val, n > j))
    return Coll("list", out)


def leaders(m):
    """A key is a leader when it is present and no present value is greater."""
    if isinstance(m, SMap):
        entries = [(k, v, g) for k, v, g in m.entries]
    else:   # a list: the key of an item is its place among the present items
        entries = [(p, v, g) for (v, g), p in zip(m.items, positions(m.items))]
    out = []
    for i, (k, v, g) in enumerate(entries):
        beaten = [z3.And(g2, v2 > v) for j, (_, v2, g2) in enumerate(entries) if j != i]
        out.append((k, z3.And(g, z3.Not(z3.Or(beaten + [FALSE])))))
    return Coll("set", out)


def _present(ev, name, coll):
    """Each concrete candidate position of ``coll``, with the condition that it is present."""
    items = coll.items if isinstance(coll, Coll) else [(k, g) for k, _, g in coll.entries]
    try:
        universe = [(ev._concrete_any(v), c) for v, c in items if not z3.is_false(simp(c))]
    except Unsupported:
        raise Unsupported(f"`{name}` of positions that are symbolic") from None
    present: dict = {}
    for v, c in universe:
        present[v] = z3.Or(present.get(v, FALSE), c)
    return present


def _at(present, p):
    return present.get(p, FALSE)


def squares(ev, present):
    out = []
    for (x, y) in sorted(present):
        block = [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
        if all(q in present for q in block):
            out.append((ev._lift_plain((x, y)), z3.And([present[q] for q in block])))
    return Coll("set", out)


def frontier(ev, present):
    near: dict = {}
    for (x, y) in present:
        for q in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
            near.setdefault(q, []).append(present[(x, y)])
    return Coll("set", [(ev._lift_plain(q), z3.And(z3.Not(_at(present, q)), z3.Or(near[q])))
                        for q in sorted(near)])


def runs(ev, present, along: int):
    """Every stretch of consecutive candidates on one line is a possible run:
    present when all its positions are and the positions just before and
    just after it are not. In the Python order: by line, then start."""
    across = 1 - along
    lines: dict = {}
    for p in present:
        lines.setdefault(p[across], []).append(p)
    out = []
    for key in sorted(lines):
        cells = sorted(lines[key], key=lambda p: p[along])
        for i, first in enumerate(cells):
            for j in range(i, len(cells)):
                if cells[j][along] - first[along] != j - i:
                    break   # a gap between candidates: no run goes past it
                run = cells[i:j + 1]
                before, after = (_step(first, along, -1), _step(cells[j], along, 1))
                guard = z3.And([present[q] for q in run]
                               + [z3.Not(_at(present, before)), z3.Not(_at(present, after))])
                out.append((Coll("list", [(ev._lift_plain(q), TRUE) for q in run]), guard))
                if len(out) > MAX_ITEMS:
                    raise Unsupported(f"runs of more than {MAX_ITEMS} candidate stretches")
    return Coll("list", out)


def _step(p, along, d):
    return (p[0] + d, p[1]) if along == 0 else (p[0], p[1] + d)

