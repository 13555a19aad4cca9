"""The players' rulebook: the rules in words, without the spec's notation.

Everything here goes through ``atoll.docgen.prose``: a rule is shown by its
description, or in words built from phrase templates; what has neither is
left to the designer's edition (and said so) rather than shown in notation.
Bookkeeping (a phase's own variables, state without a description) and
what only the verifier uses (functions and constants read by properties
alone) are not shown. Every way the game can end is listed: the spec's
``ending`` declarations and every ``win`` or ``tie`` inside an action, an
automatic phase or the setup.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from atoll.compiler import types as T
from atoll.docgen import figures, rulebook, variants
from atoll.docgen.prose import Prose, sentence, term, words
from atoll.docgen.rst import code, emph, esc, heading, indent, label, table
from atoll.docgen.rulebook import (SpecDoc, assumption_line, cites_text, constant_values,
                                   house_rules, metadata, notes_block, option_rows, options_table,
                                   summary, unmodelled_section, _config_words, _visibility,
                                   data_contents)
from atoll.grammar import ast as A

ELSEWHERE = "(given in the designer's edition)"


def cap(text: str) -> str:
    """``text`` with its first letter in upper case (past any markup)."""
    for i, c in enumerate(text):
        if c.isalpha():
            return text[:i] + c.upper() + text[i + 1:]
    return text


# ---------------------------------------------------------------- what the rules use

def rule_items(doc: SpecDoc) -> list:
    """The declarations that make the game (everything but the properties)."""
    p = doc.prog
    items = [*p.options.values(), *p.requires, *p.state.values(), p.teams, p.setup, p.flow,
             *p.phases.values(), *p.endings.values(), p.score]
    return [i for i in items if i is not None]


def used_by_rules(doc: SpecDoc) -> set[str]:
    """Names of functions and constants the rules read, directly or through
    each other; those read only by properties are the verifier's."""
    if "used_by_rules" in doc.memo:
        return doc.memo["used_by_rules"]
    p = doc.prog
    seen: set[str] = set()
    todo = list(rule_items(doc))
    while todo:
        for node in A.walk(todo.pop()):
            n = node.name if isinstance(node, A.Name) else node.func if isinstance(node, A.Call) \
                else None
            if n is None or n in seen:
                continue
            if n in p.defs:
                seen.add(n)
                todo.append(p.defs[n])
            elif n in p.consts:
                seen.add(n)
                todo.append(p.consts[n])
    doc.memo["used_by_rules"] = seen
    return seen


# ---------------------------------------------------------------- endings inside the rules

@dataclass
class ActionEnding:
    """A ``win`` or ``tie`` inside an effect: where it is and on what conditions."""
    phase: Optional[A.PhaseDecl]
    action: Optional[A.ActionDecl]    # None: the phase's automatic play, or the setup
    conds: list                        # (A.If, True for its then-branch, False for else)
    loops: list                        # the A.For statements around it
    stmt: object                       # A.Win or A.Tie


def action_endings(doc: SpecDoc) -> list[ActionEnding]:
    out: list[ActionEnding] = []

    def scan(stmts, ph, act, conds, loops):
        for s in stmts:
            if isinstance(s, (A.Win, A.Tie)):
                out.append(ActionEnding(ph, act, list(conds), list(loops), s))
            elif isinstance(s, A.If):
                scan(s.then, ph, act, conds + [(s, True)], loops)
                scan(s.else_, ph, act, conds + [(s, False)], loops)
            elif isinstance(s, A.For):
                scan(s.body, ph, act, conds, loops + [s])
            elif isinstance(s, A.CallStmt):
                scan(s.body, ph, act, conds, loops)

    p = doc.prog
    if p.setup is not None:
        scan(p.setup.body, None, None, [], [])
    for ph in p.phases.values():
        scan(ph.enter, ph, None, [], [])
        scan(ph.auto, ph, None, [], [])
        for a in ph.actions:
            scan(a.body, ph, a, [], [])
    return out


def _if_words(pr: Prose, s: A.If, branch: bool) -> Optional[str]:
    if s.notes.summary:
        said = sentence(s.notes.summary)
        return said if branch else f"not so ({said})"
    return pr.cond(s.cond) if branch else pr._negated(s.cond)


def action_ending_entry(doc: SpecDoc, e: ActionEnding) -> list[str]:
    pr = Prose(doc, phase=e.phase)
    if e.action is not None:
        pr = pr.inside(**{q.name: term(q.name) for q in e.action.params})
        where = (f"**By the action {esc(words(e.action.name))}** "
                 f"(phase {esc(words(e.phase.name))})")
    elif e.phase is not None:
        where = f"**In the phase {esc(words(e.phase.name))}**"
    else:
        where = "**At setup**"
    for f in e.loops:
        if not f.names:
            pr = pr.inside(**{f.var: term(f.var)})
    parts = [_if_words(pr, s, b) for s, b in e.conds]
    if isinstance(e.stmt, A.Win):
        result = pr.winners(e.stmt.players) or f"the winners {ELSEWHERE} win"
    else:
        result = "nobody wins"
    if any(x is None for x in parts):
        when = f"under the conditions {ELSEWHERE}"
    elif parts:
        when = "when " + " and ".join(parts)
    else:
        when = "whenever it is played" if e.action is not None else "when it is played"
    body = [f"The game ends at once {when}: {result}.", ""]
    if e.action is not None:
        body += notes_block(doc, e.action.notes)
    return [where] + indent(body, 3) + [""]


# ---------------------------------------------------------------- endings and score

_TIME = {"immediately": "As soon as", "after_turn": "At the end of a turn, if",
         "after_round": "At the end of a round, if"}


def outcome_words(doc: SpecDoc, o) -> str:
    if isinstance(o, A.OutcomeWin):
        who = Prose(doc).winners(o.players)
        return f"{cap(who)}." if who else f"The winners are {ELSEWHERE}."
    if isinstance(o, A.OutcomeTie):
        return "Nobody wins."
    pr = Prose(doc, {o.var: "each player"})
    keys = []
    for k in o.keys:
        low = (isinstance(k, A.BinOp) and k.op == "-" and isinstance(k.left, A.IntLit)
               and k.left.value == 0)
        inner = k.right if low else k.operand if isinstance(k, A.Neg) else k
        said = pr.value(inner)
        if said is None:
            keys.append(f"a measure {ELSEWHERE}")
        else:
            keys.append(f"{said} ({'lowest' if low or isinstance(k, A.Neg) else 'highest'} first)")
    tie = "nobody wins" if o.tie == "tie" else "every leader wins"
    return (f"The players are ranked by {', then by '.join(keys)}; the first wins (a whole team, "
            f"when every leader is on it); if the first places are tied all the way, {tie}.")


def ending_entry(doc: SpecDoc, en: A.EndingDecl) -> list[str]:
    cond = Prose(doc).cond(en.cond)
    when = (f"{_TIME[en.time]} {cond}: the game ends." if cond is not None
            else "The game ends on the condition described here.")
    body = notes_block(doc, en.notes)
    body += [f"{when} {outcome_words(doc, en.outcome)}", ""]
    return [f"**{esc(words(en.name)).capitalize()}**"] + indent(body, 3) + [""]


def end_section(doc: SpecDoc) -> list[str]:
    p = doc.prog
    out = heading("End of the game", "-")
    inside = action_endings(doc)
    n = len(inside) + len(p.endings)
    if n == 0:
        out += ["The rules name no way for the game to end.", ""]
    else:
        out += ["The game ends in " + ("this way:" if n == 1 else "any of these ways:"), ""]
    for e in inside:
        out += action_ending_entry(doc, e)
    for en in p.endings.values():
        out += ending_entry(doc, en)
    if p.score is not None:
        said = summary(p.score.notes) or Prose(doc, {p.score.var: "each player"}).value(
            p.score.value) or ELSEWHERE
        out += [f"**Score**: {said} " + cites_text(doc, p.score.notes), ""]
    return out


# ---------------------------------------------------------------- turns and phases

def flow_lines(doc: SpecDoc, phase_ref) -> list[str]:
    flow = doc.prog.flow
    pr = Prose(doc)
    out = notes_block(doc, flow.notes)
    out += ["The game is played in rounds. At the start of each round, the first of these kinds "
            "of round whose condition holds is played:", ""]
    for rd in flow.rounds:
        if rd.cond is not None:
            c = sentence(rd.notes.summary) if rd.notes.summary else pr.cond(rd.cond)
            head = f"- When {c}:" if c else f"- Under a condition {ELSEWHERE}:"
        else:
            head = "- Otherwise:" if len(flow.rounds) > 1 else "- Every round:"
        out += [head, ""]
        for i, st in enumerate(rd.stages, start=1):
            phases = ", then ".join(phase_ref(p) for p in st.phases)
            one = st.players.items[0] if isinstance(st.players, A.ListLit) and \
                len(st.players.items) == 1 else None
            if isinstance(one, A.IntLit):
                who = f"seat {one.value}"
            else:
                who = pr.value(one if one is not None else st.players) or "the players named there"
            if st.kind == "turns" and one is not None:
                out.append(f"  {i}. {cap(who)} takes a turn: {phases}.")
            elif st.kind == "turns":
                out.append(f"  {i}. Each of {who}, in that order, takes a turn: {phases}.")
            elif st.kind == "around":
                start = ("starting with the player whose turn it is (a choice made in the game; "
                         "afterwards it names whose turn comes next)" if st.keeper
                         else "starting with the first")
                if st.until is not None:
                    u = sentence(st.until_notes.summary) if st.until_notes.summary \
                        else pr.cond(st.until)
                    until = (f", until {u} after a turn" if u else f", until the condition "
                             f"{ELSEWHERE} holds")
                else:
                    until = ", for as long as the game lasts"
                out.append(f"  {i}. {cap(who)} take turns round the table, "
                           f"{start}{until}: {phases}.")
            else:
                out.append(f"  {i}. {cap(who)} choose at the same time, in "
                           f"secret: {phases}.")
        out.append("")
    return out


def action_entry(doc: SpecDoc, ph: A.PhaseDecl, a: A.ActionDecl) -> list[str]:
    pr = Prose(doc, phase=ph)
    choices = []
    for q in a.params:
        dom = pr.value(q.domain)
        choices.append(f"{term(q.name)} from {dom}" if dom else term(q.name))
    inner = pr.inside(**{q.name: term(q.name) for q in a.params})
    head = f"**{esc(words(a.name))}**" + (f" (choose {', '.join(choices)})" if choices else "")
    body = notes_block(doc, a.notes, "*The spec gives this action no description.*")
    conds = []
    for g in a.guards:
        if g.notes.summary:
            conds.append(f"- {esc(g.notes.summary)}")
        else:
            said = inner.cond(g.cond)
            if said is None:
                conds.append(f"- A further condition {ELSEWHERE}.")
            elif g.kind == "when":
                conds.append(f"- Only when {said}.")
            else:
                conds.append(f"- Afterwards, {said}.")
        conds += ["  " + l for l in assumption_line(g.notes)]
    if conds:
        body += conds + [""]
    return [head] + indent(body, 3)


def phase_section(doc: SpecDoc, ph: A.PhaseDecl, prefix: str) -> list[str]:
    pr = Prose(doc, phase=ph)
    out = [f".. _{label(prefix, 'phase', ph.name)}:", ""]
    out += heading(f"Phase {words(ph.name)}", "~")
    out += notes_block(doc, ph.notes, "*The spec gives this phase no description.*")
    if ph.auto:
        out += ["This phase has no decision: it plays itself.", ""]
        if not ph.notes.summary:
            out += (pr.effects(ph.auto) or [f"What it does is {ELSEWHERE}."]) + [""]
    if ph.done is not None:
        said = sentence(ph.done_notes.summary) if ph.done_notes.summary else pr.cond(ph.done)
        again = None
        if ph.repeat is not None:
            again = sentence(ph.repeat_notes.summary) if ph.repeat_notes.summary \
                else pr.cond(ph.repeat)
        if said is not None:
            out += [f"The phase ends when {said}"
                    + (f", and starts again for the same player when {again}." if again
                       else "." if ph.repeat is None
                       else f", and may start again for the same player {ELSEWHERE}."), ""]
        else:
            out += [f"When the phase ends is {ELSEWHERE}.", ""]
    if ph.actions:
        out += ["Actions:" if len(ph.actions) > 1 else "Action:", ""]
        for a in ph.actions:
            out += action_entry(doc, ph, a) + [""]
    return out


# ---------------------------------------------------------------- tables and lists

def types_used_by_rules(doc: SpecDoc) -> set[str]:
    """Names of the enums and records the rules (and their data) mention."""
    p = doc.prog
    items = rule_items(doc) + [*p.data.values()] + [p.defs[n] for n in used_by_rules(doc)
                                                    if n in p.defs] \
        + [p.consts[n] for n in used_by_rules(doc) if n in p.consts]
    found = {n.name for n in A.walk(items) if isinstance(n, A.TypeRef)}
    found |= {n.func for n in A.walk(items) if isinstance(n, A.Call)}
    found |= {m for e in p.enums.values() for n in A.walk(items)
              if isinstance(n, A.Name) and n.name in e.members for m in [e.name]}
    more = True
    while more:        # the types inside a record that is used
        more = False
        for r in p.records.values():
            if r.name in found:
                for f in r.fields:
                    for t in A.walk(f.type) if not isinstance(f.type, str) else []:
                        if isinstance(t, A.TypeRef) and t.name not in found:
                            found.add(t.name)
                            more = True
    return found


def components(doc: SpecDoc) -> list[str]:
    out = []
    used = types_used_by_rules(doc)
    for e in doc.prog.enums.values():
        if not e.notes.summary or e.name not in used:
            continue
        out += [f"**{esc(e.name)}**: " + ", ".join(esc(words(m)) for m in e.members) + ".", ""]
        out += indent(notes_block(doc, e.notes), 2)
    for r in doc.prog.records.values():
        if r.name not in used:
            continue      # a worked example's shape: the verifier's, not the players'
        fields = ", ".join(emph(words(f.name)) for f in r.fields)
        out += [f"**{esc(r.name)}**: {fields}.", ""]
        out += indent(notes_block(doc, r.notes), 2)
    for d in doc.prog.data.values():
        value = doc.comp.data.get(d.name)
        t = doc.resolve(d.type)
        size = f"{len(value)} " if hasattr(value, "__len__") else ""
        elem = T.element(t) if T.is_collection(t) else t
        what = esc(elem[1]) if isinstance(elem, tuple) and elem[0] == "record" else "entries"
        out += [f"**{esc(words(d.name))}**: {size}{what}.", ""]
        out += indent(notes_block(doc, d.notes), 2)
        out += indent(data_contents(doc, d), 2)
    return out


def state_table(doc: SpecDoc) -> list[str]:
    rows = []
    for v in doc.prog.state.values():
        if not v.notes.summary:
            continue     # bookkeeping: the spec does not describe it to players
        who = "each player's" if v.scope == "player" else "shared"
        rows.append([emph(words(v.name)), who, _visibility(v),
                     " ".join(x for x in (summary(v.notes), cites_text(doc, v.notes)) if x)])
    if not rows:
        return []
    return ["What the game keeps track of:", ""] + table(
        ["name", "whose", "seen by", "description"], rows, [14, 12, 14, 60])


def constants_table(doc: SpecDoc) -> list[str]:
    used = used_by_rules(doc)
    rows = []
    for k in doc.prog.consts.values():
        t = doc.resolve(k.type)
        if not k.notes.summary or T.is_collection(t) or k.name not in used:
            continue
        vals = constant_values(doc, k)
        value = code(vals[0][1]) if len(vals) == 1 else "; ".join(
            f"{code(v)} ({esc(_config_words(c))})" for c, v in vals)
        desc = " ".join(x for x in (summary(k.notes), cites_text(doc, k.notes)) if x)
        desc += "".join(" " + a for a in assumption_line(k.notes))
        rows.append([emph(words(k.name)), value, desc])
    if not rows:
        return []
    return heading("Numbers to know", "-") + table(["name", "value", "description"], rows,
                                                   [16, 34, 50])


def terms(doc: SpecDoc) -> list[str]:
    """The spec's functions that the rules use and that have a description."""
    used = used_by_rules(doc)
    out = []
    for d in doc.prog.defs.values():
        if not d.notes.summary or d.name not in used:
            continue
        of = f" (of {', '.join(emph(words(q.name)) for q in d.params)})" if d.params else ""
        out += [f"**{esc(words(d.name))}**{of}"] + indent(notes_block(doc, d.notes), 3)
        for m in (m for m in doc.prog.modifiers.values() if m.func == d.name and m.notes.summary):
            out += indent([f"- Changed by *{esc(words(m.name))}*: {esc(m.notes.summary)}", ""], 3)
    for pr in doc.prog.procs.values():   # what a procedure, event or trigger does
        if not pr.notes.summary:
            continue
        of = f" (of {', '.join(emph(words(q.name)) for q in pr.params)})" if pr.params else ""
        out += [f"**{esc(words(pr.name))}**{of}"] + indent(notes_block(doc, pr.notes), 3)
    if not out:
        return []
    return heading("Terms used in the rules", "-") + [
        "The rules below say *the player* for the player whose turn it is. Words in italics "
        "name the game's parts and values: those below, and those in the tables above.", ""] + out


def requirements(doc: SpecDoc) -> list[str]:
    out = []
    for r in doc.prog.requires:
        text = summary(r.notes) or Prose(doc).cond(r.cond) or ELSEWHERE
        out.append(f"- {text} {cites_text(doc, r.notes)}".rstrip())
    return ["Requirements:", ""] + out + [""] if out else []


def assumptions_section(doc: SpecDoc) -> list[str]:
    """The designer's table, with each rule named in words."""
    return rulebook.assumptions_section(
        doc, lambda name: esc(words(name)) if name and " " not in name else "(a condition of an action)")


# ---------------------------------------------------------------- the page

def players_edition(doc: SpecDoc, ctx) -> str:
    prefix = label(doc.slug, "players")
    ph_ref = lambda n: f":ref:`{esc(words(n))} <{label(prefix, 'phase', n)}>`"
    p = doc.prog
    out = [f"This is the rulebook of {esc(doc.title)} for players, generated from the spec "
           f"{code(doc.path.name)}. Rule texts are the spec's own summaries; each names the section "
           f"of {emph(doc.rulebook)} it formalizes. The designer's edition gives every rule in "
           "the spec's own notation.", ""]
    out += variants.lead(doc, "players' rulebook")
    out += metadata(doc)
    out += heading("Components", "-")
    out += components(doc)
    out += figures.graph_pictures(doc, ctx)
    out += state_table(doc)
    if p.teams is not None:
        out += heading("Teams", "-") + notes_block(doc, p.teams.notes)
    if option_rows(doc, "option"):
        out += heading("Ways to play", "-") + options_table(doc, "option")
    out += requirements(doc)
    out += constants_table(doc)
    out += terms(doc)
    setup = []
    if p.setup is not None:
        setup += notes_block(doc, p.setup.notes)
        if not p.setup.notes.summary:
            steps = Prose(doc).effects(p.setup.body)
            setup += (["Setting up, step by step:", ""] + steps + [""] if steps
                      else [f"The steps are {ELSEWHERE}.", ""])
    setup += figures.setup_pictures(doc, ctx)
    if setup:
        out += heading("Setup", "-") + setup
    out += heading("Playing a round", "-") + flow_lines(doc, ph_ref)
    for ph in p.phases.values():
        out += phase_section(doc, ph, prefix)
    out += end_section(doc)
    from atoll.docgen.examples import worked_examples
    worked = worked_examples(doc, ctx, designer=False)
    out += heading("Examples", "-") + worked
    if worked:
        out += heading("A turn of a random game", "~")
    out += figures.example_turn(doc, ctx)
    out += figures.constant_grids(doc, ctx, only=used_by_rules(doc))
    out += heading("House rules", "-") + house_rules(doc)
    out += heading("Modelling assumptions", "-") + assumptions_section(doc)
    out += heading("Not modelled", "-") + unmodelled_section(doc)
    return "\n".join(out) + "\n"
