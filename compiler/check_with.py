"""Type checks of two expression forms: the update ``obj with {k: v, ...}``
(of a map: keys set; of a record: fields replaced) and the typed empty
collection ``list[T]()``, ``set[T]()``, ``bag[T]()``, ``map[K, V]()``.

Called by ``Checker._expr``; ``c`` is the ``Checker``.
"""
from __future__ import annotations

from atoll.compiler import types as T
from atoll.diagnostics import did_you_mean
from atoll.grammar import ast as A

_WITH_HINT = ("`m with {k: v}` sets keys of a map; `r with {field: v}` replaces fields of a record")
_EMPTY_HINT = "typed empty collections are `list[T]()`, `set[T]()`, `bag[T]()` and `map[K, V]()`"


def with_expr(c, e: A.With, ctx):
    t = c.expr(e.obj, ctx)
    if isinstance(t, tuple) and t[0] == "record":
        return _record_update(c, e, t, ctx)
    if isinstance(t, tuple) and t[0] == "map":
        kt, vt = c.items(e.keys, ctx), c.items(e.values, ctx)
        if not T.compatible(t[1], kt):
            c.rep.add("A0103", f"this map's keys are {T.show(t[1])}, but these keys are {T.show(kt)}",
                      e.keys[0].span, _WITH_HINT)
        if not T.compatible(t[2], vt):
            c.rep.add("A0103", f"this map's values are {T.show(t[2])}, but these values are "
                      f"{T.show(vt)}", e.values[0].span, _WITH_HINT)
        return ("map", T.join(t[1], kt), T.join(t[2], vt))
    for v in e.values:   # (the keys may be field names: not read as values)
        c.expr(v, ctx)
    if t != T.UNKNOWN:
        c.rep.add("A0103", f"`with` updates a map or a record, not {T.show(t)}", e.obj.span, _WITH_HINT)
    return T.UNKNOWN


def _record_update(c, e: A.With, t, ctx):
    fields_ = dict(c.record_fields(t[1]))
    for k, v in zip(e.keys, e.values):
        got = c.expr(v, ctx)
        if not isinstance(k, A.Name):
            c.rep.add("A0105", f"a field of {t[1]} is named by a bare name, not an expression", k.span,
                      f"fields of {t[1]}: {', '.join(fields_)}")
        elif k.name not in fields_:
            c.rep.add("A0105", f"{t[1]} has no field `{k.name}`", k.span,
                      did_you_mean(k.name, fields_) or f"fields of {t[1]}: {', '.join(fields_)}")
        else:
            c.p.refs[id(k)] = ("field", t[1], k.name)
            c.expect(fields_[k.name], got, v.span, f"field `{k.name}` of {t[1]}")
    return t


def _holds_map(t) -> bool:
    return isinstance(t, tuple) and (t[0] == "map" or any(_holds_map(x) for x in t[1:]))


def empty_of(c, e: A.EmptyOf):
    tr = e.type
    if tr.name not in T.GENERIC_ARITY:
        c.rep.add("A0103", f"`{tr.name}` is not a collection type", tr.span, _EMPTY_HINT)
        return T.UNKNOWN
    t = c.resolve(tr)
    if t != T.UNKNOWN and t[0] in ("set", "bag", "map") and _holds_map(t[1]):
        what = "a map's keys" if t[0] == "map" else f"the items of a {t[0]}"
        c.rep.add("A0103", f"{what} cannot hold a map", tr.args[0].span,
                  "sets, bags and map keys are kept in order and compared; maps are not: "
                  "use a list of records or a map of maps")
        return T.UNKNOWN
    return t
