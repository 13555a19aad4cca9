"""The game block's `pictures` entry, drawing shapes: a function of the
spec that returns a list of shape records (sectors, dots, boxes, texts) is
drawn as an SVG in the generated docs (atoll/docgen/shapes.py), every label
escaped and every size bounded; one that cannot be drawn is A0110."""
import re
import xml.dom.minidom

import pytest

import atoll
from atoll.docgen import rulebook, shapes, tiles
from helpers import ROOT

BOARD = ROOT / "tests" / "good" / "round_board.atoll"


def drawn(path, moves=3):
    doc = rulebook.load(path)
    game = doc.game(2)
    st = game.new_initial_state(seed=0)
    for _ in range(moves):
        st.apply_action(st.legal_actions()[1])
    return {k: svg for k, svg, _ in tiles.tile_svgs(doc, game, st, 0, "now")}, st


def test_the_round_board_is_drawn_with_its_sectors_colours_and_escaped_labels():
    pics, st = drawn(BOARD)
    assert list(pics) == ["board", "holder-0", "holder-1"]      # a function of a player: once per seat
    board = pics["board"]
    xml.dom.minidom.parseString(board)                          # well-formed
    assert board.count("<polygon") == 8                         # the eight sectors
    claims = len(st.observation(0)["state"]["claimer"])
    assert board.count("<circle") == 1 + claims                 # the pond and one dot per claim
    assert ">pond &lt;&amp;&gt;<" in board and "pond <&>" not in board
    colours = shapes.colours(("sand", "clay", "moss", "water"))
    for member in ("sand", "clay", "moss"):
        assert f"fill='{colours[member]}'" in board and f">{member}<" in board   # fills and the legend
    assert ">player 0<" in board and ">player 1<" in board
    holder = pics["holder-0"]
    assert holder.count("<rect x=") >= 3 and ">slot<" in holder


def test_a_sector_spans_its_angles():
    view = {"shape": "sector", "x": 0, "y": 0, "r0": 50, "r1": 100, "a0": 0, "a1": 9000, "fill": "a"}
    svg = shapes.draw([view], "t", ("a",))
    pts = [tuple(map(float, p.split(","))) for p in re.search(r"points='([^']+)'", svg).group(1).split()]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    # a quarter ring in the first quadrant: its corner (50, 0) is at the bottom left, (0, 100) at the top
    assert max(xs) - min(xs) == pytest.approx(520, abs=1) and max(ys) - min(ys) == pytest.approx(520, abs=1)


def test_labels_are_escaped_clipped_and_shapes_bounded():
    evil = "</text><script>alert(1)</script>" + "x" * 100
    views = [{"shape": "dot", "x": i, "y": 0, "r1": 1, "fill": "a", "label": evil}
             for i in range(shapes.MAX_SHAPES + 5)]
    views.append({"shape": "box", "x": 10 ** 12, "y": -10 ** 12, "w": 3, "h": 3, "fill": "a"})
    svg = shapes.draw(views, "t </title>", ("a",))
    xml.dom.minidom.parseString(svg)
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert "x" * (shapes.MAX_LABEL + 1) not in svg
    assert svg.count("<circle") == shapes.MAX_SHAPES
    assert "6 more shapes not drawn" in svg


GAME = """
game g { title: "G" players: 2..2 pictures: "view" }
enum Shape { sector, dot }
enum Ink { red, blue }
%s
state { n: int = 0  player secret: int = 0 visible owner }
def view(%s): %s
flow { round { turns in seats: p } }
phase p { action go() { end phase } }
"""
MARK = "record Mark { shape: Shape, fill: Ink, x: int, y: int, r1: int }"


@pytest.mark.parametrize("rec, params, body, says", [
    (MARK, "", "[Mark(dot, red, n, 0, 1)]", None),
    (MARK, "p: Player", "[Mark(dot, red, n, p, 1)]", None),
    (MARK, "k: int", "[Mark(dot, red, k, 0, 1)]", "a parameter other than one player"),
    ("record Mark { fill: Ink }", "", "[Mark(red)]", "no field `shape` of an enum"),
    ("record Mark { shape: Shape, fill: int }", "", "[Mark(dot, 1)]", "`fill` is int, not an enum"),
    ("record Mark { shape: Shape, x: bool }", "", "[Mark(dot, true)]", "`x` is bool, not int"),
    ("record Mark { shape: Shape, seat: str }", "", "[Mark(dot, \"a\")]", "`seat` is str"),
    ("record Mark { shape: Shape, label: bool }", "", "[Mark(dot, true)]", "`label` is bool"),
    (MARK, "", "[Mark(dot, red, 0, 0, 1) for i in range(secret[0])]", "reads `secret`"),
    (MARK + "\ndef hid(): int = secret[1]", "", "[Mark(dot, red, hid(), 0, 1)]", "reads `secret`"),
    (MARK, "", "list[int] = [1]", "holds int, not records"),
])
def test_shapes_functions_are_checked(tmp_path, rec, params, body, says):
    path = tmp_path / "g.atoll"
    path.write_text(GAME % (rec, params, body if body.startswith("list[") else "list[Mark] = " + body))
    if says is None:
        atoll.compile_spec(path)
        return
    with pytest.raises(atoll.SpecError) as e:
        atoll.compile_spec(path)
    assert "A0110" in str(e.value) and says in str(e.value), str(e.value)


# ---------------------------------------------------------------- La Isla's island and cardholders

def test_la_isla_draws_the_arranged_island_and_the_cardholders():
    """The island after setup: the 65 spaces as sectors in the resource
    colour of their terrain (desert yellow, as on the board), the 35 regions as dots with their values, each dot next to every
    space the arrangement puts around it (the seam regions too); a
    cardholder per seat with a box per slot."""
    import json
    import math
    doc = rulebook.load(ROOT / "spec" / "la_isla.atoll")
    game = doc.game(2)
    st = game.new_initial_state(seed=5)
    _, _, shaped = tiles.drawers(doc, game)
    fn, rec, _ = shaped["island"]
    views = [shapes._shape(tiles._view(game, rec, v)) for v in fn(st.S)]
    sectors = [v for v in views if v["shape"] == "sector"]
    dots = [v for v in views if v["shape"] == "dot"]
    data = json.loads((ROOT / "spec" / "data" / "la_isla_island.json").read_text())
    assert len(sectors) == len(data["spaces"]) == 65 and len(dots) == 35        # no explorer yet
    assert [s["fill"] for s in sectors] == [s["colour"] for s in data["spaces"]]
    assert sorted(int(d["label"]) for d in dots) == sorted(r["value"] for r in data["regions"])
    around = dict(st.observation(0)["state"]["around"])
    assert len(around) == 35
    ids = [s["id"] for s in data["spaces"]]
    order = [r["id"] for r in data["regions"] if r["id"] in around]
    for rid, dot in zip(order, dots):
        for sid in around[rid]:
            pts = shapes._outline(sectors[ids.index(sid)])
            near = min(math.hypot(px - dot["cx"], py - dot["cy"]) for px, py in pts)
            assert near < 30, (rid, sid, near)       # the region touches each of its spaces
    pics = {k: svg for k, svg, _ in tiles.tile_svgs(doc, game, st, 0, "after setup")}
    assert list(pics) == ["island", "cardholder-0", "cardholder-1"]
    assert ">yellow<" in pics["island"] and ">grey<" in pics["island"]       # the legend
    desert = next(s for s in data["spaces"] if s["terrain"] == "desert")["colour"]
    assert desert == "yellow" and "#f2cf3a" in pics["island"]              # a named colour kept
    assert pics["cardholder-0"].count("<rect x=") >= 3 and ">free<" in pics["cardholder-0"]


def test_a_picture_past_a_bound_is_reported_as_a0005(tmp_path, caplog):
    path = tmp_path / "g.atoll"
    body = "list[Mark] = [Mark(dot, red, i, 0, 1) for i in range(%d)]" % (shapes.MAX_SHAPES + 1)
    path.write_text(GAME % (MARK, "", body))
    doc = rulebook.load(path)
    game = doc.game(2)
    with caplog.at_level("WARNING"):
        pics = tiles.tile_svgs(doc, game, game.new_initial_state(seed=0), 0, "now")
    assert "1 more shapes not drawn" in pics[0][1]
    said = caplog.text
    assert "A0005" in said and f"{shapes.MAX_SHAPES + 1} shapes" in said and "g.atoll:2:" in said, said
