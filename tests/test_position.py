"""`Game.state_from`: a position set by hand (a worked example of a rulebook),
checked like a saved game, from which play continues."""
import json

import pytest

import atoll
from helpers import MASTERISLANDS, card, pos, position


@pytest.fixture(scope="module")
def game2():
    return atoll.load(MASTERISLANDS, players=2)


EXAMPLE_BOARD = [[pos(0, 0), card("yellow", 5)], [pos(1, 0), card("red", 3)],
                 [pos(2, 0), card("blue", 4)], [pos(3, 0), card("green", 1)],
                 [pos(4, 0), card("blue", 3)]]
EXAMPLE_FLEET = [[pos(1, 0), pos(1, 0)], [pos(4, 1), pos(4, 1)]]


def _values(game, st, name):
    return json.loads(st.to_json())["values"][game.layout.names.index(name)]


def test_worked_example_from_the_rulebook(game2):
    """MasterIslands, Conquest Phase example: 5 + 4 + 1 = 10. The 3 under the
    player's own galleons does not count; the free 3 would make 13."""
    st = game2.state_from({"board": EXAMPLE_BOARD, "fleet": EXAMPLE_FLEET}, phase="conquest", player=0)
    assert (st.current_player(), st.phase(), st.is_terminal()) == (0, "conquest", False)
    conquer = [a for a in st.legal_actions() if a.kind == "conquer"]
    assert [sorted((p[0], p[1]) for p in a.params[0]) for a in conquer] == [[(0, 0), (2, 0), (3, 0)]]
    st.apply_action(conquer[0])
    assert sorted(c["value"] for c in _values(game2, st, "taken")[0]) == [1, 4, 5]
    assert sorted((p[0]["x"], p[0]["y"]) for p in _values(game2, st, "board")) == [(1, 0), (4, 0)]
    assert st.phase() != "conquest" or st.current_player() != 0   # play went on


def test_same_state_as_the_tests_own_builder(game2):
    mine = game2.state_from({"board": EXAMPLE_BOARD, "fleet": EXAMPLE_FLEET}, phase="conquest", player=1)
    theirs = position(game2, "conquest", 1, board=EXAMPLE_BOARD, fleet=EXAMPLE_FLEET)
    a, b = json.loads(mine.to_json()), json.loads(theirs.to_json())
    assert a["values"] == b["values"] and a["control"] == b["control"]
    assert [x.id for x in mine.legal_actions()] == [x.id for x in theirs.legal_actions()]


def test_nothing_given_is_the_fresh_game(game2):
    fresh, st = game2.new_initial_state(seed=4), game2.state_from({}, seed=4)
    a, b = json.loads(fresh.to_json()), json.loads(st.to_json())
    assert a["values"] == b["values"] and a["control"] == b["control"]
    assert [x.id for x in fresh.legal_actions()] == [x.id for x in st.legal_actions()]


def test_phase_variables_not_given_start_as_entering_the_phase_sets_them(game2):
    st = game2.state_from({"board": EXAMPLE_BOARD}, phase="discovery", player=1)
    assert st.current_player() == 1
    assert _values(game2, st, "discovery.placed") is False
    st = game2.state_from({"discovery.moved": True}, phase="discovery")
    assert _values(game2, st, "discovery.moved") is True
    assert {a.kind for a in st.legal_actions()} == {"place"}   # the move is made: only the card


def test_a_hand_set_position_is_not_a_save_of_play(game2):
    """A save's replay of its history is the defence against edited saves: a
    position set by hand saves, but does not load back unless play reaches it."""
    st = game2.state_from({"board": EXAMPLE_BOARD}, phase="conquest", player=0)
    with pytest.raises(atoll.CorruptState) as info:
        game2.state_from_json(st.to_json())
    assert not isinstance(info.value, atoll.BadPosition)


@pytest.mark.parametrize("kw,field,words", [
    (dict(position={"bord": []}), "bord", "did you mean `board`?"),
    (dict(position={"board": [[pos(0, 0), card("purple", 5)]]}), "board[0][1].colour",
     "is not a member of Colour"),
    (dict(position={"board": [[pos(0, 0), {"colour": "red"}]]}), "board[0][1]", "with fields colour, value"),
    (dict(position={"fleet": [[pos(0, 0)]]}), "fleet", "one value per player (2)"),
    (dict(position={"idle": 10 ** 18}), "idle", "past the bound of ints"),
    (dict(position={"idle": "3"}), "idle", "expected an int"),
    (dict(position={"idle": {1, 2}}), None, "JSON values"),
    (dict(position=[("idle", 1)]), None, "expected a dict"),
    (dict(position={}, phase="conquer"), "phase", "did you mean `conquest`?"),
    (dict(position={}, player=2), "player", "player 2 does not play"),
    (dict(position={"discovery.placed": True}, phase="conquest"), "discovery.placed",
     "the position is in phase `conquest`"),
    (dict(position={}, phase="resupply"), "phase", "automatic"),
    (dict(position={"discovery.another": True}, phase="discovery"), "phase", "already over"),
    (dict(position={}, phase="raid"), "phase", "in no stage of the round"),
])
def test_bad_positions_name_the_field(game2, kw, field, words):
    position_ = kw.pop("position")
    with pytest.raises(atoll.BadPosition) as info:
        game2.state_from(position_, **kw)
    err = info.value
    assert isinstance(err, atoll.CorruptState)
    assert err.field == field and words in str(err), str(err)
