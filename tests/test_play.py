"""Random legal play of every shipped game, mode and variant (OpenSpiel's
random-simulation test is the model), checking the model's contract at
every step."""
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

import atoll
from contracts import check_hidden, check_outcome, collect_hidden
from helpers import MASTERISLANDS, SPEC

MAX_STEPS = 400   # above the longest games seen (MasterIslands about 110 actions, Kanaloa about 260)

# (spec, players, options): every mode and player count the game allows.
CONFIGS = [(MASTERISLANDS, n, {}) for n in (2, 3, 4)] + [
    (MASTERISLANDS, 4, {"mode": "cooperative"}),
    (MASTERISLANDS, 3, {"mode": "corsair"}),
    (MASTERISLANDS, 4, {"mode": "corsair", "mission": "easy"}),
    (MASTERISLANDS, 3, {"line_gaps": "cards_only"}),
    (MASTERISLANDS, 2, {"others_galleons": "block", "discovery_stuck": "partial",
                        "sail_to_empty": True}),
] + [(g, n, {}) for g in sorted(SPEC.glob("*.atoll")) if g != MASTERISLANDS
      for n in range(atoll.compile_spec(g).program.player_range[0],
                     atoll.compile_spec(g).program.player_range[1] + 1)] \
  + [(v, None, {}) for v in sorted((SPEC / "variants").glob("*.atoll"))]

_GAMES = {}


def game_for(i):
    path, n, opts = CONFIGS[i]
    if i not in _GAMES:
        _GAMES[i] = atoll.load(path, players=n, options=opts)
    return _GAMES[i]


def illegal_probe(state, legal):
    """An action id that is not legal now."""
    ids = {a.id for a in legal}
    k = 1
    while k in ids:
        k += 1
    return k


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(config=st_.integers(0, len(CONFIGS) - 1), seed=st_.integers(0, 2**32 - 1))
def test_random_play_keeps_the_contract(config, seed):
    game = game_for(config)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    n = game.num_players
    pool = {}
    for step in range(MAX_STEPS):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert legal, f"deadlock at step {step}:\n{state}"
        assert len({a.id for a in legal}) == len(legal), "action ids must be distinct"
        mover = state.current_player()   # a seat, or everyone at a simultaneous choice
        assert 0 <= mover < n or (mover == atoll.SIMULTANEOUS and state.is_simultaneous_node()
                                  and all(0 <= a.player < n for a in legal)), mover
        # clone equality and JSON round trip (equality of states is equality of their JSON)
        before = state.to_json()
        c = state.clone()
        assert c.to_json() == before
        if step % 20 == 0:   # a load replays the game: every step would make the test quadratic
            assert game.state_from_json(before).to_json() == before
        # an illegal action is refused and changes nothing
        with pytest.raises(atoll.IllegalAction):
            state.apply_action(illegal_probe(state, legal))
        assert state.to_json() == before
        # observations are JSON, and never show another player's hidden parts:
        # a state that differs only there looks the same to every other player
        for p in range(n):
            json.dumps(state.observation(p))
        if step % 25 == 0:
            check_hidden(game, state, pool)
        collect_hidden(game, state, pool)
        a = rng.choice(legal)
        assert str(a) and isinstance(a.id, int)
        state.apply_action(a)
    assert state.is_terminal(), f"no end within {MAX_STEPS} actions"
    check_outcome(game, state)   # returns() agrees with winners() and the ending
    assert state.legal_actions() == []
    with pytest.raises(atoll.IllegalAction, match="the game is over"):
        state.apply_action(1)


def test_same_seed_same_actions_same_game():
    g = atoll.load(MASTERISLANDS, players=3)

    def play(seed):
        s = g.new_initial_state(seed=seed)
        rng = random.Random(99)
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        return s.to_json()
    assert play(5) == play(5)
    assert play(5) != play(6)


def test_ids_are_stable_across_states():
    g = atoll.load(MASTERISLANDS, players=2)
    ids_a = {str(x): x.id for x in g.new_initial_state(seed=1).legal_actions()}
    shared = 0
    for seed in range(2, 40):
        ids_b = {str(x): x.id for x in g.new_initial_state(seed=seed).legal_actions()}
        common = set(ids_a) & set(ids_b)
        shared += len(common)
        assert all(ids_a[k] == ids_b[k] for k in common)
    assert shared > 0, "some deals share a move"
    assert len(set(ids_a.values())) == len(ids_a)


def test_explicit_chance_nodes():
    g = atoll.load(MASTERISLANDS, players=2)
    s = g.new_initial_state(seed=0, chance="explicit")
    assert s.is_chance_node() and s.current_player() == atoll.CHANCE
    outcomes = s.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    # 48 cards in 20 distinct (colour, value) kinds
    assert len(outcomes) == 20
    deals = 0
    rng = random.Random(0)
    while not s.is_terminal():
        if s.is_chance_node():
            deals += 1
            s.apply_action(s.sample_chance())
        else:
            s.apply_action(rng.choice(s.legal_actions()))
        assert game_roundtrip(g, s)
    assert deals >= 7   # 3 + 3 dealt, the first card, then resupplies


def game_roundtrip(g, s):
    return g.state_from_json(s.to_json()) == s


def test_observation_hides_other_hands_and_the_pile():
    g = atoll.load(MASTERISLANDS, players=3)
    s = g.new_initial_state(seed=4)
    obs = s.observation(1)
    hands = obs["state"]["hand"]
    assert isinstance(hands[1], list) and len(hands[1]) == 3
    assert hands[0] == {"hidden": True, "size": 3} and hands[2] == {"hidden": True, "size": 3}
    assert obs["state"]["pile"] == {"hidden": True, "size": 48 - 9 - 1}
    assert "history" not in json.dumps(obs)


def test_corrupt_saved_games_are_refused():
    g = atoll.load(MASTERISLANDS, players=2)
    s = g.new_initial_state(seed=1)
    good = s.to_json()
    with pytest.raises(atoll.CorruptState, match="not valid JSON"):
        g.state_from_json(good[:-5])
    d = json.loads(good)
    d["values"][1][0]["value"] = 99
    with pytest.raises(atoll.CorruptState, match="checksum"):
        g.state_from_json(json.dumps(d))
    d["values"][2] = "nonsense"      # a value of the wrong type is named before the checksum
    with pytest.raises(atoll.CorruptState, match="board"):
        g.state_from_json(json.dumps(d))
    other = atoll.load(MASTERISLANDS, players=3)
    with pytest.raises(atoll.CorruptState, match="2 players"):
        other.state_from_json(good)
    assert g.state_from_json(good) == s
