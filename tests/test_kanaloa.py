"""Kanaloa rules: each worked example of the rulebook played on the model,
from purpose-made positions on the board the spec loads. The same examples
are `example` declarations in the spec (run by `atoll verify`, checked by
tests/test_examples.py); these tests state them from Python, with the
majorities computed here from the board data, independently of the spec.

The spec names a bridge place by the two islands it joins; these tests number
them by their position in spec/data/kanaloa_board.json (see P):
Lusepil's are 0-6 (0 leads to Nuridan), Nuridan's 0, 7, 13, 19, 32, Opodopo's
1, 7, 8, 20, 25, Kemu's 25, 26, 27 and Ahuna's 2, 8, 9, 21, 26."""
import json

import pytest

import atoll
from helpers import KANALOA, position


BOARD = json.loads((KANALOA.parent / "data" / "kanaloa_board.json").read_text())


def P(n: int) -> tuple:
    """Bridge place number n of the board data, as the model names it."""
    return tuple(BOARD["bridge_places"][n])


@pytest.fixture(scope="module")
def games():
    return {n: atoll.load(KANALOA, players=n) for n in (3, 4)}


def bridges_map(owners: dict[int, list[int]]) -> list:
    """The JSON of the `bridges` map: place number -> owner, for the given owners."""
    return sorted([list(P(b)), p] for p, places in owners.items() for b in places)


def places(state_bridges) -> list[int]:
    """The place numbers of a `bridges` map read back from JSON."""
    return sorted(BOARD["bridge_places"].index(k) for k, _ in state_bridges)


def at(game, phase="play", player=0, **values):
    """A position in a turn of the first or the second stage (the flow's
    first or second round), with the turn going round every seat."""
    return position(game, phase, player, round_index=values.get("stage", 1) - 1, active=player, **values)


def value(game, state, name):
    return json.loads(state.to_json())["values"][game.layout.names.index(name)]


def kinds(state):
    return sorted({a.kind for a in state.legal_actions()})


def fill(game, owners, island, place, hand=None):
    """Player 0 plays a card of ``island`` on ``place`` with the given bridges."""
    n = game.num_players
    hands = [[island] + (hand or [])] + [[] for _ in range(n - 1)]
    st = at(game, bridges=bridges_map(owners), hand=hands)
    build = next(a for a in st.legal_actions()
                 if a.kind == "build" and a.params == (island, P(place)))
    st.apply_action(build)
    return st


def removal_choices(state):
    return sorted(BOARD["bridge_places"].index(list(a.params[0]))
                  for a in state.legal_actions() if a.kind == "remove_bridge")


# ---------------------------------------------------------------- relative majority, chosen

def test_big_island_2_1_1_1_active_player_chooses(games):
    """Relative Majority, big island 2-1-1-1: the active player removes one
    opposing bridge of their choice, then goes on with the turn."""
    g = games[4]
    st = fill(g, {0: [13], 1: [19], 2: [32], 3: [7]}, "Nuridan", 0)
    assert kinds(st) == ["remove_bridge"]            # the removal comes first
    assert removal_choices(st) == [7, 19, 32]
    st.apply_action(next(a for a in st.legal_actions() if a.params == (P(19),)))
    assert places(value(g, st, "bridges")) == [0, 7, 13, 32]
    assert "finish" in kinds(st)                     # the turn continues
    assert value(g, st, "stones") == []


@pytest.mark.parametrize("players,owners", [
    (3, {0: [1, 2], 1: [3, 4], 2: [5, 6]}),          # Lusepil 3-2-2
    (4, {0: [1, 2], 1: [3, 4], 2: [5], 3: [6]}),     # Lusepil 3-2-1-1
])
def test_lusepil_sole_relative_majority(games, players, owners):
    g = games[players]
    st = fill(g, owners, "Lusepil", 0)
    assert removal_choices(st) == [3, 4, 5, 6]
    illegal = next(a for a in at(g).legal_actions() if a.kind == "finish")
    with pytest.raises(atoll.IllegalAction, match="must be removed first"):
        st.apply_action(illegal)


# ---------------------------------------------------------------- relative majority, shared

@pytest.mark.parametrize("players,island,owners,removed", [
    (3, "Nuridan", {0: [13], 1: [19, 32], 2: [7]}, 7),              # big 2-2-1
    (3, "Lusepil", {0: [1, 2], 1: [3, 4, 5], 2: [6]}, 6),           # Lusepil 3-3-1
    (4, "Lusepil", {0: [1], 1: [2, 3], 2: [4, 5], 3: [6]}, 6),      # Lusepil 2-2-2-1
])
def test_shared_majority_removes_the_single_bridge(games, players, island, owners, removed):
    g = games[players]
    st = fill(g, owners, island, 0)
    left = places(value(g, st, "bridges"))
    assert removed not in left
    assert sorted(left) == sorted([0] + [b for bs in owners.values() for b in bs if b != removed])
    assert "remove_bridge" not in kinds(st)


def test_no_removal_for_a_player_behind(games):
    g = games[3]
    st = fill(g, {0: [1], 1: [2, 3, 4], 2: [5, 6]}, "Lusepil", 0)
    assert len(value(g, st, "bridges")) == 7
    assert "remove_bridge" not in kinds(st)


def test_small_island_never_relative(games):
    """Relative Majority: the rule does not apply to small islands (1-1-1 on Kemu)."""
    g = games[3]
    st = fill(g, {1: [26], 2: [27]}, "Kemu", 25)
    assert len(value(g, st, "bridges")) == 3
    assert "remove_bridge" not in kinds(st)


def test_only_the_last_free_place_triggers(games):
    """A relative majority without filling the last place removes nothing."""
    g = games[4]
    st = fill(g, {0: [13], 1: [19], 2: [32]}, "Nuridan", 0)   # 2-1-1, one place still free
    assert len(value(g, st, "bridges")) == 4
    assert "remove_bridge" not in kinds(st)


# ---------------------------------------------------------------- absolute majority and the cascade

def test_absolute_majority_stone_and_cascade(games):
    """Absolute Majority: winning Opodopo (3 of 5) places a stone and removes the
    other players' bridges there; player 1 loses the bridge 8 that gave them
    Ahuna (3 of 5), so player 1's stone on Ahuna goes too."""
    g = games[3]
    owners = {0: [1, 20], 1: [8, 9, 21], 2: [7]}
    hands = [["Opodopo"], [], []]
    st = at(g, bridges=bridges_map(owners), hand=hands, stones=[["Ahuna", 1]])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "build" and a.params == ("Opodopo", P(25))))
    assert value(g, st, "stones") == [["Opodopo", 0]]
    assert bridges_map({0: [1, 20, 25], 1: [9, 21]}) == value(g, st, "bridges")


# Player 0's bridges in a position where they hold 10 islands by absolute
# majority (found by a search over the board data), Opodopo at 2 of 5.
TEN = [0, 1, 2, 3, 5, 9, 10, 11, 12, 13, 14, 16, 17, 19, 20, 21, 23, 26, 27]


def majorities(mine):
    """Islands where the bridges ``mine`` are an absolute majority (computed
    here from the board data, independently of the spec)."""
    out = []
    for isl in BOARD["islands"]:
        held = sum(1 for b in mine if isl["name"] in BOARD["bridge_places"][b])
        if 2 * held > isl["bridge_places"]:
            out.append(isl["name"])
    return sorted(out)


def test_eleventh_island_wins_at_once(games):
    """Premature Ending: with all ten stones placed, the 11th island wins."""
    g = games[3]
    held = majorities(TEN)
    assert len(held) == 10 and "Opodopo" not in held
    st = at(g, bridges=bridges_map({0: TEN}), hand=[["Opodopo"], [], []], stones=[[i, 0] for i in held])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "build" and a.params == ("Opodopo", P(25))))
    assert st.is_terminal()
    assert st.returns() == [1.0, -1.0, -1.0]


def test_tenth_island_is_not_yet_a_win(games):
    g = games[3]
    mine = [b for b in TEN if b != 14]          # without a Fetu bridge: 9 islands
    held = majorities(mine)
    assert len(held) == 9 and "Opodopo" not in held
    st = at(g, bridges=bridges_map({0: mine}), hand=[["Opodopo"], [], []], stones=[[i, 0] for i in held])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "build" and a.params == ("Opodopo", P(25))))
    assert not st.is_terminal()
    assert [i for i, _ in value(g, st, "stones")] == sorted(held + ["Opodopo"])


# ---------------------------------------------------------------- cards and bridges

def test_bridge_exchange_pairs(games):
    """Playing Cards, bridge exchange: a red bridge on Nuridan-Opodopo (place 7)
    can be exchanged with two Nuridan cards, two Opodopo cards, or one of each."""
    g = games[3]
    hands = [["Nuridan", "Nuridan", "Opodopo", "Opodopo"], [], []]
    st = at(g, bridges=bridges_map({1: [7]}), hand=hands)
    pairs = sorted(a.params[1] for a in st.legal_actions() if a.kind == "exchange" and a.params[0] == P(7))
    assert pairs == [("Nuridan", "Nuridan"), ("Nuridan", "Opodopo"), ("Opodopo", "Opodopo")]
    st.apply_action(next(a for a in st.legal_actions()
                         if a.kind == "exchange" and a.params == (P(7), ("Nuridan", "Opodopo"))))
    assert value(g, st, "bridges") == bridges_map({0: [7]})
    assert value(g, st, "hand")[0] == ["Nuridan", "Opodopo"]


def test_exchange_needs_both_cards(games):
    g = games[3]
    st = at(g, bridges=bridges_map({1: [7]}), hand=[["Nuridan", "Lusepil"], [], []])
    assert not [a for a in st.legal_actions() if a.kind == "exchange"]


def test_out_of_bridges(games):
    """Premature Ending: with all 20 bridges placed, a card can take one back,
    but not to lay it on the same place in that turn."""
    g = games[3]
    mine = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 22]
    st = at(g, bridges=bridges_map({0: mine}), hand=[["Fetu", "Fetu"], [], []],
            stones=[])
    assert "build" not in kinds(st)
    recall = next(a for a in st.legal_actions() if a.kind == "recall" and a.params == ("Fetu", P(14)))
    st.apply_action(recall)
    free = [a.params[1] for a in st.legal_actions() if a.kind == "build"]
    assert P(14) not in free and free   # another of Fetu's free places is fine


def test_hand_limit_and_making_room(games):
    """Playing Cards: at most four cards in hand before taking; a full hand
    discards face down first (the take is then required)."""
    g = games[3]
    full = ["Lusepil", "Kemu", "Kemu", "Rua", "Pele"]
    st = at(g, phase="take", hand=[full, [], []])
    assert kinds(st) == ["make_room"]
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "make_room"))
    assert kinds(st) == ["take_blind", "take_open"]


def test_display_refills(games):
    g = games[3]
    st = at(g, phase="take", hand=[[], [], []])
    before, bag_before = value(g, st, "display"), len(value(g, st, "material"))
    take = next(a for a in st.legal_actions() if a.kind == "take_open")
    st.apply_action(take)
    after = value(g, st, "display")
    assert value(g, st, "hand")[0] == [take.params[0]]
    assert len(after) == 4 and len(value(g, st, "material")) == bag_before - 1   # refilled from the bag
    rest = list(before)
    rest.remove(take.params[0])
    assert all(after.count(c) >= rest.count(c) for c in rest)   # the other three stay


# ---------------------------------------------------------------- stages, scoring, end

def test_stage_one_end_small_scoring_and_start_choice(games):
    """First Stage End: taking the last card scores the controlled islands
    (Kemu with 2 own bridges: 1 point); the discards are mixed, four cards are
    laid out, and the player with fewest points (ties: the one who went first)
    chooses who starts the second stage."""
    g = games[3]
    played = ["Calu", "Doroa", "Elani", "Fetu", "Hiva"]
    st = at(g, phase="take", hand=[["Rua"], ["Pele"], ["Malu"]], display=["Jolo"], material=[],
            played=played, bridges=bridges_map({0: [25, 26]}), stones=[["Kemu", 0]])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "take_open"))
    assert value(g, st, "points") == [1, 0, 0]
    assert value(g, st, "choosing") is True
    assert len(value(g, st, "display")) == 4
    assert st.current_player() == 1                      # seats 1 and 2 tie on 0: seat 1 went first
    assert sorted(a.params[0] for a in st.legal_actions()) == [0, 1, 2]
    st.apply_action(next(a for a in st.legal_actions() if a.params == (2,)))
    assert st.current_player() == 2 and value(g, st, "stage") == 2


def test_final_scoring_and_tie_break(games):
    """Scoring and Game End: the big scoring adds one point per controlled island;
    on equal points, the player who ended their turn earlier wins."""
    g = games[3]
    st = at(g, phase="take", player=2, hand=[[], [], []], display=["Jolo"], material=[],
            stage=2, turns_done=[5, 5, 4], last_end=[20, 21, 19], turn_count=21,
            points=[4, 2, 6], bridges=bridges_map({1: [25, 26]}), stones=[["Kemu", 1]])
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "take_open"))
    assert st.is_terminal()
    assert value(g, st, "points") == [4, 4, 6]          # seat 1: Kemu 1 + 1 in the big scoring
    assert st.returns() == [-1.0, -1.0, 1.0]
    st2 = at(g, phase="take", player=2, hand=[[], [], []], display=["Jolo"], material=[],
             stage=2, turns_done=[5, 5, 4], last_end=[20, 21, 19], turn_count=21,
             points=[6, 2, 6], bridges=bridges_map({1: [25, 26]}), stones=[["Kemu", 1]])
    st2.apply_action(next(a for a in st2.legal_actions() if a.kind == "take_open"))
    assert st2.returns() == [1.0, -1.0, -1.0]           # 6 = 6: seat 0 ended its turn first


def test_second_stage_waits_for_even_turns(games):
    g = games[3]
    st = at(g, phase="take", player=1, hand=[[], [], []], display=["Jolo"], material=[],
            stage=2, turns_done=[5, 4, 4], last_end=[20, 18, 19], turn_count=20)
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "take_open"))
    assert not st.is_terminal() and st.current_player() == 2
    st.apply_action(next(a for a in st.legal_actions() if a.kind == "finish"))
    assert st.is_terminal()


# ---------------------------------------------------------------- the majority function, checked exhaustively

def outcome(game, kind, own, others):
    """`fill_rule` as the generated module runs it (enums run as their index)."""
    state = game.new_initial_state(seed=0)
    result = game.ns["d_fill_rule"](state.S, game.codec.enums["Size"].index(kind), own, tuple(others))
    return game.codec.enums["Fill"][result]


def test_fill_rule_table_agrees_with_the_model(games):
    """The verified `fill_rule` is the function the model runs: every outcome
    class of the rulebook's examples, through the generated code."""
    g = games[4]
    assert outcome(g, "big", 2, [1, 1, 1]) == "active_chooses"
    assert outcome(g, "main", 3, [2, 1, 1]) == "active_chooses"
    assert outcome(g, "big", 2, [2, 1, 0]) == "single_removed"
    assert outcome(g, "main", 2, [2, 2, 1]) == "single_removed"
    assert outcome(g, "main", 2, [3, 1, 1]) == "nothing"
    assert outcome(g, "small", 1, [1, 1, 0]) == "nothing"
    assert outcome(g, "main", 4, [1, 1, 1]) == "stone"


# ---------------------------------------------------------------- the board is data

def test_board_properties_judge_whatever_board_is_loaded(tmp_path):
    """A variant can swap in another board (say, the real one once known):
    the board properties then check it. Here the Lusepil-Nuridan place is
    moved to join Nuridan and Opodopo a second time: still 37 places, but
    Lusepil has 6 and Opodopo 6, which the degree property catches."""
    from atoll.verify.runner import run
    board = json.loads(json.dumps(BOARD))
    board["bridge_places"] = board["bridge_places"][1:] + [["Nuridan", "Opodopo"]]
    (tmp_path / "board.json").write_text(json.dumps(board))
    variant = tmp_path / "other_board.atoll"
    variant.write_text(f'extends "{KANALOA.as_posix()}"\n\n'
                       'override links\n'
                       'data links: list[list[str]] from "board.json" key "bridge_places"\n')
    results = {r.property: r.verdict for r in
               run(str(variant), only=["board_kinds", "board_degrees", "board_connected", "board_planar"])}
    assert results == {"board_kinds": "PROVED", "board_degrees": "VIOLATED",
                       "board_connected": "PROVED", "board_planar": "PROVED"}
