"""The two editions of a game, put together from the parts in ``rulebook``:
the players' rulebook (the rules in words, pictures, an example turn) and
the designer's edition (the same rules beside the spec's own text, the
verdicts of the properties, the house rules and the modelling
assumptions). Both are reStructuredText."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from atoll.docgen import figures, players, verdicts
from atoll.docgen.rst import code, code_block, emph, esc, heading, indent, label, lit
from atoll.grammar import ast as A
from atoll.docgen.rulebook import (SpecDoc, assumptions_section, components, constants_table,
                                   ending_entry, flow_lines, house_rules, metadata, notes_block,
                                   option_rows, options_table, phase_section, requirements,
                                   state_table, stmt_lines, unmodelled_section)


def terms(doc: SpecDoc) -> list[str]:
    """The words the rules use: the spec's functions that have a description,
    and the names every spec has (from the standard library's registry)."""
    from atoll.compiler import stdlib
    out = heading("Terms used in the rules", "-")
    builtin = {**stdlib.CONTEXT_VALUES, **stdlib.BUILTIN_VALUES}
    out += ["In the rules below, " + "; ".join(
        f"{code(name)} is {esc(doc_.partition(': ')[2].rstrip('.'))}"
        for name, (_, doc_) in builtin.items()) + ".", ""]
    for d in doc.prog.defs.values():
        if not d.notes.summary:
            continue
        out += [code(f"{d.name}({', '.join(q.name for q in d.params)})")]
        out += indent(notes_block(doc, d.notes), 3)
    return out


# ---------------------------------------------------------------- the editions

@dataclass
class Context:
    """What the editions need from their surroundings.

    ``picture(name, svg, caption)`` stores an SVG and returns reST that shows
    it; ``results(doc, players, options)`` returns verification results (or
    None when verification is off); ``budget`` is stated beside them;
    ``trace(name, html)`` stores a step-through viewer (``atoll.web.viewer``)
    and returns reST that shows it."""
    picture: Optional[Callable[[str, str, str], list[str]]] = None
    results: Optional[Callable] = None
    example_seed: int = 1
    budget: object = None        # the verification budget, to state on the page
    shown_path: Optional[Callable] = None   # how a spec's path is written on a page
    trace: Optional[Callable[[str, str], list[str]]] = None   # (name, viewer's HTML) -> reST


def players_edition(doc: SpecDoc, ctx: Context) -> str:
    from atoll.docgen import players
    return players.players_edition(doc, ctx)


def designer_edition(doc: SpecDoc, ctx: Context) -> str:
    prefix = label(doc.slug, "designer")
    ph_ref = lambda n: f":ref:`{esc(n)} <{label(prefix, 'phase', n)}>`"
    p = doc.prog
    out = [f"The designer's edition of {esc(doc.title)}: every rule of the spec {code(doc.path.name)} "
           "in words and in the spec's own notation, the verdicts of its properties, the house "
           "rules and the modelling assumptions.", ""]
    from atoll.docgen import variants
    out += variants.lead(doc, "designer's edition")
    out += metadata(doc)
    out += code_block(doc.excerpt(p.game))
    out += heading("Components and data", "-") + components(doc, designer=True)
    for item in [*p.enums.values(), *p.records.values(), *p.data.values()]:
        out += code_block(doc.excerpt(item))
    out += figures.graph_pictures(doc, ctx) + figures.constant_grids(doc, ctx)
    out += heading("Options", "-") + options_table(doc, "option")
    out += heading("House rules", "-") + house_rules(doc)
    for o in p.options.values():
        out += code_block(doc.excerpt(o))
    if p.requires:
        out += heading("Requirements", "-") + requirements(doc, designer=True)
    out += heading("Constants", "-") + constants_table(doc, designer=True)
    if p.teams is not None:
        out += ["**Teams**:", ""] + indent(notes_block(doc, p.teams.notes), 2)
        out += code_block(doc.excerpt(p.teams))
    if p.defs:
        out += heading("Functions", "-")
        for d in p.defs.values():
            sig = f"{d.name}({', '.join(f'{q.name}: {q.type}' for q in d.params)}): {d.type}"
            out += [code(sig), ""] + indent(notes_block(doc, d.notes,
                                                            "*(no description)*"), 3)
            out += code_block(doc.excerpt(d))
            for m in (m for m in p.modifiers.values() if m.func == d.name):   # in the order they apply
                out += [f"- modified by {code(m.name)}" + (f" when {lit(doc.text(m.when.span))}" if m.when
                                                          else "") + f": {lit(doc.text(m.value.span))}", ""]
                out += indent(notes_block(doc, m.notes) + code_block(doc.excerpt(m)), 2)
    if any(not pr.origin for pr in p.procs.values()):
        out += heading("Procedures", "-")
        for pr in (pr for pr in p.procs.values() if not pr.origin):
            sig = f"{pr.name}({', '.join(f'{q.name}: {q.type}' for q in pr.params)})"
            out += [code(sig), ""] + indent(notes_block(doc, pr.notes, "*(no description)*"), 3)
            out += stmt_lines(doc, pr.body) + [""] + code_block(doc.excerpt(pr))
    if p.events:
        out += heading("Events and triggers", "-")
        for ev in p.events.values():
            sig = f"event {ev.name}({', '.join(f'{q.name}: {q.type}' for q in ev.params)})"
            out += [code(sig), ""] + indent(notes_block(doc, ev.notes, "*(no description)*"), 3)
            for t in (t for t in p.triggers.values() if t.event == ev.name):
                when = [f"for each {lit(t.var)} in {lit(doc.text(t.domain.span))}"] if t.var else []
                when += [f"when {lit(doc.text(t.when.span))}"] if t.when is not None else []
                if t.optional:
                    who = lit(doc.text(t.by.span)) if t.by is not None else "the event's player"
                    when += [f"{who} may decline it" + (f" where {lit(doc.text(t.optional_when.span))}"
                                                        if t.optional_when is not None else "")]
                out += [f"- trigger {code(t.name)}" + (f" ({'; '.join(when)})" if when else "") + ":", ""]
                out += indent(notes_block(doc, t.notes, "*(no description)*") + stmt_lines(doc, t.body)
                              + [""] + code_block(doc.excerpt(t)), 2)
    out += heading("State", "-") + state_table(doc, designer=True)
    setup = figures.setup_pictures(doc, ctx)
    if p.setup is not None:
        setup = notes_block(doc, p.setup.notes) + stmt_lines(doc, p.setup.body) + [""] \
            + code_block(doc.excerpt(p.setup)) + setup
    if setup:
        out += heading("Setup", "-") + setup
    out += heading("Flow", "-") + flow_lines(doc, ph_ref) + code_block(doc.excerpt(p.flow))
    out += heading("Phases and actions", "-")
    for ph in p.phases.values():
        out += phase_section(doc, ph, designer=True, prefix=prefix)
    out += heading("Endings and score", "-")
    for e in players.action_endings(doc):
        out += _action_ending(doc, e)
    for en in p.endings.values():
        out += ending_entry(doc, en, designer=True)
    if p.score is not None:
        out += ["**Score**:", ""] + indent(notes_block(doc, p.score.notes), 3)
        out += code_block(doc.excerpt(p.score))
    from atoll.docgen.examples import worked_examples
    examples = worked_examples(doc, ctx, designer=True)
    if examples:
        out += heading("Worked examples", "-") + examples
    out += heading("Properties and verdicts", "-")
    out += verdicts.properties_section(doc, ctx)
    out += heading("Modelling assumptions", "-") + assumptions_section(doc)
    out += heading("Not modelled", "-") + unmodelled_section(doc)
    return "\n".join(out) + "\n"


def _action_ending(doc: SpecDoc, e) -> list[str]:
    """A ``win`` or ``tie`` inside the rules, in the spec's notation."""
    where = (f"action {code(e.action.name)} of phase {code(e.phase.name)}" if e.action
             else f"phase {code(e.phase.name)}" if e.phase else "the setup")
    conds = [("if " if b else "unless ") + lit(doc.text(s.cond.span)) for s, b in e.conds]
    loops = [f"for each {code(f.var or ', '.join(f.names))} in {lit(doc.text(f.iter.span))}"
             for f in e.loops]
    what = (f"winners {lit(doc.text(e.stmt.players.span))}" if isinstance(e.stmt, A.Win)
            else "nobody wins")
    return [f"**In {where}**", "", f"   The game ends ({what})"
            + "".join(" " + x for x in loops + conds) + ".", ""]
