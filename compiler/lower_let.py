"""Lowering of `let` expressions, tuples and destructuring: a part of the
Lowerer (``lower.Lowerer`` inherits it).

At run time a tuple is a Python tuple (as a record is), so ``t[0]`` is
Python's indexing and equality, hashing and order are Python's.

``let x = e in body`` becomes ``(lambda l_x: BODY)(E)``: ``e`` is evaluated
once, and the name is bound only in the body (a Python function's scope),
so it hides a local of the same name outside without changing it. Later
bindings nest: ``let a = e1, b = e2 in body`` is
``(lambda l_a: (lambda l_b: BODY)(E2))(E1)``; ``let (a, b) = e in body`` is
``(lambda l_a, l_b: BODY)(*E)``. Each layer is kept within Python's nesting
limit by ``shallow`` (a hoisted helper receives the lambda's parameters it
reads: see ``lower_limits._free_names``).
"""
from __future__ import annotations

from atoll.compiler import names as N
from atoll.grammar import ast as A


def let_bound(node) -> set[str]:
    """Every name that a `let` expression or a comprehension's `for` inside
    ``node`` binds (what inlining a def must not capture)."""
    out: set[str] = set()
    for n in A.walk(node):
        if isinstance(n, (A.Aggregate, A.Comprehension)):
            for f in n.fors:
                out.update(A.bound_names(f))
        elif isinstance(n, A.LetExpr):
            for b in n.bindings:
                out.update(A.bound_names(b))
    return out


class LetLowering:
    """The methods of the Lowerer for `let` and tuples."""

    def target(self, node) -> str:
        """The Python target of a binding: ``l_x``, or ``(l_a, l_b)``."""
        if node.names:
            return "(" + "".join(N.local(n) + ", " for n in node.names) + ")"
        return N.local(A.bound_names(node)[0])

    def tuple_lit(self, e: A.TupleLit) -> str:
        return "(" + "".join(self.ex(i) + ", " for i in e.items) + ")"

    def let_expr(self, e: A.LetExpr) -> str:
        names = set().union(*(A.bound_names(b) for b in e.bindings))
        saved = set(self.seat_vars)
        self.seat_vars.difference_update(names)   # a let's value is not known to be a seat
        try:
            values = [self.ex(b.value) for b in e.bindings]
            out = self.ex(e.body)
            for b, v in zip(reversed(e.bindings), reversed(values)):
                params = ", ".join(N.local(n) for n in A.bound_names(b))
                out = self.shallow(f"(lambda {params}: {out})({'*' if b.names else ''}{v})")
            return out
        finally:
            self.seat_vars.clear()
            self.seat_vars.update(saved)
