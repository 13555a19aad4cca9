"""Rule modifiers: `modify f(names) by name [when c] => e`.

A modifier adjusts the result of the `def` ``f`` where ``c`` holds; in ``c``
and ``e``, ``value`` is the result so far. ``apply`` folds a def's modifiers,
in declaration order, into its body:

    let value = <body> in (if c1 then e1 else value)        # the first modifier
    let value = <that> in (if c2 then e2 else value)        # the second, around it

so the def stays one pure expression: the lowering, the frame, z3 (a `let`
and an `if`: its exact meaning, no approximation) and the docs read it as any
other. The base rule and each change stay separate, cited declarations.

Order: the modifiers of one def apply in declaration order. When two of them
may give another result in the other order, that is a warning (A0705). The
check is sufficient, not complete: two modifiers commute when neither test
reads ``value`` and both results are of one of these forms (``c`` not
reading ``value``): ``value + c`` / ``value - c``, ``min2(value, c)``,
``max2(value, c)``. Any other pair is warned about (it may still commute).
"""
from __future__ import annotations

from dataclasses import replace

from atoll.diagnostics import Reporter, did_you_mean
from atoll.grammar import ast as A

VALUE = "value"


def _reads_value(e) -> bool:
    return e is not None and any(isinstance(n, A.Name) and n.name == VALUE for n in A.walk(e))


def _is_value(e) -> bool:
    return isinstance(e, A.Name) and e.name == VALUE


def family(m: A.ModifyDecl):
    """The commuting family of a modifier's result, or None."""
    if _reads_value(m.when):
        return None
    e = m.value
    if isinstance(e, A.BinOp) and e.op in ("+", "-"):
        if _is_value(e.left) and not _reads_value(e.right):
            return "add"
        if e.op == "+" and _is_value(e.right) and not _reads_value(e.left):
            return "add"
    if isinstance(e, A.Call) and e.func in ("min2", "max2") and len(e.args) == 2 and not e.named:
        a, b = e.args
        if (_is_value(a) and not _reads_value(b)) or (_is_value(b) and not _reads_value(a)):
            return e.func
    return None


def apply(items: list, rep: Reporter) -> list:
    defs: dict[str, A.DefDecl] = {}
    for it in items:
        if isinstance(it, A.DefDecl) and it.name not in defs:
            defs[it.name] = it
    by_def: dict[str, list] = {}
    for m in (it for it in items if isinstance(it, A.ModifyDecl)):
        d = defs.get(m.func)
        if d is None:
            rep.add("A0101", f"modifier `{m.name}`: unknown function `{m.func}`", m.span,
                    did_you_mean(m.func, defs) or "a modifier adjusts a `def`")
            continue
        declared = tuple(q.name for q in d.params)
        if len(m.names) != len(declared):
            rep.add("A0104", f"`{m.func}` has {len(declared)} parameter{'s' * (len(declared) != 1)}, and "
                    f"modifier `{m.name}` names {len(m.names)}", m.span,
                    f"write `modify {m.func}({', '.join(declared)}) by {m.name} ...`")
            continue
        if m.names != declared:
            rep.add("A0706", f"modifier `{m.name}` names the parameters of `{m.func}` "
                    f"`{', '.join(m.names)}`, and `{m.func}` declares `{', '.join(declared)}`", m.span,
                    f"name them as the def does: `modify {m.func}({', '.join(declared)}) by {m.name} ...`")
            continue
        if VALUE in declared:
            rep.add("A0706", f"`{m.func}` has a parameter named `{VALUE}`, the name a modifier gives the "
                    "result so far", m.span, f"rename the parameter of `{m.func}`")
            continue
        by_def.setdefault(m.func, []).append(m)
    for f, mods in by_def.items():
        for j, b in enumerate(mods):
            for a in mods[:j]:
                fa, fb = family(a), family(b)
                if fa is None or fa != fb:
                    rep.add("A0705", f"modifiers `{a.name}` and `{b.name}` of `{f}` may not commute: they "
                            f"apply in declaration order (`{a.name}` first)", b.span,
                            "if the order matters, say which comes first in the summaries; modifiers of "
                            "the forms `value + c`, `min2(value, c)`, `max2(value, c)` (with a test that "
                            "does not read `value`) are known to commute with their own kind")
    out = []
    for it in items:
        if isinstance(it, A.DefDecl) and defs.get(it.name) is it and it.name in by_def:
            body = it.body
            for m in by_def[it.name]:
                new = m.value if m.when is None else A.IfExpr(m.when, m.value, A.Name(VALUE, m.span), m.span)
                body = A.LetExpr((A.LetBinding(VALUE, body, m.span),), new, m.span)
            it = replace(it, body=body)
        out.append(it)
    return out


def base_body(d: A.DefDecl, n: int):
    """The body of ``d`` as written, under its ``n`` modifiers (see ``apply``)."""
    body = d.body
    for _ in range(n):
        body = body.bindings[0].value
    return body
