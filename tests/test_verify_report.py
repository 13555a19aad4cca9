"""The report of `atoll verify` for a newcomer: an aligned table, the spec's
words for an expected violation, the game's notation in witnesses and
traces, readable regression snippets, terms explained, what to do next;
`atoll explain CODE` in full; every positional argument described."""
import argparse
import re

import pytest

from atoll.cli import build_parser, main
from atoll.verdict_text import counterexample_lines, detail_text, table_lines
from atoll.verify import verdicts as V
from atoll.verify.runner import run
from atoll.verify.runs import Run, pytest_snippet
from helpers import MASTERISLANDS, ROOT

COUNTER = ROOT / "tests" / "verify" / "counter.atoll"


def result(prop="p", options=None, verdict=V.PROVED, expected="proved", kind="theorem", **kw):
    options = options or {}
    return V.Result(prop, kind, kw.pop("method", "z3"), 2, options, verdict, expected, 0.5,
                    kw.pop("detail", {}), kw.pop("counterexample", None), (), tuple(options), None,
                    kw.pop("description", ""))


def test_the_table_stays_aligned_whatever_the_options():
    rs = [result("short", {"mode": "a"}),
          result("a_much_longer_property_name", {"mode": "cooperative", "others_galleons": "block",
                                                 "discovery_stuck": "partial", "sail_to_empty": True}),
          result("x", {}, V.VIOLATED, method="hypothesis play")]
    lines = table_lines(rs)
    head = lines[0]
    rows = [l for l in lines[2:] if not l.startswith("    ")]
    for col, values in (("method", ["z3", "z3", "hypothesis play"]),
                        ("verdict", ["PROVED", "PROVED", "VIOLATED"])):
        starts = {l.index(v, head.index(col) - 1) for l, v in zip(
            [r for r in rows if r.split()[0] in ("short", "a_much_longer_property_name", "x")], values)}
        assert starts == {head.index(col)}, (col, lines)
    text = "\n".join(lines)
    assert "others_galleons=block," in text and "sail_to_empty=true" in text   # name=value, wrapped
    # more options make the table longer, not wider
    def options(n):
        return table_lines([result("p", {f"option_{i}": "value" for i in range(n)})])
    assert len(options(80)[0]) == len(options(20)[0]) and len(options(80)) > len(options(20))


def test_an_expected_violation_gives_the_description_and_says_it_is_expected():
    r = result("stuck", {}, V.VIOLATED, "violated", "invariant",
               description="The rulebook assumes both actions stay possible; they do not.")
    text = "\n".join(table_lines([r]))
    assert "as the spec expects (`expect violated`): The rulebook assumes" in " ".join(text.split())
    assert "NOT AS EXPECTED" not in text
    bad = result("holds", {}, V.VIOLATED, "holds", "invariant", description="Never stuck.")
    text = "\n".join(table_lines([bad]))
    assert "NOT AS EXPECTED" in text and "the spec expects `holds`; the property says: Never stuck." in text


def test_the_detail_names_the_seed_of_the_counterexample():
    r = result("p", {}, V.VIOLATED, "holds", "invariant",
               detail={"games": 30, "seed": 0, "longest_game": 90},
               counterexample={"seed": 18, "problem": "x", "steps": [], "pytest": ""})
    assert "the game of seed 18 fails" in detail_text(r)
    assert "the game of seed 18: x" in "\n".join(counterexample_lines(r))


def test_counterexamples_in_the_games_notation_with_a_readable_snippet(capsys):
    assert main(["verify", str(COUNTER), "--property", "shrinks", "--option", "start=300",
                 "--option", "waiting=true"]) == 1
    out = capsys.readouterr().out
    assert "options start=300, waiting=true" in out and "{'start'" not in out.split("def test_")[0]
    m = re.search(r"^(    def test_shrinks_regression\(\):\n(?:     .*\n)+)", out, re.M)
    snippet = "\n".join(line[4:] for line in m.group(1).splitlines())
    assert re.search(r"\d+,  # player 0: wait\(\)", snippet)
    ns = {}
    exec(compile(snippet, "<snippet>", "exec"), ns)   # it is Python, and it replays
    ns["test_shrinks_regression"]()
    assert "terms used above" in out and "what next:" in out and "--matrix" in out
    assert "replay it" in out


def test_a_label_cannot_break_the_snippet():
    snippet = pytest_snippet("g.atoll", 2, {}, Run("bad\nline", [7], 1, 0, "violation"), "p",
                             ["player 0: say(w=a\nimport os)"])
    compile(snippet, "<snippet>", "exec")
    assert "\nimport os" not in snippet


def test_witnesses_and_traces_use_the_components_labels():
    rs = {r.property: r for r in run(str(MASTERISLANDS), 2, {}, only=["fewest_cards",
                                                                      "discovery_always_possible"],
                                     games=30)}
    w = rs["fewest_cards"].detail["witnesses"][0]["cards"]
    assert re.fullmatch(r"\{\d+, \d+\} \((yellow|green|red|blue) \d, (yellow|green|red|blue) \d\)", w), w
    cx = rs["discovery_always_possible"].counterexample
    text = str(cx["steps"]) + cx["pytest"]
    assert "Card(" not in text and re.search(r"place\(c=(yellow|green|red|blue) \d, at=", text)
    assert re.search(r"\d+,  # player \d: place\(c=\w+ \d, at=\(-?\d+,-?\d+\)\)", cx["pytest"])


def test_explain_prints_the_whole_explanation(capsys):
    """With the examples of a checkout (tests/bad), the explanation shows one
    and what `atoll check` reports on it; an installed wheel has no
    tests/bad, and then it points to the docs page instead."""
    from pathlib import Path

    from atoll import explain
    assert main(["explain", "a0101"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("A0101 (error): unknown name")
    assert "What it means:" in out and "What to do:" in out
    if not explain.EXAMPLES.is_dir():   # installed, not a checkout (as in CI)
        assert "the page A0101 of the diagnostic codes in the docs" in out
    out = explain.explanation("A0101", Path(__file__).parent / "bad")
    for part in ("What it means:", "What to do:", "Example (a0101_", "`atoll check` reports:",
                 "error[A0101]", "^"):
        assert part in out
    assert "# expect:" not in out


def test_every_positional_argument_has_a_description():
    ap = build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {a.dest}" for name, p in sub.choices.items() for a in p._actions
               if not a.option_strings and not a.help]
    assert missing == []
