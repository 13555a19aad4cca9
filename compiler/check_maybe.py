"""Type checks of optional values: the type ``maybe[T]`` (``none`` or a
``T``), ``some(x)``, ``value_or(m, d)`` (compiler/stdlib.py) and the lifted
comparisons.

A comparison is *lifted*: ``m == x`` with ``m: maybe[T]`` and ``x: T`` holds
when ``m`` holds ``x`` (never when ``m`` is ``none``); ``m != x`` is its
negation; ``m in xs`` with ``xs`` a collection of ``T`` holds when ``m``
holds an item of ``xs``. Nothing else reads inside a maybe: a field, an
index or arithmetic needs ``value_or`` first.

Called by ``Checker``; ``c`` is the ``Checker``.
"""
from __future__ import annotations

from atoll.compiler import types as T
from atoll.grammar import ast as A

UNWRAP_HINT = "read an optional value with `value_or(m, default)`; test it with `m != none`"


def maybe_type(c, tr: A.TypeRef):
    """The type ``maybe[T]``."""
    if len(tr.args) != 1:
        c.rep.add("A0104", "`maybe` takes 1 type argument", tr.span, "write `maybe[T]`")
        return T.UNKNOWN
    inner = c.resolve(tr.args[0])
    if T.is_maybe(inner):
        c.rep.add("A0103", "a maybe cannot hold a maybe", tr.span,
                  "`maybe[maybe[T]]` would make `none` ambiguous: write `maybe[T]`")
        return inner
    return ("maybe", inner)


def lifted(a, b) -> bool:
    """``a`` and ``b`` compare through a maybe: one is ``maybe[T]``, the other a ``T``."""
    if T.is_maybe(a) and not T.is_maybe(b):
        return T.compatible(a[1], b) or T.compatible(b, a[1])
    if T.is_maybe(b) and not T.is_maybe(a):
        return T.compatible(b[1], a) or T.compatible(a, b[1])
    return False


def no_fields_hint(t) -> str:
    return UNWRAP_HINT if T.is_maybe(t) else ""


def mismatch_hint(want, got) -> str:
    """A hint when a maybe stands where its value is wanted, or the reverse."""
    if T.is_maybe(got) and not T.is_maybe(want) and T.compatible(want, got[1]):
        return UNWRAP_HINT
    if T.is_maybe(want) and not T.is_maybe(got) and T.compatible(want[1], got):
        return "a value is not an optional value: write `some(x)` (or `none` for no value)"
    return ""
