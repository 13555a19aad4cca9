"""Each checker of `atoll verify` on a purpose-made spec whose right verdict
is known both ways: the property holds, and a planted mutation breaks it."""
import json
from pathlib import Path

import pytest

from atoll.cli import main
from atoll.verify import verdicts as V
from atoll.verify.runner import run
from helpers import MASTERISLANDS

COUNTER = Path(__file__).parent / "verify" / "counter.atoll"


def verdicts(path, **kw):
    return {r.property: r for r in run(str(path), games=kw.pop("games", 60), **kw)}


def mutant(tmp_path, old, new):
    text = COUNTER.read_text()
    assert old in text, old
    p = tmp_path / "mutant.atoll"
    p.write_text(text.replace(old, new))
    return p


@pytest.fixture(scope="module")
def original():
    return verdicts(COUNTER)


def test_every_property_holds_on_the_original(original):
    assert original["table_matches"].verdict == V.PROVED
    assert original["sums"].verdict == V.WITNESS_FOUND
    assert [w["a"] for w in original["sums"].detail["witnesses"]] in (["3", "2"], ["2", "3"])
    for name in ("never_negative", "moves_left"):   # the game is finite: searched exhaustively
        assert original[name].verdict == V.PROVED, name
    assert original["moves_left"].method == "exhaustive search"
    # the invariant is inductive too: z3 proves it for every start, the search confirms this one
    assert original["never_negative"].method == "z3 induction + exhaustive"
    assert original["shrinks"].verdict == V.PROVED
    assert original["shrinks"].method == "z3 abstraction"
    assert original["someone_gets_three"].verdict == V.WITNESS_FOUND
    assert all(r.ok for r in original.values())


def test_theorem_mutation_is_violated_with_the_input(tmp_path):
    r = verdicts(mutant(tmp_path, "4 => 8", "4 => 9"), only=["table_matches"])["table_matches"]
    assert r.verdict == V.VIOLATED and not r.ok
    assert r.counterexample == {"inputs": {"n": "4"}, "enumerated": 13,
                                "values": {"scoring(n)": "8", "table(n)": "9"}}
    assert r.method == "enumeration"


def test_witness_mutation_has_no_witness(tmp_path):
    r = verdicts(mutant(tmp_path, "a + b == 7 and a < b", "a + b == 11"), only=["sums"])["sums"]
    assert r.verdict == V.NO_WITNESS and not r.ok


def test_invariant_mutation_is_violated_with_a_short_trace(tmp_path):
    p = mutant(tmp_path, "action take_two() when tokens >= 2", "action take_two() when tokens >= 1")
    r = verdicts(p, only=["never_negative"])["never_negative"]
    assert r.verdict == V.VIOLATED
    steps = r.counterexample["steps"]
    assert steps[-1]["rule"] == "take_two"
    assert len(steps) == 4            # breadth first: the shortest way to one token, then two
    assert "tokens" in steps[-1]["changes"]
    assert "state.apply_action" in r.counterexample["pytest"]


def test_the_regression_snippet_replays_the_violation(tmp_path):
    p = mutant(tmp_path, "action take_two() when tokens >= 2", "action take_two() when tokens >= 1")
    r = verdicts(p, only=["never_negative"])["never_negative"]
    import atoll
    game = atoll.load(p, players=2)
    state = game.new_initial_state(seed=r.counterexample["seed"],
                                   chance=r.counterexample.get("chance", "auto"))
    for step in r.counterexample["steps"]:
        state.apply_action(step["id"])
    assert json.loads(state.to_json())["values"][1] < 0


def test_deadlock_mutation_is_found(tmp_path):
    p = mutant(tmp_path, "action take_one() when tokens >= 1", "action take_one() when tokens >= 3")
    r = verdicts(p, only=["moves_left"])["moves_left"]
    assert r.verdict == V.VIOLATED
    assert "no legal action" in r.counterexample["problem"]


def test_termination_fails_when_waiting_is_allowed():
    r = verdicts(COUNTER, options={"waiting": "true"}, only=["shrinks"])["shrinks"]
    assert r.verdict == V.VIOLATED
    assert r.detail["z3"] == "`wait` may not lower the measure"   # z3 names the action
    assert [s["rule"] for s in r.counterexample["steps"]] == ["wait"]   # the shortest run shows it
    assert "did not decrease" in r.counterexample["problem"]


def test_termination_abstraction_follows_collections(tmp_path):
    """A measure over sizes: each take moves one item from a bag to a hand."""
    p = tmp_path / "bags.atoll"
    p.write_text(COUNTER.read_text().split("flow {")[0].replace(
        "state {", "state {\n  pile: bag[int] = bag([1, 2, 3, 4, 5])\n  player hand: list[int] = []") + """
flow { round { turns in seats: take } }
phase take {
  action draw_one() when size(pile) > 0 { draw c from pile  hand[me] = hand[me] + [c]  end phase }
  action put_back(c: int in hand[me]) when REFILL { hand[me] = remove(hand[me], c)  end phase }
}
ending empty immediately when size(pile) == 0 => tie
property drains terminates by size(pile) per action
""".replace("REFILL", "false"))
    r = verdicts(p, only=["drains"])["drains"]
    assert r.verdict == V.PROVED, r.detail
    p.write_text(p.read_text().replace("when false", "when true"))
    r = verdicts(p, only=["drains"])["drains"]
    # `put_back` leaves the pile as it is: the measure does not drop, and the search shows the step
    assert r.verdict == V.VIOLATED and r.detail["z3"] == "`put_back` may not lower the measure", r.detail


def test_unreachable_target_in_a_finite_game_has_no_witness(tmp_path):
    p = mutant(tmp_path, "any(got[p] >= 3 for p in players)", "any(got[p] >= 30 for p in players)")
    r = verdicts(p, only=["someone_gets_three"])["someone_gets_three"]
    assert r.verdict == V.NO_WITNESS and not r.ok   # all reachable states were searched


def test_unreached_target_in_a_large_game_is_unknown_not_a_pass(tmp_path):
    p = mutant(tmp_path, "any(got[p] >= 3 for p in players)", "any(got[p] >= 1000 for p in players)")
    r = verdicts(p, options={"start": 300}, only=["someone_gets_three"])["someone_gets_three"]
    assert r.verdict == V.UNKNOWN and not r.ok
    assert "every play of at most" in r.detail["exhaustive"]


def test_a_cycle_is_a_termination_counterexample(tmp_path):
    p = mutant(tmp_path, "property shrinks terminates by tokens per action",
               "property shrinks terminates by tokens per turn")
    r = verdicts(p, options={"waiting": "true"}, only=["shrinks"])["shrinks"]
    assert r.verdict == V.VIOLATED and "cycle" in r.counterexample["problem"]
    assert r.counterexample["steps"][-1]["rule"] == "wait"


def test_a_model_error_found_by_the_search_is_shown_with_its_trace(tmp_path):
    p = mutant(tmp_path, "{ tokens = tokens - 2 ",
               "{ tokens = tokens - 2 + (if tokens == 2 then {0: 0}[tokens] else 0) ")
    r = verdicts(p, only=["never_negative"])["never_negative"]
    assert r.verdict == V.VIOLATED and r.counterexample["problem"].startswith("model error")
    assert r.counterexample["steps"][-1]["changes"]["(failed)"].startswith("model error")


def test_bounded_search_alone_holds_up_to_k():
    r = verdicts(COUNTER, options={"start": 300}, games=0, only=["moves_left"])["moves_left"]
    assert r.verdict.startswith("HOLDS UP TO ") and r.ok
    assert int(r.verdict.split()[-1]) >= 3


def test_bounded_search_finds_the_shortest_violation(tmp_path):
    p = mutant(tmp_path, "action take_two() when tokens >= 2", "action take_two() when tokens >= 1")
    r = verdicts(p, options={"start": 1}, only=["never_negative"])["never_negative"]
    assert r.verdict == V.VIOLATED and r.method == "exhaustive search"
    assert [s["rule"] for s in r.counterexample["steps"]] == ["take_two"]


def test_no_z3_meaning_is_unknown_not_proved(tmp_path):
    p = mutant(tmp_path, "property table_matches theorem forall n: int in between(0, 12): scoring(n) == table(n)",
               "property table_matches theorem forall m: int in between(0, 3), n: int in between(0, m): "
               "size(remove([n, 1], n)) == 1")
    r = verdicts(p, only=["table_matches"])["table_matches"]   # n's domain reads m: z3's to decide
    assert r.verdict == V.UNKNOWN and "no z3 meaning" in r.detail["reason"]
    p.write_text(p.read_text().replace("m: int in between(0, 3), n: int in between(0, m)", "n: int in between(0, 3)"))
    r = verdicts(p, only=["table_matches"])["table_matches"]   # concrete domains: every input run
    assert (r.verdict, r.method) == (V.PROVED, "enumeration")


def test_solver_that_gives_up_is_unknown(tmp_path):
    """True (Fermat, n = 3) but beyond z3's nonlinear arithmetic: never PROVED, never VIOLATED."""
    p = mutant(tmp_path, "property table_matches theorem forall n: int in between(0, 12): scoring(n) == table(n)",
               "property table_matches theorem forall x: int in between(1, 1000000000), "
               "y: int in between(1, 1000000000), z: int in between(1, 1000000000): "
               "x * x * x + y * y * y != z * z * z")
    r = verdicts(p, only=["table_matches"], timeout_ms=200)["table_matches"]
    assert r.verdict == V.UNKNOWN and not r.ok


def test_expected_violation_passes(tmp_path):
    p = mutant(tmp_path, "property shrinks terminates by tokens per action",
               "property shrinks terminates by tokens per action expect violated")
    r = verdicts(p, options={"waiting": "true"}, only=["shrinks"])["shrinks"]
    assert r.verdict == V.VIOLATED and r.ok


def test_cli_json_shape_and_exit_codes(tmp_path, capsys):
    assert main(["verify", str(COUNTER), "--json", "--games", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["spec"] == str(COUNTER)
    keys = {"property", "kind", "players", "options", "verdict", "expected", "ok", "seconds",
            "detail", "counterexample"}
    assert all(keys <= set(r) for r in out["results"])
    bad = mutant(tmp_path, "4 => 8", "4 => 9")
    assert main(["verify", str(bad), "--property", "table_matches"]) == 1
    assert "counterexample for `table_matches`" in capsys.readouterr().out
    assert main(["verify", str(COUNTER), "--property", "nope"]) == 2


def test_matrix_covers_player_counts():
    results = run(str(COUNTER), matrix=True, games=10, only=["table_matches"])
    assert sorted(r.players for r in results) == [2, 3]


def test_masterislands_worked_example_is_proved():
    r = verdicts(MASTERISLANDS, only=["worked_example", "example_lines"])
    assert r["worked_example"].verdict == V.PROVED
    assert r["example_lines"].detail["witnesses"] == [{"line": "{(0,0), (2,0), (3,0)}"}]


def test_well_defined_cases_are_proved_with_their_table(original):
    r = original["duel_defined"]
    assert r.verdict == V.PROVED
    assert r.detail["inputs per case"] == {"first": 3, "second": 3, "even": 3}
    # the outcome table: all 9 inputs with their case, and the counts by the first binder
    table = {(row["inputs"]["a"], row["inputs"]["b"]): row["case"] for row in r.detail["table"]}
    assert table == {(str(a), str(b)): "first" if a > b else "second" if b > a else "even"
                     for a in range(3) for b in range(3)}
    by = r.detail["inputs per case by"]
    assert by["binder"] == "a" and list(by["groups"]) == ["0", "1", "2"]
    assert by["groups"]["0"] == {"first": 0, "second": 2, "even": 1}
    assert by["groups"]["2"] == {"first": 2, "second": 0, "even": 1}


def test_a_gap_between_cases_is_violated(tmp_path):
    r = verdicts(mutant(tmp_path, "even: a == b => 2", "even: a == b and a > 0 => 2"),
                 only=["duel_defined"])["duel_defined"]
    assert r.verdict == V.VIOLATED
    assert r.counterexample == {"problem": "no case applies", "inputs": {"a": "0", "b": "0"}}


def test_overlapping_cases_that_disagree_are_violated(tmp_path):
    r = verdicts(mutant(tmp_path, "second: b > a => 1", "second: b >= a => 1"),
                 only=["duel_defined"])["duel_defined"]
    assert r.verdict == V.VIOLATED
    assert "`second` and `even` both apply" in r.counterexample["problem"]


def test_overlapping_cases_that_agree_are_fine(tmp_path):
    p = mutant(tmp_path, "even: a == b => 2,", "even: a == b => 2,\n  big: a > b + 1 => 0,")
    r = verdicts(p, only=["duel_defined"])["duel_defined"]   # `big` overlaps `first`, same value
    assert r.verdict == V.PROVED
    assert r.detail["inputs per case"]["big"] == 0   # the first case that applies takes them


def test_no_case_at_run_time_is_a_model_error(tmp_path):
    import atoll
    p = mutant(tmp_path, "even: a == b => 2", "even: a == b and a > 0 => 2")
    g = atoll.load(p, players=2)
    assert g.ns["d_duel"](None, 2, 1) == 0
    with pytest.raises(Exception, match="no case applies"):
        g.ns["d_duel"](None, 0, 0)


TAXED = """
game taxed { players: 2..2 }
state { tokens: int = 9 }
flow { round { turns in seats: take, tax } }
phase take {
  action take_some(n: int in [0, 1, 2]) when n <= tokens { tokens = tokens - n  end phase }
}
phase tax { auto { tokens = tokens - 1 } }
ending empty immediately when tokens <= 0 => tie
property ends terminates by tokens per turn
"""


def test_per_turn_measure_gets_a_z3_argument(tmp_path):
    p = tmp_path / "taxed.atoll"
    p.write_text(TAXED)
    r = verdicts(p, only=["ends"])["ends"]
    # the game is small: searched to the end; z3's argument per turn is reported beside it
    assert r.ok and r.verdict == V.PROVED and r.method == "exhaustive search", (r.verdict, r.method)
    assert r.detail["z3"].startswith("z3: no step raises the measure"), r.detail
    from atoll.compiler import pipeline
    from atoll.verify.termination import check_turn_measure
    comp = pipeline.compile_spec(p)
    game = pipeline.instantiate(comp, 2)
    text = check_turn_measure(comp.program, game, comp.program.properties["ends"], 5000)
    assert text.startswith("z3: no step raises the measure") and "tax" in text
    p.write_text(TAXED.replace("[0, 1, 2]", "[-1, 0, 1, 2]"))   # taking -1 gives a token back
    comp = pipeline.compile_spec(p)
    game = pipeline.instantiate(comp, 2)
    text = check_turn_measure(comp.program, game, comp.program.properties["ends"], 5000)
    assert text == "z3: `take_some` may raise the measure"


def test_strings_have_a_z3_meaning():
    r = verdicts(Path(__file__).parent / "verify" / "strings.atoll")
    assert r["degree"].verdict == V.PROVED
    assert r["sorted_names"].verdict == V.PROVED
    assert r["lusepil"].detail["witnesses"] == [{"i": "Lusepil 7"}]


ROWS = '''
record Row {{ name: str, parts: list[int], total: int }}
const rows: list[Row] = [Row("a", [1, 2], 3), Row("b", [], 0), Row("c", [4, 4, 1], {last})]
property rows_add_up theorem forall r: Row in rows: sum(x for x in r.parts) == r.total
property some_row_is_empty witness exists r: Row in rows: size(r.parts) == 0
'''


@pytest.mark.parametrize("last,verdict", [(9, V.PROVED), (8, V.VIOLATED)])
def test_binder_over_records_that_hold_collections(tmp_path, last, verdict):
    """z3 picks a whole row of a table whose records hold a list."""
    p = tmp_path / "rows.atoll"
    p.write_text(COUNTER.read_text() + ROWS.format(last=last))
    r = verdicts(p, only=["rows_add_up", "some_row_is_empty"])
    assert r["rows_add_up"].verdict == verdict
    if verdict == V.VIOLATED:
        assert r["rows_add_up"].counterexample["inputs"]["r"] == "c [4, 4, 1] 8"
    assert r["some_row_is_empty"].detail["witnesses"] == [{"r": "b [] 0"}]


# ---------------------------------------------------------------- a measure must stay at 0 or more

def _measure(path, name):
    from atoll.compiler import pipeline
    from atoll.verify.termination import check_measure
    comp = pipeline.compile_spec(path)
    game = pipeline.instantiate(comp, 2)
    return check_measure(comp.program, game, comp.program.properties[name], 5000)


def test_a_measure_that_can_go_below_zero_is_not_a_proof(tmp_path):
    """`take_two` with one token left lowers the measure, to -1: a measure
    that can go negative bounds nothing, so z3 must not call it a proof
    (the game still ends here, but not by this argument)."""
    assert _measure(COUNTER, "shrinks")[0] == "proved"     # the original: 2 or more tokens to take two
    p = mutant(tmp_path, "action take_two() when tokens >= 2", "action take_two() when tokens >= 1")
    p.write_text(p.read_text().replace("when tokens == 0 =>", "when tokens <= 0 =>"))
    outcome = _measure(p, "shrinks")
    assert outcome[0] == "fails", outcome
    assert outcome[2]["measure after"] == "-1" and outcome[2]["measure before"] == "1", outcome
    assert outcome[1] == "take_two"
    # (a measure that may start below 0: tests/test_z3_trust.py, START)

