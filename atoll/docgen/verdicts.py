"""Verification results as reST: per-game verdict tables with their
counterexamples, and the dashboard of every game, configuration and
property. The results come from ``atoll.verify`` (through the cache in
``atoll.verify.cache``); verdicts are shown with the ``atoll-verdict`` role,
which the Sphinx extension colours by verdict and by whether it is the one
the spec expects."""
from __future__ import annotations

from typing import Optional

from atoll.docgen.rst import code, code_block, esc, heading, indent, label, lit, table
from atoll.docgen.rulebook import SpecDoc, notes_block
from atoll.verify.verdicts import evidence_text

_KIND_WORDS = {
    "theorem": "theorem (z3, for every input)",
    "witness": "witness search (z3)",
    "well_defined": "well-definedness of a rule stated by cases (z3)",
    "invariant": "invariant (checked in play)",
    "action_invariant": "invariant of every legal action (checked in search and play)",
    "deadlock_free": "deadlock freedom (checked in play)",
    "no_leak": "no leak of a secret choice (checked in search and play)",
    "terminates": "termination",
    "reachable": "reachability (a witness game)",
    "almost_surely": "termination with probability 1 (every reachable state searched)",
    "probability": "an exact probability (computed with fractions)",
    "expectation": "an exact mean (computed with fractions)",
}


def badge(verdict: str, ok: bool, detail=None) -> str:
    """The verdict as a coloured badge; a vacuous proof says so on the badge."""
    if isinstance(detail, dict) and detail.get("vacuous"):
        verdict = f"{verdict} (vacuous)"
    return f":atoll-verdict:`{esc(verdict)} <{'ok' if ok else 'unexpected'}>`"


def _opts(r) -> str:
    shown = {k: v for k, v in r.options.items() if k in r.axes}
    return ", ".join(f"{k}={v}" for k, v in shown.items()) or "defaults"


def detail_text(r) -> str:
    """A short line on how the verdict was reached."""
    from atoll.cli import _detail_text
    return _detail_text(r)


def results_table(results) -> list[str]:
    rows = []
    for r in results:
        rows.append([code(r.property), str(r.players), esc(_opts(r)), esc(r.method),
                     badge(r.verdict, r.ok, r.detail), code(r.expected), f"{r.seconds:.2f} s",
                     esc(detail_text(r))])
    return table(["property", "players", "options", "method", "verdict", "expected", "time",
                  "how"], rows, [14, 6, 12, 10, 16, 8, 7, 27], classes="atoll-results")


def counterexample(r, doc: Optional[SpecDoc] = None, ctx=None) -> list[str]:
    """A counterexample as a person follows it: the inputs, or the moves
    from the start with the rule each one follows and what it changed, the
    position where the property fails (drawn, when the state has a grid),
    and the test that replays it."""
    cx = r.counterexample
    if not cx:
        return []
    out = heading(f"Counterexample: {r.property}", "^")
    out += [f"{r.players} players, options: {esc(', '.join(f'{k}={v}' for k, v in r.options.items()))}.",
            ""]
    if "computed" in cx:   # an exact probability or expectation
        return out + [f"- computed: {esc(cx['computed'])}", f"- stated: {esc(cx['stated'])}", ""]
    if "inputs" in cx:
        if cx.get("problem"):
            out += [esc(cx["problem"]), ""]
        out += [f"- {code(k)} = {code(v)}" for k, v in cx["inputs"].items()] + [""]
        if cx.get("values"):
            out += ["where:", ""] + [f"- {code(k)} is {code(v)}" for k, v in cx["values"].items()] + [""]
        return out
    out += [f"Seed {cx['seed']}: {esc(cx['problem'])}.", ""]
    for step in cx["steps"]:
        who = "chance" if step["player"] == -1 else f"player {step['player']}"
        cites = f" (rulebook: {esc('; '.join(step['cites']))})" if step.get("cites") else ""
        out.append(f"{step['step']}. {who}: {code(step['action'])}{cites}")
        changes = step.get("changes") or {}
        events = step.get("events") or []
        if changes or events:
            out += [""] + [f"   - {esc(ev)}" for ev in events] + \
                [f"   - {code(k)} = {esc(v)}" for k, v in changes.items()] + [""]
    out.append("")
    if doc is not None and ctx is not None:
        out += _final_position(r, doc, ctx)
        out += _viewer(r, doc, ctx)
    test = cx["pytest"]
    if doc is not None and ctx is not None and ctx.shown_path is not None:
        test = test.replace(repr(str(doc.path)), repr(ctx.shown_path(doc.path)))
    out += ["Replayed as a regression test:", ""] + code_block(test, "python")
    return out


def _viewer(r, doc: SpecDoc, ctx) -> list[str]:
    """The counterexample as a step-through viewer (``atoll.web.viewer``)."""
    if getattr(ctx, "trace", None) is None:
        return []
    from atoll.web import traces, viewer
    try:
        src = traces.from_result(r.to_json())
        tr = traces.build(doc, doc.game(r.players, r.options), src)
    except traces.TraceError:   # not a game (z3's inputs), or it does not replay
        return []
    return ["Step through it (the position after each step, as the player who moved sees it):",
            ""] + ctx.trace(f"{doc.slug}-cx-{r.property}-{r.players}", viewer.trace_html(tr))


def _final_position(r, doc: SpecDoc, ctx) -> list[str]:
    """The position where the property fails, replayed from the trace."""
    from atoll.docgen import figures
    cx = r.counterexample
    ids = [s["id"] for s in cx["steps"]]
    for chance in ("auto", "explicit"):
        try:
            game = doc.game(r.players, r.options)
            state = game.new_initial_state(seed=cx["seed"], chance=chance)
            for i in ids:
                state.apply_action(i)
        except Exception:   # this trace is not replayed in this chance mode
            continue
        player = next((s["player"] for s in reversed(cx["steps"]) if s["player"] >= 0), 0)
        return figures.position_pictures(doc, ctx, game, state, player,
                                         f"{doc.slug}-cx-{r.property}-{r.players}",
                                         f"where {code(r.property)} fails (as player {player} sees it)")
    return []


def properties_section(doc: SpecDoc, ctx) -> list[str]:
    """Each property in words and in the spec's text, with its verdict for
    the fewest players and the default options, then their table."""
    p = doc.prog
    if not p.properties:
        return ["The spec declares no property.", ""]
    lo, _ = p.player_range
    results = ctx.results(doc, lo, {}) if ctx.results is not None else None
    by_name = {r.property: r for r in results or []}
    out = []
    for pr in p.properties.values():
        kind = _KIND_WORDS.get(pr.kind, pr.kind)
        expect = f"; expected: {code(pr.expect)}" if pr.expect else ""
        out += [f".. _{label(doc.slug, 'property', pr.name)}:", "",
                f"**{esc(pr.name)}**: {esc(kind)}{expect}", ""]
        out += indent(notes_block(doc, pr.notes, "*(no description)*"), 3)
        if pr.when is not None:
            out += indent([f"Checked only when {lit(doc.text(pr.when.span))}.", ""], 3)
        r = by_name.get(pr.name)
        if r is not None:
            how = detail_text(r)
            out += indent([f"Verdict ({r.players} players, default options): "
                           f"{badge(r.verdict, r.ok, r.detail)}" + (f" {esc(how)}" if how else ""), ""], 3)
            grounds = evidence_text(r.detail)
            if grounds:
                out += indent([f"Rests on: {esc(grounds)}.", ""], 3)
        out += indent(code_block(doc.excerpt(pr)), 3)
    if results is None:
        return out + [NO_VERIFY, ""]
    out += heading("Verdicts", "~")
    out += [f"For {lo} players and the default options; every configuration is on the "
            "dashboard.", ""]
    out += budget_note(ctx) + results_table(results)
    for r in results:
        out += counterexample(r, doc, ctx)
    return out


NO_VERIFY = ("The verdicts were left out of this build. To see them, run ``atoll docs`` "
             "without ``--no-verify``.")


def budget_note(ctx) -> list[str]:
    b = getattr(ctx, "budget", None)
    if b is None:
        return []
    return [f"Budget: {b.games} random games per property checked by play (seed {b.seed}), "
            f"z3 timeout {b.timeout_ms / 1000:g} s per query. A verdict found by play holds "
            "for that many games, no more.", ""]


def dashboard(entries, ctx) -> list[str]:
    """``entries``: (doc, [(players, options, results)]) per game. One table
    per game: a row per property, a column per configuration."""
    out = budget_note(ctx)
    total = bad = 0
    for doc, configs in entries:
        out += heading(doc.title + (f", variant {doc.path.stem}" if doc.base else ""), "-")
        out += [f"Spec {code(doc.path.name)}; {len(configs)} configurations "
                "(every player count times every mode the game block lists).", ""]
        props = list(doc.prog.properties)
        cols = [", ".join([f"players={n}"] + [f"{k}={v}" for k, v in opts.items()])
                for n, opts, _ in configs]
        rows = []
        for name in props:
            row = [code(name)]
            for _, _, results in configs:
                r = next((x for x in results if x.property == name), None)
                if r is None:
                    row.append("n/a")
                else:
                    total += 1
                    bad += not r.ok
                    row.append(badge(r.verdict, r.ok, r.detail))
            rows.append(row)
        out += table(["property"] + [esc(c) for c in cols], rows, classes="atoll-dashboard")
        secs = sum(r.seconds for _, _, rs in configs for r in rs)
        out += [f"{sum(len(rs) for _, _, rs in configs)} verdicts, "
                f"{sum(not r.ok for _, _, rs in configs for r in rs)} not as expected; "
                f"{secs:.1f} s of checking. \"n/a\": the property's ``when`` leaves the "
                "configuration out.", ""]
    return [f"{total} verdicts in all, {total - bad} as the specs expect, {bad} not.", ""] + out
