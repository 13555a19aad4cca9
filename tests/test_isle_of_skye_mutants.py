"""Each scoring tile's test fails when its rule is mutated (issue 13).

The mutants are `atoll mutate`'s own (verify/mutants.py) that change one
arm of `tile_points`, the rule of one scoring tile, and, where an arm only
calls a function of the territory (`farm_animals(l)`), that function's
mutants inlined in the arm. Tile 8's arm has nothing the generator changes
(no number, no operator): it gets two hand-written bugs.

Compiling one spec per mutant would take a minute, so all of them go into
one spec: mutant i of tile k becomes an extra arm `1000 + i` of
`tile_points` beside the real ones, and tile k's test is run with tile k
read as arm `1000 + i` (``PATCH`` in test_isle_of_skye). The test must then
fail. Nothing is skipped: a mutant no test notices fails this test.
"""
from __future__ import annotations

import functools
import shutil

import pytest

import test_isle_of_skye as skye
from atoll.compiler import pipeline
from atoll.verify import mutants as MT

HAND_WRITTEN = {
    8: ["count(a for a in areas(l) if not closed(l, a))",   # open areas instead
        "count(a for a in areas(l))"],                       # every area
}

TESTS = {
    0: skye.test_tile_0_two_points_per_square,
    1: skye.test_tile_1_one_point_per_sheep,
    2: skye.test_tile_2_brochs_per_mountain_area,
    3: skye.test_tile_3_whisky_majority,
    4: skye.test_tile_4_animals_by_a_farm,
    5: skye.test_tile_5_cattle_joined_by_road,
    6: skye.test_tile_6_tiles_joined_by_road,
    7: skye.test_tile_7_largest_completed_water_area,
    8: skye.test_tile_8_one_point_per_completed_area,
    9: skye.test_tile_9_completed_areas_of_three_tiles,
    10: skye.test_tile_10_sets_of_broch_farm_lighthouse,
    11: skye.test_tile_11_ship_majority,
    12: skye.test_tile_12_gold_majority,
    13: skye.test_tile_13_water_with_ship_and_lighthouse,
    14: skye.test_tile_14_columns,
    15: skye.test_tile_15_completed_mountain_areas,
}


@functools.lru_cache(maxsize=1)
def arm_mutants():
    """{tile: [(what, mutated arm text)]} and the original spec text."""
    path = skye.SKYE
    text = path.read_text()
    prog = pipeline.compile_spec(str(path)).program
    ms = MT.generate(prog, text, str(path))
    tx = MT.Text(text)
    out = {}
    for arm in prog.defs["tile_points"].body.body.arms:
        k = 15 if arm.pattern is None else arm.pattern
        a, b = tx.range(arm.value.span)
        found = [(m.what, m.apply(text)[a:b + len(m.apply(text)) - len(text)])
                 for m in ms if all(a <= s and e <= b for s, e, _ in m.edits)]
        called = arm.value
        if not found and type(called).__name__ == "Call" and called.func in prog.defs:
            d = prog.defs[called.func]   # a rule of one call: its own mutants, inlined
            c, e = tx.range(d.body.span)
            found = [(f"{m.what} in {d.name}", m.apply(text)[c:e + len(m.apply(text)) - len(text)])
                     for m in ms if all(c <= s and t <= e for s, t, _ in m.edits)]
        found += [("hand-written: " + t, t) for t in HAND_WRITTEN.get(k, [])]
        out[k] = found
    return out, text


@pytest.fixture(scope="module")
def patched(tmp_path_factory):
    """One spec with every mutant as an extra arm; {tile: [(what, arm)]}."""
    found, text = arm_mutants()
    extra, arms, n = [], {}, 1000
    for k, ms in sorted(found.items()):
        for what, body in ms:
            extra.append(f"    {n} => {body},\n")
            arms.setdefault(k, []).append((what, n))
            n += 1
    anchor = "    _ => 2 * count(a for a in areas(l) if terrain_of(l, a) == mountain and closed(l, a)),\n"
    assert text.count(anchor) == 1
    folder = tmp_path_factory.mktemp("skye")
    shutil.copytree(skye.SKYE.parent / "data", folder / "data")
    spec = folder / "isle_of_skye.atoll"
    spec.write_text(text.replace(anchor, "".join(extra) + anchor))
    yield arms, spec
    skye.PATCH.update(spec=skye.SKYE, tile={})


def test_every_scoring_tile_has_mutants():
    found, _ = arm_mutants()
    assert sorted(found) == list(range(16))
    assert all(found[k] for k in found), {k for k in found if not found[k]}


@pytest.mark.parametrize("k", range(16))
def test_each_scoring_tile_test_kills_every_mutant_of_its_rule(patched, k):
    arms, spec = patched
    survivors = []
    for what, n in arms[k]:
        skye.PATCH.update(spec=spec, tile={k: n})
        try:
            TESTS[k]()
        except AssertionError:
            continue
        finally:
            skye.PATCH.update(spec=skye.SKYE, tile={})
        survivors.append(what)
    # the unmutated rule, read through the same patched spec, passes
    skye.PATCH.update(spec=spec, tile={})
    try:
        TESTS[k]()
    finally:
        skye.PATCH.update(spec=skye.SKYE, tile={})
    assert not survivors, f"tile {k}: mutants no test notices: {survivors}"
