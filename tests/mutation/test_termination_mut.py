"""verify/termination.py in detail: the z3 argument for `terminates ... per
action` and `per turn` on small specs, each result checked word for word
(the bound it proves, the step and the values it blames, why it gives up).
A measure that an action can take below 0 is never PROVED."""
import pytest

from atoll.compiler import pipeline
from atoll.verify.termination import check_measure, check_turn_measure

BASE = """
game g { title: "G" players: 2..2 }
state {
  stones: int = START visible all
  pile: bag[int] = bag([3, 5]) visible nobody
}
SETUP
flow { round { turns in seats: take } }
phase take "Take." {
  action take_stones(n: int in [1, 2, 3]) GUARD { stones = stones - n  end phase }
  EXTRA
}
ending empty immediately when ENDS => tie
property m terminates by MEASURE per STEP
"""


def spec(start="9", guard="when n <= stones", setup="", extra="", ends="stones == 0",
         measure="stones", step="action"):
    return (BASE.replace("START", start).replace("GUARD", guard).replace("SETUP", setup)
            .replace("EXTRA", extra).replace("ENDS", ends).replace("MEASURE", measure)
            .replace("STEP", step))


@pytest.fixture
def measure(tmp_path):
    def run(text, turn=False):
        f = tmp_path / "t.atoll"
        f.write_text(text)
        comp = pipeline.compile_spec(f)
        game = pipeline.instantiate(comp, 2)
        check = check_turn_measure if turn else check_measure
        return check(comp.program, game, comp.program.properties["m"], 10_000)
    return run


def test_a_countdown_is_proved_with_its_bound(measure):
    assert measure(spec()) == ("proved", {
        "steps": ["take_stones"],
        "bound": "the measure starts at 9, and every action lowers it: at most 9 actions"})
    assert measure(spec(start="1"))[1]["bound"] == \
        "the measure starts at 1, and every action lowers it: at most 1 action"


def test_the_bound_covers_every_outcome_of_setup(measure):
    got = measure(spec(setup="setup {\n  draw c from pile\n  stones = c\n}"))
    assert got == ("proved", {"steps": ["take_stones"], "bound":
                              "the measure starts at 5 or less (at 3 or more) whatever setup draws, "
                              "and every action lowers it: at most 5 actions"})


def test_a_step_that_keeps_the_measure_fails(measure):
    assert measure(spec(extra="action pass() { end phase }")) == \
        ("fails", "pass", {"measure before": "1", "measure after": "1", "step": "pass"})


def test_a_measure_taken_below_zero_is_not_proved(measure):
    got = measure(spec(guard=""))   # take 3 from 1 stone: the measure goes to -2 or -1
    assert got[0] == "fails" and got[1] == "take_stones"
    assert int(got[2]["measure after"]) < 0 <= int(got[2]["measure before"])
    assert int(got[2]["measure after"]) < int(got[2]["measure before"])   # lowered, yet negative


def test_a_measure_that_may_start_below_zero_is_unknown(measure):
    assert measure(spec(start="-1")) == ("unknown", "every step keeps the measure >= 0 and every "
                                         "action lowers it, but the measure may start below 0 "
                                         "(at -1 for some outcome of setup)")
    drawn = measure(spec(setup="setup {\n  draw c from pile\n  stones = c - 4\n}"))
    assert drawn[0] == "unknown" and "may start below 0 (at -1 for some outcome" in drawn[1]


def test_an_ending_that_stops_the_game_is_taken_into_account(measure):
    # at 0 stones the game is over: no action is taken there, so no action
    # can take the measure below 0 even without a guard on n
    ok = measure(spec(guard="when n == 1", ends="stones <= 0"))
    assert ok[0] == "proved"
    assert measure(spec(guard="when n == 1", ends="stones < 0"))[0] == "fails"


def test_a_winning_action_may_come_once_more(measure):
    got = measure(spec(extra="action grab() { win [me] }"))
    assert got == ("proved", {"steps": ["take_stones", "grab"], "bound":
                              "the measure starts at 9, and every action lowers it: at most 9 "
                              "actions; an action that ends the game (`win`, `tie`) may come once more"})


def test_per_turn_argument_in_words(measure):
    assert measure(spec(step="turn"), turn=True) == (
        "z3: no step of the stage `take` surely lowers the measure (automatic steps that do: none)")
    assert measure(spec(step="turn", extra="action up() { stones = stones + 1  end phase }"),
                   turn=True) == "z3: `up` may raise the measure"
    below = measure(spec(step="turn", guard=""), turn=True)
    assert below.startswith("z3: `take_stones` may take the measure below 0 ("), below
    before, after = below[below.index("(") + 1:-1].split(" then ")
    assert int(after) < 0 <= int(before)


AUTO = """
game g { title: "G" players: 2..2 }
state {
  stones: int = 9 visible all
}
flow { round { turns in seats: take, tick } }
phase take "Take." {
  action take_stones(n: int in [1, 2, 0]) when n <= stones { stones = stones + 0  BODY }
}
phase tick "Tick." {
  TICK
}
ending empty immediately when stones == 0 => tie
property m terminates by stones per STEP
"""


def auto(body="end phase", tick="auto { if stones > 0 { stones = stones - 1 } }", step="turn"):
    return AUTO.replace("BODY", body).replace("TICK", tick).replace("STEP", step)


def test_per_turn_an_automatic_step_that_lowers_the_measure(measure):
    assert measure(auto(), turn=True) == (
        "z3: no step raises the measure and every turn runs an automatic step that lowers it "
        "(tick); that each turn ends is left to search and play")
    assert measure(auto(body="end turn"), turn=True) == \
        "z3: an `end turn` may skip the step that lowers the measure"
    assert measure(auto(tick="auto { stones = stones + 0 }"), turn=True) == (
        "z3: no step of the stage `take, tick` surely lowers the measure (automatic steps "
        "that do: none)")
    assert measure(auto(step="action")) == \
        ("fails", "take_stones", {"measure before": "1", "measure after": "1", "step": "take_stones"})


def test_automatic_steps_are_named_by_their_phase(measure):
    raise_auto = auto(tick="auto { stones = stones + 1 }", step="action").replace("[1, 2, 0]", "[1]") \
        .replace("stones + 0", "stones - 1")
    got = measure(raise_auto)
    assert got[0] == "fails" and got[1] == "tick (auto)" and got[2]["step"] == "tick (auto)"
    assert measure(raise_auto.replace("per action", "per turn"), turn=True) == \
        "z3: `tick (auto)` may raise the measure"
    raise_enter = auto(tick="on enter { stones = stones + 1 }\n  action rest() { stones = stones - 1  end phase }",
                       step="action").replace("[1, 2, 0]", "[1]").replace("stones + 0", "stones - 1")
    got = measure(raise_enter)
    assert got[0] == "fails" and got[1] == "tick (enter)"


def test_every_choice_of_a_parameter_is_considered(measure):
    # only the last choice, 0, keeps the measure: it must be found
    assert measure(spec().replace("[1, 2, 3]", "[1, 2, 0]")) == \
        ("fails", "take_stones", {"measure before": "1", "measure after": "1", "step": "take_stones"})
    assert measure(spec().replace("[1, 2, 3]", "[0, 2, 1]"))[0] == "fails"


def test_a_measure_the_flow_writes_has_no_z3_argument(measure):
    text = spec(measure="stones + who").replace(
        "turns in seats: take", "turns round seats from who until stones < 2: take").replace(
        "stones: int", "who: Player = 0 visible all\n  stones: int")
    assert measure(text) == ("unknown", "the measure reads `who`, which the flow changes between turns")
    assert measure(text.replace("per action", "per turn"), turn=True) == \
        "no z3 argument: the measure reads `who`, which the flow changes between turns"
    # the same flow, with a measure that does not read the keeper, is argued as usual
    assert measure(text.replace("stones + who", "stones"))[0] == "proved"
