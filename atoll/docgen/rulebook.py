"""Rule documentation generated from a spec, as reStructuredText.

``SpecDoc`` loads a spec through the compiler (``compile_spec``) and knows
where each declaration sits in its source. The functions below turn its
declarations into text: every rule with its own description string and the
rulebook sections it cites, in generic words around them (the spec's strings
are ours; nothing from a rulebook is copied, and no game is named here).
``atoll.docgen.editions`` puts them together into whole pages; the Sphinx
extension (``atoll.sphinx``) parses the text, and none of it needs Sphinx.
"""
from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from atoll.compiler import names as N
from atoll.compiler import files, pipeline
from atoll.compiler import types as T
from atoll.compiler.check import Checker
from atoll.compiler.values import sort_values
from atoll.diagnostics import Reporter, SpecError
from atoll.grammar import ast as A
from atoll.grammar.parse import parse
from atoll.docgen.rst import code, code_block, emph, esc, heading, indent, label, lit, table

# ---------------------------------------------------------------- the loaded spec

@dataclass
class SpecDoc:
    """A compiled spec with what the docs need to know about its source."""
    path: Path
    comp: pipeline.Compiled
    files: dict[str, A.Spec]                 # every file read, parsed
    ends: dict[tuple, int] = field(default_factory=dict)   # span start -> last line of the declaration
    base: Optional[Path] = None              # for a variant: the game it extends
    _games: dict = field(default_factory=dict)
    _configs: dict = field(default_factory=dict)
    memo: dict = field(default_factory=dict)   # what the figures found, computed once

    @property
    def prog(self):
        return self.comp.program

    @property
    def slug(self) -> str:
        return self.path.stem

    @property
    def title(self) -> str:
        return self.prog.title

    @property
    def rulebook(self) -> str:
        return str(self.prog.meta("rulebook", "the rulebook"))

    @property
    def checker(self) -> Checker:
        return Checker(self.prog, Reporter())

    @property
    def modes(self) -> list[str]:
        return [a.strip() for a in str(self.prog.meta("modes", "")).split(",") if a.strip()]

    def resolve(self, tref):
        return self.checker.resolve(tref)

    def text(self, span: A.Span) -> str:
        """The source text of an expression, on one line."""
        lines = self.prog.sources.get(span.file, "").splitlines()
        if not 1 <= span.line <= len(lines):
            return "?"
        if span.line == span.end_line:
            return lines[span.line - 1][span.column - 1:span.end_column - 1]
        parts = [lines[span.line - 1][span.column - 1:]]
        parts += lines[span.line:span.end_line - 1]
        parts.append(lines[span.end_line - 1][:span.end_column - 1])
        return " ".join(" ".join(parts).split())

    def excerpt(self, node) -> str:
        """The whole declaration of ``node`` as it is written in the spec."""
        s = node.span
        lines = self.prog.sources.get(s.file, "").splitlines()
        end = self.ends.get((s.file, s.line, s.column), s.end_line)
        chunk = lines[s.line - 1:end]
        base = len(chunk[0]) - len(chunk[0].lstrip()) if chunk else 0
        while chunk and (not chunk[-1].strip() or chunk[-1].lstrip().startswith("#")
                         or len(chunk[-1]) - len(chunk[-1].lstrip()) < base):
            chunk.pop()
        return "\n".join(l[base:] if len(l) - len(l.lstrip()) >= base else l.strip() for l in chunk)

    # ------------------------------------------------------------ configurations
    def game(self, players: Optional[int] = None, options: Optional[dict] = None):
        key = (players, tuple(sorted((options or {}).items())))
        if key not in self._games:
            self._games[key] = pipeline.instantiate(self.comp, players, options)
        return self._games[key]

    def configuration(self, players: Optional[int] = None, options: Optional[dict] = None):
        """The values of a configuration (``pipeline.Configuration``), without
        a game's specialised rules: what the tables of values need."""
        key = (players, tuple(sorted((options or {}).items())))
        if key not in self._configs:
            self._configs[key] = pipeline.configure(self.comp, players, options)
        return self._configs[key]

    def configurations(self, extra: tuple = ()) -> list[tuple[int, dict]]:
        """Every player count times every value of the modes (and of the
        options in ``extra``) that the requirements allow."""
        lo, hi = self.prog.player_range
        axes = list(dict.fromkeys(self.modes + list(extra)))
        values = [self.option_values(a) for a in axes]
        out = []
        for n in range(lo, hi + 1):
            for combo in itertools.product(*values):
                opts = dict(zip(axes, combo))
                try:
                    self.configuration(n, opts)
                except SpecError:
                    continue
                out.append((n, opts))
        return out

    def option_values(self, name: str) -> list:
        t = self.resolve(self.prog.options[name].type)
        if t == T.BOOL:
            return [False, True]
        if isinstance(t, tuple) and t[0] == "enum":
            return list(self.prog.enums[t[1]].members)
        return [self.game().options[name]]

    def value_text(self, t, v) -> str:
        return self.game().codec.text(t, v)


def _bounds(spec: A.Spec, n_lines: int) -> dict[tuple, int]:
    """Where each declaration ends: just before the next one at its level."""
    out: dict[tuple, int] = {}

    def siblings(nodes: list, stop: int) -> None:
        # by position only: two declarations may share a line (nodes do not compare)
        starts = sorted(((x.span.line, x) for x in nodes if x.span.line > 0),
                        key=lambda t: (t[0], t[1].span.column))
        for i, (line, x) in enumerate(starts):
            nxt = starts[i + 1][0] - 1 if i + 1 < len(starts) else stop
            out[(x.span.file, x.span.line, x.span.column)] = max(line, nxt)

    items = [it for it in spec.items if not isinstance(it, A.StateDecl)]
    states = [it for it in spec.items if isinstance(it, A.StateDecl)]
    marks = items + [v for s in states for v in s.vars[:1]]
    siblings(marks, n_lines)
    all_starts = sorted(x.span.line for x in marks)
    for s in states:
        first = s.vars[0].span.line if s.vars else 0
        stop = next((l - 1 for l in all_starts if l > first), n_lines)
        siblings(list(s.vars), stop)
    for ph in (it for it in spec.items if isinstance(it, A.PhaseDecl)):
        stop = out.get((ph.span.file, ph.span.line, ph.span.column), n_lines)
        inner = list(ph.vars) + list(ph.actions)
        inner += [x for x in (ph.done, ph.repeat) if x is not None]
        inner += [blk[0] for blk in (ph.enter, ph.auto) if blk]
        siblings(inner, stop)
    return out


_LOADED: dict = {}


def input_files(comp) -> list[str]:
    """Every file a compiled spec was read from: sources and data files."""
    prog = comp.program
    return sorted(set(prog.sources) | {str(Path(d.span.file).parent / d.path)
                                       for d in prog.data.values()})


def _digest(names) -> str:
    h = hashlib.sha256()
    for f in names:
        h.update((files.digest(f) or "<unreadable>").encode())
    return h.hexdigest()


def load(path) -> SpecDoc:
    """Compile ``path`` (raises ``SpecError``) and index its source;
    cached by the contents of every file it reads."""
    path = Path(path).resolve()
    key = (str(path), files.Access(path).key)   # the folders it may read are part of the key
    hit = _LOADED.get(key)
    if hit is not None and _digest(hit[1]) == hit[0]:
        return hit[2]
    comp = pipeline.compile_spec(path)
    parsed, ends = {}, {}
    for name, text in comp.program.sources.items():
        spec = parse(text, name, Reporter())
        if spec is not None:
            parsed[name] = spec
            ends.update(_bounds(spec, len(text.splitlines())))
    base = None
    own = parsed.get(str(path))
    ext = [i for i in own.items if isinstance(i, A.ExtendsDecl)] if own else []
    if ext:
        base = (path.parent / ext[0].path).resolve()
    doc = SpecDoc(path, comp, parsed, ends, base)
    read = input_files(comp)
    _LOADED[key] = (_digest(read), read, doc)
    return doc


# ---------------------------------------------------------------- words

def cites_text(doc: SpecDoc, notes: A.Notes) -> str:
    if not notes.cites:
        return ""
    return "Rulebook: " + "; ".join(emph(c) for c in notes.cites) + "."


def summary(notes: A.Notes, fallback: str = "") -> str:
    return esc(notes.summary) if notes.summary else fallback


def assumption_line(notes: A.Notes) -> list[str]:
    if not notes.assumption:
        return []
    return [f":atoll-assumption:`Modelling assumption` {esc(notes.assumption)}"]


def notes_block(doc: SpecDoc, notes: A.Notes, fallback: str = "") -> list[str]:
    """Summary, citation and assumption of a declaration, as paragraphs."""
    out = []
    text = summary(notes, fallback)
    cite = cites_text(doc, notes)
    if text or cite:
        out += [" ".join(x for x in (text, cite) if x), ""]
    for a in assumption_line(notes):
        out += [a, ""]
    return out


_TIME = {"immediately": "As soon as", "after_turn": "At the end of a turn, if",
         "after_round": "At the end of a round, if"}


def outcome_text(doc: SpecDoc, o) -> str:
    if isinstance(o, A.OutcomeWin):
        return f"Winners: {lit(doc.text(o.players.span))}."
    if isinstance(o, A.OutcomeTie):
        return "Nobody wins."
    keys = ", then ".join(lit(doc.text(k.span)) for k in o.keys)
    tie = ("nobody wins" if o.tie == "tie" else "every leader wins")
    return (f"Players are ranked by {keys} (for each player {lit(o.var)}); the leader wins "
            f"(a whole team, when every leader is on it); otherwise {tie}.")


def _target(s) -> str:
    """What a `let` or `for` binds, as written: `x` or `(a, b)`."""
    names = A.bound_names(s)
    return f"({', '.join(names)})" if s.names else names[0]


def stmt_lines(doc: SpecDoc, stmts, depth: int = 0) -> list[str]:
    """Effects as a bullet list in words, the expressions in the spec's notation."""
    out = []
    for s in stmts:
        if isinstance(s, A.Assign):
            tgt = doc.text(s.target.span)
            out.append(f"- {lit(tgt)} becomes {lit(doc.text(s.value.span))}.")
        elif isinstance(s, A.Let):
            out.append(f"- Let {lit(_target(s))} be {lit(doc.text(s.value.span))}.")
        elif isinstance(s, A.Roll):
            out.append(f"- Roll: one item at random from {lit(doc.text(s.source.span))}, each as likely "
                       f"as its copies there (nothing is taken away); call it {lit(s.name)}.")
        elif isinstance(s, A.Draw):
            out.append(f"- Draw one item at random from {lit(doc.text(s.source.span))}: "
                       f"call it {lit(s.name)}.")
        elif isinstance(s, A.Deal):
            out.append(f"- Deal {lit(doc.text(s.count.span))} at random from "
                       f"{lit(doc.text(s.source.span))} to {lit(doc.text(s.dest.span))} "
                       "(fewer if it runs out).")
        elif isinstance(s, A.End):
            out.append(f"- End the {s.what}.")
        elif isinstance(s, A.Win):
            out.append(f"- The game ends; winners: {lit(doc.text(s.players.span))}.")
        elif isinstance(s, A.Tie):
            out.append("- The game ends; nobody wins.")
        elif isinstance(s, A.CallStmt) and s.emit:
            out.append(f"- {lit(doc.text(s.span))}: the event {lit(s.proc)} happens, and its triggers run.")
        elif isinstance(s, A.CallStmt):
            out.append(f"- Do {lit(doc.text(s.span))} (the procedure {lit(s.proc)}).")
        elif isinstance(s, A.Choose):
            out.append(f"- Player {lit(doc.text(s.player.span))} chooses one of "
                       f"{lit(doc.text(s.domain.span))}: call it {lit(s.name)} (the game waits for "
                       "the choice).")
        elif isinstance(s, A.For):
            out += [f"- For each {lit(_target(s))} in {lit(doc.text(s.iter.span))}:", ""]
            out += indent(stmt_lines(doc, s.body, depth + 1), 2) + [""]
        elif isinstance(s, A.If):
            out += [f"- If {lit(doc.text(s.cond.span))}:", ""]
            out += indent(stmt_lines(doc, s.then, depth + 1), 2) + [""]
            if s.else_:
                out += ["- Otherwise:", ""] + indent(stmt_lines(doc, s.else_, depth + 1), 2) + [""]
    return out


def flow_lines(doc: SpecDoc, phase_ref: Callable[[str], str]) -> list[str]:
    flow = doc.prog.flow
    out = notes_block(doc, flow.notes)
    out += ["The game is played in rounds. At the start of each round, the first of these kinds "
            "of round whose condition holds is played:", ""]
    for rd in flow.rounds:
        head = (f"- When {lit(doc.text(rd.cond.span))}:" if rd.cond is not None
                else ("- Otherwise:" if len(flow.rounds) > 1 else "- Every round:"))
        out += [head, ""]
        for i, st in enumerate(rd.stages, start=1):
            phases = ", then ".join(phase_ref(p) for p in st.phases)
            who = lit(doc.text(st.players.span))
            if st.kind == "turns":
                out.append(f"  {i}. Each player of {who}, in that order, takes a turn: {phases}.")
            elif st.kind == "around":
                start = (f"starting with the player {lit(st.keeper)} names (it names whose turn it "
                         "is, and afterwards whose turn comes next)" if st.keeper else "starting with the first")
                until = (f", until {lit(doc.text(st.until.span))} holds after a turn (or when the "
                         "stage begins)" if st.until is not None else ", for as long as the game lasts")
                out.append(f"  {i}. The players of {who} take turns round the table, {start}"
                           f"{until}: {phases}.")
            else:
                out.append(f"  {i}. The players of {who} choose at the same time, in secret: "
                           f"{phases}.")
        out.append("")
    return out


def param_text(doc: SpecDoc, a: A.ActionDecl) -> str:
    if not a.params:
        return ""
    return ", ".join(f"{lit(q.name)} from {lit(doc.text(q.domain.span))}" for q in a.params)


def action_entry(doc: SpecDoc, a: A.ActionDecl, designer: bool) -> list[str]:
    """A definition-list entry for one action."""
    params = param_text(doc, a)
    term = f"**{esc(a.name)}**" + (f" (choose {params})" if params else "")
    body = notes_block(doc, a.notes, "*The spec gives this action no description.*")
    conds = []
    for g in a.guards:
        why = f": {esc(g.notes.summary)}" if g.notes.summary else ""
        if g.kind == "when":
            conds.append(f"- Only when {lit(doc.text(g.cond.span))}{why}")
        else:
            conds.append(f"- Afterwards {lit(doc.text(g.cond.span))} must hold{why}")
        conds += ["  " + l for l in assumption_line(g.notes)]
    if conds:
        body += conds + [""]
    if designer and a.body:
        body += ["Effects:", ""] + stmt_lines(doc, a.body) + [""]
    return [term] + indent(body, 3)


def phase_section(doc: SpecDoc, ph: A.PhaseDecl, designer: bool, prefix: str) -> list[str]:
    out = [f".. _{label(prefix, 'phase', ph.name)}:", ""]
    out += heading(f"Phase {ph.name}", "~")
    out += notes_block(doc, ph.notes, "*The spec gives this phase no description.*")
    if ph.vars:
        kept = ", ".join(f"{code(v.name)} ({esc(v.notes.summary) if v.notes.summary else 'at first ' + lit(doc.text(v.init.span))})"
                         for v in ph.vars)
        out += [f"While the phase lasts, it keeps {kept}; they start afresh each time the phase "
                "starts.", ""]
    if ph.auto:
        out += ["This phase has no decision: it plays itself.", ""]
        if designer or not ph.notes.summary:
            out += stmt_lines(doc, ph.auto) + [""]
    if ph.enter and designer:
        out += ["On entering the phase:", ""] + stmt_lines(doc, ph.enter) + [""]
    if ph.done is not None:
        out += [f"The phase ends when {lit(doc.text(ph.done.span))}"
                + (f", and starts again for the same player when {lit(doc.text(ph.repeat.span))}."
                   if ph.repeat is not None else "."), ""]
    if ph.actions:
        out += ["Actions:" if len(ph.actions) > 1 else "Action:", ""]
        for a in ph.actions:
            out += action_entry(doc, a, designer) + [""]
    if designer:
        out += code_block(doc.excerpt(ph) if not ph.actions else _phase_head(doc, ph))
        for a in ph.actions:
            out += code_block(doc.excerpt(a))
    return out


def _phase_head(doc: SpecDoc, ph: A.PhaseDecl) -> str:
    """The phase's declaration up to its first action."""
    text = doc.excerpt(ph)
    first = ph.actions[0].span.line - ph.span.line
    return "\n".join(text.splitlines()[:first]).rstrip() + "\n  ...\n}"


def ending_entry(doc: SpecDoc, en: A.EndingDecl, designer: bool) -> list[str]:
    term = f"**{esc(en.name)}**"
    body = [f"{_TIME[en.time]} {lit(doc.text(en.cond.span))}: the game ends. "
            f"{outcome_text(doc, en.outcome)}", ""]
    body += notes_block(doc, en.notes)
    if designer:
        body += code_block(doc.excerpt(en))
    return [term] + indent(body, 3) + [""]


# ---------------------------------------------------------------- tables

def option_rows(doc: SpecDoc, kind: str) -> list[list[str]]:
    rows = []
    for o in doc.prog.options.values():
        if o.kind != kind:
            continue
        t = doc.resolve(o.type)
        if t == T.BOOL:
            choices = "``true``, ``false``"
        elif isinstance(t, tuple) and t[0] == "enum":
            choices = ", ".join(code(m) for m in doc.prog.enums[t[1]].members)
        else:
            choices = esc(T.show(t))
        desc = " ".join(x for x in (summary(o.notes), cites_text(doc, o.notes)) if x)
        desc += "".join(" " + a for a in assumption_line(o.notes))
        default = doc.text(o.default.span)
        plain = default.removeprefix("-").replace("_", "").isalnum()   # a name or a number, -1 too
        rows.append([code(o.name), choices, code(default) if plain else lit(default), desc])
    return rows


def options_table(doc: SpecDoc, kind: str) -> list[str]:
    rows = option_rows(doc, kind)
    if not rows:
        return ["The spec declares none.", ""]
    return table(["name", "choices", "default", "description"], rows, [18, 22, 12, 48])


def constant_values(doc: SpecDoc, k: A.ConstDecl) -> list[tuple[dict, str]]:
    """The value of a constant in every configuration that changes it,
    reduced to the options and player counts it depends on."""
    reads = _options_read(doc, k.value)
    configs = doc.configurations(tuple(o for o in reads if o not in doc.modes))
    t = doc.resolve(k.type)
    rows = []
    codec = doc.game().codec
    for n, opts in configs:
        c = doc.configuration(n, opts)
        rows.append(({"players": n, **opts}, codec.text(t, c.ns[N.value(k.name)])))
    axes = list(rows[0][0]) if rows else []
    for a in list(axes):   # drop every axis the value does not depend on
        rest = [x for x in axes if x != a]
        seen: dict = {}
        if all(seen.setdefault(tuple(c[x] for x in rest), v) == v for c, v in rows):
            axes = rest
    out, seen_rows = [], set()
    for c, v in rows:
        key = tuple((a, c[a]) for a in axes)
        if key not in seen_rows:
            seen_rows.add(key)
            out.append((dict(key), v))
    return out


def _options_read(doc: SpecDoc, expr, seen=None) -> list[str]:
    """Options a value reads, directly or through constants and functions."""
    seen = set() if seen is None else seen
    out = []
    for node in A.walk(expr):
        if isinstance(node, (A.Name, A.Call)):
            n = node.name if isinstance(node, A.Name) else node.func
            if n in seen:
                continue
            seen.add(n)
            if n in doc.prog.options:
                out.append(n)
            elif n in doc.prog.consts:
                out += _options_read(doc, doc.prog.consts[n].value, seen)
            elif n in doc.prog.defs:
                out += _options_read(doc, doc.prog.defs[n].body, seen)
    return out


def constants_table(doc: SpecDoc, designer: bool) -> list[str]:
    rows = []
    for k in doc.prog.consts.values():
        t = doc.resolve(k.type)
        if not designer and (not k.notes.summary or T.is_collection(t)):
            continue   # helper values and worked examples (drawn), not numbers to know
        if isinstance(t, tuple) and t[0] in T.COLLECTIONS:
            value = f"{esc(T.show(t))} (see the spec)"
        else:
            vals = constant_values(doc, k)
            if len(vals) == 1:
                value = code(vals[0][1])
            else:
                value = "; ".join(f"{code(v)} ({esc(_config_words(c))})" for c, v in vals)
        desc = " ".join(x for x in (summary(k.notes), cites_text(doc, k.notes)) if x)
        desc += "".join(" " + a for a in assumption_line(k.notes))
        rows.append([code(k.name), value, desc])
    if not rows:
        return []
    return table(["name", "value", "description"], rows, [16, 34, 50])


def _config_words(c: dict) -> str:
    parts = []
    for k, v in c.items():
        parts.append(f"{v} players" if k == "players" else f"{k} {str(v).lower()}")
    return ", ".join(parts) if parts else "always"


def _visibility(v: A.VarDecl) -> str:
    return {"all": "everyone", "owner": "its owner only", "nobody": "nobody"}[v.visibility]


def state_table(doc: SpecDoc, designer: bool) -> list[str]:
    rows = []
    for v in doc.prog.state.values():
        who = "each player's" if v.scope == "player" else "shared"
        row = [code(v.name), who, _visibility(v),
               " ".join(x for x in (summary(v.notes), cites_text(doc, v.notes)) if x)]
        if designer:
            row.insert(1, code(T.show(doc.resolve(v.type))))
            row.insert(4, lit(doc.text(v.init.span)))
        rows.append(row)
    if designer:
        return table(["name", "type", "whose", "seen by", "initially", "description"], rows,
                     [12, 16, 10, 10, 16, 36])
    return table(["name", "whose", "seen by", "description"], rows, [14, 12, 14, 60])


def components(doc: SpecDoc, designer: bool) -> list[str]:
    out = []
    for e in doc.prog.enums.values():
        if not e.notes.summary and not designer:
            continue
        out += [f"**{esc(e.name)}**: " + ", ".join(code(m) for m in e.members) + ".", ""]
        out += indent(notes_block(doc, e.notes), 2)
    for r in doc.prog.records.values():
        fields = ", ".join(f"{code(f.name)} ({code(f.type)})" for f in r.fields)
        out += [f"**{esc(r.name)}**: a record of {fields}.", ""]
        out += indent(notes_block(doc, r.notes), 2)
    for d in doc.prog.data.values():
        value = doc.comp.data.get(d.name)
        t = doc.resolve(d.type)
        size = f"{len(value)} " if hasattr(value, "__len__") else ""
        out += [f"**{esc(d.name)}**: {size}× {code(T.show(T.element(t) if T.is_collection(t) else t))}"
                f", read from {code(d.path)}.", ""]
        out += indent(notes_block(doc, d.notes), 2)
        out += indent(data_contents(doc, d), 2)
    return out


def data_contents(doc: SpecDoc, d: A.DataDecl, limit: int = 40) -> list[str]:
    """A data table counted by distinct entries (a deck of cards: how many of each)."""
    t = doc.resolve(d.type)
    value = doc.comp.data.get(d.name)
    if not (isinstance(t, tuple) and t[0] in ("list", "bag", "set") and isinstance(t[1], tuple)
            and t[1][0] == "record") or value is None:
        return []
    fields = doc.game().codec.records[t[1][1]]
    if any(isinstance(ft, tuple) and ft[0] in T.COLLECTIONS for _, ft in fields):
        return []   # nested collections read badly in a table
    counts: dict = {}
    for item in value:
        counts[item] = counts.get(item, 0) + 1
    if len(fields) == 2:   # a cross table: first field down, second across
        downs = sort_values({k[0] for k in counts})
        acrosses = sort_values({k[1] for k in counts})
        if len(acrosses) <= 12:
            (f0, t0), (f1, t1) = fields
            rows = [[esc(_cell(doc, t0, a))] + [str(counts.get((a, b), 0)) for b in acrosses]
                    for a in downs]
            head = [f"{esc(f0)} / {esc(f1)}"] + [esc(_cell(doc, t1, b)) for b in acrosses]
            return [f"How many of each ({len(value)} in all):", ""] + table(head, rows)
    rows = [[esc(_cell(doc, ft, x)) for (_, ft), x in zip(fields, item)] + [str(n)]
            for item, n in ((i, counts[i]) for i in sort_values(counts))]
    more = []
    if len(rows) > limit:
        more = [f"(and {len(rows) - limit} more kinds)", ""]
        rows = rows[:limit]
    return table([esc(f) for f, _ in fields] + ["how many"], rows) + more


def _cell(doc: SpecDoc, t, v) -> str:
    """A value in a table cell: a record nested in the row (a card's function)
    as the values of its fields, the absent ones left out, in words rather
    than as a constructor call."""
    if isinstance(t, tuple) and t[0] == "record" and t != T.POS and isinstance(v, tuple):
        fields = doc.game().codec.records.get(t[1], [])
        if len(fields) == len(v):
            return ", ".join(_cell(doc, ft, x) for (_, ft), x in zip(fields, v) if x is not None)
    return doc.value_text(t, v)


def house_rules(doc: SpecDoc) -> list[str]:
    intro = ("Where the rulebook leaves a question open, the spec names it as a *house rule* "
             "with a default; each can be changed with ``--option NAME=VALUE``.")
    return [intro, ""] + options_table(doc, "house")


def assumptions(doc: SpecDoc) -> list[tuple[str, str, A.Notes]]:
    """Every modelling assumption of the spec: (kind of rule, its name, its notes)."""
    out = []
    for node in A.walk(_all_items(doc)):
        notes = getattr(node, "notes", None)
        if isinstance(notes, A.Notes) and notes.assumption:
            name = doc.text(node.cond.span) if isinstance(node, A.Guard) else getattr(node, "name", "")
            out.append((_kind_word(node), name, notes))
    return out


def _all_items(doc: SpecDoc) -> list:
    p = doc.prog
    items = [p.game, *p.unmodelled.values(), *p.enums.values(), *p.records.values(),
             *p.data.values(), *p.options.values(), *p.requires, *p.consts.values(),
             *p.defs.values(), p.teams, *p.state.values(), p.setup, p.flow, *p.phases.values(),
             *p.endings.values(), p.score, *p.properties.values()]
    return [i for i in items if i is not None]


_KIND = {A.EnumDecl: "enum", A.RecordDecl: "record", A.DataDecl: "data", A.OptionDecl: "option",
         A.RequireDecl: "requirement", A.ConstDecl: "constant", A.DefDecl: "function",
         A.TeamsDecl: "teams", A.VarDecl: "state", A.SetupDecl: "setup", A.FlowDecl: "flow",
         A.PhaseDecl: "phase", A.ActionDecl: "action", A.Guard: "condition",
         A.EndingDecl: "ending", A.ScoreDecl: "score", A.PropertyDecl: "property",
         A.UnmodelledDecl: "unmodelled"}


def _kind_word(node) -> str:
    if isinstance(node, A.OptionDecl) and node.kind == "house":
        return "house rule"
    return _KIND.get(type(node), type(node).__name__)


def assumptions_section(doc: SpecDoc, shown=None) -> list[str]:
    """The modelling assumptions as a table; ``shown(name)`` writes the rule's
    name (default: the spec's notation, for the designer's edition)."""
    shown = shown or (lambda name: code(name) if name and " " not in name else lit(name))
    items = assumptions(doc)
    if not items:
        return ["The spec declares no modelling assumption.", ""]
    out = [".. admonition:: These are the model's choices, not the rulebook's", "",
           "   Each assumption below fills in something the rulebook does not give (data, "
           "seating, the reading of a rule). Results that depend on one depend on the "
           "assumption too.", ""]
    rows = [[esc(kind), shown(name),
             ":atoll-assumption:`assumption` " + esc(n.assumption)
             + (" " + cites_text(doc, n) if n.cites else "")] for kind, name, n in items]
    return out + table(["kind", "rule", "assumption"], rows, [12, 18, 70])


def unmodelled_section(doc: SpecDoc) -> list[str]:
    if not doc.prog.unmodelled:
        return ["The spec leaves nothing of the rulebook out on purpose.", ""]
    rows = [[code(u.name), " ".join(x for x in (summary(u.notes), cites_text(doc, u.notes)) if x)]
            for u in doc.prog.unmodelled.values()]
    return ["What the rulebook says that the model leaves out, on purpose:", ""] + \
        table(["item", "what and why"], rows, [20, 80])


def requirements(doc: SpecDoc, designer: bool) -> list[str]:
    out = []
    for r in doc.prog.requires:
        text = summary(r.notes, "*(no description)*")
        line = f"- {text} " + (f"({lit(doc.text(r.cond.span))}) " if designer or not r.notes.summary
                               else "") + cites_text(doc, r.notes)
        out.append(line.rstrip())
    return out + [""] if out else []


def metadata(doc: SpecDoc) -> list[str]:
    """The game block's facts, as a field list."""
    p = doc.prog
    lo, hi = p.player_range
    out = [f":players: {lo} to {hi}" if lo != hi else f":players: {lo}"]
    for key in ("designer", "publisher", "year", "rulebook"):
        v = p.meta(key)
        if v is not None:
            out.append(f":{key}: {esc(v)}")
    if doc.modes:
        out.append(":modes: " + ", ".join(code(m) for m in doc.modes))
    out.append(f":spec: {code(doc.path.name)}")
    return out + [""]
