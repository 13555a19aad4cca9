"""Checks of procedures, call statements and choices inside effects.

A procedure's body is checked once, at its declaration, where it sees its
parameters and the game's global names (not `me`, not a phase's variables, not
the caller's local names: a call can never capture or clobber them). A call
checks its arguments against the parameters' declared types.
"""
from __future__ import annotations

from atoll.compiler import types as T
from atoll.grammar import ast as A


def procs(c, prog, rep) -> None:
    from atoll.compiler.check import Ctx, _no_duplicates
    for p in prog.procs.values():
        _no_duplicates([q.name for q in p.params], p.params, rep, "parameter")
        ctx = Ctx(f"{p.origin or 'procedure'} `{p.name}`")
        for q in p.params:
            ctx = ctx.bind(q.name, c.resolve(q.type))
        c.block(p.body, ctx, "procedure")
    for ph in prog.phases.values():
        for a in ph.actions:
            ens = next((g for g in a.guards if g.kind == "ensures"), None)
            pick = next((n for n in A.walk(a.body) if isinstance(n, A.Choose)), None)
            if ens is not None and pick is not None:
                rep.add("A0702", f"action `{a.name}` has an `ensures` and its effect asks a player to "
                        f"choose (`choose {pick.name}`)", ens.span,
                        "an `ensures` is tested on the effect before it is taken, when nobody has "
                        "chosen yet: state the condition as a `when`, or narrow the choice's domain")


def modifiers(c, prog, rep) -> set:
    """Each modifier's test and result, checked on their own (their def's body
    holds them: see compiler/modifiers); the defs with a bad one."""
    from atoll.compiler.check import Ctx
    bad = set()
    for m in prog.modifiers.values():
        d = prog.defs.get(m.func)
        if d is None:
            continue
        before = len(rep.errors)
        want = c.resolve(d.type)
        ctx = Ctx(f"modifier `{m.name}`")
        for q in d.params:
            ctx = ctx.bind(q.name, c.resolve(q.type))
        ctx = ctx.bind("value", want)
        if m.when is not None:
            c.expect(T.BOOL, c.expr(m.when, ctx), m.when.span, f"the `when` of modifier `{m.name}`")
        c.expect(want, c.expr(m.value, ctx), m.value.span, f"the result of modifier `{m.name}`")
        if len(rep.errors) > before:
            bad.add(m.func)
    return bad


def call(c, s: A.CallStmt, ctx, where: str):
    p = c.p.procs.get(s.proc)
    if p is None or len(p.params) != len(s.args):   # reported when the calls were linked
        for a in s.args:
            c.expr(a, ctx)
        return ctx
    for q, a in zip(p.params, s.args):
        c.expect(c.resolve(q.type), c.expr(a, ctx), a.span, f"argument `{q.name}` of `{p.name}`")
    if where == "setup":
        pick = next((n for n in A.walk(s.body) if isinstance(n, A.Choose)), None)
        if pick is not None:
            c.rep.add("A0702", f"procedure `{s.proc}` asks a player to choose (`choose {pick.name}`), "
                      "and the setup has no player to ask", s.span,
                      "the setup deals and draws; players choose in the phases of the flow")
    if where not in ("action", "procedure"):
        end = next((n for n in A.walk(s.body) if isinstance(n, A.End)), None)
        if end is not None:
            c.rep.add("A0107", f"procedure `{s.proc}` ends the {end.what} (`end {end.what}` in its "
                      f"body), which has no meaning in {where}", s.span,
                      "call it from an action, or take the `end` out of the procedure")
    return ctx


def choose(c, s: A.Choose, ctx, where: str):
    if where == "setup":
        c.rep.add("A0702", f"the setup cannot ask a player to choose (`choose {s.name}`)", s.span,
                  "the setup deals and draws; players choose in the phases of the flow (an `on enter` "
                  "of the first phase can ask them)")
    dom = c.expr(s.domain, ctx)
    elem = T.UNKNOWN
    if dom != T.UNKNOWN and not T.is_collection(dom):
        c.rep.add("A0103", f"the choices for `{s.name}` must be a collection, not {T.show(dom)}",
                  s.domain.span, "write the items to choose from, as in `choose c in colours by p`")
    elif dom != T.UNKNOWN:
        elem = T.element(dom)
    if s.type is not None:
        want = c.resolve(s.type)
        c.expect(want, elem, s.domain.span, f"each choice of `{s.name}`")
        elem = want
    c.expect(T.INT, c.expr(s.player, ctx), s.player.span, "the player who chooses")
    c.p.types[id(s)] = elem
    return ctx.bind(s.name, elem)
