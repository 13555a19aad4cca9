"""The game block's `pictures` entry: functions of the spec that draw its
values as square tiles in the generated docs (atoll/docgen/tiles.py), and
the diagnostics of a bad entry (A0108). Isle of Skye's worked examples are
drawn with it: a territory with terrains, roads, scrolls and completed
areas, and a buying round's tiles for sale with their prices."""
import re

import pytest

import atoll
from atoll.docgen import rulebook, tiles
from atoll.verify.examples import run_example
from helpers import ROOT

SKYE = ROOT / "spec" / "isle_of_skye.atoll"

GAME = """
game squares { players: 2..2 pictures: "%s" }
enum Ground { sand, sea }
record Cell { ground: Ground, path: bool }
record Look { centre: Ground, edges: list[Ground], roads: list[bool], closed: list[bool], label: int }
state {
  player land: map[Pos, Cell] = {pos(0, 0): Cell(sand, true), pos(1, 0): Cell(sea, false)} visible all
  player secret: list[Cell] = [Cell(sea, true)] visible owner
}
def look(m: map[Pos, Cell], q: Pos): Look =
  Look(m[q].ground, [if pos(q.x + 1, q.y) in m then sea else m[q].ground, sand, sand, sand],
       [m[q].path, false, m[q].path, false], [q.x == 1, false, false, false, false], q.x)
def alone(c: Cell): Look = Look(c.ground, [c.ground, c.ground, c.ground, c.ground], [c.path, false, false, false],
                               [false, false, false, false, false], 7)
%s
flow { round { turns in seats: move } }
phase move { action pass() { end phase } }
ending over after_round when current_round >= 1 => tie
"""


def doc_of(tmp_path, entry, extra=""):
    path = tmp_path / "g.atoll"
    path.write_text(GAME % (entry, extra))
    return rulebook.load(path)


def test_cells_and_items_are_drawn_from_the_specs_functions(tmp_path):
    doc = doc_of(tmp_path, "look, alone")
    game = doc.game(2)
    drawn = tiles.tile_svgs(doc, game, game.new_initial_state(seed=0), 0, "start")
    keys = [k for k, _, _ in drawn]
    assert keys == ["land-0", "land-1", "secret"]         # player 1's secret list is hidden from seat 0
    land = drawn[0][1]
    assert land.count("<polygon") >= 10                   # 5 parts a tile, 2 tiles (+ closed marks)
    assert "url(#closed)" in land and "stroke-dasharray" in land   # a completed part, a road
    assert ">sand<" in land and ">sea<" in land          # the legend names the members
    assert "player 1" not in drawn[2][1] and "player 0" in drawn[2][1]


@pytest.mark.parametrize("entry, extra, says", [
    ("nothing", "", "`pictures` names `nothing`, which is not a function"),
    ("flat", "def flat(c: Cell): int = 1", "it returns int, not a record"),
    ("two", "def two(a: Cell, b: Cell): Look = look({pos(0, 0): a}, pos(0, 0))",
     "neither one value nor a map of positions"),
    ("bare", "record Bare { label: int }\ndef bare(c: Cell): Bare = Bare(1)", "neither `centre` nor `edges`"),
    ("odd", "record Odd { centre: int }\ndef odd(c: Cell): Odd = Odd(1)", "`centre` is int, not an enum"),
])
def test_a_bad_pictures_entry_is_a0108(tmp_path, entry, extra, says):
    with pytest.raises(atoll.SpecError) as e:
        doc_of(tmp_path, entry, extra)
    text = str(e.value)
    assert "A0108" in text and says in text, text


def skye_example(name):
    doc = rulebook.load(SKYE)
    ex = doc.comp.program.examples[name]
    run = run_example(doc.comp, ex)
    assert run.ok
    return doc, run


def test_isle_of_skye_territory_shows_terrains_roads_scrolls_and_completed_areas():
    doc, run = skye_example("scrolls_round_down")
    drawn = dict((k, svg) for k, svg, _ in tiles.tile_svgs(doc, run.game, run.start, 0, "the position"))
    land = drawn["land-0"]
    for number in ("101", "23", "72", "20"):            # the castle and the three tiles, numbered
        assert f">{number}<" in land
    assert ">two sheep<" in land                        # tile 23's scroll
    assert "stroke-dasharray" in land                   # roads
    assert "url(#closed)" in land                       # the water edges closed between 72 and 20
    assert all(f">{t}<" in land for t in ("pasture", "mountain", "water"))


def test_isle_of_skye_buying_round_shows_the_tiles_for_sale_with_their_gold():
    doc, run = skye_example("buying_round")
    drawn = dict((k, svg) for k, svg, _ in tiles.tile_svgs(doc, run.game, run.start, 0, "before"))
    price = drawn["price"]
    rows = re.findall(r">player (\d)<", price)
    assert rows == ["0", "1"]
    for tile, gold in (("20", "4"), ("9", "3"), ("72", "2")):
        assert f">{tile}<" in price and f">{gold}<" in price
    after = dict((k, svg) for k, svg, _ in tiles.tile_svgs(doc, run.game, run.end, 0, "after"))
    assert "price" not in after and "got" in after      # sold or kept: every tile is to build
