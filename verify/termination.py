"""Termination by z3, for measures declared `per action` (and the argument
given for `per turn`).

The state is abstracted (see ``abstraction``): ints, bools and enums stay
z3 values, every collection is known by its size, and each action's effect
runs on that abstraction. For each action, z3 looks for an abstract state
with measure >= 0 (and, where the engine has just checked them, no
immediate ending) in which the action, unless it ends the game, leaves the
measure not smaller or negative; automatic steps (`on enter`, `auto`) must
not raise it. All unsat: every step keeps the measure >= 0 and every action
lowers it.

That proves termination only with the start: the measure after setup must
be >= 0 for *every* chance outcome of setup. Setup runs symbolically from
the initial values (exact, item by item: a draw is any item of the pile), z3
checks that the measure cannot start below 0, and its largest start value
bounds the number of actions. Whatever cannot be followed gives no argument;
the verdict then comes from search and play.
"""
from __future__ import annotations

import z3

from atoll.compiler.frame import Frame
from atoll.grammar import ast as A
from atoll.verify.abstraction import Abstraction, Size
from atoll.verify.z3sem import Coll, SMap, Unsupported


def _steps(prog):
    for ph in prog.phases.values():
        for a in ph.actions:
            yield "action", ph, a
        if ph.enter or ph.vars:
            yield "enter", ph, None
        if ph.auto:
            yield "auto", ph, None


def _label(kind, ph, a) -> str:
    return a.name if a else f"{ph.name} ({kind})"


def _sim_first_phases(prog) -> set:
    return {stage.phases[0] for rd in prog.flow.rounds for stage in rd.stages
            if stage.kind == "simultaneous" and stage.phases}


def endings_checked_before(prog, kind, ph) -> bool:
    """Has the engine just checked the immediate endings when this step
    starts? After every action and after each phase's `on enter` + `auto`
    it has; but `auto` runs right after `on enter` with no check between,
    and a simultaneous stage enters its first phase for every player before
    any check."""
    sim = _sim_first_phases(prog)
    if kind == "action":
        return not any(prog.phases[p].enter or prog.phases[p].vars for p in sim if p in prog.phases)
    if kind == "enter":
        return ph.name not in sim
    return not (ph.enter or ph.vars)


def _choice(ab, ev, q, env, cons):
    """An action's parameter: one of its domain's items, whole (a list
    parameter from a list of lists is one of those lists), or, when the
    domain cannot be read item by item, any value of its type."""
    try:
        dom = ev.ev(q.domain, env)
    except Unsupported:
        dom = None
    items = dom.items if isinstance(dom, Coll) else \
        [(k, c) for k, _, c in dom.entries] if isinstance(dom, SMap) else None
    if items is None:
        if isinstance(dom, Size):   # a choice needs an item to choose
            cons.append(dom.n >= 1)
        return ab.fresh(ab.checker.resolve(q.type), q.name, cons)
    if not items:   # no choice at all: the action is never legal
        cons.append(z3.BoolVal(False))
        return ab.fresh(ab.checker.resolve(q.type), q.name, [])
    sel = z3.FreshInt(f"{q.name}!choice")
    cons.append(z3.Or([z3.And(sel == i, c) for i, (_, c) in enumerate(items)]))
    out = items[-1][0]
    for i in range(len(items) - 2, -1, -1):
        out = ev.ite(sel == i, items[i][0], out)
    return out


def step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms, strict: bool):
    """Can this step leave the measure not lower (strict) or higher (not
    strict), or negative? Returns None (it cannot), a z3 model text, or raises
    Unsupported."""
    ab.phase = ph.name
    cons = []
    st = ab.initial(cons)
    me = z3.Int("me")
    cons += [me >= 0, me < game.num_players]
    before = ab.eval(st, me, cons).ev(pr.body, {})
    if isinstance(before, Size) or not z3.is_int(before):
        raise Unsupported("a measure must be an int")
    if endings_checked_before(prog, kind, ph):   # a step starts from a state the game goes on from
        for en in prog.endings.values():
            if en.time == "immediately":
                try:
                    cons.append(z3.Not(ab.eval(st, me, cons).ev(en.cond, {})))
                except Unsupported:
                    pass
    env = {}
    if kind == "action":
        for q in a.params:
            env[q.name] = _choice(ab, ab.eval(st, me, cons), q, env, cons)
        for g in a.guards:
            if g.kind == "when":
                try:
                    cons.append(ab.eval(st, me, cons).ev(g.cond, env))
                except Unsupported:
                    pass
        body = a.body
    elif kind == "enter":
        body = tuple(A.Assign(A.LValue(v.name), v.init) for v in ph.vars) + ph.enter
    else:
        body = ph.auto
    post, ended = ab.run(body, dict(st), me, env, cons, z3.BoolVal(False))
    after = ab.eval(post, me, cons).ev(pr.body, {})
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*cons, before >= 0, z3.Not(ended))
    good = (after < before) if strict else (after <= before)
    s.add(z3.Not(z3.And(good, after >= 0)))
    r = s.check()
    if r == z3.unsat:
        return None
    if r == z3.unknown:
        raise Unsupported(f"z3 gave up ({s.reason_unknown()})")
    m = s.model()
    return {"measure before": str(m.eval(before, model_completion=True)),
            "measure after": str(m.eval(after, model_completion=True)),
            "step": _label(kind, ph, a)}


def start_bound(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """The measure after setup, over every chance outcome of setup:
    ("bound", largest, smallest) when it is never below 0 (either None when
    z3 cannot say), ("negative", text) when it can be, ("unknown", reason)."""
    ab = Abstraction(prog, game)
    cons = []
    try:
        st = ab.before_setup(cons)
        me = z3.FreshInt("me")
        cons += [me >= 0, me < game.num_players]
        if prog.setup is not None:
            st, _ = ab.run(prog.setup.body, st, me, {}, cons, z3.BoolVal(False))
        m = ab.eval(st, me, cons).ev(pr.body, {})
    except Unsupported as e:
        return ("unknown", f"setup: {e}")
    if isinstance(m, Size) or not z3.is_int(m):
        return ("unknown", "a measure must be an int")
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*cons, m < 0)
    r = s.check()
    if r == z3.sat:
        return ("negative", f"the measure may start below 0 (at {s.model().eval(m, model_completion=True)} "
                            "for some outcome of setup)")
    if r == z3.unknown:
        return ("unknown", f"z3 gave up on the start of the measure ({s.reason_unknown()})")
    ends = []
    for goal in ("minimize", "maximize"):
        o = z3.Optimize()
        o.set("timeout", timeout_ms)
        o.add(*cons)
        h = getattr(o, goal)(m)
        v = (o.lower(h) if goal == "minimize" else o.upper(h)) if o.check() == z3.sat else None
        ends.append(v.as_long() if v is not None and z3.is_int_value(v) else None)
    return ("bound", ends[1], ends[0])


def ends_by_win(prog) -> bool:
    """Can an action end the game itself (`win`, `tie`)? Such an action
    need not lower the measure: it may come once more."""
    return any(isinstance(x, (A.Win, A.Tie)) for ph in prog.phases.values()
               for a in ph.actions for st in a.body for x in A.walk(st))


def flow_written(prog, pr: A.PropertyDecl) -> list[str]:
    """The variables the measure reads that the flow itself writes (the
    keeper of whose turn it is in a `turns round ... from v` stage): no
    step's effect shows those changes, so z3 has no argument about them."""
    keepers = {st.keeper for rd in prog.flow.rounds for st in rd.stages if st.keeper}
    if not keepers:
        return []
    slots = Frame(prog).reads(pr.body, {})
    return sorted(k for k in keepers if ("state", k) in slots)


def check_measure(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """Per action: ("proved", detail), ("fails", step, detail) or ("unknown", reason).
    Every action must lower the measure and automatic steps must not raise
    it, from any state where it is >= 0; and it must start >= 0 whatever
    setup draws. The detail's "bound" says how many actions that allows."""
    kept = flow_written(prog, pr)
    if kept:
        return ("unknown", f"the measure reads `{kept[0]}`, which the flow changes between turns")
    ab = Abstraction(prog, game)
    checked = []
    for kind, ph, a in _steps(prog):
        try:
            bad = step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms, strict=kind == "action")
        except Unsupported as e:
            return ("unknown", f"{_label(kind, ph, a)}: {e}")
        if bad is not None:
            return ("fails", _label(kind, ph, a), bad)
        checked.append(_label(kind, ph, a))
    start = start_bound(prog, game, pr, timeout_ms)
    if start[0] != "bound":
        return ("unknown", f"every step keeps the measure >= 0 and every action lowers it, but {start[1]}")
    top, low = start[1], start[2]
    last = "; an action that ends the game (`win`, `tie`) may come once more" if ends_by_win(prog) else ""
    if top is None:
        bound = ("the measure starts at 0 or more whatever setup draws, and every action lowers it "
                 f"(z3 did not find its largest start){last}")
    else:
        starts = f"starts at {top}" if low == top else \
            f"starts at {top} or less (at {low} or more) whatever setup draws"
        bound = (f"the measure {starts}, and every action lowers it: "
                 f"at most {top} action{'s' * (top != 1)}{last}")
    return ("proved", {"steps": checked, "bound": bound})


def check_turn_measure(prog, game, pr: A.PropertyDecl, timeout_ms: int) -> str:
    """Per turn, a sufficient condition only: no step raises the measure, and
    every stage has an automatic phase, not skippable by `end turn`, that
    surely lowers it. Says what it found, in words, for the report."""
    kept = flow_written(prog, pr)
    if kept:
        return f"no z3 argument: the measure reads `{kept[0]}`, which the flow changes between turns"
    ab = Abstraction(prog, game)
    lowering = set()
    for kind, ph, a in _steps(prog):
        try:
            bad = step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms, strict=False)
            if bad is not None:
                below = bad["measure after"].lstrip("-").isdigit() and bad["measure after"].startswith("-")
                return (f"z3: `{_label(kind, ph, a)}` may take the measure below 0 "
                        f"({bad['measure before']} then {bad['measure after']})" if below else
                        f"z3: `{_label(kind, ph, a)}` may raise the measure")
            if kind == "auto" and step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms,
                                              strict=True) is None:
                lowering.add(ph.name)
        except Unsupported as e:
            return f"no z3 argument: {_label(kind, ph, a)}: {e}"
    for rd in prog.flow.rounds:
        for stage in rd.stages:
            if not any(p in lowering for p in stage.phases):
                return (f"z3: no step of the stage `{', '.join(stage.phases)}` surely lowers the "
                        f"measure (automatic steps that do: {', '.join(sorted(lowering)) or 'none'})")
            if any(isinstance(x, A.End) and x.what == "turn"
                   for p in stage.phases if p in prog.phases
                   for act in prog.phases[p].actions for x in A.walk(act.body)):
                return "z3: an `end turn` may skip the step that lowers the measure"
    return ("z3: no step raises the measure and every turn runs an automatic step that lowers it "
            f"({', '.join(sorted(lowering))}); that each turn ends is left to search and play")
