"""Optional values (`maybe[T]`) at run time: data with absent keys, the
lifted comparisons, the order (none first), saves, observations, the
terminal, and the connected-area functions in a game (tests/good/scroll_tiles)."""
from __future__ import annotations

import json
import random

import pytest

import atoll
from atoll.compiler.values import order_key, sort_values
from helpers import ROOT

SCROLLS = ROOT / "tests" / "good" / "scroll_tiles.atoll"

SMALL = """
game small { players: 2..2 }
enum Mark { cross, ring }
record Card { value: int, mark: maybe[Mark] }
state { x: int = 0 }
phase p { action go() { end phase } }
flow { round { turns in seats: p } }
def items(): list[maybe[int]] = [v for v in {some(2), none, some(-1)}]
def cards(): list[Card] = sorted([Card(2, some(ring)), Card(2, none), Card(1, some(cross)), Card(2, some(cross))])
def keyed(): list[maybe[Mark]] = [k for k in {some(ring): 1, none: 2, some(cross): 3}]
def lifted(m: maybe[int], n: int): list[bool] = [m == n, m != n, n == m, m == none, m in [n, 5]]
def unwrap(m: maybe[int]): int = value_or(m, 10) + (if m != none then 100 else 0)
def marks(): int = count(c for c in [Card(1, none), Card(2, some(ring))] if c.mark == ring)
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("maybe") / "small.atoll"
    path.write_text(SMALL)
    return atoll.load(path, players=2)


def call(game, name, *args):
    return game.ns[f"d_{name}"](None, *args)


def test_none_comes_first_in_every_order(small):
    assert call(small, "items") == (None, -1, 2)                     # a set iterated in order
    cross, ring = 0, 1
    assert call(small, "cards") == ((1, cross), (2, None), (2, cross), (2, ring))   # inside records
    assert call(small, "keyed") == (None, cross, ring)               # map keys
    assert sort_values([3, None, (1,)][:2]) == [None, 3]
    assert order_key(None) < order_key(-10**17) and order_key((1, None)) < order_key((1, 0))


def test_comparisons_are_lifted(small):
    assert call(small, "lifted", None, 3) == (False, True, False, True, False)
    assert call(small, "lifted", 3, 3) == (True, False, True, False, True)
    assert call(small, "lifted", 5, 3) == (False, True, False, False, True)
    assert call(small, "unwrap", None) == 10 and call(small, "unwrap", 0) == 100
    assert call(small, "marks") == 1


def test_data_may_leave_a_maybe_out_or_null():
    game = atoll.load(SCROLLS, players=2)
    tiles = {t[0]: t for t in game.ns["k_tiles"]}
    scroll = game.codec.enums["Scroll"].index
    assert tiles[1][2] == scroll("sheep")
    assert tiles[2][2] is None and tiles[3][2] is None   # key left out, and null


def test_a_required_field_may_not_be_left_out(tmp_path):
    (tmp_path / "d.json").write_text(json.dumps({"cards": [{"mark": "ring"}]}))
    (tmp_path / "g.atoll").write_text(SMALL + 'data deck: list[Card] from "d.json" key "cards"\n')
    with pytest.raises(atoll.SpecError) as info:
        atoll.load(tmp_path / "g.atoll", players=2)
    assert info.value.diagnostics[0].code == "A0301" and "value, mark" in str(info.value)


def played(seed=3, moves=8):
    game = atoll.load(SCROLLS, players=2)
    st = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if st.is_terminal():
            break
        st.apply_action(st.sample_chance() if st.is_chance_node() else rng.choice(st.legal_actions()))
    return game, st


def test_a_game_with_maybes_saves_and_loads():
    game, st = played(moves=0)
    slot = game.layout.names.index("last")
    assert json.loads(st.to_json())["values"][slot] == [None, None]      # none is null
    for seed in range(20):   # a game where one player's last tile had a scroll and one's not
        game, st = played(seed=seed, moves=7)
        if None in st.S[slot] and any(v is not None for v in st.S[slot]):
            break
    else:  # pragma: no cover
        pytest.fail("no game with both kinds of `last`")
    saved = json.loads(st.to_json())["values"][slot]
    assert None in saved and set(saved) - {None} <= {"sheep", "ship"}
    back = game.state_from_json(st.to_json())
    assert back.S == st.S


def test_an_observation_flags_presence():
    from atoll.encoding import ObservationEncoder
    game, st = played(moves=0)
    enc = ObservationEncoder(game)
    name, t, offset = next(s for s in enc.slots if s[0] == "last")
    assert t == ("player", ("maybe", ("enum", "Scroll")))
    assert enc.width(t[1]) == 3                       # a flag, then the two members
    v = enc.encode(st.observation(0))
    assert v[offset:offset + 6] == [0.0] * 6            # nobody has a last scroll yet
    st.S = list(st.S)
    st.S[game.layout.names.index("last")] = (1, None)  # seat 0: ship
    st.S = tuple(st.S)
    v = enc.encode(st.observation(0))
    assert v[offset:offset + 6] == [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]


def test_text_and_the_terminal_read_none():
    from atoll.terminal import _Reader, _tokens
    game = atoll.load(SCROLLS, players=2)
    t = ("maybe", ("enum", "Scroll"))
    assert game.codec.text(t, None) == "none" and game.codec.text(t, 1) == "ship"
    assert _Reader(game.codec, _tokens("none")).value(t, "x") is None
    assert _Reader(game.codec, _tokens("ship")).value(t, "x") == 1
