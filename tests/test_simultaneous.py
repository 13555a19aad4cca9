"""Simultaneous stages: every player of the stage chooses at a SIMULTANEOUS
node, choices stay hidden until a rule reveals them, and the order in which
they are applied does not change the outcome."""
import itertools
import json
from pathlib import Path

import pytest

import atoll

BIDS = Path(__file__).parent / "good" / "sealed_bids.atoll"


def values(state):
    d = json.loads(state.to_json())
    return d["values"], d["control"][:4], d["outcome"]


def test_all_players_choose_at_a_simultaneous_node():
    g = atoll.load(BIDS, players=3)
    s = g.new_initial_state(seed=0)
    assert s.current_player() == atoll.SIMULTANEOUS and s.is_simultaneous_node()
    legal = s.legal_actions()
    assert sorted({a.player for a in legal}) == [0, 1, 2]
    assert len({a.id for a in legal}) == len(legal) == 9   # the player is part of the id
    assert [str(a) for a in s.legal_actions(player=1)] == [
        "player 1: bid_tokens(n=1)", "player 1: bid_tokens(n=2)", "player 1: bid_tokens(n=3)"]


def test_a_simultaneous_moves_id_is_computed_when_asked_for_and_names_its_player(monkeypatch):
    """Listing the moves of a simultaneous node computes no id; asked for,
    the id is the one of the move and its player; applying a listed move
    computes no other move's id."""
    from atoll.compiler import runtime
    g = atoll.load(BIDS, players=3)
    s = g.new_initial_state(seed=0)
    asked = []
    real = g._action_id
    monkeypatch.setattr(g, "_action_id", lambda *a: asked.append(a) or real(*a))
    legal = s.legal_actions()
    assert asked == [] and all(a._id is runtime._SIMULTANEOUS for a in legal)
    spec = g.action_by_name["bid_tokens"]
    move = legal[4]
    assert move.id == real(spec, move.params, move.player) != real(spec, move.params)
    assert len(asked) == 1
    other = s.legal_actions(player=2)[1]
    s.apply_action(other)
    assert len(asked) == 2 and asked[-1][2] == 2   # the applied move's own id only
    assert all(a._id is runtime._SIMULTANEOUS for a in legal if a is not move and a is not other)


def test_choices_are_hidden_until_revealed():
    g = atoll.load(BIDS, players=2)
    s = g.new_initial_state(seed=0)
    s.apply_action(s.legal_actions(player=0)[2])        # player 0 bids 3
    assert s.observation(1)["state"]["bid"][0] == {"hidden": True}
    assert s.observation(0)["state"]["bid"][0] == 3
    s.apply_action(s.legal_actions(player=1)[0])        # player 1 bids 1: the stage is complete
    assert s.observation(1)["state"]["shown"] == [3, 1]
    assert s.observation(1)["state"]["points"] == [3, 0]


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_the_order_of_the_choices_does_not_matter(order):
    g = atoll.load(BIDS, players=3)
    bids = {0: 2, 1: 3, 2: 2}
    s = g.new_initial_state(seed=0)
    for p in order:
        a = next(a for a in s.legal_actions(player=p) if a.params == (bids[p],))
        s.apply_action(a)
    reference = g.new_initial_state(seed=0)
    for p in (0, 1, 2):
        reference.apply_action(next(a for a in reference.legal_actions(player=p)
                                    if a.params == (bids[p],)))
    assert values(s)[0] == values(reference)[0]
    assert json.loads(s.to_json())["values"][3] == [0, 3, 0]   # points: the lone top bid


def test_saved_game_at_a_simultaneous_node_round_trips():
    g = atoll.load(BIDS, players=3)
    s = g.new_initial_state(seed=0)
    s.apply_action(s.legal_actions(player=1)[0])
    t = g.state_from_json(s.to_json())
    assert t == s and t.current_player() == atoll.SIMULTANEOUS
    assert [a.id for a in t.legal_actions()] == [a.id for a in s.legal_actions()]


def test_illegal_choice_at_a_simultaneous_node_is_refused():
    g = atoll.load(BIDS, players=2)
    s = g.new_initial_state(seed=0)
    before = s.to_json()
    with pytest.raises(atoll.IllegalAction, match="choosing simultaneously"):
        s.apply_action(12345)
    assert s.to_json() == before


PEEK = """
game peek { players: 2..2 }
state { player bid: int = 0 visible owner  player open: int = 0 visible all  pool: int = 0 }
flow { round { simultaneous in players: bidding } }
phase bidding { STUFF }
"""


@pytest.mark.parametrize("stuff, message", [
    ("action go(n: int in [1, 2]) when n > bid[1 - me] { bid[me] = n  end phase }",
     "may not depend on another player's `bid`"),
    ("action go(n: int in [1, 2]) { open[me] = n  end phase }", "visible to all"),
    ("action go(n: int in [1, 2]) { pool = pool + n  end phase }", "only state that nobody sees"),
    ("k: int = 0  action go(n: int in [1, 2]) { bid[me] = n  end phase }", "phase variables"),
    ("action go(n: int in [1, 2]) { bid[1 - me] = n  end phase }", "their own `bid[me]`"),
])
def test_choices_that_could_see_each_other_are_rejected(tmp_path, stuff, message):
    p = tmp_path / "peek.atoll"
    p.write_text(PEEK.replace("STUFF", stuff))
    with pytest.raises(atoll.SpecError) as e:
        atoll.compile_spec(p)
    assert any(d.code == "A0107" and message in d.message for d in e.value.diagnostics), str(e.value)


def test_chance_on_entering_a_simultaneous_stage_in_both_chance_modes():
    import random
    g = atoll.load(Path(__file__).parent / "good" / "secret_cards.atoll", players=3)
    for mode in ("auto", "explicit"):
        s = g.new_initial_state(seed=2, chance=mode)
        rng = random.Random(0)
        kinds = []
        while not s.is_terminal():
            cp = s.current_player()
            kinds.append(cp)
            s.apply_action(s.sample_chance() if cp == atoll.CHANCE else rng.choice(s.legal_actions()))
            assert g.state_from_json(s.to_json()) == s
        if mode == "explicit":
            assert kinds[:3] == [atoll.CHANCE] * 3 and kinds[3] == atoll.SIMULTANEOUS
        else:
            assert kinds[0] == atoll.SIMULTANEOUS and atoll.CHANCE not in kinds
