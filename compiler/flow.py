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
        if isinstance(s, (A.For, A.CallStmt)) and _has_end(s.body):
            return True
    return False


def _statements(prog: Program, stmts, mine: frozenset = frozenset()):
    """Every statement, inner blocks and called procedures included, each with
    the parameter names that hold `me` where it stands (a procedure called
    with `me` for `p` writes the acting player's own `x[p]`)."""
    for s in stmts:
        yield s, mine
        if isinstance(s, A.If):
            yield from _statements(prog, s.then, mine)
            yield from _statements(prog, s.else_, mine)
        elif isinstance(s, A.For):
            yield from _statements(prog, s.body, mine - set(A.bound_names(s)))
        elif isinstance(s, A.CallStmt):   # a call: its procedure's statements
            yield from _statements(prog, s.body, frozenset(
                q for q, a in zip(s.params, s.args) if _is_me(prog, a, mine)))
        elif isinstance(s, (A.Let, A.Draw, A.Roll, A.Choose)):   # a name bound anew for what follows
            mine = mine - set(A.bound_names(s) if isinstance(s, A.Let) else (s.name,))


def _is_me(prog: Program, e, mine: frozenset = frozenset()) -> bool:
    if not isinstance(e, A.Name):
        return False
    ref = prog.refs.get(id(e))
    return ref == ("me",) or (ref == ("local", e.name) and e.name in mine)


def check_simultaneous(prog: Program, phases: list[str], rep: Reporter) -> None:
    """The players of a simultaneous stage must not see or disturb each other:
    then the order in which their choices are applied cannot matter."""
    first = prog.phases.get(phases[0]) if phases else None
    if first is not None and first.auto:
        rep.add("A0107", f"a simultaneous stage cannot start with automatic phase `{first.name}`",
                first.span, "players choose in its first phase")
    written: dict[str, A.LValue] = {}
    for name in phases:
        ph = prog.phases.get(name)
        if ph is None:
            continue
        for v in ph.vars:
            rep.add("A0107", f"phase `{name}` is played simultaneously and cannot have phase "
                    f"variables (`{v.name}` would be shared by the players)", v.span,
                    "keep each player's progress in per-player state")
        for body in [ph.enter, ph.auto] + [a.body for a in ph.actions]:
            for s, mine in _statements(prog, body):
                targets = []
                if isinstance(s, A.Assign):
                    targets = [s.target]
                elif isinstance(s, A.Draw):
                    targets = [s.source]
                elif isinstance(s, A.Deal):
                    targets = [s.source, s.dest]
                for lv in targets:
                    v = prog.state.get(lv.name)
                    if v is None:
                        continue
                    written[lv.name] = lv
                    if v.scope == "player":
                        if not lv.indices or not _is_me(prog, lv.indices[0], mine):
                            rep.add("A0107", f"in a simultaneous stage a player may only change "
                                    f"their own `{lv.name}[me]`", lv.span)
                        elif v.visibility == "all":
                            rep.add("A0107", f"`{lv.name}` is visible to all, so a choice written "
                                    "there would show before the others have chosen", lv.span,
                                    "make it `visible owner` and reveal it in a later stage")
                    elif v.visibility != "nobody":
                        rep.add("A0107", f"in a simultaneous stage only state that nobody sees "
                                f"(a face-down pile) may be shared; `{lv.name}` is visible",
                                lv.span, "write to a per-player variable `[me]` instead")
    for name in phases:
        ph = prog.phases.get(name)
        if ph is None:
            continue
        exprs = [ph.done] + [g.cond for a in ph.actions for g in a.guards] + \
            [q.domain for a in ph.actions for q in a.params]
        for node in A.walk(tuple(e for e in exprs if e is not None)):
            if isinstance(node, A.Index) and isinstance(node.obj, A.Name) \
                    and node.obj.name in written and not _is_me(prog, node.key):
                rep.add("A0107", f"a simultaneous choice may not depend on another player's "
                        f"`{node.obj.name}`, which the others are changing", node.span)
            elif isinstance(node, A.Name) and prog.refs.get(id(node)) == ("state", node.name) \
                    and node.name in written and prog.state[node.name].scope == "global":
                rep.add("A0107", f"a simultaneous choice may not depend on `{node.name}`, which "
                        "the other players' choices change", node.span)


def check_flow(prog: Program, rep: Reporter) -> None:
    entered = set()
    if prog.flow:
        for rd in prog.flow.rounds:
            for st in rd.stages:
                entered.update(st.phases)
                if st.kind == "simultaneous":
                    check_simultaneous(prog, list(st.phases), rep)
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
