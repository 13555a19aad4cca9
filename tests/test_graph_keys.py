"""The search graph's keys keep their hash (``verify.explore._Key``): a
state's key is a tuple of everything the state holds, and the graph's dicts
are looked up by it again and again. Kept or not, the graph and every
search over it are the same."""
from __future__ import annotations

from pathlib import Path

import pytest

from atoll.compiler import pipeline
from atoll.verify import explore

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(ROOT.glob("spec/*.atoll")) + [ROOT / "tests" / "good" / "sealed_bids.atoll",
                                            ROOT / "tests" / "good" / "dice_race.atoll"]


def _searched(game, start, keyed: bool):
    g = explore._build(game, start, 400) if keyed else None
    if not keyed:
        real = explore._Key
        explore._Key = lambda k: k   # plain tuples, as before
        try:
            g = explore._build(game, start, 400)
        finally:
            explore._Key = real
    return g


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_a_graph_with_kept_hashes_is_the_graph_with_plain_keys(path):
    comp = pipeline.compile_spec(path)
    game = pipeline.instantiate(comp, comp.program.player_range[0], {})
    start = game.new_initial_state(seed=0, chance="explicit")
    while start.is_chance_node():   # past a wide setup's chance, so that the search gets somewhere
        start.apply_action(start.sample_chance().id)
    kept, plain = _searched(game, start, True), _searched(game, start, False)
    assert all(k.__class__ is explore._Key for k in kept.order)
    for k in kept.order[:50]:
        assert k == tuple(k) and hash(k) == hash(tuple(k))
    assert kept.order == plain.order and kept.outcome == plain.outcome
    assert kept.parent == plain.parent and kept.edges == plain.edges and kept.level == plain.level
    assert [kept.state[k].S for k in kept.order] == [plain.state[k].S for k in plain.order]
    assert len(kept.order) > 20
