"""Symbolic values of the z3 meaning (see ``z3sem``): guarded collections
and maps, and the operations every part of the z3 layer shares on them
(equality, order, membership, if-then-else)."""
from __future__ import annotations

from dataclasses import dataclass

import z3


MAX_ITEMS = 20_000   # a collection the z3 meaning builds item by item has at most this many


class Unsupported(Exception):
    """This expression has no z3 meaning in this context."""


TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)


@dataclass
class Coll:
    kind: str                       # list, set or bag
    items: list                     # [(value, z3 Bool)]

    def present(self):
        return [(v, c) for v, c in self.items if not z3.is_false(c)]


@dataclass
class SMap:
    entries: list                   # [(key, value, z3 Bool)]


@dataclass
class Opt:
    """A ``maybe[T]``: ``has`` (a z3 Bool) says whether it holds ``val`` (a
    symbolic T). ``val`` is None for the literal ``none``, whose type is not
    known; where ``has`` is false, ``val`` means nothing."""
    has: object
    val: object


def lift_opt(x):
    """A plain value compared with a maybe: the maybe that holds it."""
    return x if isinstance(x, Opt) else Opt(TRUE, x)


def simp(x):
    return z3.simplify(x) if isinstance(x, z3.ExprRef) else x


def is_true(c) -> bool:
    return z3.is_true(simp(c))


def eq(a, b):
    """Structural equality of two symbolic values, as a z3 Bool."""
    if isinstance(a, Opt) or isinstance(b, Opt):   # lifted: a plain value is a present maybe
        a, b = lift_opt(a), lift_opt(b)
        if a.val is None or b.val is None:   # one is `none`
            return z3.And(z3.Not(a.has), z3.Not(b.has))
        return z3.And(a.has == b.has, z3.Implies(a.has, eq(a.val, b.val)))
    if isinstance(a, tuple):
        return z3.And([eq(x, y) for x, y in zip(a, b)]) if a else TRUE
    if isinstance(a, Coll):
        if a.kind == "set" or b.kind == "set":
            return z3.And([z3.Implies(c, member(b, v)) for v, c in a.items] +
                          [z3.Implies(c, member(a, v)) for v, c in b.items])
        if all(is_true(c) for _, c in a.items + b.items):
            if len(a.items) != len(b.items):
                return FALSE
            return z3.And([eq(x, y) for (x, _), (y, _) in zip(a.items, b.items)] + [TRUE])
        # Guarded lists: as many present items, and the k-th of each equal.
        pa, pb = positions(a.items), positions(b.items)
        same = [count(a.items) == count(b.items)]
        for (x, g), i in zip(a.items, pa):
            for (y, h), j in zip(b.items, pb):
                same.append(z3.Implies(z3.And(g, h, i == j), eq(x, y)))
        return z3.And(same)
    if isinstance(a, SMap):
        raise Unsupported("equality of maps")
    return a == b


SYMBOLIC = object()   # what ``literal`` gives for a value that is not written out


def literal(x):
    """A value written out as literals, as a hashable Python value (each
    scalar tagged with its kind), or ``SYMBOLIC``. Two literals are equal as
    values exactly when these are equal."""
    if isinstance(x, z3.ExprRef):
        if z3.is_int_value(x):
            return ("int", x.as_long())
        if z3.is_true(x) or z3.is_false(x):
            return ("bool", z3.is_true(x))
        if z3.is_string_value(x):
            return ("str", x.as_string())
        return SYMBOLIC
    if isinstance(x, tuple):
        out = tuple(literal(y) for y in x)
        return SYMBOLIC if any(y is SYMBOLIC for y in out) else ("tuple", out)
    return SYMBOLIC


def literal_eq(a, b):
    """Whether two values written out as literals are equal (True or False),
    decided here without z3; None when either is symbolic (``eq(a, b)`` is
    then the z3 constant of that answer)."""
    la = literal(a)
    if la is SYMBOLIC:
        return None
    lb = literal(b)
    return None if lb is SYMBOLIC else la == lb


def less(a, b):
    """The language's order on values: ints, then tuples lexicographically;
    ``none`` before every value of a maybe."""
    if isinstance(a, Opt) or isinstance(b, Opt):
        a, b = lift_opt(a), lift_opt(b)
        if b.val is None:
            return FALSE
        if a.val is None:
            return b.has
        return z3.Or(z3.And(z3.Not(a.has), b.has), z3.And(a.has, b.has, less(a.val, b.val)))
    if isinstance(a, tuple):
        if not a:
            return FALSE
        return z3.Or(less(a[0], b[0]), z3.And(eq(a[0], b[0]), less(a[1:], b[1:])))
    if z3.is_bool(a):
        return z3.And(z3.Not(a), b)
    return a < b


def member(coll, x):
    if isinstance(coll, SMap):
        return z3.Or([z3.And(c, eq(k, x)) for k, _, c in coll.entries] + [FALSE])
    return z3.Or([z3.And(c, eq(v, x)) for v, c in coll.items] + [FALSE])


def ite(c, a, b):
    """If-then-else on symbolic values of one type."""
    if isinstance(a, Opt) or isinstance(b, Opt):
        a, b = lift_opt(a), lift_opt(b)
        val = b.val if a.val is None else a.val if b.val is None else ite(c, a.val, b.val)
        return Opt(z3.If(c, a.has, b.has), val)
    if isinstance(a, tuple):
        return tuple(ite(c, x, y) for x, y in zip(a, b))
    if isinstance(a, Coll):   # guarded concatenation: exact for lists, sets and bags
        return Coll(a.kind, [(v, z3.And(c, g)) for v, g in a.items] +
                    [(v, z3.And(z3.Not(c), g)) for v, g in b.items])
    if isinstance(a, SMap):
        return SMap([(k, v, z3.And(c, g)) for k, v, g in a.entries] +
                    [(k, v, z3.And(z3.Not(c), g)) for k, v, g in b.entries])
    if not (isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef)):
        raise Unsupported("a choice between values of different kinds")
    return z3.If(c, a, b)


def dedupe(items):
    """Guard each item so that no two equal items are both present (the first stays)."""
    out = []
    for j, (v, c) in enumerate(items):
        earlier = [z3.And(c2, eq(v2, v)) for v2, c2 in items[:j]]
        out.append((v, z3.And(c, z3.Not(z3.Or(earlier))) if earlier else c))
    return out


def positions(items):
    """For each guarded item, how many present items come before it."""
    out, acc = [], z3.IntVal(0)
    for _, c in items:
        out.append(acc)
        acc = acc + z3.If(c, 1, 0)
    return out


def count(items):
    return z3.Sum([z3.If(c, 1, 0) for _, c in items]) if items else z3.IntVal(0)


def floor_div(a, b):
    return z3.If(b == 0, 0, z3.If(b > 0, a / b, (-a) / (-b)))


def floor_mod(a, b):
    return z3.If(b == 0, a, a - b * floor_div(a, b))
