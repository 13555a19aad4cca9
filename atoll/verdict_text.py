"""The report `atoll verify` prints: a table that stays aligned whatever
the options, what each verdict rests on, the spec's own words for a
violation it expects, counterexamples in the game's notation, the terms
explained, and what to do next."""
from __future__ import annotations

import textwrap

from atoll.verify import verdicts as V

DOC = "docs/verify.md"
WIDTH = 100
OPTIONS_WIDTH = 26

# Terms the report uses, with what they mean: printed once under the table
# when the report uses them (docs/verify.md explains each one at length).
TERMS = [
    ("HOLDS UP TO", "HOLDS UP TO k: every play of at most k actions (chance draws count as "
     "actions) was checked and none breaks the property; longer plays were not checked",
     "Exhaustive search"),
    ("NO VIOLATION IN", "NO VIOLATION IN N GAMES: N seeded games broke nothing; evidence, "
     "not a proof", "Play"),
    ("every play of at most", "every play of at most k actions: the search tried every sequence "
     "of moves and chance draws of that length from the start", "Exhaustive search"),
    ("sampled setup", "sampled setups: when the deal alone has too many outcomes, the search "
     "starts from a few dealt positions instead", "Exhaustive search"),
    ("steered by hypothesis", "steered by hypothesis: games whose moves hypothesis chooses to "
     "look for a failure (and shrinks when it finds one)", "Play"),
    ("no z3", "no z3 proof / no answer: z3 could not settle the question; the verdict rests on "
     "the search and the games named beside it", "What a verdict rests on"),
    ("measure", "the measure: the number a `terminates by` property names; the game ends if "
     "every step lowers it and it never goes below 0 (it starts at the bound shown)",
     "z3 abstraction (`terminates ... per action`)"),
    ("UNKNOWN", "UNKNOWN: no sound answer within the budget; the reason is given", "Verdicts"),
    ("WITNESS FOUND", "WITNESS FOUND: values (or a game) that make the property true, shown",
     "Verdicts"),
    (" example ", "PASSED / FAILED: a worked example (`example`) played once on the model: every "
     "step did as written / the step shown did not", "Worked examples"),
    ("distinct states", "distinct states: positions counted once however often play met them",
     "What a verdict rests on"),
]


def detail_text(r) -> str:
    """A short line on how the verdict was reached."""
    d = r.detail or {}
    if d.get("shared"):   # computed once for another configuration of the matrix
        return d["shared"]
    if d.get("vacuous"):   # a proof that says nothing: say so first
        return d["vacuous"]
    if "z3" in d and r.verdict != "PROVED":
        return d["z3"] + ("; " + d["bound"] if "bound" in d else "")
    if "inputs per case" in d:
        text = "inputs per case: " + ", ".join(f"{k} {v}" for k, v in d["inputs per case"].items())
        by = d.get("inputs per case by")
        if by:
            for value, counts in by["groups"].items():
                text += f"\n{by['binder']} = {value}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        return text
    if "witnesses" in d:
        ws = d["witnesses"]
        return "; ".join(", ".join(f"{k}={v}" for k, v in w.items()) for w in ws[:3]) + \
            (f" (+{len(ws) - 3} more)" if len(ws) > 3 else "")
    if "bound" in d:
        return d["bound"] + (f"; {d['exhaustive']}" if "exhaustive" in d else "")
    if "reason" in d:
        return d["reason"]
    if "trace" in d:
        return f"reached in {len(d['trace'])} actions (seed {d['seed']})"
    if "games" in d:
        extra = f"; {d['exhaustive']}" if "exhaustive" in d else ""
        cx = r.counterexample or {}
        if "seed" in cx and cx["seed"] != d["seed"]:   # the game that failed, by its own seed
            return (f"games of seeds {d['seed']} and up, the longest {d['longest_game']} actions; "
                    f"the game of seed {cx['seed']} fails (the counterexample below){extra}")
        return f"games of seeds {d['seed']} and up, the longest {d['longest_game']} actions{extra}"
    return ""


def options_text(options: dict, keys=None) -> str:
    return ", ".join(f"{k}={_value(v)}" for k, v in options.items() if keys is None or k in keys)


def _value(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _wrap_items(items: list, width: int) -> list:
    """Items joined by ', ' into lines of at most ``width`` (an item longer
    than that has a line of its own)."""
    lines, cur = [], ""
    for i, it in enumerate(items):
        piece = it + ("," if i < len(items) - 1 else "")
        if cur and len(cur) + 1 + len(piece) > width:
            lines.append(cur)
            cur = piece
        else:
            cur = f"{cur} {piece}" if cur else piece
    return lines + ([cur] if cur else []) or ["-"]


def _explicit(r) -> bool:
    return r.expected != V.DEFAULT_EXPECTATION.get(r.kind)


def table_lines(results) -> list:
    """The verdict table: one row per result (the options wrapped within
    their column), then under it what the verdict rests on."""
    cols = ["property", "players", "options", "method", "verdict", "expected", "time"]
    rows = []
    for r in results:
        opts = _wrap_items([f"{k}={_value(v)}" for k, v in r.options.items() if k in r.axes],
                           OPTIONS_WIDTH) if any(k in r.axes for k in r.options) else ["defaults"]
        rows.append([r.property, str(r.players), opts, r.method, r.verdict, r.expected,
                     f"{r.seconds:.2f}s"])
    w = [max([len(c)] + [len(x) for row in rows for x in (row[i] if i == 2 else [row[i]])])
         for i, c in enumerate(cols)]
    right = {1, 6}

    def line(cells):
        return "  ".join(f"{c:>{w[i]}}" if i in right else f"{c:<{w[i]}}"
                         for i, c in enumerate(cells)).rstrip()
    out = [line(cols), "-" * len(line(cols))]
    for r, row in zip(results, rows):
        opts = row[2]
        first = row[:2] + [opts[0]] + row[3:]
        out.append(line(first) + ("" if r.ok else "  <-- NOT AS EXPECTED"))
        for extra in opts[1:]:
            out.append(line(["", "", extra, "", "", "", ""]))
        notes = []
        if _explicit(r) and r.ok:
            notes.append(f"as the spec expects (`expect {r.expected}`)"
                         + (f": {r.description}" if r.description else ""))
        elif not r.ok and r.kind == "example":
            notes.append("the example" + (f" says: {r.description}" if r.description else " fails"))
        elif not r.ok:
            notes.append(f"the spec expects `{r.expected}`"
                         + (f"; the property says: {r.description}" if r.description else ""))
        det = detail_text(r)
        if det:
            notes.extend(det.splitlines())
        ev = V.evidence_text(r.detail)   # what the verdict rests on
        if ev:
            notes.append(f"rests on: {ev}")
        for n in notes:
            out.extend(textwrap.wrap(n, WIDTH, initial_indent="    ", subsequent_indent="      ",
                                     break_on_hyphens=False) or ["    "])
    return out


def counterexample_lines(r) -> list:
    cx = r.counterexample
    out = [""] + textwrap.wrap(f"counterexample for `{r.property}` ({r.players} players; options "
                               f"{options_text(r.options) or 'none'}):", WIDTH, subsequent_indent="    ")
    if _explicit(r) and r.ok:
        out.append(f"  (the spec expects this: `expect {r.expected}`)")
    if "computed" in cx:   # an exact probability or expectation: the value computed
        out.append(f"  computed: {cx['computed']}")
        out.append(f"  stated:   {cx['stated']}")
        return out
    if "inputs" in cx:
        if "problem" in cx:
            out.append(f"  {cx['problem']}")
        for k, v in cx["inputs"].items():
            out.append(f"  {k} = {v}")
        for k, v in cx.get("values", {}).items():   # the two sides of a false comparison
            out.append(f"    where {k} is {v}")
        return out
    out.append(f"  the game of seed {cx['seed']}: {cx['problem']}")
    for step in cx["steps"]:
        cites = f" [{'; '.join(step['cites'])}]" if step["cites"] else ""
        who = "chance" if step["player"] == -1 else f"player {step['player']}"
        out.append(f"  {step['step']:>3}. {who}: {step['action']}{cites}")
        for ev in step.get("events", ()):   # what happened on the way: a roll, a branch described in words
            out.append(f"         » {ev}")
        for k, v in step["changes"].items():
            out.append(f"         {k} = {v}")
    if cx.get("position"):
        where = "after the last step" if cx["steps"] else "at the start, before any action"
        out.append(f"  the position {where}:")
        out.extend("    " + line for line in cx["position"].splitlines())
    out.append("  replay it as a regression test (copy it into a file under tests/ and run pytest):")
    out.extend("    " + line for line in cx["pytest"].splitlines())
    return out


def terms_lines(text: str) -> list:
    text = " ".join(text.split())   # wrapped lines joined again
    used = [(term, section) for key, term, section in TERMS if key in text]
    if not used:
        return []
    out = ["", f"terms used above (each explained in {DOC}):"]
    for term, section in used:
        out.extend(textwrap.wrap(f"{term} (section \"{section}\")", WIDTH, initial_indent="  ",
                                 subsequent_indent="    "))
    return out


def next_lines(spec: str, results, matrix: bool) -> list:
    out = ["", "what next:"]
    cx = [r for r in results if r.counterexample and "steps" in r.counterexample]
    if cx:
        out.append(f"  - see a counterexample drawn: `atoll docs {spec} -o site`, then open")
        out.append("    the game's designer's edition (its verdicts draw the failing position)")
        out.append("  - replay it: run the regression test under it, or "
                   f"`atoll verify {spec} --property {cx[0].property}`")
        out.append("    with the same --seed, --games and options, which finds the same game again")
    weak = [r for r in results
            if r.verdict.startswith(("NO VIOLATION", "HOLDS UP TO")) or r.verdict == V.UNKNOWN]
    if weak:
        out.append(f"  - stronger evidence: more games, `atoll verify {spec} --games 1000`")
        out.append("    (a pass by play is evidence, not a proof)")
    if not matrix:
        out.append(f"  - every player count and mode at once: `atoll verify {spec} --matrix`")
    if any(r.kind == "example" and not r.ok for r in results):
        out.append("  - an example FAILED: the model does not do what the example says at the step")
        out.append("    shown (fix the rules, or the example); `atoll docs` draws it before and after")
    bad = [r for r in results if not r.ok and r.kind != "example"]
    if bad:
        out.append("  - a verdict not as expected: fix the rules, or state the verdict you expect with")
        out.append(f"    `expect VERDICT` on the property ({DOC}, section \"`when` and `expect`\")")
    out.append(f"  - the results as JSON: add --json; how each verdict is reached: {DOC}")
    return out


def print_verify_table(spec: str, results, matrix: bool = False) -> None:
    print(f"{spec}: {len(results)} check{'s' * (len(results) != 1)}")
    if not results:
        print()
        print("no property to check here: none is declared (see docs/verify.md), or each one's "
              "`when` leaves this configuration out")
        return
    lines = table_lines(results)
    for r in results:
        if r.counterexample:
            lines += counterexample_lines(r)
    text = "\n".join(lines)
    print(text)
    bad = [r for r in results if not r.ok]
    for line in terms_lines(text) + next_lines(spec, results, matrix):
        print(line)
    print()
    print(f"{len(results) - len(bad)} of {len(results)} verdicts as expected" +
          ("" if not bad else f"; NOT as expected: {', '.join(sorted({r.property for r in bad}))}"))
