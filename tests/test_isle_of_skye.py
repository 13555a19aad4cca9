"""Isle of Skye: the data, one test per scoring tile on a hand-built
territory (the points worked out in each test's comment), the house rules,
the final scoring, income, rotation, and that a secret price or discard
shows in no other player's observation.

Territories are written as (x, y, tile number, quarter turns clockwise),
beside the castle at (0, 0), which shows pasture to the north (road), water
to the east, pasture to the south (road) and mountain to the west (road).
y grows southwards. Each territory is checked to be one the rules allow
(every shared edge has one terrain on both sides) before it is scored.
A tile's edges are listed N, E, S, W after turning.
"""
from __future__ import annotations

import json
import random

import pytest

import atoll
from atoll.compiler import names as N
from helpers import ROOT

SKYE = ROOT / "spec" / "isle_of_skye.atoll"
DATA = SKYE.parent / "data" / "isle_of_skye_tiles.json"

_GAMES: dict = {}


def game(players=2, **options):
    key = (players, tuple(sorted(options.items())))
    if key not in _GAMES:
        _GAMES[key] = atoll.load(SKYE, players=players, options=options or None)
    return _GAMES[key]


def fn(g, name):
    return g.ns[N.def_fn(name)]


def territory(g, seat, items):
    tiles = g.ns[N.value("landscape")]
    land = {(0, 0): (g.ns[N.value("castles")][seat], 0)}
    for x, y, number, rot in items:
        t = tiles[number - 1]
        assert t[0] == number
        land[(x, y)] = (t, rot)
    assert fn(g, "placed_well")(None, land), f"not a territory the rules allow: {items}"
    return land


def position(g, territories=(), **values):
    """The state after setup (seed 0) with these territories (one list per
    seat, the others only their castle) and values (a tuple per player)."""
    names = g.layout.names
    S = list(g.new_initial_state(seed=0).S)
    lands = list(S[names.index("land")])
    for seat, items in enumerate(territories):
        lands[seat] = territory(g, seat, items)
    S[names.index("land")] = tuple(lands)
    for k, v in values.items():
        S[names.index(k)] = v
    return tuple(S)


def points(k, territories=(), players=2, options=None, **values):
    """Scoring tile k for every seat."""
    g = game(players, **(options or {}))
    S = position(g, territories, **values)
    return [fn(g, "tile_points")(S, k, p) for p in range(players)]


# ---------------------------------------------------------------- data

def test_the_tile_data_is_complete_and_labelled():
    doc = json.loads(DATA.read_text())
    assert "fan implementation" in doc["source"] and len(doc["assumptions"]) >= 4
    g = game()
    land, castles = g.ns[N.value("landscape")], g.ns[N.value("castles")]
    assert [t[0] for t in land] == list(range(1, 74)) and len(castles) == 5
    scroll = g.codec.enums["Scroll"]
    kinds = [scroll[t[11]] for t in land if t[11] is not None]
    assert sorted(kinds) == sorted(scroll * 2)           # 14 scrolls: two of each kind
    water = g.codec.enums["Terrain"].index("water")
    assert land[26][1] == water                           # tile 27's unreadable centre


# ---------------------------------------------------------------- the scoring tiles

def test_tile_0_two_points_per_square():
    # Six tiles in a 2 x 3 block with the castle, then (2,2), (3,2) and
    # (2,3): squares with top-left corners (0,0) and (0,1) (they overlap:
    # both count); (2,2) with its right and lower neighbours lacks (3,3).
    # 2 squares x 2 = 4.
    t = [(0, 1, 1, 0), (1, 1, 4, 2), (1, 0, 6, 0), (0, 2, 7, 0), (1, 2, 8, 0), (2, 2, 10, 2), (3, 2, 2, 0),
         (2, 3, 3, 2)]
    assert points(0, [t]) == [4, 0]


def test_tile_1_one_point_per_sheep():
    # Tile 72 has 3 sheep, tile 20 has 2, tile 8 has 1 sheep and 1 cattle
    # (cattle do not count): 6.
    t = [(0, 1, 72, 3), (0, -1, 20, 1), (1, 0, 8, 0)]
    assert points(1, [t]) == [6, 0]


MOUNTAINS = [(-1, 0, 36, 0), (1, 0, 51, 1), (0, 1, 56, 0), (-2, 0, 65, 0)]


def test_tile_2_brochs_per_mountain_area():
    # Tiles 36 and 65 are mountain throughout and join the castle's west
    # edge: one open mountain area with their 2 brochs: 3. Tiles 51 and 56
    # each have a mountain centre with no mountain edge, a broch on it: two
    # areas of 1 broch: 1 + 1. The castle has no broch. 3 + 1 + 1 = 5.
    assert points(2, [MOUNTAINS]) == [5, 0]
    # Tile 67 west of 65 (mountain but for its north edge) brings a third
    # broch to the large area: 6 + 1 + 1 = 8.
    assert points(2, [MOUNTAINS + [(-3, 0, 67, 0)]]) == [8, 0]


def test_tile_3_whisky_majority():
    # Whisky tiles: player 0 has 1 and 2, player 1 has 11 and 64, player 2
    # has 69. Tied leaders (2 each) both get 5; with tied leaders nobody gets
    # the second prize.
    p0, p1, p2 = [(0, 1, 1, 0), (0, -1, 2, 0), (-1, 0, 35, 2)], [(0, -1, 11, 0), (0, 1, 64, 0)], [(0, 1, 69, 0)]
    assert points(3, [p0[:2], p1, p2], players=3) == [5, 5, 0]
    # Player 0 with 3 (1, 2, 35), players 1 and 2 with 1 each: 5 for the
    # leader, 2 for each of the tied seconds.
    assert points(3, [p0, p1[:1], p2], players=3) == [5, 2, 2]
    # Nobody else has whisky: a count of 0 wins nothing, even as the most.
    assert points(3, [p0, [], []], players=3) == [5, 0, 0]
    assert points(3, [[], [], []], players=3) == [0, 0, 0]


FARMS = [(0, 1, 10, 1), (-1, 1, 28, 1), (0, 2, 72, 0), (-1, 2, 20, 2), (0, -1, 26, 0), (0, -2, 66, 0)]


def test_tile_4_animals_by_a_farm():
    # Farm tiles: 10 at (0,1) (1 sheep) and 28 at (-1,1) (1 sheep, 1 cattle).
    # 72 at (0,2) (3 sheep) is next to both, 20 at (-1,2) (2 sheep) too;
    # 66 at (0,-2) (1 sheep, 2 cattle) is three rows from any farm, and 26
    # between has none. Each animal once: 1 + 2 + 3 + 2 = 8.
    assert points(4, [FARMS]) == [8, 0]
    # House rule per_farm_tile: every one of these tiles is on or next to
    # both farm tiles, so each animal counts twice: 16.
    assert points(4, [FARMS], options={"farm_scoring": "per_farm_tile"}) == [16, 0]


ROADS = [(0, 1, 69, 0), (0, 2, 59, 2), (1, 0, 12, 1), (-1, 0, 40, 2), (0, -1, 44, 0)]


def test_tile_5_cattle_joined_by_road():
    # The castle's south road runs on through 69 (1 cattle) into 59 (1
    # cattle); its north road into 44 (road 2; no cattle). 12 (1 cattle) has
    # no road, and 40 shows no road to the castle's west road. 2 x 2 = 4.
    assert points(5, [ROADS]) == [4, 0]


def test_tile_6_tiles_joined_by_road():
    # Joined by road: 44, 69 and 59 (the castle itself does not count): 3.
    assert points(6, [ROADS]) == [3, 0]


# Water: the castle's east edge, tile 26 (water centre between pasture to
# the north and south) and the west edge of 20 form a closed water area of
# 3 tiles; tile 5 has a lake (water centre, no water edge): closed, 1 tile;
# 20's east edge, 34, 43 and 70 form an open water area of 4 tiles.
WATERS = [(1, 0, 26, 0), (2, 0, 20, 1), (0, 1, 5, 0), (3, 0, 34, 1), (4, 0, 43, 1), (5, 0, 70, 0)]


def test_tile_7_largest_completed_water_area():
    # The largest completed water area has 3 tiles (the open one of 4 does
    # not count): 2 x 3 = 6.
    assert points(7, [WATERS]) == [6, 0]


def test_tile_8_one_point_per_completed_area():
    # Completed: the water area of 3 tiles and the lake. Every other area
    # (the pastures, the mountain edges, the long water) has an edge on an
    # empty space: 2.
    assert points(8, [WATERS]) == [2, 0]


def test_tile_9_completed_areas_of_three_tiles():
    # WATERS and, north, 72 and 56: five completed areas now, of 3 tiles
    # (the water of WATERS), 2 (the bay between 72's east and 56's west
    # water edges), 2 (56's south pasture edge against 26's north one),
    # 1 (the lake) and 1 (56's lone mountain centre). Only the first has 3
    # tiles or more: 3.
    assert points(9, [WATERS + [(0, -1, 72, 1), (1, -1, 56, 0)]]) == [3, 0]


def test_tile_10_sets_of_broch_farm_lighthouse():
    # 3 (broch, farm), 30 (broch, lighthouse), 31 (farm, lighthouse),
    # 10 (farm): 2 brochs, 3 farms, 2 lighthouses: 2 sets x 5 = 10.
    t = [(0, 1, 3, 0), (0, -1, 30, 0), (-1, 0, 31, 1), (1, 0, 10, 2)]
    assert points(10, [t]) == [10, 0]
    # Each kind of building in turn the scarcest: 1 set, 5 points.
    # 3, 30, 10, 36: 3 brochs, 2 farms, 1 lighthouse.
    assert points(10, [[(0, 1, 3, 0), (0, -1, 30, 0), (-1, 0, 10, 1), (0, 2, 36, 1)]]) == [5, 0]
    # 31, 30, 10, 26: 1 broch, 2 farms, 3 lighthouses.
    assert points(10, [[(0, 1, 31, 2), (0, -1, 30, 0), (-1, 0, 10, 1), (1, 0, 26, 0)]]) == [5, 0]
    # 30, 56, 3: 3 brochs, 1 farm, 2 lighthouses.
    assert points(10, [[(0, 1, 30, 0), (0, -1, 56, 0), (-1, 0, 3, 0)]]) == [5, 0]


def test_tile_11_ship_majority():
    # Ships: player 0 has 43 and 70 (2 + 2), player 1 has 45 (2), player 2
    # has 46 (2): 5 for the leader, 2 for each tied second.
    p0, p1, p2 = [(1, 0, 43, 1), (2, 0, 70, 0)], [(1, 0, 45, 1)], [(1, 0, 46, 0)]
    assert points(11, [p0, p1, p2], players=3) == [5, 2, 2]
    # Player 1 adds tile 1 (2 ships): tied leaders at 4, no second prize.
    assert points(11, [p0, p1 + [(0, 1, 1, 0)], p2], players=3) == [5, 5, 0]


def test_tile_12_gold_majority():
    assert points(12, players=3, gold=(9, 4, 4)) == [5, 2, 2]
    assert points(12, players=3, gold=(6, 6, 1)) == [5, 5, 0]
    assert points(12, players=3, gold=(3, 0, 0)) == [5, 0, 0]   # no gold, no prize
    assert points(12, players=3, gold=(0, 0, 0)) == [0, 0, 0]


SEA = WATERS + [(3, 1, 7, 0), (-1, 1, 42, 1)]


def test_tile_13_water_with_ship_and_lighthouse():
    # The open water area (34, 43, 70 and now 7 below 34) has 5 ships and
    # tile 7's lighthouse: 3. The lake on tile 5 has a ship, but its only
    # lighthouse nearby is on 42, the next tile west; the closed water area
    # has no ship. 3.
    assert points(13, [SEA]) == [3, 0]
    # House rule touching_area: 42 is next to the lake's tile: 3 + 3 = 6.
    assert points(13, [SEA], options={"sea_contact": "touching_area"}) == [6, 0]


COLUMN = [(0, 1, 1, 0), (0, 2, 4, 0), (0, 3, 2, 3), (0, 4, 3, 0), (0, 5, 5, 1), (-1, 0, 6, 0),
          (-2, 0, 7, 0), (-2, 1, 8, 2), (-2, 2, 10, 3), (1, 2, 12, 1), (1, 3, 13, 0)]


def test_tile_14_columns():
    # Columns: (0,0)-(0,5) of 6 tiles, (-2,0)-(-2,2) of 3, (1,2)-(1,3) of 2
    # (too short). Rows: (-2,0)-(0,0) of 3; the others have 2 tiles at most.
    # Two columns: 2 x 3 = 6.
    assert points(14, [COLUMN]) == [6, 0]
    # House rules: per three tiles, 6 / 3 + 3 / 3 = 3 columns: 9; rows
    # counted too: 6 + 3 = 9; both: 9 + 3 = 12.
    assert points(14, [COLUMN], options={"long_column": "per_three_tiles"}) == [9, 0]
    assert points(14, [COLUMN], options={"column_direction": "vertical_or_horizontal"}) == [9, 0]
    assert points(14, [COLUMN], options={"long_column": "per_three_tiles",
                                         "column_direction": "vertical_or_horizontal"}) == [12, 0]


def test_tile_15_completed_mountain_areas():
    # In the territory of tile 2's test, the lone mountain centres of 51 and
    # 56 are completed; the mountain of 36 and 65 ends on empty spaces. 2 x 2.
    assert points(15, [MOUNTAINS]) == [4, 0]


# ---------------------------------------------------------------- final scoring, income, rotation

def test_a_scroll_in_a_completed_area_scores_twice():
    # Tile 48's sheep scroll: its centre joins its east and west pasture
    # edges, which meet the lone pasture edges of 26 and 33: a completed
    # area. 5 sheep (72, 9): 2 points, doubled: 4.
    t = [(0, -1, 1, 2), (0, -2, 48, 2), (-1, -2, 26, 1), (1, -2, 33, 1), (0, 1, 72, 3), (1, 1, 9, 3)]
    g = game()
    S = position(g, [t])
    assert fn(g, "scroll_points")(S, 0) == 4
    # The worked example of the spec (`scrolls_round_down`): open, not doubled.
    t = [(0, 1, 23, 2), (0, -1, 72, 1), (1, -1, 20, 1)]
    assert fn(g, "scroll_points")(position(g, [t]), 0) == 2


def test_final_points_and_the_tie_break():
    g = game()
    S = position(g, gold=(13, 8))
    assert [fn(g, "final_points")(S, p) for p in (0, 1)] == [2, 1]       # 5 gold = 1 point
    assert [fn(g, "tie_key")(S, p) for p in (0, 1)] == [3, 3]            # leftover after exchange
    g = game(tie_gold="all_gold")
    assert [fn(g, "tie_key")(position(g, gold=(13, 8)), p) for p in (0, 1)] == [13, 8]


def test_income_counts_whisky_joined_by_road_and_catch_up():
    # End of round 3 (2 players, order 1 then 0): player 1 builds its last
    # tile, the round is scored (every slot holds tile 12, gold majority,
    # and nobody has gold: 0 points), and round 4 pays income. Player 0
    # (ROADS: 69 has whisky and is joined by road; 59, 12, 40 and 44 have
    # none) gets 5 + 1 = 6. Player 1 has no whisky, but player 0 is ahead
    # (4 points to 0): 5 + 2 (the catch-up of round 4) = 7.
    g = game()
    land_t = ("map", ("record", "Pos"), ("record", "Placed"))
    tile_t = ("record", "Tile")
    lands = [g.codec.to_json(land_t, territory(g, 0, ROADS)), g.codec.to_json(land_t, territory(g, 1, []))]
    lake = g.codec.to_json(tile_t, g.ns[N.value("landscape")][25])      # tile 26
    st = g.state_from({"land": lands, "vp": [4, 0], "gold": [0, 0], "paid_in": 0, "slots": [12, 12, 12, 12],
                       "got": [[], [lake]], "current_round": 3}, player=1, phase="build")
    place = next(a for a in st.legal_actions() if a.kind == "place" and a.params[1] == (1, 0))
    st.apply_action(place)
    while st.is_chance_node():
        st.apply_action(st.sample_chance())
    names = g.layout.names
    assert st.round == 4
    assert st.S[names.index("vp")] == (4, 0)
    assert st.S[names.index("gold")] == (6, 7)
    assert st.S[names.index("paid_in")] == 13


def test_turning_a_tile():
    # The castle turned once clockwise shows its west mountain to the north,
    # its north pasture to the east, and so on.
    g = game()
    castle = g.ns[N.value("castles")][0]
    terrain = g.codec.enums["Terrain"]
    edge = fn(g, "edge")
    assert [terrain[edge(None, (castle, 0), d)] for d in range(4)] == ["pasture", "water", "pasture", "mountain"]
    assert [terrain[edge(None, (castle, 1), d)] for d in range(4)] == ["mountain", "pasture", "water", "pasture"]
    assert [terrain[edge(None, (castle, 3), d)] for d in range(4)] == ["water", "pasture", "mountain", "pasture"]


# ---------------------------------------------------------------- secrets

def to_prices(seed):
    """A random game of 3 players played to a secret pricing step."""
    g = game(3)
    st = g.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(0, 40)):
        if st.is_terminal():
            break
        st.apply_action(st.sample_chance() if st.is_chance_node() else rng.choice(st.legal_actions()))
    # on to a secret step where two players or more have yet to choose
    while not (st.is_simultaneous_node() and len({a.player for a in st.legal_actions()}) >= 2):
        st.apply_action(st.sample_chance() if st.is_chance_node() else rng.choice(st.legal_actions()))
    return g, st


@pytest.mark.parametrize("seed", range(6))
def test_no_other_player_sees_a_secret_price_or_discard(seed):
    """Two states that differ only in one player's secret choices (which
    tile to discard, how much gold on each other tile) look the same to
    every other player, and different to that player."""
    g, st = to_prices(seed)
    chooser = next(a.player for a in st.legal_actions())
    outcomes = []
    for pick in (0, -1):
        s = st.clone()
        while any(a.player == chooser for a in s.legal_actions()):
            acts = [a for a in s.legal_actions() if a.player == chooser]
            s.apply_action(acts[pick])
        outcomes.append(s)
    a, b = outcomes
    assert a.S != b.S
    for viewer in range(3):
        same = a.observation(viewer)["state"] == b.observation(viewer)["state"]
        assert same == (viewer != chooser), viewer
