"""Type checks of the exact chance properties:

``probability(E for r in D ... if C) OP n/d`` and ``expectation(X for ...) OP n/d``
draw each ``r`` uniformly from its collection (a filter conditions on the
draws); the draws read no state. ``probability(E by a(), b() * 2) OP n/d``
plays the actions named, in order, from the start; ``E`` then reads the
position reached, with ``me`` the player who played them.
"""
from __future__ import annotations

from atoll.compiler import types as T
from atoll.diagnostics import did_you_mean
from atoll.grammar import ast as A

#: The most times one step of a `by` list may be repeated.
MAX_TIMES = 1000


def check_chance_property(c, pr: A.PropertyDecl, where: str, ctx_type) -> None:
    rep = c.rep
    v = pr.value
    if v.op != "/":
        rep.add("A0103", f"a stated value is a whole number or a fraction `n/d`, not `{v.op}`", v.span,
                "write for example `11/36`")
    elif v.den == 0:
        rep.add("A0103", "a fraction's denominator must not be 0", v.span, "write for example `11/36`")
    elif pr.kind == "probability" and not 0 <= v.num <= v.den:
        rep.add("A0103", f"a probability lies between 0 and 1, not {v.num}/{v.den}", v.span,
                "a probability is stated as a fraction such as `11/36`; for a mean use `expectation(...)`")
    want = T.BOOL if pr.kind == "probability" else T.INT
    what = "the event whose probability is stated" if want == T.BOOL else "the quantity whose mean is stated"
    if pr.fors:
        inner = c.fors(pr.fors, ctx_type(where, state=False))
        c.expect(want, c.expr(pr.body, inner), pr.body.span, what)
        return
    for step in pr.script:
        _check_step(c, step, ctx_type)
    c.expect(want, c.expr(pr.body, ctx_type(where, me=True, phase_refs=True)), pr.body.span, what)


def check_action_invariant(c, pr: A.PropertyDecl, where: str, ctx_type) -> None:
    """`invariant forall act(a, b): E`: E reads the state, the action's phase
    variables, ``me`` (the player who may play it) and its parameters, named
    in order."""
    rep = c.rep
    found = c.p.actions.get(pr.action)
    if found is None:
        rep.add("A0101", f"no action is named `{pr.action}`", pr.span,
                did_you_mean(pr.action, c.p.actions) or "name an action declared in a phase")
        return
    phase, a = found
    if len(pr.action_params) != len(a.params):
        rep.add("A0104", f"`{pr.action}` has {len(a.params)} parameter{'s' * (len(a.params) != 1)}, "
                f"not {len(pr.action_params)}", pr.span,
                f"name each one, in order: `{pr.action}({', '.join(q.name for q in a.params)})`")
        return
    ctx = ctx_type(where, me=True, phase=phase, phase_refs=True)
    for name, q in zip(pr.action_params, a.params):
        ctx = ctx.bind(name, c.resolve(q.type))
    c.expect(T.BOOL, c.expr(pr.body, ctx), pr.body.span, f"the body of {where}")


def _check_step(c, step: A.ScriptStep, ctx_type) -> None:
    rep = c.rep
    if step.op != "*" or not 1 <= step.times <= MAX_TIMES:
        rep.add("A0103", f"a step is repeated with `* n`, n from 1 to {MAX_TIMES}", step.span,
                "write for example `roll() * 3`")
    found = c.p.actions.get(step.name)
    if found is None:
        rep.add("A0101", f"no action is named `{step.name}`", step.span,
                did_you_mean(step.name, c.p.actions) or "name an action declared in a phase")
        return
    a = found[1]
    if len(step.args) != len(a.params):
        rep.add("A0104", f"`{step.name}` takes {len(a.params)} value{'s' * (len(a.params) != 1)}, "
                f"not {len(step.args)}", step.span,
                "give a value for each parameter: " + (", ".join(q.name for q in a.params) or "none"))
        return
    ctx = ctx_type(f"the values of `{step.name}`", state=False)
    for q, arg in zip(a.params, step.args):
        c.expect(c.resolve(q.type), c.expr(arg, ctx), arg.span, f"the value of `{q.name}`")
