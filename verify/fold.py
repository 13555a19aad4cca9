"""Closed subterms for the z3 meaning: evaluated in Python first.

A subterm is *closed* when it reads nothing that varies: no state, no phase
variable, no `me`, no round, no `can`, and no local it does not bind itself
(a comprehension's own variable is fine). Its value is then the same for
every input, so the verifier computes it with the model's own meaning (the
lowered Python, on the instantiated game: its constants, options, data and
player count) and hands z3 the value, lifted. A constant map whose values
are lists of lists thus needs no free z3 value of that type.

When the Python evaluation fails (a missing key, an index out of range, a
value too large to lift), nothing is folded and the z3 meaning is used as
before.
"""
from __future__ import annotations

import weakref
from dataclasses import fields, is_dataclass
from typing import Optional

from atoll.compiler.consts import Budget
from atoll.grammar import ast as A

MAX_ATOMS = 5_000   # a folded value holds at most this many scalars (lifting is item by item)

_OPEN = object()    # marks a subterm that reads something that varies

_closed_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # game -> {id(e): value}


class _Unfoldable(Exception):
    pass


def _children(e):
    for f in fields(e):
        if f.name in ("span", "phase_spans"):
            continue
        v = getattr(e, f.name)
        if isinstance(v, (tuple, list)):
            yield from (x for x in v if is_dataclass(x))
        elif is_dataclass(v):
            yield v


def free_locals(prog, e, visiting: frozenset = frozenset()):
    """The locals ``e`` reads without binding them, or ``_OPEN`` when it
    reads the state (or anything else that varies between evaluations)."""
    cache = prog.__dict__.setdefault("_z3_free_locals", {})   # id(e) -> (e, answer)
    hit = cache.get(id(e))
    if hit is not None and hit[0] is e and not visiting:
        return hit[1]
    out = _free(prog, e, visiting)
    if not visiting:   # the answer inside a def being visited may differ (recursion assumed fine)
        cache[id(e)] = (e, out)   # the node is kept, so its id is not reused while cached
    return out


def _union(parts):
    out = frozenset()
    for p in parts:
        if p is _OPEN:
            return _OPEN
        out |= p
    return out


def _free(prog, e, visiting):
    refs = prog.refs
    if isinstance(e, A.Name):
        ref = refs.get(id(e))
        if ref is None:
            return _OPEN
        if ref[0] == "local":
            return frozenset([ref[1]])
        if ref[0] in ("const", "option", "data", "member", "field"):   # (field: a key of `r with {f: v}`)
            return frozenset()
        if ref[0] == "builtin" and ref[1] in ("players", "seats", "player_count", "none"):
            return frozenset()
        return _OPEN   # state, phase, me, current_round
    if isinstance(e, A.FieldAccess) and refs.get(id(e), ("",))[0] == "phase":
        return _OPEN
    if isinstance(e, (A.Comprehension, A.Aggregate)):
        bound, parts = set(), []
        for f in e.fors:
            it = free_locals(prog, f.iter, visiting)
            parts.append(it if it is _OPEN else it - bound)
            bound.update(A.bound_names(f))
            for c in f.conds:
                fc = free_locals(prog, c, visiting)
                parts.append(fc if fc is _OPEN else fc - bound)
        for x in (e.elem, getattr(e, "key", None)):
            if x is not None:
                fx = free_locals(prog, x, visiting)
                parts.append(fx if fx is _OPEN else fx - bound)
        return _union(parts)
    if isinstance(e, A.LetExpr):   # its names are bound in the later values and the body
        bound, parts = set(), []
        for x, names in [(b.value, A.bound_names(b)) for b in e.bindings] + [(e.body, ())]:
            fx = free_locals(prog, x, visiting)
            parts.append(fx if fx is _OPEN else fx - bound)
            bound.update(names)
        return _union(parts)
    if isinstance(e, A.Call):
        ref = refs.get(id(e))
        if ref is None or ref[0] == "can":
            return _OPEN
        if ref[0] == "def" and ref[1] not in visiting:
            d = prog.defs[ref[1]]
            body = free_locals(prog, d.body, visiting | {ref[1]})
            if body is _OPEN or body - {q.name for q in d.params}:
                return _OPEN
    if not is_dataclass(e):
        return frozenset()
    return _union(free_locals(prog, c, visiting) for c in _children(e))


def _atoms(v, budget: list) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unfoldable
    if isinstance(v, dict):
        for k, x in v.items():
            _atoms(k, budget)
            _atoms(x, budget)
    elif isinstance(v, (tuple, list, frozenset, set)):
        for x in v:
            _atoms(x, budget)


def _namespace(game) -> dict:
    ns = dict(game.ns)
    ns.update(S=None, me=None)
    return ns


_ns_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def folded(ev, e) -> Optional[object]:
    """The lifted Python value of ``e`` when it is closed, else None."""
    game = ev.game
    if free_locals(ev.p, e) != frozenset():
        return None
    if isinstance(e, A.Name) and ev.p.refs.get(id(e), ("",))[0] == "member":
        return None   # already a literal
    cache = _closed_cache.setdefault(game, {})
    hit = cache.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    value = None
    try:
        from atoll.compiler.lower import Lowerer
        src = Lowerer(ev.p).ex(e)
        ns = _ns_cache.get(game)
        if ns is None:
            ns = _ns_cache[game] = _namespace(game)
        code = compile(src, "<atoll closed subterm>", "eval")
        with Budget():   # a closed subterm that never ends is not folded (nor run for ever)
            py = eval(code, ns)   # the lowering's own text
        _atoms(py, [MAX_ATOMS])
        value = ev.lift(ev.t(e), py)
    except Exception:   # a partial operation, an unknown type, a value too large, over budget: no folding
        value = None
    cache[id(e)] = (e, value)
    return value
