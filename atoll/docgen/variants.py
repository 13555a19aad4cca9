"""A game's overview page and its variants' pages: what a variant changes
against the game it extends (read from the variant's own file: a
declaration after ``override NAME`` replaces the game's, any other one adds
to it), with the verdicts of the variant."""
from __future__ import annotations

from typing import Optional

from atoll.docgen import verdicts
from atoll.docgen.rst import code, code_block, emph, esc, heading, indent, table
from atoll.docgen.rulebook import SpecDoc, _kind_word, assumptions, load, metadata, notes_block
from atoll.grammar import ast as A

_SINGLE = {A.SetupDecl: "setup", A.FlowDecl: "flow", A.TeamsDecl: "teams", A.ScoreDecl: "score",
           A.GameDecl: "game"}


def _key(item) -> tuple:
    if type(item) in _SINGLE:
        return (_SINGLE[type(item)],)
    return (type(item).__name__, getattr(item, "name", None))


def _name(item) -> str:
    return _SINGLE.get(type(item)) or getattr(item, "name", "") or _kind_word(item)


def changes(doc: SpecDoc) -> list[tuple[str, object, Optional[object]]]:
    """(``replaces`` or ``adds``, the variant's declaration, the game's one)."""
    own = doc.files.get(str(doc.path))
    if own is None or doc.base is None:
        return []
    base = load(doc.base)
    base_items = {}
    for spec in base.files.values():
        for it in spec.items:
            base_items.setdefault(_key(it), it)
    out, pending = [], False
    for it in own.items:
        if isinstance(it, A.ExtendsDecl):
            continue
        if isinstance(it, A.OverrideDecl):
            pending = True
            continue
        old = base_items.get(_key(it)) if pending else None
        out.append(("replaces" if old is not None else "adds", it, old))
        pending = False
    return out


def lead(doc: SpecDoc, edition: str) -> list[str]:
    """The first paragraph of a variant's edition: which game it varies and
    what it changes; everything else reads as in the game's own edition."""
    if doc.base is None:
        return []
    base = load(doc.base)
    found = changes(doc)
    out = [f"This is the {edition} of the variant {code(doc.path.stem)} of {esc(base.title)}. "
           "It is the whole game as the variant plays it; only what is listed here differs "
           f"from the {edition} of {esc(base.title)}.", ""]
    for what, new, _ in found:
        if isinstance(new, A.PropertyDecl) and edition.startswith("players"):
            continue      # for the verifier, not for players
        said = getattr(new, "notes", A.Notes()).summary
        kind = "game block" if isinstance(new, A.GameDecl) else _kind_word(new)
        name = "" if isinstance(new, A.GameDecl) else " " + emph(_name(new).replace("_", " "))
        whose = "the game's" if what == "replaces" else "a"
        out.append(f"- It {what} {whose} {esc(kind)}{name}" + (f": {esc(said)}" if said else "."))
    if not found:
        out.append("- It changes nothing: it only extends the game.")
    return out + [""]


def variant_page(doc: SpecDoc, ctx) -> str:
    base = load(doc.base) if doc.base else None
    out = [f"A variant of {esc(base.title) if base else 'a game'} ({code(doc.path.name)} extends "
           f"{code(base.path.name if base else '?')}). Everything not listed here is as in the game.",
           ""]
    found = changes(doc)
    out += heading("What it changes", "-")
    if not found:
        out += ["Nothing: the variant only extends the game.", ""]
    for what, new, old in found:
        out += [f"**{esc(_kind_word(new))} {esc(_name(new))}** ({what} the game's)", ""]
        out += indent(notes_block(doc, getattr(new, "notes", A.Notes())), 3)
        out += indent(code_block(doc.excerpt(new)), 3)
        if old is not None and base is not None:
            out += indent(["In the game:", ""] + code_block(base.excerpt(old)), 3)
    out += heading("Verification", "-")
    if ctx.results is None:
        out += [verdicts.NO_VERIFY, ""]
    else:
        lo, _ = doc.prog.player_range
        results = ctx.results(doc, lo, {})
        out += [f"For {lo} players and the variant's default options.", ""]
        out += verdicts.budget_note(ctx) + verdicts.results_table(results)
        for r in results:
            out += verdicts.counterexample(r, doc, ctx)
    return "\n".join(out) + "\n"


def overview(doc: SpecDoc, variants: list[SpecDoc]) -> str:
    p = doc.prog
    actions = sum(len(ph.actions) for ph in p.phases.values())
    houses = sum(o.kind == "house" for o in p.options.values())
    counts = [("phases", len(p.phases)), ("actions", actions), ("endings", len(p.endings)),
              ("options", len(p.options) - houses), ("house rules", houses),
              ("properties", len(p.properties)), ("modelling assumptions", len(assumptions(doc))),
              ("unmodelled rules", len(p.unmodelled))]
    out = metadata(doc)
    out += ["The spec has " + ", ".join(f"{n} {what}" for what, n in counts) + ".", ""]
    out += ["The players' rulebook explains how to play, with pictures and an example turn; the "
            "designer's edition adds the spec's own text of every rule, the verdicts of its "
            "properties and its modelling choices.", ""]
    if variants:
        rows = []
        for v in variants:
            what = "; ".join(f"{w} {_kind_word(n)} {code(_name(n))}" for w, n, _ in changes(v))
            first = next((n for _, n, _ in changes(v) if getattr(n, "notes", A.Notes()).summary), None)
            desc = esc(first.notes.summary) if first is not None else ""
            rows.append([code(v.path.stem), what, desc])
        out += ["Variants:", ""] + table(["variant", "changes", "in short"], rows, [22, 30, 48])
    return "\n".join(out) + "\n"
