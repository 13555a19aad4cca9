"""`atoll mutate`: mutants of a spec's rules, checked with its properties."""
import json
import re

import pytest

from atoll.cli import main
from atoll.compiler import pipeline
from atoll.grammar.parse import parse
from atoll.diagnostics import Reporter
from atoll.verify import mutants as MT
from helpers import ROOT

TALLY = ROOT / "tests" / "mutate" / "tally.atoll"


def mutants_of(path):
    comp = pipeline.compile_spec(path)
    text = comp.program.sources[str(path)]
    return text, MT.generate(comp.program, text, str(path))


def find(ms, rule, what):
    [m] = [m for m in ms if m.rule == rule and m.what == what]
    return m


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One run over every mutant of the small game (a few seconds)."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["mutate", str(TALLY), "--jobs", "1", "--games", "5", "--no-cache", "--json"])
    return status, json.loads(out.getvalue())


# ---------------------------------------------------------------- the mutants

def test_each_kind_of_mutant_is_a_small_change_of_the_text():
    text, ms = mutants_of(TALLY)
    kinds = {m.kind for m in ms}
    assert {"constant", "comparison", "arithmetic", "logic", "guard dropped", "guard negated",
            "statement dropped", "cases swapped", "ending removed", "branches swapped"} <= kinds
    m = find(ms, "const goal", "5 to 6")
    assert m.diff(text) == ["-13: const goal: int = 5", "+13: const goal: int = 6"]
    swap = [m for m in ms if m.kind == "cases swapped"][0]
    assert "match k { 1 => (2), 2 => (1)" in swap.apply(text)
    dropped = find(ms, "action add", "`when k <= 2` dropped")
    assert dropped.diff(text)[1] == "+   (removed)"
    for m in ms:   # every line keeps its number, and the mutant differs from the spec
        new = m.apply(text)
        assert new != text and new.count("\n") == text.count("\n")
        if not m.rule.startswith("state"):   # each rule but the state cites the rulebook
            assert m.cites, m


def test_properties_and_what_only_they_read_are_not_mutated():
    text, ms = mutants_of(TALLY)
    prop_line = text[:text.index("property gains_as_written")].count("\n") + 1
    assert all(m.line < prop_line for m in ms)
    spec = ROOT / "spec" / "masterislands.atoll"
    _, ms = mutants_of(spec)
    rules = {m.rule for m in ms}
    assert "def one_straight_line" not in rules and "const example_board" not in rules
    assert "def protected" in rules and "action conquer" in rules


def test_the_operator_is_found_past_brackets_and_comments(tmp_path):
    spec = tmp_path / "ops.atoll"
    spec.write_text(TALLY.read_text().replace(
        "when k <= 2", 'when (k) # ) <= ( "not this one"\n      <= (2)'))
    text, ms = mutants_of(spec)
    m = find(ms, "action add", "`<=` to `<`")
    new = m.apply(text)
    assert '# ) <= ( "not this one"\n      < (2)' in new


# ---------------------------------------------------------------- the report

def test_report_counts_each_status_apart(report):
    status, rep = report
    assert status == 0   # no --min-score
    t = rep["totals"]
    assert t["mutants"] == rep["generated"] == rep["run"] == len(rep["mutants"])
    assert sum(t[s] for s in ("killed", "survived", "unobserved", "equivalent", "not compiling",
                              "timed out", "error")) == t["mutants"]
    assert t["killed"] and t["survived"] and t["unobserved"] and t["equivalent"] and t["not compiling"]
    assert t["error"] == 0 and t["timed out"] == 0
    # every mutant not shown equivalent (nor refused by the compiler) counts: unobserved is not killed
    assert rep["score"] == pytest.approx(t["killed"] / (t["killed"] + t["survived"] + t["unobserved"]))
    assert rep["observed_score"] == pytest.approx(t["killed"] / (t["killed"] + t["survived"]))


def status_of(rep, rule, what):
    [m] = [m for m in rep["mutants"] if m["rule"] == rule and m["what"] == what]
    return m


def test_who_kills_and_who_survives(report):
    _, rep = report
    # the theorem pins the table of gains down
    m = status_of(rep, "def gain", "the outcomes of `match` arms `1` and `2` swapped")
    assert m["status"] == "killed" and m["by"]["property"] == "gains_as_written"
    assert m["by"]["verdict"] == "VIOLATED" and m["by"]["expected"] == "proved"
    # the invariant notices a higher goal (players reach 7), not a lower one
    assert status_of(rep, "const goal", "5 to 6")["status"] == "killed"
    low = status_of(rep, "const goal", "5 to 4")
    assert low["status"] == "survived" and low["diff"] == ["-13: const goal: int = 5",
                                                           "+13: const goal: int = 4"]
    # a state nobody reads: its mutants change nothing that can be seen
    assert status_of(rep, "action add", "`notches = notches + 1` dropped")["status"] == "unobserved"
    # the bonus is off: its rule folds away, the lowered code is the same
    eq = status_of(rep, "def extra", "`==` to `!=`")
    assert eq["status"] == "equivalent"
    nc = status_of(rep, "action add", "`end phase` dropped")
    assert nc["status"] == "not compiling" and nc["reason"].startswith("A0202")


def test_per_rule_scores_with_citations(report):
    _, rep = report
    rules = {r["rule"]: r for r in rep["rules"]}
    g = rules["def gain"]   # its `_ => 0` arm is never used: unobserved, and not killed
    assert g["survived"] == 0 and g["unobserved"] > 0 and g["cites"] == ["Adding"]
    assert g["score"] == pytest.approx(g["killed"] / (g["killed"] + g["unobserved"]))
    assert rules["action add"]["score"] == 0.0 and rules["action add"]["survived"] > 0
    # a state nobody reads: nothing seen, and not equivalent either: 0%, not left out
    assert rules["state notches"]["unobserved"] == rules["state notches"]["mutants"]
    assert rules["state notches"]["score"] == 0.0
    assert [r["line"] for r in rep["rules"]] == sorted(r["line"] for r in rep["rules"])


def test_json_shape(report):
    _, rep = report
    assert {"spec", "generated", "run", "configurations", "budget", "baseline", "totals", "score",
            "observed_score", "rules", "mutants", "seconds", "ok", "min_score"} <= set(rep)
    assert rep["configurations"] == [{"players": 2, "options": {}}]
    assert rep["budget"]["games"] == 5 and rep["baseline"]["broken"] == []
    m = rep["mutants"][0]
    assert {"id", "rule", "cites", "kind", "what", "line", "diff", "status", "by", "reason",
            "seconds", "checked", "cached", "changed"} <= set(m)


def test_text_report_lists_survivors_with_diffs(capsys):
    _, ms = mutants_of(TALLY)
    low = find(ms, "const goal", "5 to 4")
    assert main(["mutate", str(TALLY), "--jobs", "1", "--games", "5", "--no-cache",
                 "--mutant", str(low.id)]) == 0
    out = capsys.readouterr().out
    assert "survivors: no property notices if this rule changes (1)" in out
    assert f"#{low.id} const goal (rulebook: Winning): 5 to 4" in out
    assert "-13: const goal: int = 5" in out and "+13: const goal: int = 4" in out
    assert re.search(r"const goal\s+1\s+0\s+1\s+0\s+0\s+0\s+0\s+0%\s+Winning", out)


# ---------------------------------------------------------------- exit codes, cache, pool

def test_min_score_sets_the_exit_status(capsys):
    _, ms = mutants_of(TALLY)
    low, high = find(ms, "const goal", "5 to 4"), find(ms, "const goal", "5 to 6")
    base = ["mutate", str(TALLY), "--jobs", "1", "--games", "5", "--no-cache"]
    assert main(base + ["--mutant", str(high.id), "--min-score", "0.9"]) == 0
    assert main(base + ["--mutant", str(low.id), "--min-score", "0.9"]) == 1
    assert main(base + ["--mutant", str(low.id)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("args", [["--min-score", "2"], ["--games", "-1"], ["--jobs", "0"],
                                  ["--mutant", "9999"], ["--cache", "x", "--no-cache"],
                                  ["--mutant-timeout", "0"], ["--other-configs", "-1"]])
def test_bad_usage_exits_2(args, capsys):
    assert main(["mutate", str(TALLY), "--jobs", "1", "--games", "1"] + args
                if "--jobs" not in args else ["mutate", str(TALLY)] + args) == 2
    capsys.readouterr()


def test_missing_spec_and_broken_spec(tmp_path, capsys):
    assert main(["mutate", str(tmp_path / "nope.atoll")]) == 2
    bad = tmp_path / "bad.atoll"
    bad.write_text("game g { players: 2..2 }\nconst x: int = (1 +\n")
    assert main(["mutate", str(bad), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["diagnostics"][0]["code"] == "A0001"


def test_cache_and_processes(tmp_path, capsys):
    _, ms = mutants_of(TALLY)
    ids = [str(find(ms, "const goal", w).id) for w in ("5 to 4", "5 to 6")]
    args = ["mutate", str(TALLY), "--games", "5", "--cache", str(tmp_path / "c"), "--json"]
    for i in ids:
        args += ["--mutant", i]
    assert main(args + ["--jobs", "2"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args + ["--jobs", "1"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [m["status"] for m in first["mutants"]] == [m["status"] for m in again["mutants"]] \
        == ["killed", "survived"]
    assert not any(m["cached"] for m in first["mutants"]) and all(m["cached"] for m in again["mutants"])
    assert again["baseline"]["cached"]


def test_a_kill_is_kept_while_its_property_is(tmp_path, capsys):
    """A kill is read back after a property is added (the rules and the
    killer unchanged); not once the killer's text changes; a survivor is
    always checked again."""
    spec = tmp_path / "tally.atoll"
    text = TALLY.read_text()
    spec.write_text(text)
    _, ms = mutants_of(spec)
    ids = [str(find(ms, "const goal", w).id) for w in ("5 to 4", "5 to 6")]
    args = ["mutate", str(spec), "--games", "5", "--jobs", "1", "--cache", str(tmp_path / "c"), "--json"]
    for i in ids:
        args += ["--mutant", i]

    def run():
        assert main(args) == 0
        return {m["what"]: m for m in json.loads(capsys.readouterr().out)["mutants"]}

    first = run()
    assert first["5 to 6"]["status"] == "killed" and first["5 to 6"]["by"]["property"] == "below_seven"
    spec.write_text(text + '\nproperty moves_counted "Moves never go negative." invariant moves >= 0\n')
    again = run()
    assert again["5 to 6"]["cached"] and again["5 to 6"]["status"] == "killed"
    assert not again["5 to 4"]["cached"] and again["5 to 4"]["status"] == "survived"
    spec.write_text(text.replace("points[p] <= 6 for", "points[p] <= 6 + 0 for"))
    third = run()
    assert not third["5 to 6"]["cached"] and third["5 to 6"]["status"] == "killed"


def test_list_shows_the_mutants_without_checking(capsys):
    assert main(["mutate", str(TALLY), "--list", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    _, ms = mutants_of(TALLY)
    assert len(d["mutants"]) == len(ms) and d["mutants"][0]["diff"]


# ---------------------------------------------------------------- a hostile spec

HOSTILE_NOTE = '"\\"); __import__(\'os\').system(\'touch SENTINEL\') #"'


def test_a_hostile_spec_is_only_ever_compiled(tmp_path, capsys):
    """Mutants are text for the compiler: nothing of the spec is executed,
    and no mutant brings text of its own but operators, numbers, `not`,
    `false`, brackets and line breaks."""
    sentinel = tmp_path / "PWNED"
    note = HOSTILE_NOTE.replace("SENTINEL", str(sentinel))
    spec = tmp_path / "hostile.atoll"
    spec.write_text(TALLY.read_text()
                    .replace('"Add one or two points."', note)
                    .replace('"At most two."', note + '\n    # ) == ( ; import os\n')
                    .replace("when k <= 2", 'when k <= 2 and "x\\"; os.system(1)" != ""'))
    text, ms = mutants_of(spec)
    safe = re.compile(r"^(\s*|-?\d+|==|!=|<=?|>=?|[-+*/%]|and|or|in|not in|min|max|any|all|true|false"
                      r"|false\n*)$")
    for m in ms:
        for a, b, new in m.edits:
            original = text[a:b]
            assert (safe.match(new) or new == f"not ({original})"
                    or (new.startswith("(") and new[1:-1] in text)), (m, new)
    assert main(["mutate", str(spec), "--jobs", "1", "--games", "2", "--no-cache", "--json",
                 "--max-mutants", "12", "--seed", "1"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["totals"]["error"] == 0 and not sentinel.exists()


# ---------------------------------------------------------------- what is checked again

def test_pure_properties_are_not_checked_again_when_they_read_nothing_changed():
    from atoll.verify.mutate import skipped_properties
    comp = pipeline.compile_spec(TALLY)
    _, ms = mutants_of(TALLY)
    assert skipped_properties(comp.program, find(ms, "action add", "`notches = notches + 1` dropped")) == ["gains_as_written"]
    assert skipped_properties(comp.program, find(ms, "const goal", "5 to 4")) == ["gains_as_written"]
    assert skipped_properties(comp.program, find(ms, "def gain", "0 to 1")) == []


def test_examples_kill_mutants(tmp_path):
    """A failing `example` kills a mutant: four points do not win yet, so a
    goal lowered to four breaks the worked example."""
    from atoll.verify import mutate as MU
    p = tmp_path / "tally.atoll"
    p.write_text(TALLY.read_text() + """
example five_wins "Player 0 at 2 points adds two: four is not yet a win, and player 1 plays." with 2 players
{
  given { points = [2, 0] }
  play add(2) by 0
  expect points[0] == 4
  expect player 1 in main
}
""")
    _, ms = mutants_of(p)
    low = find(ms, "const goal", "5 to 4")
    plan = MU.plan(str(p), st=MU.Settings(games=3), ids=[low.id])
    assert plan.base.examples["five_wins"]["ok"]
    [rec] = MU.execute(plan, 1)
    assert rec["status"] == "killed" and rec["by"]["property"] == "five_wins"
    assert rec["by"]["kind"] == "example"


def test_a_dask_scheduler_that_does_not_answer_is_a_usage_error(capsys):
    pytest.importorskip("distributed")
    assert main(["mutate", str(TALLY), "--dask", "tcp://127.0.0.1:9", "--dask-timeout", "0.5",
                 "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "dask"


# ---------------------------------------------------------------- where the mutated rule runs

def test_a_mutant_is_checked_where_its_rule_runs(tmp_path, capsys):
    """With the bonus a mode, a mutant of the bonus rule has the original's
    code in the default configuration (the rule folds away) but not with
    the bonus on: it is checked there, and the property about the bonus
    kills it. Without the other configurations it is called equivalent."""
    spec = tmp_path / "tally.atoll"
    spec.write_text(TALLY.read_text().replace('  players: 2..2\n', '  players: 2..2\n  modes: "bonus"\n') + """
property bonus_as_written
  when bonus
  "With the bonus, adding two scores one more."
  cites "Variants"
  theorem forall k: int in [1, 2]: extra(k) == (if k == 2 then 1 else 0)
""")
    _, ms = mutants_of(spec)
    eq, dead = find(ms, "def extra", "`==` to `!=`"), find(ms, "state notches", "0 to 1")
    args = ["mutate", str(spec), "--jobs", "1", "--games", "3", "--no-cache", "--json",
            "--mutant", str(eq.id), "--mutant", str(dead.id)]
    assert main(args) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["other_configurations"] == [{"players": 2, "options": {"bonus": True}}]
    by_id = {m["id"]: m for m in rep["mutants"]}
    m = by_id[eq.id]
    assert m["status"] == "killed" and m["by"]["property"] == "bonus_as_written"
    assert m["by"]["options"] == {"bonus": True} and m["configurations_checked"] == [[2, {"bonus": True}]]
    # a state nobody reads: its code differs everywhere, no game shows it: unobserved, not killed
    assert by_id[dead.id]["status"] == "unobserved" and rep["score"] == 0.5
    assert main(args + ["--other-configs", "0"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert {m["id"]: m["status"] for m in rep["mutants"]} == {eq.id: "equivalent", dead.id: "unobserved"}


def test_a_model_error_in_an_example_kills(monkeypatch):
    """The mutated model failing while an example plays (say, an index out
    of range in an action's choices) is noticed: killed, not a failure of atoll."""
    from atoll.compiler.runtime import ModelError
    from atoll.verify import mutate as MU
    from atoll.verify import mutate_eval

    def failing(comp, broken, order):
        raise ModelError("evaluating the choices of action `add`: index 2 is outside 0..1")
    monkeypatch.setattr(mutate_eval, "examples_first_kill", failing)
    _, ms = mutants_of(TALLY)
    low = find(ms, "const goal", "5 to 4")
    [rec] = MU.execute(MU.plan(str(TALLY), st=MU.Settings(games=2), ids=[low.id]), 1)
    assert rec["status"] == "killed" and "index 2" in rec["by"]["model error"]
