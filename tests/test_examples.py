"""Worked examples in the spec (`example` declarations): the shipped games'
examples pass, each one fails when a number it plays or expects is changed
by one, and fails when the rule it illustrates is changed; a failure names
the step, what was expected and what the model did; `atoll verify` reports
them with the verdicts PASSED and FAILED."""
from __future__ import annotations

import json
import shutil

import pytest

from atoll.cli import main
from atoll.compiler import pipeline
from atoll.grammar import ast as A
from atoll.verify.examples import run_example, run_examples
from atoll.verify.runner import run
from helpers import KANALOA, MASTERISLANDS, SPEC

SHIPPED = [KANALOA, MASTERISLANDS]


@pytest.fixture(scope="module")
def compiled():
    return {p.stem: pipeline.compile_spec(p) for p in SHIPPED}


def test_the_shipped_examples_pass(compiled):
    for name, comp in compiled.items():
        results = run_examples(comp)
        assert len(results) == len(comp.program.examples) >= 6, name
        failed = {r.property: r.detail.get("reason") for r in results if r.verdict != "PASSED"}
        assert not failed, failed


def _numbers(ex: A.ExampleDecl) -> list:
    """The numbers of what an example plays and expects. The arguments of an
    action expected to be illegal are left out: another value is (nearly
    always) illegal too, so changing one says nothing."""
    nodes = [s for s in ex.steps
             if isinstance(s, A.ExPlay) or (isinstance(s, A.ExExpect) and s.kind != "illegal")]
    return [n for n in A.walk(nodes) if isinstance(n, A.IntLit)]


def test_each_number_of_an_example_changed_by_one_makes_it_fail(compiled):
    """The mutation check of the examples themselves: an example whose
    expectations still hold with a number changed does not pin that number down."""
    for name, comp in compiled.items():
        games: dict = {}
        for ex in comp.program.examples.values():
            numbers = _numbers(ex)
            assert numbers, f"{name}: example {ex.name} plays and expects no number"
            assert run_example(comp, ex, games).ok
            for n in numbers:
                old = n.value
                object.__setattr__(n, "value", old + 1)   # the checked program, one literal changed
                try:
                    r = run_example(comp, ex, games)
                finally:
                    object.__setattr__(n, "value", old)
                assert not r.ok, (f"{name}: example {ex.name} still passes with the {old} of line "
                                  f"{n.span.line}, column {n.span.column} changed to {old + 1}")
                assert r.failure["step"] >= 1 and r.failure["expected"] and r.failure["actual"]


def _copy_spec(tmp_path, spec, old: str, new: str):
    shutil.copytree(SPEC / "data", tmp_path / "data")
    text = spec.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / spec.name
    path.write_text(text.replace(old, new))
    return pipeline.compile_spec(path)


@pytest.mark.parametrize("spec,old,new,failing", [
    # the shared relative majority removes the bridge of the player with one bridge there
    (KANALOA, "count(o for o in others if o == 1) == 1 => single_removed",
     "count(o for o in others if o == 1) == 2 => single_removed",
     {"shared_majority_big_island", "shared_majority_lusepil_3_3_1", "shared_majority_lusepil_2_2_2_1"}),
    # a conquered line adds up to exactly 10
    (MASTERISLANDS, "const line_total: int = 10", "const line_total: int = 11",
     {"conquest_5_4_1", "victory_cards", "not_yet_twelve", "a_line_with_a_gap", "under_another_galleon",
      # the examples added for `atoll mutate` (each conquers, or refuses, a line worth 10)
      "not_yet_ten_with_three", "ten_win_with_three", "not_yet_eight_with_four", "eight_win_with_four",
      "not_yet_twelve_for_a_team", "twelve_win_for_a_team", "the_corsair_blocks_a_card",
      "no_gap_with_cards_only"}),
])
def test_a_changed_rule_fails_its_examples(tmp_path, spec, old, new, failing):
    results = {r.property: r for r in run_examples(_copy_spec(tmp_path, spec, old, new))}
    assert {k for k, r in results.items() if r.verdict == "FAILED"} == failing
    assert all(r.verdict == "PASSED" for k, r in results.items() if k not in failing)


# ---------------------------------------------------------------- the semantics, on a small game

GAME = '''game take { title: "Take" players: 2..3 }
state { n: int = 5 visible all  player got: int = 0 visible all }
flow { round { turns in seats: move } }
phase move {
  action take(k: int in [1, 2]) "Take one or two." when n >= k "as many as are left" {
    n = n - k
    got[me] = got[me] + k
    end phase
  }
}
ending empty immediately when n == 0 => win [p for p in players if got[p] == max(got[q] for q in players)]
score p = got[p]
'''


def _example(tmp_path, body: str, header: str = "with 2 players"):
    path = tmp_path / "take.atoll"
    path.write_text(GAME + f'\nexample ex "An example." cites "Taking" {header} {{\n{body}\n}}\n')
    comp = pipeline.compile_spec(path)
    return run_example(comp, comp.program.examples["ex"])


def test_a_passing_example_plays_from_its_position(tmp_path):
    r = _example(tmp_path, """
  given player 1 in move { n = 3  got[0] = 2 }
  play take(2)
  expect n == 1
  expect player 0 in move
  expect illegal take(2) because when n >= k
  expect illegal take(3) because k
  expect legal take(1) by 0
  play take(1) by 0
  expect ending empty
  expect win [0]
  expect score [3, 2]""")
    assert r.ok, r.failure
    assert [s.kind for s in r.steps] == ["given", "play", "expect", "expect", "expect", "expect", "expect",
                                         "play", "expect", "expect", "expect"]
    assert r.steps[1].player == 1 and r.steps[1].action == "take(k=2)"
    assert r.start.current_player() == 1 and r.end.is_terminal()


def test_without_a_position_the_game_starts_from_its_setup(tmp_path):
    r = _example(tmp_path, "  play take(2), take(2)\n  expect n == 1\n  expect player 2", "with 3 players")
    assert r.ok and r.players == 3 and [s.player for s in r.steps[:2]] == [0, 1]


@pytest.mark.parametrize("body,step,expected,actual", [
    ("  play take(2)\n  expect n == 2", 2, "`n == 2`", "`n` is 3"),
    ("  play take(2)\n  expect player 0", 2, "player 0 to act", "player 1 is to act"),
    ("  expect illegal take(2) because k", 1, "refused by the choices of `k`", "it is legal"),
    ("  given { n = 1 }\n  expect illegal take(2) because k", 2, "refused by the choices of `k`",
     "refused by `when n >= k`"),
    ("  play take(3)", 1, "`take(k=3)` to be legal", "k=3 is not among its choices `[1, 2]`"),
    ("  play take(1) by 1", 1, "legal for player 1", "player 1 does not decide now"),
    ("  given { n = 2 }\n  play take(2)\n  expect win [1]", 3, "won by [1]", "won by [0]"),
    ("  expect ending empty", 1, "the game over by ending `empty`", "the game is not over"),
    ("  play take(1)\n  expect score [1, 1]", 2, "the scores [1, 1]", "they are [1, 0]"),
    ("  given { got[3] = 1 }", 1, "to set a value of the position", "index 3 is outside 0..1"),
    ("  given { n = 0 - 1 }\n  play take(1)", 2, "legal", "its condition `n >= k` does not hold"),
])
def test_a_failure_names_the_step_what_was_expected_and_what_happened(tmp_path, body, step, expected,
                                                                       actual):
    r = _example(tmp_path, body)
    assert not r.ok
    f = r.failure
    assert f["step"] == step, f
    assert expected in f["expected"], f
    assert actual in f["actual"], f
    assert f["line"] == GAME.count("\n") + 2 + step, f   # each step on its own line of the body


def test_a_position_the_game_cannot_be_in_fails(tmp_path):
    r = _example(tmp_path, "  given player 2 in move { n = 3 }\n  expect n == 3")
    assert not r.ok and r.failure["step"] == 1
    assert "player 2 does not play" in r.failure["actual"]


def test_an_example_whose_game_cannot_be_set_up_fails(tmp_path):
    path = tmp_path / "req.atoll"
    path.write_text(GAME + '\nrequire player_count == 2 "Two players."\n'
                    'example three with 3 players { expect n == 5 }\n')
    comp = pipeline.compile_spec(path)
    r = run_example(comp, comp.program.examples["three"])
    assert not r.ok and "cannot be set up" in r.failure["actual"] and "Two players" in r.failure["actual"]


# ---------------------------------------------------------------- atoll verify

def test_verify_reports_examples_with_their_own_verdicts(tmp_path, capsys):
    path = tmp_path / "take.atoll"
    path.write_text(GAME + '\nexample good "Two then two." with 2 players { play take(2), take(2)\n'
                    '  expect n == 1 }\n'
                    'example bad "Wrong count." with 2 players { play take(2)\n  expect n == 2 }\n')
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "good" in out and "PASSED" in out and "FAILED" in out
    assert "step 2 of 2, line" in out and "expected `n == 2`; it is false: `n` is 3" in out
    assert "the example says: Wrong count." in out
    assert main(["verify", str(path), "--property", "good", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["results"] if isinstance(data, dict) else data
    assert [(r["property"], r["kind"], r["verdict"], r["ok"]) for r in rows] == [
        ("good", "example", "PASSED", True)]


def test_examples_run_once_whatever_the_configurations(compiled):
    results = run(str(MASTERISLANDS), matrix=True, only=["conquest_5_4_1"])
    assert [(r.property, r.players, r.verdict) for r in results] == [("conquest_5_4_1", 2, "PASSED")]


# ---------------------------------------------------------------- the docs

def _editions(path):
    from atoll.docgen import editions, rulebook
    pictures = {}

    def picture(name, svg, caption):
        pictures[name] = svg
        return [f".. image:: {name}.svg", ""]
    doc = rulebook.load(path)
    ctx = editions.Context(picture=picture)
    return editions.designer_edition(doc, ctx), editions.players_edition(doc, ctx), pictures


def test_the_docs_draw_each_example_before_and_after():
    designer, players, pictures = _editions(MASTERISLANDS)
    comp = pipeline.compile_spec(MASTERISLANDS)
    part = designer[designer.index("Worked examples"):designer.index("Properties and verdicts")]
    for name in comp.program.examples:
        for when in ("before", "after"):
            assert f"masterislands-example-{name}-{when}-board" in pictures, (name, when)
        assert f"example {name}" in part                      # the spec's text, in the designer's edition
    assert part.count("Verdict: :atoll-verdict:`PASSED <ok>`") == len(comp.program.examples)
    assert "is not allowed, as the value of ``line`` is not among its choices" in part
    assert "Player 0 plays **conquer**" in players and "example conquest_5_4_1" not in players


def test_the_docs_mark_where_an_example_fails(tmp_path):
    path = tmp_path / "take.atoll"
    path.write_text(GAME + '\nexample wrong "A wrong count." with 2 players {\n  play take(2)\n'
                    '  expect n == 2\n}\n')
    designer, players, _ = _editions(path)
    assert "Verdict: :atoll-verdict:`FAILED <unexpected>`" in designer
    assert "**Fails here**: expected \\`n \\=\\= 2\\`; it is false\\: \\`n\\` is 3." in designer
    assert "do not do what this example says" in players


def test_an_example_and_a_property_share_one_namespace(tmp_path):
    import atoll
    path = tmp_path / "take.atoll"
    path.write_text(GAME + '\nproperty ex invariant n >= 0\nexample ex { expect n == 5 }\n'
                    'example ex { expect n == 5 }\n')
    with pytest.raises(atoll.SpecError) as e:
        pipeline.compile_spec(path)
    messages = [d.message for d in e.value.diagnostics if d.code == "A0102"]
    assert "example `ex` is defined twice" in messages
    assert "`ex` names both a property and an example" in messages


def test_the_words_of_examples_stay_names_elsewhere(tmp_path):
    """`play`, `players` and `seed` are read by the checker inside an example
    only: a phase may be called `play`, a variable `seed`."""
    path = tmp_path / "names.atoll"
    path.write_text(GAME.replace("move", "play").replace("n: int = 5", "n: int = 5  seed: int = 1")
                    + '\nexample ex with 2 players, seed 4 { play take(1)\n  expect seed == 1 and n == 4 }\n')
    comp = pipeline.compile_spec(path)
    assert run_example(comp, comp.program.examples["ex"]).ok


def test_a_refusal_by_an_ensures_is_told_from_one_by_a_when(tmp_path):
    path = tmp_path / "keep.atoll"
    path.write_text(GAME.replace('"as many as are left" {', '"as many as are left" ensures n >= 1 "one stays" {')
                    + '\nexample ok with 2 players { given { n = 2 }\n'
                    '  expect illegal take(2) because ensures n >= 1\n  expect legal take(1) }\n'
                    'example wrong with 2 players { given { n = 2 }\n'
                    '  expect illegal take(2) because when n >= k }\n')
    comp = pipeline.compile_spec(path)
    assert run_example(comp, comp.program.examples["ok"]).ok
    r = run_example(comp, comp.program.examples["wrong"])
    assert r.failure["expected"] == "`take(k=2)` to be refused by `when n >= k`"
    assert r.failure["actual"] == "it is refused by `ensures n >= 1`"
