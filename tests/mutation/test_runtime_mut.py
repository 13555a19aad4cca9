"""compiler/runtime.py in detail: what a player is told when a move is
refused (each reason, word for word), the text of ``describe``, scores,
action identity, and the chance a pending draw waits for. One small spec
written here; each test runs in milliseconds."""
import json

import pytest

import atoll
from atoll.compiler.runtime import Action, IllegalAction, ModelError

HEAP = """
game heap {
  title: "Heap"
  players: 2..3
}

state {
  stones: int = 7 visible all
  pile: bag[int] = bag([4, 5, 6]) visible nobody
  one: bag[int] = bag([9]) visible nobody
  player taken: int = 0 visible all
}

flow {
  round {
    turns in seats: take, other
  }
}

phase take "Take stones." cites "Taking" {
  action take_stones(n: int in [1, 2, 3]) "Take some." cites "Taking", "Heap"
    when n <= stones "not more than the heap"
    ensures stones != 1 "never leave exactly one"
  {
    stones = stones - n
    taken[me] = taken[me] + n
    end phase
  }
}

phase other "Other." {
  action rest() { end phase }
  action dig() {
    draw c from pile
    taken[me] = taken[me] + c
    end phase
  }
}

ending empty immediately when stones == 0 => rank p by taken[p] else shared

SCORE
"""


@pytest.fixture
def heap(tmp_path):
    def make(score="score p = taken[p]", players=2):
        f = tmp_path / "heap.atoll"
        f.write_text(HEAP.replace("SCORE", score))
        return atoll.load(f, players=players)
    return make


def refusal(st, action) -> str:
    with pytest.raises(IllegalAction) as e:
        st.apply_action(action)
    return str(e.value)


def by_label(st, label):
    return next(a for a in st.legal_actions() if str(a) == label)


def test_each_reason_a_move_is_refused(heap):
    g = heap()
    st = g.new_initial_state(seed=0)
    take = {n: by_label(st, f"take_stones(n={n})") for n in (1, 2, 3)}
    assert refusal(st, 999999) == (
        "no legal action has id 999999 now (player 0, phase `take` (rulebook: Taking)); "
        "legal actions include: take_stones(n=1), take_stones(n=2), take_stones(n=3)")
    assert refusal(st, "x") == "an action is an Action or its integer id, not 'x'"
    assert refusal(st, True) == "an action is an Action or its integer id, not True"
    st.apply_action(take[3])
    rest = by_label(st, "rest()")
    st.apply_action(rest)                                       # stones 4, player 1
    assert refusal(st, rest) == ("`rest` is an action of phase `other`, and the game is in "
                                 "phase `take` (rulebook: Taking)")
    assert refusal(st, take[3]) == ("`take_stones`: afterwards `stones != 1` would not hold "
                                    "(never leave exactly one) (rulebook: Taking; Heap)")
    assert refusal(st, Action("take_stones", (5,), None, 1, None, g)) == (
        "`take_stones`: n=5 is not among its choices `[1, 2, 3]` (rulebook: Taking; Heap)")
    assert refusal(st, Action("nope", (), None, 1, None, g)) == "`nope` is not an action of this game"
    st.apply_action(take[2])
    st.apply_action(rest)                                       # stones 2, player 0
    assert refusal(st, take[3]) == ("`take_stones`: its condition `n <= stones` does not hold "
                                    "(not more than the heap) (rulebook: Taking; Heap)")
    st.apply_action(take[2])
    assert st.is_terminal() and st.ending() == "empty" and st.winners() == (0,)
    assert st.scores() == [5, 2] and st.returns() == [1.0, -1.0]
    assert refusal(st, take[1]) == "the game is over (ending `empty`); no action is legal"


def test_describe(heap):
    g = heap()
    st = g.new_initial_state(seed=0)
    assert g.describe(st) == ("Heap, round 1\nplayer 0 to play, phase take\n  stones = 7\n"
                              "  pile = 3 items, face down\n  one = 1 item, face down\n"
                              "  taken = [0, 0]")
    for label in ["take_stones(n=3)", "rest()", "take_stones(n=2)", "rest()", "take_stones(n=2)"]:
        st.apply_action(by_label(st, label))
    assert g.describe(st).splitlines()[:3] == ["Heap, round 2", "game over (empty): won by player 0",
                                               "  stones = 0"]
    tie = g.new_initial_state(seed=0)
    for label in ["take_stones(n=2)", "rest()", "take_stones(n=2)", "rest()", "take_stones(n=3)"]:
        tie.apply_action(by_label(tie, label))
    assert tie.scores() == [5, 2] and tie.winners() == (0,)
    explicit = g.new_initial_state(seed=0, chance="explicit")
    explicit.apply_action(by_label(explicit, "take_stones(n=1)"))
    explicit.apply_action(by_label(explicit, "dig()"))
    assert explicit.is_chance_node()
    assert g.describe(explicit).splitlines()[1] == "waiting for chance"


def test_a_shared_win_and_no_winner_are_told(heap):
    g = heap(players=3)
    st = g.new_initial_state(seed=0)
    for label in ["take_stones(n=2)", "rest()", "take_stones(n=2)", "rest()", "take_stones(n=3)"]:
        st.apply_action(by_label(st, label))
    # player 2 ended it with 3, the others hold 2: the leader alone wins
    assert st.winners() == (2,) and st.returns() == [-1.0, -1.0, 1.0]
    even = g.new_initial_state(seed=0)
    for label in ["take_stones(n=1)", "rest()", "take_stones(n=1)", "rest()", "take_stones(n=1)",
                  "rest()", "take_stones(n=2)", "rest()", "take_stones(n=2)"]:
        even.apply_action(by_label(even, label))
    assert even.scores() == [3, 3, 1] and even.winners() == (0, 1)
    assert g.describe(even).splitlines()[1] == "game over (empty): won by player 0, player 1"
    assert even.returns() == [1.0, 1.0, -1.0]


def test_a_pending_draw_takes_only_chance_outcomes(heap):
    g = heap()
    st = g.new_initial_state(seed=0, chance="explicit")
    st.apply_action(by_label(st, "take_stones(n=1)"))
    st.apply_action(by_label(st, "dig()"))
    outcomes = st.chance_outcomes()
    assert sorted(str(a) for a, _ in outcomes) == ["chance: draw 4", "chance: draw 5", "chance: draw 6"]
    assert [p for _, p in outcomes] == [pytest.approx(1 / 3)] * 3
    assert refusal(st, by_label(g.new_initial_state(seed=0), "take_stones(n=1)")) == (
        "a chance event is pending: the next action must be one of chance_outcomes()")
    five = next(a for a, _ in outcomes if str(a) == "chance: draw 5")
    st.apply_action(five)
    assert st.scores() == [1 + 5, 0] and not st.is_chance_node()


def test_scores_without_a_score_and_a_score_that_fails(heap):
    g = heap(score="")
    st = g.new_initial_state(seed=0)
    assert st.scores() == [0, 0]
    bad = heap(score="score p = taken[p + stones]")
    with pytest.raises(ModelError, match="^evaluating the score: "):
        bad.new_initial_state(seed=0).scores()


def test_actions_equal_by_id_only_among_actions(heap):
    g = heap()
    a = by_label(g.new_initial_state(seed=0), "take_stones(n=1)")
    b = by_label(g.new_initial_state(seed=3), "take_stones(n=1)")
    assert a == b and hash(a) == hash(b) and int(a) == a.id
    assert a != a.id and a != by_label(g.new_initial_state(seed=0), "take_stones(n=2)")
    assert repr(a) == f"<Action take_stones(n=1) id={a.id}>"
    assert len({a, b}) == 1


def test_state_from_keeps_the_chance_mode(heap):
    g = heap()
    st = g.state_from({"stones": 5}, chance="explicit")
    st.apply_action(by_label(st, "take_stones(n=1)"))
    st.apply_action(by_label(st, "dig()"))
    assert st.is_chance_node()
    auto = g.state_from({"stones": 5})
    auto.apply_action(by_label(auto, "take_stones(n=1)"))
    auto.apply_action(by_label(auto, "dig()"))
    assert not auto.is_chance_node()


PLAIN = """
game plain {
  title: "Plain"
  players: 2..3
}

state {
  stones: int = 7 visible all
  none: bag[int] = bag[int]() visible nobody
}

flow {
  round {
    turns in seats: take
  }
}

phase take "Take stones." {
  action take_stones(n: int in [1, 2, 3]) when n <= stones ensures stones != 1 {
    stones = stones - n
    end phase
  }
  action dig() {
    draw c from none
    end phase
  }
  action cheat() {
    win [me + 7, me + 9]
  }
}

ending empty immediately when stones == 0 => tie
"""


def test_model_errors_say_what_the_rules_did(tmp_path):
    (tmp_path / "plain.atoll").write_text(PLAIN)
    g = atoll.load(tmp_path / "plain.atoll", players=2)
    st = g.new_initial_state(seed=0)
    with pytest.raises(ModelError) as e:
        st.apply_action(by_label(st, "dig()"))
    assert str(e.value) == "a rule draws from an empty bag; guard the draw with `size(...) > 0`"
    st = g.new_initial_state(seed=0)
    with pytest.raises(ModelError) as e:
        st.apply_action(by_label(st, "cheat()"))
    assert str(e.value) == ("action `cheat` names the winner 7, which is not a seat of a 2-player "
                            "game (seats 0 to 1)")


def test_a_condition_without_summary_or_citation_is_quoted_alone(tmp_path):
    (tmp_path / "plain.atoll").write_text(PLAIN)
    g = atoll.load(tmp_path / "plain.atoll", players=2)
    st = g.new_initial_state(seed=0)
    three, two = by_label(st, "take_stones(n=3)"), by_label(st, "take_stones(n=2)")
    st.apply_action(three)                                      # four stones left
    assert refusal(st, three) == "`take_stones`: afterwards `stones != 1` would not hold"
    st.apply_action(two)                                        # two left
    assert refusal(st, three) == "`take_stones`: its condition `n <= stones` does not hold"


def test_an_ending_whose_condition_fails_is_named(tmp_path):
    spec = PLAIN.replace("ending empty", "state {\n  row: list[int] = [1, 2] visible all\n}\n\n"
                         "ending odd immediately when row[stones - 6] > 5 => tie\n\nending empty")
    (tmp_path / "odd.atoll").write_text(spec)
    g = atoll.load(tmp_path / "odd.atoll", players=2)
    st = g.new_initial_state(seed=0)
    with pytest.raises(ModelError) as e:
        st.apply_action(by_label(st, "take_stones(n=3)"))
    assert str(e.value) == "evaluating ending `odd`: index -2 is outside 0..1"
    assert json.loads(st.to_json())["values"][g.layout.names.index("stones")] == 7   # unchanged


STAGES = """game flowy {
  title: "Flowy"
  players: 2..3
}

state {
  stones: int = 7 visible all
  who: Player = 0 visible all
}

flow {
  round {
    turns in seats: take
    turns in [p + 5 for p in seats if stones < 5]: take
  }
}

phase take "Take stones." {
  action take_stones(n: int in [1, 2, 3]) when n <= stones {
    stones = stones - n
    end phase
  }
}

ending empty immediately when stones == 0 => tie
"""

KEEPER = """game flowy {
  title: "Flowy"
  players: 2..3
}

state {
  stones: int = 7 visible all
  who: Player = 0 visible all
}

flow {
  round {
    turns round seats from who until stones < 2: take
  }
}

phase take "Take stones." {
  action take_stones(n: int in [1, 2, 3]) when n <= stones {
    stones = stones - n
    if stones < 4 { who = me + 7 }
    end phase
  }
}

ending empty immediately when stones == 0 => tie
"""


@pytest.mark.parametrize("spec, message", [
    (STAGES, "a stage of the flow names players [5, 6]; seats are 0..1"),
    (KEEPER, "`who` holds 8, which is not a seat; the flow keeps whose turn it is there "
             "(seats 0 to 1)"),
])
def test_a_flow_that_names_no_seat_is_a_model_error(tmp_path, spec, message):
    (tmp_path / "flowy.atoll").write_text(spec)
    g = atoll.load(tmp_path / "flowy.atoll", players=2)
    st = g.new_initial_state(seed=0)
    with pytest.raises(ModelError) as e:
        for _ in range(4):
            st.apply_action(by_label(st, "take_stones(n=2)"))
    assert str(e.value) == message



DRY = """
game dry { title: "Dry" players: 2 }
state {
  last: bag[int] = bag([7]) visible nobody
  empty: bag[int] = bag(list[int]()) visible nobody
  player got: list[int] = [] visible all
}
flow { round { turns in players: pick } }
phase pick "Pick." {
  action draw_last() "Draw the last token." when size(got[me]) == 0
    ensures size(got[me]) == 1 "one token in hand"
  {
    draw c from last
    got[me] = got[me] + [c]
    end turn
  }
  action pass() { end turn }
}
ending over after_round when current_round >= 2 => rank p by size(got[p]) else shared
"""

NONE = """
  action draw_none() "Draw from the empty bag." when size(got[me]) == 0
    ensures size(got[me]) == 1 "one token in hand"
  {
    draw c from empty
    got[me] = got[me] + [c]
    end turn
  }
"""


def test_ensures_runs_a_drawing_effect_on_a_dry_run(tmp_path):
    # An `ensures` over an effect that draws is decided on a copy whose draws
    # take the bag's first item (a bag of one has no second); there, a draw
    # from an empty bag is a model error that names the empty bag
    spec = tmp_path / "dry.atoll"
    spec.write_text(DRY)
    st = atoll.load(spec, players=2).new_initial_state(seed=0)
    assert sorted(a.kind for a in st.legal_actions()) == ["draw_last", "pass"]
    spec.write_text(DRY.replace("  action pass()", NONE + "  action pass()"))
    st = atoll.load(spec, players=2).new_initial_state(seed=0)
    with pytest.raises(ModelError, match="^a rule draws from an empty bag"):
        st.legal_actions()


OBS = """
game obs { title: "Obs" players: 2 }
state {
  player coins: int = 3 visible all
  player secret: int = 5 visible nobody
  player hand: list[int] = [1, 2] visible owner
}
def next_of(p: Player): Player = (p + 1) % player_count
phase shop "Give or rest." {
  action give() when coins[me] >= 1 {
    choose k: int in [1, 2] by next_of(me)
    coins[me] = coins[me] - k
    end turn
  }
  action rest() { coins[me] = coins[me] + 1 end turn }
}
flow { round { turns in players: shop } }
ending late after_round when current_round >= 4 => rank p by coins[p] else shared
"""


def test_an_observation_names_its_player_and_hides_per_player(tmp_path):
    # whose observation it is; a per-player value nobody sees, hidden seat by
    # seat; an owner's value shown to the owner only; a seat out of range
    # refused with the range; the text of a state that waits for a choice
    spec = tmp_path / "obs.atoll"
    spec.write_text(OBS)
    game = atoll.load(spec, players=2)
    st = game.new_initial_state(seed=0)
    ob = st.observation(1)
    assert ob["player"] == 1 and ob["current_player"] == 0
    assert ob["state"]["secret"] == [{"hidden": True}, {"hidden": True}]
    assert ob["state"]["hand"] == [{"hidden": True, "size": 2}, [1, 2]]
    with pytest.raises(ValueError, match=r"^player must be 0\.\.1$"):
        st.observation(2)
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "give"))
    assert game.describe(st).splitlines()[1] == "player 1 to choose k, phase shop"
