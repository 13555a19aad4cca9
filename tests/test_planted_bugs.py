"""The twelve rule bugs an audit planted in copies of the shipped specs
(issue 14): each, written into a copy of the spec, is caught by the
spec's own properties or examples. Each case names the check that catches
it (the cheapest one that does): on the planted copy it is not as the spec
expects. On the shipped specs every check is as expected
(tests/test_specs.py, tests/test_examples.py)."""
from __future__ import annotations

import shutil

import pytest

from atoll.compiler import pipeline
from atoll.verify import verdicts as V
from atoll.verify.examples import run_examples
from atoll.verify.runner import check_one, configurations
from helpers import ROOT

# (spec, the text of the rules as shipped, the planted bug, the check that catches it)
BUGS = {
    # Kanaloa
    "a threshold off by one": (
        "kanaloa", "def absolute_at(places: int, own: int): bool = 2 * own > places",
        "def absolute_at(places: int, own: int): bool = 2 * own > places + 1", "thresholds"),
    "a missing cascade": (
        "kanaloa", "if i in won or (i in stones and absolute(stones[i], i))}",
        "if i in won or i in stones}", "absolute_majority_and_cascade"),
    "a player who is behind may remove a bridge": (
        "kanaloa", "any(o > own for o in others) => nothing",
        "any(o > own for o in others) => active_chooses", "behind_removes_nothing"),
    "a wrong scoring entry": (
        "kanaloa", "places - own + (if final then 1 else 0)",
        "places - own + (if final then 2 else 0)", "scoring_table_matches"),
    "a hand limit of 6": (
        "kanaloa", "const hand_limit: int = 5", "const hand_limit: int = 6", "a_full_hand_discards_first"),
    "an exchange with a wrong pair": (
        "kanaloa", "[[b[0], b[0]], [b[0], b[1]], [b[1], b[1]]]",
        "[[b[0], b[0]], [b[0], b[1]], [b[0], b[0]]]", "bridge_exchange"),
    # MasterIslands
    "a line sum of 11": (
        "masterislands", "const line_total: int = 10", "const line_total: int = 11", "conquest_5_4_1"),
    "cards under the player's own galleon not protected": (
        "masterislands", "  q in fleet[p] or (others_galleons", "  (others_galleons", "conquest_5_4_1"),
    "non-collinear lines accepted": (
        "masterislands", "if not protected(me, q)}, line_total))",
        "if not protected(me, q)}, line_total) + [{a, b} for a in keys(board) for b in keys(board) "
        "if a != b and not protected(me, a) and not protected(me, b)])",
        "conquests_are_lines_of_ten"),
    "a victory threshold of 13": (
        "masterislands", "2 => 12, 3 => 10", "2 => 13, 3 => 10", "victory_cards"),
    "a Discovery that draws 2 cards": (
        "masterislands", "    placed = true\n", "    placed = true\n    deal 2 from pile to hand[me]\n",
        "another_discovery"),
    "the pile-empty ending removed": (
        "masterislands", "ending pile_empty immediately when size(pile) == 0 and mode != corsair",
        "ending pile_empty immediately when false", "alternative_ending_most_cards"),
}


def verdict(path, name: str) -> tuple[str, bool]:
    """The verdict of one property or example of the spec at ``path`` (the
    fewest players, default options), and whether it is as the spec expects."""
    comp = pipeline.compile_spec(path)
    prog = comp.program
    if name in prog.examples:
        [r] = run_examples(comp, {name})
        return r.verdict, r.ok
    pr = prog.properties[name]
    [(n, opts)] = configurations(comp, None, {}, False)
    game = pipeline.instantiate(comp, n, opts)
    _, v, _, _ = check_one(prog, game, pr, 20, 0, str(path), 5_000)
    return v, V.EXPECTATIONS[pr.expect or V.DEFAULT_EXPECTATION[pr.kind]](v)


@pytest.fixture(scope="module")
def shipped():
    return {g: (ROOT / "spec" / f"{g}.atoll").read_text() for g in ("kanaloa", "masterislands")}


@pytest.mark.parametrize("bug", list(BUGS))
def test_each_planted_bug_is_caught(bug, shipped, tmp_path):
    game, old, new, check = BUGS[bug]
    text = shipped[game]
    assert text.count(old) == 1, f"the shipped {game} spec changed: {old!r}"
    shutil.copytree(ROOT / "spec" / "data", tmp_path / "data")
    path = tmp_path / f"{game}.atoll"
    path.write_text(text.replace(old, new))
    v, ok = verdict(path, check)
    assert not ok, f"{check} did not notice {bug}: {v}"
