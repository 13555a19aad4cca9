"""Events and triggers, as procedures.

``event E(params)`` declares something that happens; ``emit E(args)`` makes
it happen; ``trigger T on E(names) [from x in D] [when c] [optional [by p]
[when c2]] { body }`` answers it. ``desugar`` writes each trigger as a
procedure ``T(names)`` whose body is

    for x in D { if c { <ask> } }        # `from` and `when` as written

where ``<ask>`` is the body itself, or for an optional trigger
``choose T: bool in [true, false] by p`` and ``if T { body }`` (only where
``c2`` holds, when it is given; elsewhere the body runs); ``p`` is the `by`
player, else the event's first ``Player`` parameter. Each event becomes a
procedure that calls its triggers in declaration order, and ``emit E(args)``
a call of it. So triggers resolve at the `emit`, depth first, in declaration
then domain order, and everything that follows procedures (the checks, the
lowering, the analyses, z3) follows events too. A trigger that emits an
event that leads back to its own is a cycle of the call graph: A0703.
"""
from __future__ import annotations

from atoll.diagnostics import Reporter, did_you_mean
from atoll.grammar import ast as A


def desugar(items: list, rep: Reporter) -> list:
    events: dict[str, A.EventDecl] = {}
    for it in items:
        if isinstance(it, A.EventDecl) and it.name not in events:
            events[it.name] = it
    by_event: dict[str, list] = {name: [] for name in events}
    made = []
    for t in (it for it in items if isinstance(it, A.TriggerDecl)):
        ev = events.get(t.event)
        if ev is None:
            rep.add("A0101", f"unknown event `{t.event}`", t.span,
                    did_you_mean(t.event, events) or "declare it with `event NAME(params)`")
            continue
        if len(t.names) != len(ev.params):
            n = len(ev.params)
            rep.add("A0104", f"event `{ev.name}` has {n} parameter{'s' * (n != 1)}, and trigger "
                    f"`{t.name}` names {len(t.names)}", t.span,
                    f"name one value per parameter: `on {ev.name}({', '.join(q.name for q in ev.params)})`")
            continue
        by_event[ev.name].append(t)
        made.append(A.ProcDecl(t.name, tuple(A.Param(n, q.type, t.span) for n, q in zip(t.names, ev.params)),
                               _body(t, ev, rep), t.notes, t.span, origin="trigger"))
    for name, ev in events.items():
        args = tuple(A.Name(q.name, ev.span) for q in ev.params)
        made.append(A.ProcDecl(name, ev.params, tuple(A.CallStmt(t.name, args, ev.span) for t in by_event[name]),
                               ev.notes, ev.span, origin="event"))
    return list(items) + made


def _body(t: A.TriggerDecl, ev: A.EventDecl, rep: Reporter) -> tuple:
    body = t.body
    if t.optional:
        owner = t.by
        if owner is None:
            first = next((i for i, q in enumerate(ev.params) if q.type.name == "Player" and not q.type.args), None)
            if first is None:
                rep.add("A0704", f"optional trigger `{t.name}` has no player to ask: event `{ev.name}` has no "
                        "`Player` parameter", t.span, "name who decides: `optional by PLAYER`")
                owner = A.IntLit(0, t.span)
            else:
                owner = A.Name(t.names[first], t.span)
        ask = (A.Choose(t.name, A.TypeRef("bool", (), t.span),
                        A.ListLit((A.BoolLit(True, t.span), A.BoolLit(False, t.span)), t.span), owner, t.span),
               A.If(A.Name(t.name, t.span), body, (), t.span))
        body = ask if t.optional_when is None else (A.If(t.optional_when, ask, body, t.span),)
    if t.when is not None:
        body = (A.If(t.when, body, (), t.span),)
    if t.var is not None:
        body = (A.For(t.var, t.domain, body, t.span),)
    return body
