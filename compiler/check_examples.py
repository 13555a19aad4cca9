"""Static checks of the worked examples (``example`` declarations).

An example is checked as every other declaration is: its names (state
variables, phases and their variables, actions and their parameters,
endings, options) must exist, with did-you-mean; its values must have the
types of the places they fill; an action takes its parameters' types and
count. What is its own: the settings must be ones the game can be played
with (A0601), the position is given once and first (A0107), and the reason
given for an illegal action must be one of that action's rules (A0602).
Running the example is `atoll verify`'s (``atoll.verify.examples``).
"""
from __future__ import annotations

from typing import Optional

from atoll.compiler import types as T
from atoll.compiler.check import Ctx
from atoll.diagnostics import did_you_mean
from atoll.grammar import ast as A

STEP_WORDS = ("given", "play", "expect")


def check_examples(c, prog, rep) -> None:
    for ex in prog.examples.values():
        _Example(c, prog, rep, ex).check()


def refusal_index(decl: A.ActionDecl, refusal: A.ExRefusal) -> Optional[int]:
    """The position of the rule a refusal names among the action's rules of
    its kind (`when`s, `ensures`, parameters), or None."""
    if refusal.kind == "choice":
        return next((i for i, q in enumerate(decl.params) if q.name == refusal.name), None)
    guards = [g for g in decl.guards if g.kind == refusal.kind]
    return next((i for i, g in enumerate(guards) if g.cond == refusal.cond), None)


def option_value(e, members: dict):
    """The value an example sets an option to, as a command line gives it
    (an int, a bool, an enum member's name), or None if it is not written out."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Neg) and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    if isinstance(e, A.BoolLit):
        return e.value
    if isinstance(e, A.Name) and e.name in members:
        return e.name
    return None


class _Example:
    def __init__(self, c, prog, rep, ex: A.ExampleDecl):
        self.c, self.p, self.rep, self.ex = c, prog, rep, ex
        self.where = f"example `{ex.name}`"
        self.ctx = Ctx(self.where, phase_refs=True)          # reads the state, as an invariant does
        self.static = Ctx(self.where, state=False)           # fixed before the game starts

    def check(self) -> None:
        self.settings()
        played = False
        for i, step in enumerate(self.ex.steps):
            if isinstance(step, A.ExGiven):
                if played or i > 0:
                    self.rep.add("A0107", "the position is given first, before any action or "
                                 "expectation, and once", step.span,
                                 "move `given` to the top of the example, and merge two into one")
                self.given(step)
            elif isinstance(step, A.ExPlay):
                played = True
                if step.word != "play":
                    self.rep.add("A0001", f"unexpected name `{step.word}`", step.span,
                                 "a step of an example is `given ...`, `play ACTION` or `expect ...`"
                                 + _close(step.word, ["play"]))
                for a in step.actions:
                    if a.choice:
                        self.choice(a)
                    else:
                        self.action(a)
            else:
                self.expect(step)

    # ------------------------------------------------------------ settings
    def settings(self) -> None:
        seen: dict = {}
        lo, hi = self.p.player_range
        for s in self.ex.settings:
            key = s.word if s.kind == "option" else s.kind
            if key in seen:
                self.rep.add("A0102", f"the example sets `{key}` twice", s.span,
                             "give each setting once")
            seen[key] = s
            if s.kind in ("players", "seed") and s.word != s.kind:
                form = "`4 players`" if s.kind == "players" else "`seed 3`"
                self.rep.add("A0001", f"unexpected name `{s.word}`", s.span,
                             f"a setting of an example is {form}, or an option: `name = value`"
                             + _close(s.word, [s.kind]))
            elif s.kind == "players" and not lo <= s.value <= hi and self.ex.span.file == self.p.file:
                # (an example a variant inherits from its base game, for a player count the
                # variant does not have, does not apply to it: `atoll verify` leaves it out)
                self.rep.add("A0601", f"{self.p.title} is played by {lo} to {hi} players, not "
                             f"{s.value}", s.span, f"give a player count between {lo} and {hi}")
            elif s.kind == "option":
                self.option(s)

    def option(self, s: A.ExSetting) -> None:
        o = self.p.options.get(s.word)
        if o is None:
            self.rep.add("A0101", f"unknown option `{s.word}`", s.span,
                         did_you_mean(s.word, self.p.options) or
                         ("options: " + ", ".join(self.p.options) if self.p.options
                          else "the game declares no option"))
            return
        want = self.c.resolve(o.type)
        self.c.expect(want, self.c.expr(s.value, self.static), s.value.span, f"option `{o.name}`")
        if option_value(s.value, self.p.members) is None:
            self.rep.add("A0601", f"an example sets option `{o.name}` to a value written out",
                         s.value.span, "write a number, `true`, `false` or a member of the option's enum")

    # ------------------------------------------------------------ the position
    def given(self, g: A.ExGiven) -> None:
        if g.player is not None:
            self.c.expect(T.INT, self.c.expr(g.player, self.static), g.player.span, "the player to act")
        if g.phase is not None:
            self.phase(g.phase, g.name_span or g.span)
        for v in g.values:
            want = self.place(v)
            self.c.expect(want, self.c.expr(v.value, self.ctx), v.value.span, f"the value of `{v.name}`")

    def phase(self, name: str, span) -> None:
        ph = self.p.phases.get(name)
        if ph is None:
            self.rep.add("A0101", f"unknown phase `{name}`", span, did_you_mean(name, self.p.phases))
        elif ph.auto:
            self.rep.add("A0601", f"phase `{name}` is automatic: no player decides in it, so no "
                         "position stands in it", span,
                         "give the position in a phase where a player chooses an action")

    def place(self, v: A.ExValue):
        """The type of the place a value of the position fills."""
        c = self.c
        if v.phase is not None:
            if v.phase not in self.p.phases:
                self.rep.add("A0101", f"unknown phase `{v.phase}`", v.span, did_you_mean(v.phase, self.p.phases))
                return T.UNKNOWN
            decl = self.p.phase_var(v.phase, v.name)
            if decl is None:
                self.rep.add("A0105", f"phase `{v.phase}` has no variable `{v.name}`", v.span,
                             did_you_mean(v.name, [x.name for x in self.p.phases[v.phase].vars]))
                return T.UNKNOWN
            return c._index_chain(c.resolve(decl.type), v.indices, v, self.ctx)
        decl = self.p.state.get(v.name)
        if decl is None:
            hint = did_you_mean(v.name, self.p.state)
            owner = next((ph.name for ph in self.p.phases.values() if self.p.phase_var(ph.name, v.name)), None)
            if not hint and owner:
                hint = f"`{v.name}` is a variable of phase `{owner}`: write `{owner}.{v.name}`"
            self.rep.add("A0101", f"unknown state variable `{v.name}`", v.span, hint)
            return T.UNKNOWN
        t = c.resolve(decl.type)
        if decl.scope != "player":
            return c._index_chain(t, v.indices, v, self.ctx)
        if not v.indices:   # one value per player, in seat order
            return ("list", t)
        c.expect(T.INT, c.expr(v.indices[0], self.ctx), v.indices[0].span, "a player")
        return c._index_chain(t, v.indices[1:], v, self.ctx)

    # ------------------------------------------------------------ actions
    def action(self, a: A.ExAction) -> Optional[A.ActionDecl]:
        c = self.c
        if a.by is not None:
            c.expect(T.INT, c.expr(a.by, self.ctx), a.by.span, "the player who acts")
        found = self.p.actions.get(a.name)
        if found is None:
            self.rep.add("A0101", f"unknown action `{a.name}`", a.span, did_you_mean(a.name, self.p.actions))
            for e in list(a.args) + [n.value for n in a.named]:
                c.expr(e, self.ctx)
            return None
        decl = found[1]
        params = {q.name: q for q in decl.params}
        if len(a.args) > len(decl.params):
            self.rep.add("A0104", f"action `{a.name}` takes {len(decl.params)} argument"
                         f"{'s' * (len(decl.params) != 1)}, not {len(a.args) + len(a.named)}", a.span,
                         f"`{a.name}({', '.join(params)})`")
        given = {}
        for q, e in zip(decl.params, a.args):
            given[q.name] = e
        for n in a.named:
            if n.name not in params:
                self.rep.add("A0104", f"action `{a.name}` has no parameter `{n.name}`", n.span,
                             did_you_mean(n.name, params) or f"its parameters: {', '.join(params) or 'none'}")
                c.expr(n.value, self.ctx)
                continue
            if n.name in given:
                self.rep.add("A0104", f"`{n.name}` of action `{a.name}` is given twice", n.span)
            given[n.name] = n.value
        missing = [q for q in params if q not in given]
        if missing and len(a.args) <= len(decl.params):
            self.rep.add("A0104", f"action `{a.name}` needs a value for "
                         + ", ".join(f"`{m}`" for m in missing), a.span,
                         f"`{a.name}({', '.join(params)})`")
        for q in decl.params:
            if q.name in given:
                e = given[q.name]
                c.expect(c.resolve(q.type), c.expr(e, self.ctx), e.span, f"`{q.name}` of `{a.name}`")
        return decl

    def choice(self, a: A.ExAction) -> None:
        """``choose NAME = VALUE``: NAME names a `choose` of the rules (or an
        optional trigger, whose choice is a bool); VALUE has its type."""
        c = self.c
        if a.by is not None:
            c.expect(T.INT, c.expr(a.by, self.ctx), a.by.span, "the player who chooses")
        found = _choices(self.p)
        value = c.expr(a.args[0], self.ctx)
        if a.name not in found:
            self.rep.add("A0101", f"no choice `{a.name}` in the rules: a `choose {a.name}` or an optional "
                         f"trigger `{a.name}`", a.span,
                         did_you_mean(a.name, found) or "name a `choose` of the action's effect")
            return
        t = found[a.name]
        if t is not None:
            c.expect(c.resolve(t), value, a.args[0].span, f"choice `{a.name}`")

    # ------------------------------------------------------------ expectations
    def expect(self, e: A.ExExpect) -> None:
        c = self.c
        if e.kind == "true":
            c.expect(T.BOOL, c.expr(e.value, self.ctx), e.value.span, "what an example expects")
        elif e.kind in ("legal", "illegal"):
            decl = self.action(e.action)
            if e.kind == "illegal" and decl is not None:
                self.refusal(decl, e.refusal, e.action)
        elif e.kind in ("win", "score"):
            what = "the winners" if e.kind == "win" else "the scores (one per player, in seat order)"
            c.expect(("list", T.INT), c.expr(e.value, self.ctx), e.value.span, what)
        elif e.kind == "ending":
            if e.name not in self.p.endings:
                self.rep.add("A0101", f"unknown ending `{e.name}`", e.name_span or e.span,
                             did_you_mean(e.name, self.p.endings) or
                             "name an `ending` declaration; a `win` inside an action is expected "
                             "with `expect win PLAYERS`")
        elif e.kind == "player":
            c.expect(T.INT, c.expr(e.value, self.ctx), e.value.span, "the player to act")
            if e.name:
                self.phase(e.name, e.name_span or e.span)

    def refusal(self, decl: A.ActionDecl, r: A.ExRefusal, a: A.ExAction) -> None:
        if r.kind == "phase" or refusal_index(decl, r) is not None:
            return
        if r.kind == "choice":
            names = [q.name for q in decl.params]
            self.rep.add("A0602", f"`{r.name}` is not a parameter of action `{a.name}`", r.span,
                         did_you_mean(r.name, names) or
                         (f"its parameters: {', '.join(names)}" if names else
                          f"`{a.name}` has no parameter: name a `when`, with `because when ...`"))
            return
        guards = [g for g in decl.guards if g.kind == r.kind]
        text = [self._text(g.cond.span) for g in guards]
        self.rep.add("A0602", f"action `{a.name}` has no `{r.kind} {self._text(r.cond.span)}`",
                     r.cond.span,
                     (f"its `{r.kind}` conditions: " + "; ".join(f"`{t}`" for t in text)) if text else
                     f"`{a.name}` has no `{r.kind}` condition")

    def _text(self, span) -> str:
        lines = self.p.sources.get(span.file, "").splitlines()
        if span.line == span.end_line and 1 <= span.line <= len(lines):
            return lines[span.line - 1][span.column - 1:span.end_column - 1]
        return lines[span.line - 1][span.column - 1:].strip() if 1 <= span.line <= len(lines) else "?"


def _close(word: str, words) -> str:
    hint = did_you_mean(word, words)
    return f" ({hint})" if hint else ""


def _choices(prog) -> dict:
    """Every choice an effect can wait for, by name: each `choose` of an
    action, a procedure or a trigger (its declared type, or None), and each
    optional trigger (a bool). The first `choose` of a name gives its type,
    in the order of the procedures, the actions, then the phases (their
    actions, `on enter`, `auto`), statements in order, a call's body where
    it stands."""
    found: dict = {}
    bool_t = A.TypeRef("bool", ())

    def stmts(block):   # only statements hold statements
        for s in block:
            if isinstance(s, A.Choose):
                found.setdefault(s.name, s.type)
            elif isinstance(s, A.If):
                stmts(s.then)
                stmts(s.else_)
            elif isinstance(s, A.For):
                stmts(s.body)
            elif isinstance(s, A.CallStmt):
                stmts(s.body)
    for t in prog.triggers.values():
        if t.optional:
            found.setdefault(t.name, bool_t)
    for p in prog.procs.values():
        stmts(p.body)
    for _, d in prog.actions.values():
        stmts(d.body)
    for ph in prog.phases.values():
        for a in ph.actions:
            stmts(a.body)
        stmts(ph.enter)
        stmts(ph.auto)
    return found
