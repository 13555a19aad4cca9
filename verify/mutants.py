"""Mutants of a spec: small, plausible rule bugs, each a change of the
spec's text at one node of its syntax tree (``atoll mutate``).

The generator knows no game: it walks the rules of the spec (constants,
functions, options, state, setup, flow, phases and their actions, endings,
score, teams, requirements; not the properties, nor the functions and
constants that only properties read) and, at each node, writes the text of
a mutant:

- a whole number one more or one less;
- a comparison moved across its boundary (``<`` and ``<=``, ``>`` and ``>=``)
  or negated (``==`` and ``!=``); ``in`` and ``not in`` swapped;
- an arithmetic operator swapped (``+`` and ``-``, ``*`` to ``+``, ``/`` to
  ``*``, ``%`` to ``/``); ``and`` and ``or`` swapped; a ``not`` removed;
  ``true`` and ``false`` swapped; ``min`` and ``max``, ``any`` and ``all``;
- a ``when`` or ``ensures`` guard dropped or negated, or one of its
  conjuncts dropped; an ``if`` negated; the two branches of an ``if ...
  then ... else`` swapped;
- a statement dropped;
- the outcomes of two neighbouring ``cases`` (or ``match`` arms) swapped;
- an ending's condition weakened (a conjunct dropped) or the ending removed
  (its condition ``false``); the last tie-break of a ranking dropped.

A mutant is only text: it goes through the normal compiler like any spec
(nothing of it is ever executed but the compiler's output). Dropped text is
replaced by as many line breaks, so every line keeps its number.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterator, Optional

from atoll.compiler.modifiers import base_body
from atoll.grammar import ast as A

RELATIONAL = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ARITHMETIC = {"+": "-", "-": "+", "*": "+", "/": "*", "%": "/"}
LOGICAL = {"and": "or", "or": "and"}
MEMBERSHIP = {"in": "not in", "notin": "in"}
FUNCTIONS = {"min": "max", "max": "min", "any": "all", "all": "any"}

# The kinds of mutant, in the words of the report.
KINDS = ("constant", "comparison", "membership", "arithmetic", "logic", "negation removed",
         "boolean", "function", "guard dropped", "guard negated", "guard weakened",
         "condition negated", "branches swapped", "statement dropped", "cases swapped",
         "ending weakened", "ending removed", "tie-break dropped")


@dataclass(frozen=True)
class Mutant:
    """One mutant: ``edits`` are (start, end, new text) over the spec's text
    (offsets, not overlapping, in order). ``rule`` names the declaration it
    changes (``action conquer``, ``def protected``...), ``cites`` its
    rulebook citations."""
    id: int
    kind: str
    rule: str
    cites: tuple
    line: int
    what: str
    edits: tuple
    decl: tuple   # ("def", name), ("const", name), ("option", name), or ("rules", kind, name)

    def apply(self, text: str) -> str:
        out, at = [], 0
        for start, end, new in self.edits:
            out.append(text[at:start])
            out.append(new)
            at = end
        out.append(text[at:])
        return "".join(out)

    def diff(self, text: str, width: int = 110) -> list[str]:
        """The change as ``-``/``+`` lines (only the lines that change; a
        long dropped block is shown by its first line)."""
        old_lines = text.splitlines()
        new_lines = self.apply(text).splitlines()
        out = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines,
                                                           autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            olds = [s for s in old_lines[i1:i2]]
            news = [s for s in new_lines[j1:j2] if s.strip()]
            out.append(f"-{i1 + 1}: " + _clip(olds[0].strip(), width)
                       + (f"  (and {len(olds) - 1} more line{'s' * (len(olds) > 2)})" if len(olds) > 1 else ""))
            if news:
                out.extend(f"+{j1 + 1}: " + _clip(s.strip(), width) for s in news[:2])
            else:
                out.append("+   (removed)")
        return out


def _clip(s: str, width: int) -> str:
    return s if len(s) <= width else s[:width - 3] + "..."


# ---------------------------------------------------------------- text positions

class Text:
    """The spec's text with offsets for spans."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def range(self, span: A.Span) -> tuple[int, int]:
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)

    def of(self, node) -> str:
        a, b = self.range(node.span)
        return self.text[a:b]

    def bracketed(self, node) -> tuple[int, int]:
        """The node's range, with the brackets written around it (which its span leaves out)."""
        a, b = self.range(node.span)
        while True:
            i, j = a - 1, b
            while i >= 0 and self.text[i] in " \t\r\n":
                i -= 1
            while j < len(self.text) and self.text[j] in " \t\r\n":
                j += 1
            if i >= 0 and j < len(self.text) and self.text[i] == "(" and self.text[j] == ")":
                a, b = i, j + 1
            else:
                return a, b

    def blank(self, a: int, b: int) -> str:
        """What replaces dropped text: its line breaks only."""
        return "\n" * self.text.count("\n", a, b)


_GAP_TOKEN = re.compile(r"\s+|#[^\n]*|[()]")
_OPERATOR = re.compile(r"not\s+in\b|==|!=|<=|>=|<|>|\+|-|\*|/|%|and\b|or\b|in\b")


def operator_range(tx: Text, node: A.BinOp) -> Optional[tuple[int, int]]:
    """Where the operator of a binary operation is written: the one token
    between its operands besides brackets, blanks and comments."""
    _, a = tx.range(node.left.span)
    b, _ = tx.range(node.right.span)
    gap, i, found = tx.text[a:b], 0, None
    while i < len(gap):
        m = _GAP_TOKEN.match(gap, i)
        if m:
            i = m.end()
            continue
        m = _OPERATOR.match(gap, i)
        if not m or found is not None:
            return None
        found = (a + m.start(), a + m.end())
        i = m.end()
    return found


def _pattern(arm: A.MatchArm) -> str:
    return "_" if arm.pattern is None else str(arm.pattern)


def _op_text(op: str) -> str:
    return "not in" if op == "notin" else op


# ---------------------------------------------------------------- which declarations are rules

def _names(node) -> set:
    """Every identifier a node reads (names and called functions)."""
    out = set()
    for n in A.walk(node):
        if isinstance(n, A.Name):
            out.add(n.name)
        elif isinstance(n, A.Call):
            out.add(n.func)
    return out


def rule_roots(prog) -> list:
    """The declarations that make the rules (everything but the properties
    and what only they read): (decl, rule name, key)."""
    out = []
    for o in prog.options.values():
        out.append((o, f"option {o.name}", ("option", o.name)))
    for i, r in enumerate(prog.requires):
        out.append((r, f"require #{i + 1}", ("rules", "require", str(i))))
    if prog.teams is not None:
        out.append((prog.teams, "teams", ("rules", "teams", "")))
    for v in prog.state.values():
        out.append((v, f"state {v.name}", ("rules", "state", v.name)))
    if prog.setup is not None:
        out.append((prog.setup, "setup", ("rules", "setup", "")))
    if prog.flow is not None:
        out.append((prog.flow, "flow", ("rules", "flow", "")))
    for ph in prog.phases.values():
        out.append((ph, f"phase {ph.name}", ("rules", "phase", ph.name)))
    for e in prog.endings.values():
        out.append((e, f"ending {e.name}", ("rules", "ending", e.name)))
    if prog.score is not None:
        out.append((prog.score, "score", ("rules", "score", "")))
    return out


def used_by_rules(prog) -> set:
    """The constants and functions the rules read, directly or through others."""
    named = {**{k: v for k, v in prog.consts.items()}, **{k: v for k, v in prog.defs.items()}}
    seen: set = set()
    todo = set()
    for decl, _, _ in rule_roots(prog):
        todo |= _names(decl)
    while todo:
        n = todo.pop()
        if n in seen or n not in named:
            continue
        seen.add(n)
        todo |= _names(named[n]) - seen
    return seen


def reads(prog, node) -> set:
    """The constants, functions and options a node reads, transitively."""
    named = {**prog.consts, **prog.defs}
    seen: set = set()
    todo = set(_names(node))
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in named:
            todo |= _names(named[n]) - seen
    return seen


# ---------------------------------------------------------------- the generator

class _Gen:
    def __init__(self, tx: Text, file: str):
        self.tx = tx
        self.file = file
        self.out: list[Mutant] = []
        self.seen_texts: set = set()
        self.rule = ""
        self.cites: tuple = ()
        self.decl: tuple = ()

    def add(self, kind: str, node_span: A.Span, what: str, *edits) -> None:
        edits = tuple(sorted(edits))
        for (a1, b1, _), (a2, _, _) in zip(edits, edits[1:]):
            if a2 < b1:   # pragma: no cover - overlapping edits are a bug of the generator
                return
        key = edits
        if key in self.seen_texts or all(self.tx.text[a:b] == new for a, b, new in edits):
            return
        self.seen_texts.add(key)
        self.out.append(Mutant(len(self.out), kind, self.rule, self.cites, node_span.line, what,
                               edits, self.decl))

    def mine(self, node) -> bool:
        sp = getattr(node, "span", None)
        return sp is not None and sp.file == self.file and sp is not A.NO_SPAN

    # -- expressions
    def expr(self, e) -> None:
        for n in A.walk(e):
            if not self.mine(n):
                continue
            if isinstance(n, A.IntLit):
                a, b = self.tx.range(n.span)
                self.add("constant", n.span, f"{n.value} to {n.value + 1}", (a, b, str(n.value + 1)))
                if n.value > 0:
                    self.add("constant", n.span, f"{n.value} to {n.value - 1}", (a, b, str(n.value - 1)))
            elif isinstance(n, A.BoolLit):
                a, b = self.tx.range(n.span)
                new = "false" if n.value else "true"
                self.add("boolean", n.span, f"{str(n.value).lower()} to {new}", (a, b, new))
            elif isinstance(n, A.BinOp):
                self.binop(n)
            elif isinstance(n, A.Not):
                a, b = self.tx.range(n.span)
                ia, ib = self.tx.range(n.operand.span)
                self.add("negation removed", n.span, "`not` removed",
                         (a, b, "(" + self.tx.text[ia:ib] + ")"))
            elif isinstance(n, (A.Aggregate, A.Call)) and n.func in FUNCTIONS:
                a, _ = self.tx.range(n.span)
                if self.tx.text.startswith(n.func, a):
                    self.add("function", n.span, f"`{n.func}` to `{FUNCTIONS[n.func]}`",
                             (a, a + len(n.func), FUNCTIONS[n.func]))
            elif isinstance(n, A.IfExpr):
                self.swap("branches swapped", n.span, "`then` and `else` swapped", n.then, n.else_)
            elif isinstance(n, A.Cases):
                for x, y in zip(n.arms, n.arms[1:]):
                    self.swap("cases swapped", x.span, f"the outcomes of cases `{x.name}` and "
                              f"`{y.name}` swapped", x.value, y.value)
            elif isinstance(n, A.Match):
                for x, y in zip(n.arms, n.arms[1:]):
                    self.swap("cases swapped", x.span, f"the outcomes of `match` arms "
                              f"`{_pattern(x)}` and `{_pattern(y)}` swapped", x.value, y.value)

    def binop(self, n: A.BinOp) -> None:
        where = operator_range(self.tx, n)
        if where is None:
            return
        a, b = where
        for table, kind in ((RELATIONAL, "comparison"), (ARITHMETIC, "arithmetic"),
                            (LOGICAL, "logic"), (MEMBERSHIP, "membership")):
            if n.op in table:
                new = table[n.op]
                self.add(kind, n.span, f"`{_op_text(n.op)}` to `{new}`", (a, b, new))

    def swap(self, kind: str, span: A.Span, what: str, x, y) -> None:
        if not (self.mine(x) and self.mine(y)):
            return
        (xa, xb), (ya, yb) = self.tx.range(x.span), self.tx.range(y.span)
        tx, ty = self.tx.text[xa:xb], self.tx.text[ya:yb]
        if tx == ty or xb > ya:
            return
        self.add(kind, span, what, (xa, xb, f"({ty})"), (ya, yb, f"({tx})"))

    def negate(self, kind: str, cond, what: str) -> None:
        if self.mine(cond):
            a, b = self.tx.range(cond.span)
            self.add(kind, cond.span, what, (a, b, f"not ({self.tx.text[a:b]})"))

    def conjuncts(self, cond) -> list:
        if isinstance(cond, A.BinOp) and cond.op == "and":
            return self.conjuncts(cond.left) + self.conjuncts(cond.right)
        return [cond]

    def drop_conjuncts(self, kind: str, cond, what: str) -> None:
        parts = self.conjuncts(cond)
        if len(parts) < 2 or not all(self.mine(p) for p in parts):
            return
        ranges = [self.tx.bracketed(p) for p in parts]
        for i, p in enumerate(parts):
            if i + 1 < len(parts):
                a, b = ranges[i][0], ranges[i + 1][0]
            else:
                a, b = ranges[i - 1][1], ranges[i][1]
            self.add(kind, p.span, f"{what} `{_clip(' '.join(self.tx.of(p).split()), 60)}` dropped",
                     (a, b, self.tx.blank(a, b)))

    # -- statements
    def stmts(self, body, else_if: bool = False) -> None:
        for s in body:
            self.stmt(s, else_if and len(body) == 1 and isinstance(s, A.If))

    def stmt(self, s, else_if: bool = False) -> None:
        if not self.mine(s):
            return
        if not isinstance(s, A.Let) and not (else_if and self._after_else(s)):
            a, b = self.tx.range(s.span)
            first = self.tx.text[a:b].split("\n", 1)[0].strip()
            self.add("statement dropped", s.span, f"`{_clip(first, 60)}` dropped",
                     (a, b, self.tx.blank(a, b)))
        if isinstance(s, A.If):
            self.negate("condition negated", s.cond, "the `if` condition negated")
            self.expr(s.cond)
            self.stmts(s.then)
            self.stmts(s.else_, else_if=True)
        elif isinstance(s, A.For):
            self.expr(s.iter)
            self.stmts(s.body)
        elif isinstance(s, A.Assign):
            self.expr(s.target.indices)
            self.expr(s.value)
        elif isinstance(s, A.Let):
            self.expr(s.value)
        elif isinstance(s, A.Roll):
            self.expr(s.source)
        elif isinstance(s, A.Deal):
            self.expr(s.count)
            self.expr((s.source.indices, s.dest.indices))
        elif isinstance(s, A.Draw):
            self.expr(s.source.indices)
        elif isinstance(s, A.Win):
            self.expr(s.players)
        elif isinstance(s, A.CallStmt):   # the arguments (the body is mutated at its `proc`)
            self.expr(s.args)
        elif isinstance(s, A.Choose):
            self.expr((s.domain, s.player))

    def _after_else(self, s) -> bool:
        """An `if` written `else if` (dropping it alone would leave `else` with no block)."""
        a, _ = self.tx.range(s.span)
        return self.tx.text[:a].rstrip().endswith("else")

    # -- declarations
    def rule_of(self, name: str, cites: tuple, decl: tuple) -> None:
        self.rule, self.cites, self.decl = name, tuple(cites), decl

    def action(self, ph: A.PhaseDecl, act: A.ActionDecl) -> None:
        self.rule_of(f"action {act.name}", act.notes.cites or ph.notes.cites, ("rules", "action", act.name))
        for p in act.params:
            self.expr(p.domain)
        for g in act.guards:
            if not self.mine(g):
                continue
            a, b = self.tx.range(g.span)
            self.add("guard dropped", g.span, f"`{g.kind} {_clip(' '.join(self.tx.of(g.cond).split()), 60)}` dropped",
                     (a, b, self.tx.blank(a, b)))
            self.negate("guard negated", g.cond, f"the `{g.kind}` guard negated")
            self.drop_conjuncts("guard weakened", g.cond, f"of the `{g.kind}` guard,")
            self.expr(g.cond)
        self.stmts(act.body)

    def phase(self, ph: A.PhaseDecl) -> None:
        self.rule_of(f"phase {ph.name}", ph.notes.cites, ("rules", "phase", ph.name))
        for v in ph.vars:
            self.expr(v.init)
        self.stmts(ph.enter)
        self.stmts(ph.auto)
        for c in (ph.done, ph.repeat):
            if c is not None:
                self.expr(c)
        for act in ph.actions:
            self.action(ph, act)

    def ending(self, e: A.EndingDecl) -> None:
        self.rule_of(f"ending {e.name}", e.notes.cites, ("rules", "ending", e.name))
        if self.mine(e.cond):
            a, b = self.tx.range(e.cond.span)
            self.add("ending removed", e.cond.span, f"ending `{e.name}` removed (its condition `false`)",
                     (a, b, "false" + self.tx.blank(a, b)))
        self.drop_conjuncts("ending weakened", e.cond, "of the condition,")
        self.expr(e.cond)
        o = e.outcome
        if isinstance(o, A.OutcomeRank):
            if len(o.keys) >= 2 and all(self.mine(k) for k in o.keys[-2:]):
                _, a = self.tx.bracketed(o.keys[-2])
                _, b = self.tx.bracketed(o.keys[-1])
                self.add("tie-break dropped", o.keys[-1].span, "the last tie-break of the ranking dropped",
                         (a, b, self.tx.blank(a, b)))
            self.expr(o.keys)
        elif isinstance(o, A.OutcomeWin):
            self.expr(o.players)


def generate(prog, text: str, file: str) -> list[Mutant]:
    """Every mutant of the rules written in ``file`` (the spec's own text:
    for a variant, its own declarations, not those of the game it extends)."""
    g = _Gen(Text(text), file)
    rules = used_by_rules(prog)
    for o in prog.options.values():
        g.rule_of(f"option {o.name}", o.notes.cites, ("option", o.name))
        g.expr(o.default)
    for i, r in enumerate(prog.requires):
        g.rule_of(f"require #{i + 1}", r.notes.cites, ("rules", "require", str(i)))
        g.expr(r.cond)
    for c in prog.consts.values():
        if c.name in rules:
            g.rule_of(f"const {c.name}", c.notes.cites, ("const", c.name))
            g.expr(c.value)
    for d in prog.defs.values():
        if d.name in rules:
            mods = [m for m in prog.modifiers.values() if m.func == d.name]
            g.rule_of(f"def {d.name}", d.notes.cites, ("def", d.name))
            g.expr(base_body(d, len(mods)))   # as written (its modifiers are folded into its body)
            for m in mods:
                g.rule_of(f"modify {m.name}", m.notes.cites, ("def", d.name))
                if m.when is not None:
                    g.negate("condition negated", m.when, "the modifier's `when` negated")
                    g.expr(m.when)
                g.expr(m.value)
    for pr in prog.procs.values():   # a procedure's effects, once (its calls share them)
        if not pr.origin:
            g.rule_of(f"proc {pr.name}", pr.notes.cites, ("rules", "proc", pr.name))
            g.stmts(pr.body)
    for t in prog.triggers.values():   # as written (its procedure is made from it: compiler/events)
        g.rule_of(f"trigger {t.name}", t.notes.cites, ("rules", "trigger", t.name))
        for e in (t.domain, t.by):
            if e is not None:
                g.expr(e)
        for c in (t.when, t.optional_when):
            if c is not None:
                g.negate("condition negated", c, "the trigger's `when` negated")
                g.expr(c)
        g.stmts(t.body)
    if prog.teams is not None:
        g.rule_of("teams", prog.teams.notes.cites, ("rules", "teams", ""))
        g.expr(prog.teams.value)
    for v in prog.state.values():
        g.rule_of(f"state {v.name}", v.notes.cites, ("rules", "state", v.name))
        g.expr(v.init)
    if prog.setup is not None:
        g.rule_of("setup", prog.setup.notes.cites, ("rules", "setup", ""))
        g.stmts(prog.setup.body)
    if prog.flow is not None:
        g.rule_of("flow", prog.flow.notes.cites, ("rules", "flow", ""))
        for rd in prog.flow.rounds:
            if rd.cond is not None:
                g.expr(rd.cond)
            for st in rd.stages:
                g.expr(st.players)
                if st.until is not None:
                    g.expr(st.until)
    for ph in prog.phases.values():
        g.phase(ph)
    for e in prog.endings.values():
        g.ending(e)
    if prog.score is not None:
        g.rule_of("score", prog.score.notes.cites, ("rules", "score", ""))
        g.expr(prog.score.value)
    return g.out


def iter_rules(mutants) -> Iterator[str]:
    seen = []
    for m in mutants:
        if m.rule not in seen:
            seen.append(m.rule)
            yield m.rule
