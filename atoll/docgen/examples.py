"""The worked examples of a spec (`example` declarations) on a page: each
one played on the model (``atoll.verify.examples``), the position drawn
before the first action and after the last (``figures.position_pictures``),
the values the example gives, its steps in words with the rule of each
action, what it expects, and, in the designer's edition, its verdict and
its text in the spec. A step that fails is marked where it fails."""
from __future__ import annotations

from atoll.docgen import figures
from atoll.docgen.prose import words
from atoll.docgen.rst import code, code_block, emph, esc, heading, label, lit
from atoll.docgen.rulebook import SpecDoc, notes_block
from atoll.grammar import ast as A
from atoll.verify import verdicts as V
from atoll.verify.examples import applies, run_example, settings

INTRO = ("Each example below sets up a position, plays actions on the model of the rules and "
         "states what must follow. `atoll verify` plays every example (verdict PASSED or "
         "FAILED); the pictures are drawn from the model's own states.")


def worked_examples(doc: SpecDoc, ctx, designer: bool) -> list[str]:
    """The examples that apply to this game (a variant leaves out its base
    game's examples for a player count it does not have)."""
    exs = [ex for ex in doc.prog.examples.values() if applies(doc.prog, ex)]
    if not exs:
        return []
    out = [esc(INTRO), ""]
    games: dict = {}
    for ex in exs:
        out += _example(doc, ctx, ex, run_example(doc.comp, ex, games), designer)
    return out


def _title(name: str) -> str:
    words = name.replace("_", " ")
    return words[:1].upper() + words[1:]


def _setting(doc: SpecDoc, ex: A.ExampleDecl, designer: bool = True) -> str:
    players, options, seed = settings(doc.prog, ex)
    parts = [f"{players} players"] + [
        f"{code(k)} = {code(v)}" if designer else f"*{esc(words(k))}*: {esc(words(str(v)))}"
        for k, v in options.items()]
    if seed:
        parts.append(f"seed {seed}")
    return ", ".join(parts)


def _example(doc: SpecDoc, ctx, ex: A.ExampleDecl, run, designer: bool) -> list[str]:
    edition = "designer" if designer else "players"
    out = [f".. _{label(doc.slug, edition, 'example', ex.name)}:", ""]
    out += heading(_title(ex.name), "~")
    out += notes_block(doc, ex.notes)
    stem = f"{doc.slug}-example-{ex.name}"
    given = next((s for s in ex.steps if isinstance(s, A.ExGiven)), None)
    start = run.start if run.start is not None and not run.start.is_terminal() else None
    who = start.current_player() if start is not None else 0
    # at a simultaneous choice several players are to act: the position is
    # shown as the first of them sees it
    seat = who if who >= 0 else min((a.player for a in start.legal_actions()), default=0)
    phase = (code(start.phase()) if designer else emph(words(start.phase()))) if start is not None else ""
    out += [f"Played with {_setting(doc, ex, designer)}." + (
        (f" Player {who} is to act, in phase {phase}." if who >= 0 else
         f" The players choose at once, in phase {phase}.") if start is not None else ""), ""]
    if given is not None and given.values:
        out += ["The position, over the state after setup:", ""]
        if designer:
            out += [f"- {lit(doc.text(v.span))}" for v in given.values] + [""]
        elif start is not None:
            out += _values_in_words(run, start, seat, given) + [""]
    if run.start is not None and run.game is not None:
        out += figures.position_pictures(doc, ctx, run.game, run.start, seat, f"{stem}-before",
                                         f"{esc(_title(ex.name))}, "
                                         + ("after setup" if given is None else "the position"))
    failed = run.failure["step"] if run.failure else None
    lines, n = [], 0
    for step in run.steps:
        if step.kind == "given":
            text = "The position above is set." if designer else ""
        else:
            text = _step_words(doc, run, step) if designer else _step_plain(doc, run, step)
        if text:   # the designer's edition numbers the steps as `atoll verify` does
            n += 1
            lines.append(f"{step.number if designer else n}. {text}")
        if step.number == failed and designer:
            f = run.failure
            lines += ["", f"   **Fails here**: expected {esc(f['expected'])}; {esc(f['actual'])}.", ""]
    if run.failure and failed == 0 and designer:
        lines += [f"**It cannot be played**: {esc(run.failure['actual'])}.", ""]
    if lines:
        out += ["Steps:" if designer else "What happens:", ""] + lines + [""]
    if run.end is not None and run.game is not None and any(s.kind == "play" for s in run.steps):
        last = next((s.player for s in reversed(run.steps) if s.player is not None), 0)
        out += figures.position_pictures(doc, ctx, run.game, run.end, last, f"{stem}-after",
                                         f"{esc(_title(ex.name))}, after the steps")
    if designer:
        from atoll.docgen.verdicts import badge
        verdict = V.PASSED if run.ok else V.FAILED
        out += [f"Verdict: {badge(verdict, run.ok)}", ""]
        out += code_block(doc.excerpt(ex))
    elif not run.ok:
        out += ["*The rules as modelled do not do what this example says; the designer's edition "
                "shows where.*", ""]
    return out


def _values_in_words(run, state, player: int, given: A.ExGiven) -> list[str]:
    """The values the position gives, in words, as the player to act sees them."""
    obs = state.observation(player)["state"]
    out, seen = [], []
    for v in given.values:
        name = f"{v.phase}.{v.name}" if v.phase else v.name
        if name in seen or name not in obs:
            continue
        seen.append(name)
        value = obs[name]
        t = run.game.slot_types[run.game.layout.names.index(name)]
        decl = run.game.info.get("declared", {}).get(name)
        if isinstance(t, tuple) and t[0] == "player" and isinstance(value, list):
            text = "; ".join(f"player {p}: {_words(t[1], x, decl)}" for p, x in enumerate(value))
        else:
            text = _words(t, value, decl)
        out.append(f"- *{esc(words(v.name))}*: {esc(text)}")
    return out


def _words(t, value, decl=None) -> str:
    """A value (as JSON) in words; a map as its entries ("Kemu-Ahuna: player 0"),
    a value declared as a `Player` as "player N"."""
    if isinstance(t, tuple) and t[0] == "map" and isinstance(value, list) and value \
            and all(isinstance(kv, list) and len(kv) == 2 for kv in value):
        who = decl is not None and len(decl.args) == 2 and decl.args[1].name == "Player"
        key = lambda k: "-".join(figures.value_words(x) for x in k) if isinstance(k, list) \
            else figures.value_words(k)
        return "; ".join(f"{key(k)}: " + (f"player {v}" if who else figures.value_words(v))
                         for k, v in value)
    return figures.value_words(value)


def _step_plain(doc: SpecDoc, run, step) -> str:
    """A step in words only (the players' edition shows no notation); an
    expectation about the state's values is shown by the pictures instead."""
    e = step.node
    if step.kind == "play":
        rule = ""
        decl = doc.prog.actions.get(step.action_name)
        if decl is not None and decl[1].notes.summary:
            rule = f": {esc(decl[1].notes.summary)}"
        return f"Player {step.player} plays {figures.move_words(run.game, step.move)}{rule}" \
            if step.move is not None else ""
    if e.kind in ("legal", "illegal") and step.move is not None:
        what = figures.move_words(run.game, step.move)
        if e.kind == "legal":
            return f"{what} is allowed."
        r, why = e.refusal, ""
        decl = doc.prog.actions.get(e.action.name)
        if r.kind in ("when", "ensures") and decl is not None:
            g = next((g for g in decl[1].guards if g.kind == r.kind and g.cond == r.cond), None)
            why = f": {esc(g.notes.summary)}" if g is not None and g.notes.summary else ""
        elif r.kind == "choice":
            why = f": that {esc(words(r.name))} is not a choice now"
        else:
            why = ": it belongs to another phase"
        return f"{what} is not allowed{why}"
    if e.kind == "player" and step.value is not None:
        return f"Player {step.value} is then to act" + (f", in phase *{esc(words(e.name))}*." if e.name else ".")
    if e.kind == "win" and step.value is not None:
        won = sorted(step.value)
        return "The game is over: " + (f"player {won[0]} wins." if len(won) == 1 else
                                       f"players {', '.join(map(str, won))} win.")
    if e.kind == "tie":
        return "The game is over and nobody wins."
    if e.kind == "ending":
        en = doc.prog.endings.get(e.name)
        return "The game ends" + (f": {esc(en.notes.summary)}" if en is not None and en.notes.summary
                                  else f" (*{esc(words(e.name))}*).")
    if e.kind == "score" and step.value is not None:
        return "The scores are then " + ", ".join(f"{s} (player {p})" for p, s in enumerate(step.value)) + "."
    return ""


def _step_words(doc: SpecDoc, run, step) -> str:
    if step.kind == "play":
        rule = ""
        decl = doc.prog.actions.get(step.action_name)
        if decl is not None and decl[1].notes.summary:
            rule = f": {esc(decl[1].notes.summary)}"
        if step.move is not None:
            return f"Player {step.player} plays {figures.move_words(run.game, step.move)}{rule}"
        return f"Play {lit(step.text.removeprefix('play '))}{rule}"
    e = step.node
    src = lambda n: lit(doc.text(n.span))
    if e.kind == "true":
        return f"Expected: {src(e.value)}."
    if e.kind == "legal":
        return f"Expected: {src(e.action)} is allowed."
    if e.kind == "illegal":
        return f"Expected: {src(e.action)} is not allowed, {_refusal_words(doc, e)}."
    if e.kind == "win":
        return f"Expected: the game is over, won by {src(e.value)}."
    if e.kind == "tie":
        return "Expected: the game is over and nobody wins."
    if e.kind == "score":
        return f"Expected: the scores are {src(e.value)} (in seat order)."
    if e.kind == "ending":
        return f"Expected: the game ends by {code(e.name)}."
    return f"Expected: player {src(e.value)} is to act" + (f", in phase {code(e.name)}." if e.name else ".")


def _refusal_words(doc: SpecDoc, e: A.ExExpect) -> str:
    r = e.refusal
    if r.kind == "phase":
        return "as it belongs to another phase"
    if r.kind == "choice":
        return f"as the value of {code(r.name)} is not among its choices"
    decl = doc.prog.actions.get(e.action.name)
    said = ""
    if decl is not None:
        g = next((g for g in decl[1].guards if g.kind == r.kind and g.cond == r.cond), None)
        if g is not None and g.notes.summary:
            said = f" ({esc(g.notes.summary)})"
    return f"by the rule {lit(r.kind + ' ' + doc.text(r.cond.span))}{said}"
