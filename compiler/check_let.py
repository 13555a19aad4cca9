"""Type checks of `let` expressions, tuples and destructuring: a part of
the Checker (``check.Checker`` inherits it).

A tuple type is ``("tuple", T1, T2, ...)`` (two or more items). An item is
read as ``t[0]``, ``t[1]``...: the position is a number written out, so
each item keeps its own type. ``let (a, b) = e``, ``for (a, b) in xs`` and
``[... for (a, b) in xs]`` take a tuple apart into as many names as it has
items (A0109 otherwise).
"""
from __future__ import annotations

from atoll.compiler import types as T
from atoll.grammar import ast as A


class LetTupleChecks:
    """The methods of the Checker for `let` and tuples."""

    def tuple_type(self, tr: A.TypeRef):
        if len(tr.args) < 2:
            self.rep.add("A0104", "`tuple` takes two or more type arguments", tr.span,
                         "write `tuple[int, str]`; a single value needs no tuple")
            return T.UNKNOWN
        return ("tuple",) + tuple(self.resolve(a) for a in tr.args)

    def tuple_item(self, e: A.Index, t):
        n = len(t) - 1
        if not isinstance(e.key, A.IntLit):
            self.rep.add("A0109", "a tuple's item is read at a position written as a number, "
                         "not a computed one",
                         e.key.span, f"write `[0]` to `[{n - 1}]` (each item has its own type), or take "
                         "the tuple apart: `let (a, b) = t in ...`")
            return T.UNKNOWN
        if e.key.value >= n:
            self.rep.add("A0109", f"this tuple has {n} items: there is no item {e.key.value}", e.key.span,
                         f"its items are `[0]` to `[{n - 1}]`")
            return T.UNKNOWN
        return t[1 + e.key.value]

    def let_expr(self, e: A.LetExpr, ctx: Ctx):
        for b in e.bindings:   # each value sees the names bound before it
            ctx = self.bind_target(b, self.expr(b.value, ctx), ctx)
        return self.expr(e.body, ctx)

    def bind_target(self, node, t, ctx: Ctx) -> Ctx:
        """Bind what a `let`, a `for` or a comprehension's `for` binds: its
        name, or the items of a tuple to its names. (A local hides a name
        of the same spelling outside it, as comprehension variables do.)"""
        if not node.names:
            return ctx.bind(A.bound_names(node)[0], t)
        names = node.names
        for i, n in enumerate(names):
            if n in names[:i]:
                self.rep.add("A0102", f"`{n}` is named twice in this tuple", node.span,
                             "give each item its own name")
        items = [T.UNKNOWN] * len(names)
        if isinstance(t, tuple) and t[0] == "tuple" and len(t) - 1 == len(names):
            items = list(t[1:])
        elif isinstance(t, tuple) and t[0] == "tuple":
            self.rep.add("A0109", f"this takes a tuple of {len(t) - 1} items apart into "
                         f"{len(names)} names", node.span,
                         "give one name per item: "
                         f"({', '.join(chr(97 + i) for i in range(min(len(t) - 1, 26)))})")
        elif t != T.UNKNOWN:
            self.rep.add("A0109", f"only a tuple can be taken apart into names; this is {T.show(t)}",
                         node.span, "bind it to one name (`let x = ...`, `for x in ...`)")
        for n, it in zip(names, items):
            ctx = ctx.bind(n, it)
        return ctx
