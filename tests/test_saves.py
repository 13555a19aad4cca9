"""Saved games: a save either loads as a state the rules can reach, or is
refused with ``CorruptState`` naming the first bad field.

The corruptions below start from real saves of the shipped specs (mid-game,
mid-chance with an action waiting for its draws, mid-chance in the setup)
and of a simultaneous test game; every corrupted save is signed again with
a correct checksum, so the check under test is the field's own, not the
checksum's."""
from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st_

import atoll
from helpers import KANALOA, MASTERISLANDS

BIDS = Path(__file__).parent / "good" / "sealed_bids.atoll"


def sign(d: dict) -> dict:
    body = {k: v for k, v in d.items() if k != "checksum"}
    d["checksum"] = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    return d


def _play(game, seed, steps, chance="auto", stop=None):
    s = game.new_initial_state(seed=seed, chance=chance)
    rng = random.Random(seed)
    for k in range(steps):
        if s.is_terminal() or (stop is not None and stop(s, k)):
            break
        s.apply_action(s.sample_chance() if s.is_chance_node() else rng.choice(s.legal_actions()))
    return s


GAMES: dict = {}


def game(name):
    if name not in GAMES:
        GAMES[name] = {"mi": lambda: atoll.load(MASTERISLANDS, players=2),
                       "ka": lambda: atoll.load(KANALOA, players=3),
                       "bids": lambda: atoll.load(BIDS, players=3)}[name]()
    return GAMES[name]


SAVES: dict = {}


def save(kind: str):
    """A real saved game, as a dict: ``mi``/``ka`` mid-game (auto chance),
    ``mi_chance`` waiting for the draw an action asked for, ``ka_setup``
    waiting for the draws of the setup deal, ``bids`` at a simultaneous node
    after one player chose."""
    if kind not in SAVES:
        if kind == "mi":
            s = _play(game("mi"), 3, 25)
        elif kind == "ka":
            s = _play(game("ka"), 3, 25)
        elif kind == "mi_chance":
            s = _play(game("mi"), 3, 60, "explicit",
                      stop=lambda s, k: k > 10 and s.is_chance_node() and s.pending[0] is not None)
            assert s.is_chance_node() and s.pending[0] is not None
        elif kind == "ka_setup":
            s = _play(game("ka"), 3, 5, "explicit")
            assert s.is_chance_node() and s.pending[0] is None
        else:
            s = game("bids").new_initial_state(seed=0)
            s.apply_action(s.legal_actions(player=1)[0])
            assert s.is_simultaneous_node()
        assert not s.is_terminal()
        SAVES[kind] = s.to_json()
    return json.loads(SAVES[kind])


GAME_OF = {"mi": "mi", "mi_chance": "mi", "ka": "ka", "ka_setup": "ka", "bids": "bids"}


def slot(kind, name):
    return game(GAME_OF[kind]).layout.names.index(name)


def setv(kind, name, value):
    def f(d):
        d["values"][slot(kind, name)] = value(d["values"][slot(kind, name)]) if callable(value) else value
    return f


# (save, what is wrong, mutation, the field CorruptState must name (a regex;
# a part of the field may be named instead, such as ``values.hand[0]``))
CASES = [
    ("mi", "unknown top-level key", lambda d: d.update(extra=1), r"extra"),
    ("mi", "format of another version", lambda d: d.update(format="atoll-state/0"), r"format"),
    ("mi", "another game", lambda d: d.update(game="Other"), r"game"),
    ("mi", "another player count", lambda d: d.update(players=3), r"players"),
    ("mi", "other options", lambda d: d["options"].update(mode="corsair"), r"options"),
    ("mi", "values not a list", lambda d: d.update(values={}), r"values"),
    ("mi", "values one short", lambda d: d["values"].pop(), r"values"),
    ("mi", "negative round", setv("mi", "current_round", -1), r"values\.current_round"),
    ("mi", "round as a float", setv("mi", "current_round", 5.0), r"values\.current_round"),
    ("mi", "round changed", setv("mi", "current_round", lambda v: v + 1), r"values\.current_round"),
    ("mi", "duplicated card", setv("mi", "hand", lambda h: [h[0] + [h[0][0]], h[1]]), r"values\.hand"),
    ("mi", "a card moved from the pile to a hand",
     lambda d: d["values"][slot("mi", "hand")][0].append(d["values"][slot("mi", "pile")].pop()),
     r"values\.pile"),
    ("mi", "per-player list too short", setv("mi", "hand", lambda h: h[:1]), r"values\.hand"),
    ("mi", "per-player list too long", setv("mi", "hand", lambda h: h + [[]]), r"values\.hand"),
    ("mi", "no such colour", lambda d: d["values"][slot("mi", "hand")][0][0].update(colour="mauve"),
     r"values\.hand\[0\]\[0\]\.colour"),
    ("mi", "card without its value", lambda d: d["values"][slot("mi", "hand")][0][0].pop("value"),
     r"values\.hand\[0\]\[0\]"),
    ("mi", "an int past the bound", lambda d: d["values"][slot("mi", "hand")][0][0].update(value=10**30),
     r"values\.hand\[0\]\[0\]\.value"),
    ("mi", "bool for an int", setv("mi", "idle", True), r"values\.idle"),
    ("mi", "negative count", setv("mi", "idle", -1), r"values\.idle"),
    ("mi", "null for a state variable", setv("mi", "board", None), r"values\.board"),
    ("mi", "a phase variable set outside its phase", setv("mi", "raid.moves", 3), r"values\.raid\.moves"),
    ("mi", "a map key twice", setv("mi", "board", lambda b: b + [b[0]]), r"values\.board"),
    ("mi", "bag out of order", setv("mi", "pile", lambda p: p[::-1]), r"values\.pile"),
    ("mi", "control not a list", lambda d: d.update(control=7), r"control"),
    ("mi", "control one short", lambda d: d["control"].pop(), r"control"),
    ("mi", "float in a control slot", lambda d: d["control"].__setitem__(2, 0.0), r"control\[2\]"),
    ("mi", "no such round", lambda d: d["control"].__setitem__(0, 99), r"control\[0\]"),
    ("mi", "negative phase", lambda d: d["control"].__setitem__(3, -1), r"control\[3\]"),
    ("mi", "empty list of stage players", lambda d: d["control"].__setitem__(4, []), r"control\[4\]"),
    ("mi", "a seat that does not exist", lambda d: d["control"].__setitem__(4, [0, 7]), r"control\[4\]"),
    ("mi", "int for a flag", lambda d: d["control"].__setitem__(5, 0), r"control\[5\]"),
    ("mi", "in range but not where the game is",
     lambda d: d["control"].__setitem__(6, not d["control"][6]), r"control\[6\]"),
    ("mi", "an ending that does not exist", lambda d: d.update(outcome=["nowhere", [99, -3]]),
     r"outcome"),
    ("mi", "a real ending on an unfinished game", lambda d: d.update(outcome=["stalled", [0]]),
     r"outcome"),
    ("mi", "outcome of the wrong shape", lambda d: d.update(outcome="won"), r"outcome"),
    ("mi", "rng one short", lambda d: d.update(rng=d["rng"][:1]), r"rng"),
    ("mi", "negative seed", lambda d: d["rng"].__setitem__(0, -1), r"rng\[0\]"),
    ("mi", "seed past 64 bits", lambda d: d["rng"].__setitem__(0, 1 << 64), r"rng\[0\]"),
    ("mi", "another seed", lambda d: d["rng"].__setitem__(0, d["rng"][0] + 1), r"history\[\d+\]|values"),
    ("mi", "draw counter changed", lambda d: d["rng"].__setitem__(1, d["rng"][1] + 1), r"rng\[1\]"),
    ("mi", "draw counter a float", lambda d: d["rng"].__setitem__(1, 1.5), r"rng\[1\]"),
    ("mi", "no such chance mode", lambda d: d.update(chance="sometimes"), r"chance"),
    ("mi", "the other chance mode", lambda d: d.update(chance="explicit"), r"history\[0\]"),
    ("mi", "history not a list", lambda d: d.update(history=5), r"history"),
    ("mi", "a string in the history", lambda d: d["history"].__setitem__(0, "264"), r"history\[0\]"),
    ("mi", "a bool in the history", lambda d: d["history"].__setitem__(2, True), r"history\[2\]"),
    ("mi", "negative id", lambda d: d["history"].__setitem__(3, -264), r"history\[3\]"),
    ("mi", "an id that is not legal", lambda d: d["history"].__setitem__(4, 12345), r"history\[4\]"),
    ("mi", "history one short", lambda d: d["history"].pop(), r"values|control|rng"),
    ("mi", "a field missing", lambda d: d.pop("rng"), r"rng"),
    ("mi", "a short id written in hexadecimal", lambda d: d["history"].__setitem__(0, hex(d["history"][0])),
     r"history\[0\]"),
    ("mi", "pending on a state that waits for nobody",
     lambda d: d.update(pending={"action": None, "outcomes": [], "bag": [], "type": "int"}), r"pending"),
    ("mi", "pending of the wrong shape", lambda d: d.update(pending="soon"), r"pending"),
    ("mi_chance", "pending dropped", lambda d: d.update(pending=None), r"pending"),
    ("mi_chance", "another pending action", lambda d: d["pending"].update(action=d["pending"]["action"] + 1),
     r"pending\.action"),
    ("mi_chance", "pending type that does not exist", lambda d: d["pending"].update(type=["enum", "Nope"]),
     r"pending\.type"),
    ("mi_chance", "pending type not a type", lambda d: d["pending"].update(type=5), r"pending\.type"),
    ("mi_chance", "a card twice in the pending bag",
     lambda d: d["pending"]["bag"].insert(0, d["pending"]["bag"][0]), r"pending\.bag"),
    ("mi_chance", "an outcome that was not drawn",
     lambda d: d["pending"]["outcomes"].append(d["pending"]["bag"][0]), r"pending\.outcomes"),
    ("mi_chance", "pending with an extra key", lambda d: d["pending"].update(when=1), r"pending"),
    ("mi_chance", "pending without its type", lambda d: d["pending"].pop("type"), r"pending\.type"),
    ("mi_chance", "an empty pending bag", lambda d: d["pending"].update(bag=[]), r"pending\.bag"),
    ("mi_chance", "a finished game waiting for chance", lambda d: d.update(outcome=["stalled", [0]]),
     r"pending"),
    ("mi_chance", "negative draw counter", lambda d: d["rng"].__setitem__(1, -1), r"rng\[1\]"),
    ("ka", "negative points", setv("ka", "points", lambda p: [-1] + p[1:]), r"values\.points"),
    ("ka", "points for two of three players", setv("ka", "points", lambda p: p[:2]), r"values\.points"),
    ("ka", "a map key twice", setv("ka", "bridges", lambda b: b + [b[0]]), r"values\.bridges"),
    ("ka", "an island that is a number", setv("ka", "display", lambda x: [3] + x[1:]),
     r"values\.display\[0\]"),
    ("ka", "a stage that does not exist", setv("ka", "stage", 99), r"values\.stage"),
    ("ka", "a seat that does not exist", setv("ka", "active", 7), r"values\.active"),
    ("ka", "an ending with impossible winners", lambda d: d.update(outcome=["final_scoring", [99, -3]]),
     r"outcome"),
    ("ka", "winners out of order", lambda d: d.update(outcome=["final_scoring", [2, 0]]), r"outcome\[1\]"),
    ("ka_setup", "an action waiting in the setup",
     lambda d: d["pending"].update(action=d["history"][0]), r"pending\.action"),
    ("ka_setup", "a chance outcome dropped from the history", lambda d: d["history"].pop(),
     r"pending\.outcomes|pending\.bag"),
    ("bids", "a choice made twice", lambda d: d["history"].append(d["history"][0]), r"history\[1\]"),
    ("bids", "stage players shuffled", lambda d: d["control"][4].reverse(), r"control\[4\]"),
]


@pytest.mark.parametrize("kind, what, mutate, field", CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_a_corrupt_field_is_named(kind, what, mutate, field):
    d = save(kind)
    mutate(d)
    text = json.dumps(sign(d))
    with pytest.raises(atoll.CorruptState) as e:
        game(GAME_OF[kind]).state_from_json(text)
    # the field named, or a part of it (``values.hand[0]`` for ``values.hand``)
    assert e.value.field is not None and re.match(f"(?:{field})(?:$|[.\\[])", e.value.field), \
        (e.value.field, str(e.value))
    assert f"`{e.value.field}`" in str(e.value)


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("checksum"),
    lambda d: d.update(checksum="0" * 16),
    lambda d: d.update(checksum=5),
    lambda d: d["values"].__setitem__(0, d["values"][0] + 1),    # changed without signing again
], ids=["missing", "wrong", "not a string", "stale"])
def test_the_checksum_is_required_and_checked(mutate):
    d = save("mi")
    mutate(d)
    with pytest.raises(atoll.CorruptState) as e:
        game("mi").state_from_json(json.dumps(d))
    assert e.value.field == "checksum"


@pytest.mark.parametrize("text, field", [
    ("", None),
    ("[1, 2]", None),
    ('{"format": "atoll-state/1", "format": "atoll-state/1"}', "format"),
    ("[" * 100_000 + "]" * 100_000, None),
    ('{"rng": NaN}', None),
    (None, None),
], ids=["empty", "not an object", "a key twice", "nested past the recursion limit", "NaN", "not text"])
def test_text_that_is_no_saved_game(text, field):
    with pytest.raises(atoll.CorruptState) as e:
        game("mi").state_from_json(text)
    assert e.value.field == field


def test_an_int_too_long_for_python_is_named():
    d = save("mi")
    text = json.dumps(sign(d)).replace('"rng": [3, ', '"rng": [' + "9" * 5000 + ", ")
    with pytest.raises(atoll.CorruptState) as e:
        game("mi").state_from_json(text)
    assert e.value.field == "rng[0]"


def test_a_draw_counter_of_explicit_chance_is_free():
    """With explicit chance, the counter only counts the calls to
    ``sample_chance()``: any value is reachable, and it is kept."""
    d = save("mi_chance")
    d["rng"][1] += 5
    s = game("mi").state_from_json(json.dumps(sign(d)))
    assert s.rng[1] == d["rng"][1] and json.loads(s.to_json()) == d


@pytest.mark.parametrize("kind", ["mi", "ka", "mi_chance", "ka_setup", "bids"])
def test_honest_saves_load_unchanged(kind):
    d = save(kind)
    text = json.dumps(d)
    s = game(GAME_OF[kind]).state_from_json(text)
    assert json.loads(s.to_json()) == d
    assert json.loads(text) == d              # the caller's text is what it was
    t = game(GAME_OF[kind]).state_from_json(s.to_json())
    assert t == s and [a.id for a in t.legal_actions()] == [a.id for a in s.legal_actions()]


def test_a_finished_game_round_trips():
    g = game("ka")
    s = _play(g, 1, 10_000)
    assert s.is_terminal()
    t = g.state_from_json(s.to_json())
    assert t == s and t.winners() == s.winners() and t.ending() == s.ending()


# ---------------------------------------------------------------- random damage

def _paths(j, path=()):
    yield path
    if isinstance(j, dict):
        for k in sorted(j):
            yield from _paths(j[k], path + (k,))
    elif isinstance(j, list):
        for i, x in enumerate(j):
            yield from _paths(x, path + (i,))


SCALARS = st_.one_of(st_.none(), st_.booleans(), st_.integers(-3, 300), st_.sampled_from(
    [10**18, -(10**18), 1 << 64, 1.5, "", "red", "Ahuna", "auto", "explicit", "stalled", "x", [], {}]))


@st_.composite
def damaged(draw):
    kind = draw(st_.sampled_from(["mi", "ka", "mi_chance", "ka_setup", "bids"]))
    d = save(kind)
    for _ in range(draw(st_.integers(1, 3))):
        top = draw(st_.sampled_from(sorted(d)))       # every field equally likely, then a part of it
        paths = [(top,) + p for p in _paths(d[top])] if top in d else [(top,)]
        path = draw(st_.sampled_from(paths))
        parent = d
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        if isinstance(parent, dict) and key not in parent:
            continue
        op = draw(st_.sampled_from(["set", "delete", "copy", "bump", "other"]))
        if op == "set":
            parent[key] = draw(SCALARS)
        elif op == "delete":
            del parent[key]
        elif op == "copy" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "bump" and isinstance(parent[key], int) and not isinstance(parent[key], bool):
            parent[key] += draw(st_.sampled_from([-1, 1, 2, 256]))
        else:   # a value from elsewhere in the save
            src = d
            for k in draw(st_.sampled_from([p for p in _paths(d)][1:])):
                src = src[k]
            parent[key] = copy.deepcopy(src)
    if draw(st_.integers(0, 3)):
        sign(d)
    return kind, d


def _replayed(g, d):
    """The state the history of ``d`` leads to from its seed, or None."""
    s = g.new_initial_state(seed=d["rng"][0], chance=d["chance"])
    for h in d["history"]:
        s.apply_action(h)
    return s


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(damaged())
def test_damaged_saves_load_as_reachable_states_or_are_refused(case):
    kind, d = case
    g = game(GAME_OF[kind])
    text = json.dumps(d)
    try:
        s = g.state_from_json(text)
    except atoll.CorruptState as e:
        assert str(e)
        return
    # loaded: exactly what was saved, and what replaying its history gives
    assert json.loads(s.to_json()) == d
    r = _replayed(g, d)
    if d["chance"] == "explicit":
        r.rng[1] = d["rng"][1]
    assert r == s


def test_sample_chance_away_from_a_chance_node_changes_nothing():
    """The draw counter is part of a save: asking for a chance outcome where
    there is none is refused before it counts."""
    s = _play(game("mi"), 3, 5)
    before = s.to_json()
    with pytest.raises(ValueError, match="no chance event"):
        s.sample_chance()
    assert s.to_json() == before and game("mi").state_from_json(before) == s


MIXED_DRAWS = """
game mixed { players: 2..2 }
state {
  numbers: bag[int] = bag([1, 2, 3]) visible nobody
  words: bag[str] = bag(["a", "b"]) visible nobody
  player got: int = 0
  player word: str = ""
}
setup { for p in players { draw n from numbers  got[p] = n } }
phase p { on enter { draw w from words  word[me] = w } action go() { end phase } }
flow { round { turns in seats: p } }
"""


def test_a_step_whose_draws_differ_in_type_saves_and_loads(tmp_path):
    """With explicit chance, one step (here the setup, then the first
    phase's entry) can draw ints and then a string before it waits: each
    outcome is saved with its own type (before, the save wrote every outcome
    with the type of the draw waited for, and failed)."""
    path = tmp_path / "mixed.atoll"
    path.write_text(MIXED_DRAWS)
    g = atoll.load(path, players=2)
    s = g.new_initial_state(seed=0, chance="explicit")
    while s.is_chance_node() and not any(isinstance(a.params[0], str) for a, _ in s.chance_outcomes()):
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.is_chance_node()            # now waiting for a word, two numbers taken before
    d = json.loads(s.to_json())
    assert d["pending"]["outcome_types"] == ["int", "int"] and d["pending"]["type"] == "str"
    t = g.state_from_json(s.to_json())
    assert t == s and json.loads(t.to_json()) == d
    t.apply_action(t.chance_outcomes()[1][0])
    s.apply_action(s.chance_outcomes()[1][0])
    assert t == s


def test_a_save_part_way_through_draws_after_a_choice_keeps_each_outcomes_type():
    """An effect that asks a player to choose (here a colour) and then draws
    twice (cards) waits for chance with one card given: the save must type
    that card by the draw that took it, not by the choice made before it
    (it was typed as the colour, and `to_json` failed: found by planting
    bugs for issue 19). La Isla, 2 players, explicit chance with the outcomes
    drawn by their probabilities: seeds 2 and 8 reach such a state."""
    import random
    import atoll
    from helpers import SPEC
    game = atoll.load(SPEC / "la_isla.atoll", players=2)
    saved = 0
    for seed in (2, 8):
        rng = random.Random(seed)
        st = game.new_initial_state(seed=seed, chance="explicit")
        after_chance = False
        while not st.is_terminal():
            if st.is_chance_node():
                if after_chance:
                    text = st.to_json()
                    assert game.state_from_json(text).to_json() == text
                    # the case itself: outcomes given after a choice in the same transaction
                    saved += any(ev[0] == "chose" for ev in st._events)
                outs = st.chance_outcomes()   # drawn by their probabilities, from the game's own stream
                st.apply_action(rng.choices([a for a, _ in outs], [p for _, p in outs])[0])
                after_chance = True
            else:
                st.apply_action(rng.choice(st.legal_actions()))
                after_chance = False
    assert saved > 0, "no state part-way through draws after a choice was reached: choose other seeds"
