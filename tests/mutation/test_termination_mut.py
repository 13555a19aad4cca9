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
