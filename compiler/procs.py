"""Procedures: link each call statement to the procedure it runs.

A call statement ``name(args)`` names a ``proc``. ``link`` checks the calls
(a known procedure, the right number of arguments) and the call graph (no
procedure may reach itself: a cycle is A0701, so every call runs a finite
tree of statements), then fills each ``CallStmt`` with the procedure's
parameter names and statements. From then on a call is, for every reader of
effects (the checks, the lowering, the frame and integer-bound analyses, the
z3 abstraction, ``walk``), a block that binds its parameters to the values of
its arguments and runs the body: nothing needs to look procedures up again.
The body's nodes are the procedure's own, shared by all its calls (its types
are checked once, at the declaration; see ``check``).
"""
from __future__ import annotations

from dataclasses import replace

from atoll.compiler.limits import MAX_CALL_DEPTH, MAX_EXPANDED
from atoll.diagnostics import Reporter, did_you_mean
from atoll.grammar import ast as A


def calls_in(stmts):
    """The call statements in ``stmts``, inner blocks included (not inside calls)."""
    for s in stmts:
        if isinstance(s, A.CallStmt):
            yield s
        elif isinstance(s, A.If):
            yield from calls_in(s.then)
            yield from calls_in(s.else_)
        elif isinstance(s, A.For):
            yield from calls_in(s.body)


def map_stmts(stmts, fn) -> tuple:
    """``stmts`` with ``fn`` applied to every statement, inner blocks first."""
    out = []
    for s in stmts:
        if isinstance(s, A.If):
            s = replace(s, then=map_stmts(s.then, fn), else_=map_stmts(s.else_, fn))
        elif isinstance(s, A.For):
            s = replace(s, body=map_stmts(s.body, fn))
        out.append(fn(s))
    return tuple(out)


def map_items(items, fn) -> list:
    """Every declaration with its statements mapped by ``map_stmts(..., fn)``."""
    out = []
    for it in items:
        if isinstance(it, A.SetupDecl):
            it = replace(it, body=map_stmts(it.body, fn))
        elif isinstance(it, A.PhaseDecl):
            it = replace(it, enter=map_stmts(it.enter, fn), auto=map_stmts(it.auto, fn),
                         actions=tuple(replace(a, body=map_stmts(a.body, fn)) for a in it.actions))
        elif isinstance(it, (A.ProcDecl, A.TriggerDecl)):
            it = replace(it, body=map_stmts(it.body, fn))
        out.append(it)
    return out


def _cycle(graph: dict, start: str):
    """A call path from ``start`` back to itself, as (names, the call that closes it), or None."""
    path, on_path, done = [], set(), set()

    def visit(name):
        path.append(name)
        on_path.add(name)
        for c in graph.get(name, ()):
            if c.proc == start:
                return c
            if c.proc in graph and c.proc not in on_path and c.proc not in done:
                hit = visit(c.proc)
                if hit is not None:
                    return hit
        path.pop()
        on_path.discard(name)
        done.add(name)
        return None

    hit = visit(start)
    return None if hit is None else (path + [start], hit)


def _wrong_kind(s: A.CallStmt, target: A.ProcDecl) -> bool:
    """Whether ``_kind_of_call`` has something to say about this call."""
    return (target.origin != "event") if s.emit else target.origin in ("event", "trigger")


def _kind_of_call(s: A.CallStmt, target: A.ProcDecl, rep: Reporter) -> None:
    if s.emit and target.origin != "event":
        rep.add("A0103", f"`emit` names an event, and `{s.proc}` is a "
                f"{'trigger' if target.origin else 'procedure'}", s.span,
                f"call a procedure without `emit`: `{s.proc}(...)`" if not target.origin else
                "a trigger runs when its event is emitted")
    elif not s.emit and target.origin == "event":
        rep.add("A0103", f"`{s.proc}` is an event: it happens with `emit {s.proc}(...)`", s.span,
                "write `emit` before it")
    elif not s.emit and target.origin == "trigger":
        rep.add("A0103", f"`{s.proc}` is a trigger: it runs when its event is emitted, and cannot be "
                "called", s.span, "emit its event, or put the effects in a `proc` and call that")


def link(items: list, rep: Reporter) -> list:
    """Check the call statements of ``items`` and fill them in (see the module)."""
    procs = {}
    for it in items:
        if isinstance(it, A.ProcDecl) and it.name not in procs:
            procs[it.name] = it
    defs = {it.name for it in items if isinstance(it, A.DefDecl)}
    known = {}
    wrong = [False, False]   # a call of the wrong kind seen; inside an event now

    def check(s):
        if isinstance(s, A.CallStmt):
            p = procs.get(s.proc)
            if p is None:
                if s.proc in defs:
                    rep.add("A0103", f"`{s.proc}` is a function (`def`), and a statement can only call "
                            "a procedure (`proc`)", s.span,
                            "a function computes a value: use it in an expression, or declare the "
                            "effects as `proc`")
                else:
                    rep.add("A0101", f"unknown procedure `{s.proc}`", s.span,
                            did_you_mean(s.proc, procs) or "declare it with `proc NAME(params) { ... }`")
            elif len(s.args) != len(p.params):
                n = len(p.params)
                rep.add("A0104", f"procedure `{s.proc}` takes {n} argument{'s' * (n != 1)}, "
                        f"not {len(s.args)}", s.span,
                        f"`{s.proc}({', '.join(q.name for q in p.params)})` is declared at {p.span}")
            else:
                known[id(s)] = p
                if not wrong[1] and _wrong_kind(s, p):
                    wrong[0] = True
        return s

    for it in items:
        wrong[1] = isinstance(it, A.ProcDecl) and it.origin == "event"
        map_items([it], check)
    if wrong[0]:   # reported in the order of a walk of each declaration
        for it in items:   # events are emitted, triggers run by their events, procedures called
            if isinstance(it, A.ProcDecl) and it.origin == "event":
                continue
            for s in A.walk(getattr(it, "body", ()) if isinstance(it, (A.ProcDecl, A.TriggerDecl)) else it):
                if isinstance(s, A.CallStmt) and id(s) in known:
                    _kind_of_call(s, known[id(s)], rep)
    graph = {name: [c for c in calls_in(p.body) if id(c) in known] for name, p in procs.items()}
    cut = set()
    for name in procs:
        found = _cycle(graph, name)
        if found is not None and id(found[1]) not in cut:
            names, call = found
            cut.update(id(c) for n in names for c in graph[n] if c.proc in names)
            evs = [n for n in names if procs[n].origin == "event"]
            if evs:   # shown at an `emit` of the cycle (an event's own calls are not written)
                call = next((c for n in names[:-1] for c in graph[n] if c.proc in names and c.emit), call)
                ring = names[:-1]
                i = ring.index(evs[0])
                ring = ring[i:] + ring[:i] + [evs[0]]
                rep.add("A0703", f"event `{evs[0]}` can set off itself: " + " -> ".join(
                    f"{procs[n].origin or 'procedure'} `{n}`" for n in ring),
                        call.span, "the triggers of an event may not emit it again, directly or through other "
                        "events: split the event, or do the repeated part with `for`")
                continue
            rep.add("A0701", f"procedure `{name}` calls itself: " + " -> ".join(f"`{n}`" for n in names),
                    call.span, "a procedure may not reach itself through its calls: repeat with `for` "
                    "over a collection, or split the procedure")
    for i in cut:
        known.pop(i, None)
    # fill the procedures bottom up (the call graph without its cut edges is acyclic)
    filled: dict[str, A.ProcDecl] = {}

    def fill(s):
        if isinstance(s, A.CallStmt) and id(s) in known:
            p = filled_proc(known[id(s)].name)
            return replace(s, params=tuple(q.name for q in p.params), body=p.body)
        return s

    def filled_proc(name: str) -> A.ProcDecl:
        if name not in filled:
            filled[name] = procs[name]   # (a cut cycle: left as it is)
            filled[name] = replace(procs[name], body=map_stmts(procs[name].body, fill))
        return filled[name]

    out = map_items(items, fill)
    out = [filled_proc(it.name) if isinstance(it, A.ProcDecl) and procs.get(it.name) is it else it
           for it in out]
    _within_limits(out, rep)
    return out


def _within_limits(items, rep: Reporter) -> None:
    """A chain of calls at most ``MAX_CALL_DEPTH`` deep; an effect with its
    calls expanded at most ``MAX_EXPANDED`` statements (A0005). Counted with
    one visit per procedure, so a spec past them is refused at once."""
    depth: dict = {}
    size: dict = {}

    def measure(stmts):
        """(statements with the calls expanded, deepest chain of calls), of ``stmts``."""
        n, d = 0, 0
        for s in stmts:
            n += 1
            if isinstance(s, A.If):
                for b in (s.then, s.else_):
                    k, e = measure(b)
                    n, d = n + k, max(d, e)
            elif isinstance(s, A.For):
                k, e = measure(s.body)
                n, d = n + k, max(d, e)
            elif isinstance(s, A.CallStmt) and s.body:
                key = id(s.body)
                if key not in size:
                    size[key], depth[key] = 0, 0   # (the graph is acyclic once linked)
                    k, e = measure(s.body)
                    size[key], depth[key] = k, e + 1
                n, d = n + size[key], max(d, depth[key])
            if n > MAX_EXPANDED:
                return n, d
        return n, d

    for it in items:
        for name, body, span in _effects(it):
            n, d = measure(body)
            if d > MAX_CALL_DEPTH or n > MAX_EXPANDED:
                what = (f"calls nested {d} deep (at most {MAX_CALL_DEPTH})" if d > MAX_CALL_DEPTH else
                        f"more than {MAX_EXPANDED:,} statements once its calls are expanded")
                rep.add("A0005", f"the spec is too complex for the compiler ({name}: {what})", span,
                        "every analysis follows each call: call fewer procedures from one another, or "
                        "fold repeated work into a `for`; the limits are in docs/language.md")
                return


def _effects(it):
    if isinstance(it, A.SetupDecl):
        yield "the setup", it.body, it.span
    elif isinstance(it, A.PhaseDecl):
        yield f"phase `{it.name}`", it.enter + it.auto, it.span
        for a in it.actions:
            yield f"action `{a.name}`", a.body, a.span
    elif isinstance(it, A.ProcDecl):
        yield f"{it.origin or 'procedure'} `{it.name}`", it.body, it.span
