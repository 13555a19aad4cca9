"""Rounds that end on a condition: `turns round PLAYERS from v until C`.

The turn goes round the players until C holds (checked when the stage starts
and after every turn); `v` names whose turn it is and, between stages, whose
turn comes next, so the next round starts where this one stopped."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import atoll
from atoll.cli import main

GOOD = Path(__file__).parent / "good" / "card_rounds.atoll"

SMALL = """game g { title: "G" players: 2..4 }
state {
  row: int = 5 visible all
  active: Player = 0 visible all
  player taken: int = 0 visible all
  log: list[int] = [] visible all
}
flow {
  round {
    turns round seats from active until row == 0: take
    turns in [0]: refill
  }
}
phase take {
  action one() { row = row - 1  taken[me] = taken[me] + 1  log = log + [me]  end phase }
  ⟨MORE⟩
}
phase refill { auto { row = 5 } }
ending over after_round when current_round == 3 => tie
"""


def spec(tmp_path, more: str = "", swap: tuple = ()) -> Path:
    text = SMALL.replace("⟨MORE⟩", more)
    for a, b in swap:
        assert a in text
        text = text.replace(a, b)
    path = tmp_path / "g.atoll"
    path.write_text(text)
    return path


def play(path, players: int, pick=lambda acts: acts[0]):
    state = atoll.load(path, players=players).new_initial_state(seed=1)
    rounds = []
    while not state.is_terminal():
        rounds.append((state.round, state.current_player()))
        state.apply_action(pick(state.legal_actions()))
    return state, rounds


@pytest.mark.parametrize("players", [2, 3, 4])
def test_turns_go_round_until_the_condition_and_the_next_player_carries_over(tmp_path, players):
    state, seen = play(spec(tmp_path), players)
    order = [p for _, p in seen]
    # 15 cards taken one a turn, round the table without a break across rounds
    assert order == [i % players for i in range(15)]
    # and each round of the game is five turns, counted by current_round
    assert [r for r, _ in seen] == [1] * 5 + [2] * 5 + [3] * 5
    assert state.ending() == "over"


def test_the_keeper_names_the_player_in_turn_and_then_the_next(tmp_path):
    path = spec(tmp_path)
    state = atoll.load(path, players=3).new_initial_state(seed=1)
    active = lambda: json.loads(state.to_json())["values"][2]   # current_round, row, active
    for expected in [0, 1, 2, 0, 1]:
        assert state.current_player() == expected == active()
        state.apply_action(state.legal_actions()[0])
    # round 1 is over after player 1 took the last card: player 2 is next
    assert state.round == 2 and active() == 2 == state.current_player()


def test_a_rule_that_sets_the_keeper_redirects_the_turn(tmp_path):
    """`skip` sets the keeper to the next player, so the turn passes over them."""
    more = "action skip() when row == 5 { row = row - 1  active = (me + 1) % player_count  end phase }"
    state = atoll.load(spec(tmp_path, more), players=3).new_initial_state(seed=1)
    state.apply_action([a for a in state.legal_actions() if a.kind == "skip"][0])
    assert state.current_player() == 2   # player 1 was skipped


def test_a_stage_whose_condition_holds_at_the_start_is_skipped(tmp_path):
    path = spec(tmp_path, swap=[(" until row == 0", " until row == 0 or current_round == 2")])
    _, seen = play(path, 2)
    assert [r for r, _ in seen] == [1] * 5 + [3] * 5   # round 2 had no turn at all


def test_without_from_every_such_stage_starts_with_the_first_player(tmp_path):
    path = spec(tmp_path, swap=[(" from active", "")])
    _, seen = play(path, 3)
    assert [p for _, p in seen] == [0, 1, 2, 0, 1] * 3


def test_the_players_list_is_followed_and_a_keeper_outside_it_moves_on(tmp_path):
    """Only seats 1 and 3 play; the keeper starts at 0, which is not among
    them, so the first turn is seat 1's."""
    path = spec(tmp_path, swap=[("round seats", "round [1, 3]")])
    _, seen = play(path, 4)
    assert [p for _, p in seen] == [1, 3] * 7 + [1]   # and the turn carries over between rounds


def test_a_keeper_that_is_not_a_seat_is_a_model_error(tmp_path):
    more = "action away() when row == 5 { row = row - 1  active = 7  end phase }"
    state = atoll.load(spec(tmp_path, more), players=2).new_initial_state(seed=1)
    before = state.to_json()
    with pytest.raises(atoll.ModelError, match=r"`active` holds 7, which is not a seat"):
        state.apply_action([a for a in state.legal_actions() if a.kind == "away"][0])
    assert state.to_json() == before   # refused, nothing changed


def test_saves_load_back_and_a_bad_turn_count_is_refused(tmp_path):
    path = spec(tmp_path)
    game = atoll.load(path, players=3)
    state = game.new_initial_state(seed=1)
    for _ in range(7):   # into the second lap of round 2
        state.apply_action(state.legal_actions()[0])
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text
    d = json.loads(text)
    assert d["control"][2] >= 3   # turns taken in the stage, past one lap
    d["control"][2] = -1
    with pytest.raises(atoll.CorruptState) as e:
        game.state_from_json(json.dumps(d))
    assert e.value.field == "control[2]"


def test_the_shipped_example_plays_verifies_and_is_documented(tmp_path, capsys):
    state, seen = play(GOOD, 3, pick=lambda acts: acts[-1])   # take two whenever possible
    # 5 cards: 2 + 2 + 1, so every round is one lap and starts with player 0 again
    assert [p for _, p in seen] == [0, 1, 2] * 3
    assert main(["verify", str(GOOD), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    verdicts = {r["property"]: r["verdict"] for r in out["results"]}
    assert verdicts == {"in_turn": "PROVED", "rounds_end": "PROVED"}
    text = Path(Path(__file__).parent.parent / "docs" / "language.md").read_text()
    assert "turns round seats from active until row == 0: take" in text


def test_the_lexer_knows_the_new_words():
    from atoll.pygments_lexer import AtollLexer
    from pygments.token import Keyword
    toks = list(AtollLexer().get_tokens("turns round seats from active until row == 0: take"))
    assert (Keyword, "round") in toks and (Keyword, "until") in toks


def test_a_position_set_by_hand_follows_the_keeper(tmp_path):
    """Game.state_from in a `turns round` stage: the keeper names the player
    to act (given alone it chooses the player; given with another player it
    is refused), and play goes on round the table from there."""
    game = atoll.load(spec(tmp_path), players=3)
    st = game.state_from({"row": 2, "active": 2}, phase="take")
    assert st.current_player() == 2
    st.apply_action(st.legal_actions()[0])
    assert st.current_player() == 0 and json.loads(st.to_json())["values"][2] == 0
    st = game.state_from({"row": 2}, phase="take", player=1)
    assert json.loads(st.to_json())["values"][2] == 1   # set to the player to act
    with pytest.raises(atoll.CorruptState) as e:
        game.state_from({"row": 2, "active": 2}, phase="take", player=1)
    assert e.value.field == "active"


def test_a_game_over_after_a_round_that_ends_with_turns_round_saves_and_loads(tmp_path):
    """The round's last stage is the `turns round` one: the game ends after
    it with the turn count left in the control, and the save loads back
    (it was refused as out of range; found by the fuzz run)."""
    path = spec(tmp_path, swap=[("    turns round seats from active until row == 0: take\n    turns in [0]: refill\n",
                                 "    turns in [0]: refill\n    turns round seats from active until row == 0: take\n")])
    game = atoll.load(path, players=3)
    state, _ = play(path, 3)
    assert state.is_terminal()
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text


def test_a_score_that_fails_is_a_model_error(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(SMALL.replace("⟨MORE⟩", "") + "score p = [1, 2][p + 5]\n")
    state = atoll.load(path, players=2).new_initial_state(seed=1)
    with pytest.raises(atoll.ModelError, match=r"evaluating the score: index \d+ is outside"):
        state.scores()
