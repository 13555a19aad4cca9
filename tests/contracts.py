"""The play contract of the reference model, as checks any test can run on
any game (tests/test_contracts.py runs them on every shipped spec, variant
and tests/good spec; the adapters' tests reuse them).

Each check raises AssertionError naming what broke:

* ``check_outcome``: ``winners()``, ``returns()`` and ``ending()`` agree with
  each other and with the ending that finished the game (a tie has no
  winner; a rank ending's winners are the best by its key, a team when the
  best are one team, all of them under `else shared`, nobody otherwise;
  returns are +1 for a winner and -1 for the others, 0 for all when nobody
  or everybody wins);
* ``check_chance``: at a chance node, each outcome's probability is its
  share of the bag drawn from (copies over size), and the outcomes are the
  bag's distinct items;
* ``check_hidden``: two states that differ only in data hidden from a
  player give that player equal observations (and the owner of the data
  sees the difference);
* ``check_round_trip``: ``to_json`` loads back to an equal state with the
  same legal moves;
* ``check_clone``: a clone and its original are independent.

``play`` plays one seeded random game running them all; ``digest`` is the
hash of a seeded game's JSON after a number of moves (pinned per game in
tests/play_digests.json, so a random stream that stops advancing, or any
change to seeded play, is seen).
"""
from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from fractions import Fraction

from atoll.compiler import types as T


# ---------------------------------------------------------------- outcome

def expected_returns(winners, n: int) -> list:
    if not winners or len(set(winners)) == n:
        return [0.0] * n
    return [1.0 if p in winners else -1.0 for p in range(n)]


def _ending(game, name):
    for time, ends in game._ends.items():
        for en, _, _, win, key in ends:
            if en.name == name:
                return en, win, key
    return None


def check_outcome(game, state) -> str:
    """Check the outcome of a state; returns the kind of ending ('' while the
    game goes on, 'tie', 'win', 'rank-alone', 'rank-team', 'rank-shared',
    'rank-tie', 'action')."""
    n = game.num_players
    w = state.winners()
    r = state.returns()
    assert len(r) == n
    if not state.is_terminal():
        assert w == () and state.ending() is None and r == [0.0] * n, (w, state.ending(), r)
        return ""
    assert isinstance(w, tuple) and list(w) == sorted(set(w)), f"winners {w!r} not sorted and distinct"
    assert all(isinstance(p, int) and 0 <= p < n for p in w), w
    assert r == expected_returns(w, n), f"returns {r} do not match winners {w} ({n} players)"
    name = state.ending()
    found = _ending(game, name)
    if found is None:   # a `win` or `tie` statement in a step of the rules
        assert name in game._outcome_names, name
        return "action"
    en, _, key = found
    if en.kind == "tie":
        assert w == (), f"ending `{name}` is a tie, winners {w}"
        return "tie"
    if en.kind == "win":
        return "win"
    keys = {p: key(state.S, p) for p in range(n)}
    best = max(keys.values())
    top = [p for p in range(n) if keys[p] == best]
    teams = {game.team_of.get(p, (p,)) for p in top}
    if len(teams) == 1:
        assert w == tuple(sorted(next(iter(teams)))), f"`{name}`: keys {keys}, winners {w}"
        return "rank-team" if len(w) > 1 else "rank-alone"
    if en.tie == "shared":
        assert w == tuple(top), f"`{name}` (else shared): keys {keys}, winners {w}"
        return "rank-shared"
    assert w == (), f"`{name}` (else tie): keys {keys}, winners {w}"
    return "rank-tie"


# ---------------------------------------------------------------- chance

def check_chance(state) -> None:
    """The outcomes of a chance node and their probabilities."""
    assert state.is_chance_node()
    bag = state.pending[2]            # the bag the rules draw from
    counts = Counter(bag)
    outcomes = state.chance_outcomes()
    items = [a.params[0] for a, _ in outcomes]
    assert sorted(items) == sorted(counts), "the outcomes are not the bag's distinct items"
    for a, p in outcomes:
        share = Fraction(counts[a.params[0]], len(bag))
        assert abs(p - share) < 1e-12, f"{a}: probability {p}, its share of the bag is {share}"
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
    assert [a.id for a in state.legal_actions()] == [a.id for a, _ in outcomes]


# ---------------------------------------------------------------- hidden data

def hidden_slots(game):
    """(slot, owner-visible?) of each state slot some player may not see."""
    return [(i, vis == "owner", scope == "player")
            for i, (scope, vis) in enumerate(game.visibility) if i > 0 and vis != "all"]


def collect_hidden(game, state, pool: dict) -> None:
    """Remember the values the hidden slots take (as donors for check_hidden)."""
    for i, _, per_player in hidden_slots(game):
        v = state.S[i]
        if v is None:
            continue
        for x in (v if per_player else (v,)):
            pool.setdefault(i, {}).setdefault(repr(x), x)   # (maps are not hashable)


def _size(t, x):
    return len(x) if T.is_collection(t) else None


def _donor(t, x, values: dict):
    """Another value of the same type that looks the same when hidden (same size)."""
    for k in sorted(values):
        y = values[k]
        if y != x and _size(t, y) == _size(t, x):
            return y
    return None


def check_hidden(game, state, pool: dict) -> int:
    """For each piece of hidden data, a copy of the state with only that
    piece changed: every player who may not see it observes the same.
    Returns how many such pairs were compared."""
    compared = 0
    n = game.num_players
    for i, owner_visible, per_player in hidden_slots(game):
        v = state.S[i]
        if v is None:
            continue
        t = game.slot_types[i]
        et = t[1] if per_player else t
        for q in (range(n) if per_player else [None]):
            x = v[q] if q is not None else v
            y = _donor(et, x, pool.get(i, {}))
            if y is None:
                continue
            other = state.clone()
            other.S = list(other.S)
            other.S[i] = tuple(y if p == q else v[p] for p in range(n)) if q is not None else y
            for p in range(n):
                if owner_visible and p == q:
                    assert other.observation(p) != state.observation(p), \
                        f"`{game.layout.names[i]}` of player {q}: its owner does not see it change"
                else:
                    assert other.observation(p) == state.observation(p), \
                        (f"player {p} sees a change to the hidden `{game.layout.names[i]}`"
                         + (f" of player {q}" if q is not None else ""))
                compared += 1
    return compared


# ---------------------------------------------------------------- saving, copying

def check_round_trip(game, state) -> None:
    text = state.to_json()
    back = game.state_from_json(text)
    assert back == state and back.to_json() == text
    assert [a.id for a in back.legal_actions()] == [a.id for a in state.legal_actions()]
    assert back.current_player() == state.current_player()


def check_clone(state, rng: random.Random) -> "State":
    """A clone moved on leaves its original unchanged; returns a fresh clone,
    for the caller to check that moving the original leaves it unchanged."""
    before = state.to_json()
    c = state.clone()
    assert c == state and c is not state
    legal = c.legal_actions()
    if legal:
        c.apply_action(rng.choice(legal))
        assert state.to_json() == before, "applying an action to a clone changed the original"
        assert [a.id for a in state.legal_actions()] == [a.id for a in legal]
    return state.clone()


# ---------------------------------------------------------------- a game

def play(game, seed: int, chance: str = "auto", every: int = 15, max_steps: int = 3000,
         pool: dict | None = None) -> dict:
    """One random game from ``seed`` (moves by ``random.Random(seed)``),
    checking the contract: the outcome at every step, chance nodes, and
    every ``every`` steps (and at the end) hidden data, the JSON round
    trip and clones. Returns what it saw: steps, chance nodes, hidden pairs
    compared, the kind of ending."""
    rng = random.Random(seed)
    pool = {} if pool is None else pool
    state = game.new_initial_state(seed=seed, chance=chance)
    seen = {"steps": 0, "chance": 0, "hidden": 0, "ending": ""}
    for step in range(max_steps):
        collect_hidden(game, state, pool)
        check_outcome(game, state)
        if step % every == 0:
            seen["hidden"] += check_hidden(game, state, pool)
            check_round_trip(game, state)
            kept = check_clone(state, random.Random(step))
            kept_json = kept.to_json()
        if state.is_terminal():
            break
        if state.is_chance_node():
            check_chance(state)
            seen["chance"] += 1
            state.apply_action(state.sample_chance())
        else:
            legal = state.legal_actions()
            assert legal, f"no legal action and not over at step {step}"
            state.apply_action(rng.choice(legal))
        seen["steps"] += 1
        if step % every == 0:
            assert kept.to_json() == kept_json, "a clone changed when its original moved on"
    assert state.is_terminal(), f"not over after {max_steps} actions"
    seen["hidden"] += check_hidden(game, state, pool)
    check_round_trip(game, state)
    seen["ending"] = check_outcome(game, state)
    return seen


def digest(game, seed: int, moves: int, chance: str = "auto") -> str:
    """The hash of the JSON of a seeded game after ``moves`` random moves (or
    at its end), chance outcomes sampled from the state's stream."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed, chance=chance)
    for _ in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(state.sample_chance())
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return hashlib.sha256(state.to_json().encode()).hexdigest()[:16]
