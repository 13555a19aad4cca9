"""Checks of the flow: unreachable phases, phases with no way out, unused options."""
from __future__ import annotations

from atoll.compiler.symbols import Program
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A


def _has_end(stmts) -> bool:
    for s in stmts:
        if isinstance(s, A.End):
            return True
        if isinstance(s, A.If) and (_has_end(s.then) or _has_end(s.else_)):
            return True
        if isinstance(s, A.For) and _has_end(s.body):
            return True
    return False


def check_flow(prog: Program, rep: Reporter) -> None:
    entered = set()
    if prog.flow:
        for rd in prog.flow.rounds:
            for st in rd.stages:
                entered.update(st.phases)
    for ph in prog.phases.values():
        if ph.name not in entered:
            acts = ", ".join(f"`{a.name}`" for a in ph.actions)
            rep.add("A0201", f"phase `{ph.name}` is never entered", ph.span,
                    f"add it to a stage of the flow: `turns in seats: ..., {ph.name}`",
                    (f"its actions {acts} can never be taken",) if acts else ())
        if not ph.auto and ph.done is None and not any(_has_end(a.body) for a in ph.actions):
            rep.add("A0202", f"phase `{ph.name}` never ends", ph.span,
                    "give it `done when CONDITION`, or `end phase` in one of its actions, "
                    "or make it automatic with `auto { ... }`")
        if ph.auto and ph.actions:
            rep.add("A0107", f"automatic phase `{ph.name}` cannot have actions", ph.span,
                    "players decide in phases without `auto`")
    for o in prog.options.values():
        if o.name not in prog.used:
            rep.add("A0203", f"{'house rule' if o.kind == 'house' else 'option'} `{o.name}` "
                    "is never read by any rule", o.span,
                    "use it in a rule, or remove it: as it is, its value changes nothing")
