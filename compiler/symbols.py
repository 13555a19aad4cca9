"""The checked program: the spec's declarations by kind, plus side tables.

``collect`` builds it from the AST (reporting duplicates); the checks then
fill ``types`` (expression node id -> type) and ``refs`` (name node id ->
what the name denotes), which the lowering reads. Nodes are never mutated.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from atoll.compiler import limits
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A


@dataclass
class Program:
    file: str
    sources: dict[str, str]
    game: Optional[A.GameDecl] = None
    enums: dict[str, A.EnumDecl] = field(default_factory=dict)
    members: dict[str, str] = field(default_factory=dict)      # enum member -> enum name
    records: dict[str, A.RecordDecl] = field(default_factory=dict)
    data: dict[str, A.DataDecl] = field(default_factory=dict)
    options: dict[str, A.OptionDecl] = field(default_factory=dict)
    requires: list[A.RequireDecl] = field(default_factory=list)
    consts: dict[str, A.ConstDecl] = field(default_factory=dict)
    defs: dict[str, A.DefDecl] = field(default_factory=dict)
    procs: dict[str, A.ProcDecl] = field(default_factory=dict)   # with those made from events and triggers
    events: dict[str, A.EventDecl] = field(default_factory=dict)
    triggers: dict[str, A.TriggerDecl] = field(default_factory=dict)
    modifiers: dict[str, A.ModifyDecl] = field(default_factory=dict)   # folded into their defs' bodies
    teams: Optional[A.TeamsDecl] = None
    state: dict[str, A.VarDecl] = field(default_factory=dict)
    setup: Optional[A.SetupDecl] = None
    phases: dict[str, A.PhaseDecl] = field(default_factory=dict)
    actions: dict[str, tuple[str, A.ActionDecl]] = field(default_factory=dict)  # name -> (phase, decl)
    flow: Optional[A.FlowDecl] = None
    endings: dict[str, A.EndingDecl] = field(default_factory=dict)
    score: Optional[A.ScoreDecl] = None
    unmodelled: dict[str, A.UnmodelledDecl] = field(default_factory=dict)
    properties: dict[str, A.PropertyDecl] = field(default_factory=dict)
    examples: dict[str, A.ExampleDecl] = field(default_factory=dict)
    # side tables, filled by the checks
    types: dict[int, object] = field(default_factory=dict)
    refs: dict[int, tuple] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)   # option/const/def names read by some rule

    @property
    def title(self) -> str:
        return str(self.meta("title", self.game.name if self.game else "?"))

    def meta(self, key: str, default=None):
        if self.game is None:
            return default
        for e in self.game.meta:
            if e.key == key:
                return e.value
        return default

    @property
    def player_range(self) -> tuple[int, int]:
        r = self.meta("players", (2, 2))
        return r if isinstance(r, tuple) else (r, r)

    def branch_notes(self) -> list:
        """The `if` branches described in words (``if c "in words" { }``), in
        the order of the spec: (node, words). The lowered code reports a
        branch taken by its position in this list (an event, atoll.render)."""
        out, seen = [], set()

        def stmts(block):   # an `if` is a statement, and only statements hold statements
            for n in block:
                if isinstance(n, A.If):
                    if n.notes.summary and id(n) not in seen:
                        seen.add(id(n))
                        out.append((n, n.notes.summary))
                    stmts(n.then)
                    stmts(n.else_)
                elif isinstance(n, A.For):
                    stmts(n.body)
                elif isinstance(n, A.CallStmt):   # a procedure's body, where it is called
                    stmts(n.body)
        if self.setup is not None:
            stmts(self.setup.body)
        for ph in self.phases.values():   # in the order of a walk of the phase's fields
            for a in ph.actions:
                stmts(a.body)
            stmts(ph.enter)
            stmts(ph.auto)
        return out

    def phase_var(self, phase: str, name: str) -> Optional[A.VarDecl]:
        ph = self.phases.get(phase)
        if ph is None:
            return None
        for v in ph.vars:
            if v.name == name:
                return v
        return None


_KIND_WORD = {
    A.EnumDecl: "enum", A.RecordDecl: "record", A.DataDecl: "data table",
    A.OptionDecl: "option", A.ConstDecl: "constant", A.DefDecl: "function",
    A.PhaseDecl: "phase", A.EndingDecl: "ending", A.ProcDecl: "procedure", A.EventDecl: "event", A.TriggerDecl: "trigger",
    A.ModifyDecl: "modifier",
}


# Declarations a spec has at most once, and the Program field that holds each.
_SINGLE = {A.TeamsDecl: "teams", A.SetupDecl: "setup", A.FlowDecl: "flow", A.ScoreDecl: "score"}


def collect(items, file: str, sources: dict[str, str], rep: Reporter) -> Program:
    """Sort declarations by kind; report duplicates and missing essentials."""
    prog = Program(file, sources)
    values: dict[str, object] = {}   # one namespace for every named value

    def claim(name: str, node, table: dict) -> None:
        prev = values.get(name)
        if prev is not None:
            rep.add("A0102", f"`{name}` is defined twice", node.span,
                    f"rename one of them; the first definition is at {prev.span}")
            return
        values[name] = node
        table[name] = node

    for it in items:
        if isinstance(it, A.GameDecl):
            if prog.game is not None:
                rep.add("A0102", "a spec has one game block", it.span)
            prog.game = it
            keys: set = set()
            for e in it.meta:
                if e.key in keys:
                    rep.add("A0108", f"`{e.key}` is given twice in the game block", e.span,
                            "give each entry of the game block once")
                keys.add(e.key)
        elif isinstance(it, A.EnumDecl):
            if it.name in prog.enums or it.name in prog.records:
                rep.add("A0102", f"type `{it.name}` is defined twice", it.span)
            prog.enums[it.name] = it
            for m in it.members:
                if m in prog.members:
                    rep.add("A0102", f"enum member `{m}` is defined twice "
                            f"(in {prog.members[m]} and {it.name})", it.span,
                            "member names are global: give one of them another name")
                else:
                    prog.members[m] = it.name
        elif isinstance(it, A.RecordDecl):
            if it.name in prog.enums or it.name in prog.records or it.name == "Pos":
                rep.add("A0102", f"type `{it.name}` is defined twice", it.span)
            prog.records[it.name] = it
            seen = set()
            for f in it.fields:
                if f.name in seen:
                    rep.add("A0102", f"field `{f.name}` is defined twice", f.span)
                seen.add(f.name)
        elif isinstance(it, A.DataDecl):
            claim(it.name, it, prog.data)
        elif isinstance(it, A.OptionDecl):
            claim(it.name, it, prog.options)
        elif isinstance(it, A.RequireDecl):
            prog.requires.append(it)
        elif isinstance(it, A.ConstDecl):
            claim(it.name, it, prog.consts)
        elif isinstance(it, A.DefDecl):
            claim(it.name, it, prog.defs)
        elif isinstance(it, A.ProcDecl):
            if it.origin:   # made from an event or a trigger, which holds the name
                prog.procs.setdefault(it.name, it)
            else:
                claim(it.name, it, prog.procs)
        elif isinstance(it, A.EventDecl):
            claim(it.name, it, prog.events)
        elif isinstance(it, A.TriggerDecl):
            claim(it.name, it, prog.triggers)
        elif isinstance(it, A.ModifyDecl):
            claim(it.name, it, prog.modifiers)
        elif isinstance(it, (A.TeamsDecl, A.SetupDecl, A.FlowDecl, A.ScoreDecl)):
            attr = _SINGLE[type(it)]
            if getattr(prog, attr) is not None:
                rep.add("A0102", f"`{attr}` is declared twice", it.span,
                        f"the first declaration is at {getattr(prog, attr).span}")
            setattr(prog, attr, it)
        elif isinstance(it, A.StateDecl):
            for v in it.vars:
                claim(v.name, v, prog.state)
        elif isinstance(it, A.PhaseDecl):
            if it.name in prog.phases:
                rep.add("A0102", f"phase `{it.name}` is defined twice", it.span)
            prog.phases[it.name] = it
            for v in it.vars:
                if v.name in values:
                    rep.add("A0102", f"`{v.name}` is defined twice", v.span,
                            f"the first definition is at {values[v.name].span}")
            for a in it.actions:
                if a.name in prog.actions:
                    rep.add("A0102", f"action `{a.name}` is defined twice", a.span)
                prog.actions[a.name] = (it.name, a)
        elif isinstance(it, A.EndingDecl):
            if it.name in prog.endings:
                rep.add("A0102", f"ending `{it.name}` is defined twice", it.span)
            prog.endings[it.name] = it
        elif isinstance(it, A.PropertyDecl):
            if it.name in prog.properties:
                rep.add("A0102", f"property `{it.name}` is defined twice", it.span)
            prog.properties[it.name] = it
        elif isinstance(it, A.ExampleDecl):
            if it.name in prog.examples:
                rep.add("A0102", f"example `{it.name}` is defined twice", it.span)
            prog.examples[it.name] = it
        elif isinstance(it, A.UnmodelledDecl):
            if it.name in prog.unmodelled:
                rep.add("A0102", f"`unmodelled {it.name}` is declared twice", it.span)
            prog.unmodelled[it.name] = it
    for name in set(prog.examples) & set(prog.properties):
        rep.add("A0102", f"`{name}` names both a property and an example", prog.examples[name].span,
                "`atoll verify --property NAME` runs either by its name: give them different names")
    if prog.game is None:
        rep.add("A0204", "the spec has no `game` block", A.Span(file, 1, 1, 1, 2),
                "start the file with `game name { title: \"...\" players: 2..4 }`")
    else:
        r = prog.meta("players")
        if not (isinstance(r, tuple) or isinstance(r, int)):
            rep.add("A0108", "the game block needs `players: MIN..MAX`", prog.game.span)
        elif isinstance(r, tuple) and not (1 <= r[0] <= r[1]):
            rep.add("A0108", f"player range {r[0]}..{r[1]} is empty", prog.game.span)
        elif isinstance(r, int) and r < 1:
            rep.add("A0108", f"a game needs at least one player, not {r}", prog.game.span)
        elif max(r if isinstance(r, tuple) else (r,)) > limits.MAX_PLAYERS:
            rep.add("A0108", f"a game has at most {limits.MAX_PLAYERS} players, not "
                    f"{max(r if isinstance(r, tuple) else (r,))}", prog.game.span,
                    f"the limit on players is {limits.MAX_PLAYERS} (docs/language.md, Limits)")
    if prog.flow is None:
        rep.add("A0204", "the spec has no `flow`", A.Span(file, 1, 1, 1, 2),
                "add `flow { round { turns in seats: PHASE, ... } }`")
    return prog
