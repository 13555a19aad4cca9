"""MasterIslands rules: the rulebook's worked example and each rule by a
purpose-made position. The worked examples are also `example` declarations
in the spec (run by `atoll verify`, checked by tests/test_examples.py)."""
import json

import pytest

import atoll
from helpers import MASTERISLANDS, card, pos, position


@pytest.fixture(scope="module")
def game2():
    return atoll.load(MASTERISLANDS, players=2)


def conquests(state):
    return sorted(sorted((p[0], p[1]) for p in a.params[0])
                  for a in state.legal_actions() if a.kind == "conquer")


def test_worked_example_5_4_1(game2):
    """Conquest Phase example: 5 + 4 + 1 = 10; the 3 under the player's own
    galleons is excluded; the free 3 is useless (it would make 13)."""
    board = [[pos(0, 0), card("yellow", 5)], [pos(1, 0), card("red", 3)],
             [pos(2, 0), card("blue", 4)], [pos(3, 0), card("green", 1)],
             [pos(4, 0), card("blue", 3)]]
    st = position(game2, "conquest", 0, board=board,
                  fleet=[[pos(1, 0), pos(1, 0)], [pos(4, 1), pos(4, 1)]])
    assert conquests(st) == [[(0, 0), (2, 0), (3, 0)]]
    take = next(a for a in st.legal_actions() if a.kind == "conquer")
    st.apply_action(take)
    d = json.loads(st.to_json())
    taken = d["values"][game2.layout.names.index("taken")][0]
    assert sorted(c["value"] for c in taken) == [1, 4, 5]
    board_after = d["values"][game2.layout.names.index("board")]
    assert sorted((p[0]["x"], p[0]["y"]) for p in board_after) == [(1, 0), (4, 0)]


def test_free_3_would_be_taken_if_it_helped(game2):
    """Mutation of the example: with the player's galleons elsewhere, the 3 is free."""
    board = [[pos(0, 0), card("yellow", 5)], [pos(1, 0), card("red", 3)],
             [pos(2, 0), card("blue", 2)]]
    st = position(game2, "conquest", 0, board=board,
                  fleet=[[pos(0, 5), pos(0, 5)], [pos(9, 9), pos(9, 9)]])
    assert conquests(st) == [[(0, 0), (1, 0), (2, 0)]]


def test_lines_may_be_diagonal_and_have_gaps(game2):
    board = [[pos(0, 0), card("red", 5)], [pos(2, 2), card("red", 5)],
             [pos(1, 5), card("red", 5)], [pos(9, 0), card("red", 5)]]
    st = position(game2, "conquest", 0, board=board,
                  fleet=[[pos(1, 5), pos(1, 5)], [pos(1, 5), pos(1, 5)]])
    assert conquests(st) == [[(0, 0), (2, 2)], [(0, 0), (9, 0)]]


def test_line_gaps_house_rule():
    board = [[pos(0, 0), card("red", 5)], [pos(2, 0), card("red", 5)],
             [pos(0, 3), card("blue", 4)], [pos(0, 4), card("blue", 1)], [pos(0, 5), card("red", 5)]]
    fleet = [[pos(9, 9), pos(9, 9)], [pos(9, 9), pos(9, 9)]]
    anything = atoll.load(MASTERISLANDS, players=2)
    cards_only = atoll.load(MASTERISLANDS, players=2, options={"line_gaps": "cards_only"})
    assert conquests(position(anything, "conquest", 0, board=board, fleet=fleet)) == [
        [(0, 0), (0, 3), (0, 4)], [(0, 0), (0, 5)], [(0, 0), (2, 0)], [(0, 3), (0, 4), (0, 5)]]
    # (1,0), (0,1) and (0,2) are empty: only the run 4, 1, 5 has no hole
    assert conquests(position(cards_only, "conquest", 0, board=board, fleet=fleet)) == [
        [(0, 3), (0, 4), (0, 5)]]
    board.append([pos(1, 0), card("red", 2)])
    assert [(0, 0), (2, 0)] in conquests(position(cards_only, "conquest", 0, board=board, fleet=fleet))


def test_other_galleons_house_rule():
    board = [[pos(0, 0), card("red", 5)], [pos(1, 0), card("red", 5)]]
    fleet = [[pos(5, 5), pos(5, 5)], [pos(1, 0), pos(1, 0)]]
    stay = atoll.load(MASTERISLANDS, players=2, options={"others_galleons": "stay"})
    block = atoll.load(MASTERISLANDS, players=2, options={"others_galleons": "block"})
    assert conquests(position(stay, "conquest", 0, board=board, fleet=fleet)) == [[(0, 0), (1, 0)]]
    assert conquests(position(block, "conquest", 0, board=board, fleet=fleet)) == []


def test_victory_threshold_ends_the_game(game2):
    board = [[pos(0, 0), card("red", 5)], [pos(1, 0), card("red", 5)]]
    st = position(game2, "conquest", 1, board=board,
                  fleet=[[pos(5, 5), pos(5, 5)], [pos(3, 3), pos(3, 3)]],
                  taken=[[], [card("blue", 1)] * 10])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "conquer"))
    assert st.is_terminal() and st.winners() == (1,)
    assert st.returns() == [-1.0, 1.0]
    assert st.scores() == [0, 12]


def test_placement_next_to_own_galleon_and_extra_discovery(game2):
    board = [[pos(0, 0), card("red", 2)]]
    st = position(game2, "discovery", 0, board=board,
                  fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]],
                  hand=[[card("red", 1), card("blue", 1)], []])
    places = {str(a) for a in st.legal_actions() if a.kind == "place"}
    assert places == {f"place(c=Card({c}, 1), at=({x},{y}))" for c in ("red", "blue")
                      for x, y in [(0, -1), (1, 0), (0, 1), (-1, 0)]}
    # Moving first is impossible (no card next to the start), so only placing is legal.
    assert {a.kind for a in st.legal_actions()} == {"place"}
    red = next(a for a in st.legal_actions() if str(a) == "place(c=Card(red, 1), at=(1,0))")
    st.apply_action(red)
    sail = [a for a in st.legal_actions() if a.kind == "sail"]
    assert {a.params[1] for a in sail} == {(1, 0)}
    st.apply_action(sail[0])
    # Same colour as the card under the galleon: player 0 may take another Discovery.
    assert st.current_player() == 0 and st.phase() == "discovery"
    assert sorted(a.kind for a in st.legal_actions()) == ["discover_again", "move_on"]
    declined = st.clone()
    declined.apply_action(next(a for a in declined.legal_actions() if a.kind == "move_on"))
    assert declined.phase() == "conquest" and declined.current_player() == 0
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "discover_again"))
    assert st.phase() == "discovery" and st.current_player() == 0
    assert {a.kind for a in st.legal_actions()} == {"place", "sail"}


def test_different_colour_goes_to_conquest(game2):
    st = position(game2, "discovery", 0, board=[[pos(0, 0), card("red", 2)]],
                  fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]],
                  hand=[[card("blue", 1)], []])
    st.apply_action(st.legal_actions()[0])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "sail"))
    assert st.phase() == "conquest" and st.current_player() == 0


def test_illegal_action_names_rule_and_citation(game2):
    st = position(game2, "discovery", 0, board=[[pos(0, 0), card("red", 2)]],
                  fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]],
                  hand=[[card("blue", 1)], []])
    before = st.to_json()
    # Sailing first would leave no place to lay the card: the `ensures` forbids it.
    probe = position(game2, "discovery", 0, board=[[pos(0, 0), card("red", 2)], [pos(1, 0), card("red", 3)]],
                     fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]],
                     hand=[[card("blue", 1)], []])
    sail = next(a for a in probe.legal_actions() if a.kind == "sail")
    with pytest.raises(atoll.IllegalAction) as e:
        st.apply_action(sail)
    assert "1. Discovery Phase" in str(e.value)
    assert st.to_json() == before
    with pytest.raises(atoll.IllegalAction, match="phase `conquest`"):
        cq = position(game2, "conquest", 0, board=[[pos(0, 0), card("red", 2)]],
                      fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]])
        st.apply_action(next(a for a in cq.legal_actions() if a.kind == "pass_conquest"))
    with pytest.raises(atoll.IllegalAction, match="no legal action has id 7"):
        st.apply_action(7)
    assert st.to_json() == before


def test_resupply_draws_back_to_three_and_last_card_ends(game2):
    st = position(game2, "conquest", 0, hand=[[card("red", 1)], []],
                  pile=[card("blue", 2), card("blue", 4)], taken=[[card("red", 5)], []],
                  fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "pass_conquest"))
    # Resupply drew both remaining cards; the last one ended the game at once.
    assert st.is_terminal() and st.ending() == "pile_empty"
    assert st.winners() == (0,)
    hand = json.loads(st.to_json())["values"][game2.layout.names.index("hand")][0]
    assert sorted(c["value"] for c in hand) == [1, 2, 4]


def test_alternative_ending_tie_breaks(game2):
    def end_with(taken):
        st = position(game2, "conquest", 0, hand=[[], []], pile=[card("blue", 2)], taken=taken,
                      fleet=[[pos(0, 0), pos(0, 0)], [pos(0, 0), pos(0, 0)]])
        st.apply_action(next(a for a in st.legal_actions() if a.kind == "pass_conquest"))
        assert st.ending() == "pile_empty"
        return st.winners()
    assert end_with([[card("red", 1)], [card("red", 1), card("red", 1)]]) == (1,)
    assert end_with([[card("red", 5)], [card("red", 1)]]) == (0,)
    assert end_with([[card("red", 3)], [card("blue", 3)]]) == ()   # a draw


def test_cooperative_needs_four_players():
    with pytest.raises(atoll.SpecError) as e:
        atoll.load(MASTERISLANDS, players=3, options={"mode": "cooperative"})
    assert "A0303" in str(e.value) and "exactly 4 players" in str(e.value)


def test_bad_options_are_clear_errors():
    with pytest.raises(atoll.SpecError, match="did you mean `mode`"):
        atoll.load(MASTERISLANDS, players=2, options={"mdoe": "corsair"})
    with pytest.raises(atoll.SpecError, match="expected one of standard, cooperative, corsair"):
        atoll.load(MASTERISLANDS, players=2, options={"mode": "pirate"})
    with pytest.raises(atoll.SpecError, match="2 to 4 players"):
        atoll.load(MASTERISLANDS, players=5)


def test_corsair_turn_order_and_mission_limit():
    g = atoll.load(MASTERISLANDS, players=3, options={"mode": "corsair", "mission": "hard"})
    st = g.new_initial_state(seed=3)
    seen = []
    while not st.is_terminal():
        if not seen or seen[-1] != (st.round, st.phase(), st.current_player()):
            seen.append((st.round, st.phase(), st.current_player()))
        st.apply_action(st.legal_actions()[-1])
    first_round = [(ph, p) for r, ph, p in seen if r == 1]
    assert first_round[:4] == [("discovery", 1), ("discovery", 2), ("raid", 0), ("conquest", 1)]
    assert st.round <= 4
    assert st.ending() in ("mission_failed", "action conquer", "pile_empty_corsair")


def test_corsair_galleons_block_the_mission():
    g = atoll.load(MASTERISLANDS, players=3, options={"mode": "corsair"})
    free = atoll.load(MASTERISLANDS, players=3, options={"mode": "corsair", "corsair_blocks": "false"})
    board = [[pos(0, 0), card("red", 5)], [pos(1, 0), card("red", 5)]]
    fleet = [[pos(1, 0), pos(7, 7)], [pos(5, 5)], [pos(6, 6)]]   # seat 0 is the Corsair
    assert conquests(position(g, "conquest", 1, board=board, fleet=fleet)) == []
    assert conquests(position(free, "conquest", 1, board=board, fleet=fleet)) == [[(0, 0), (1, 0)]]
