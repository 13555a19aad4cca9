"""Explicit chance, kept per node (compiler/runtime.py ``_ChanceNode``): the
outcomes of a chance event counted from the last node's when the draw's bag
is what a draw left of that node's bag, found by id without a search, and
the OpenSpiel adapter's chance slots kept per list of items. Each kept
answer must be exactly what counting afresh gives."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.compiler import runtime as R

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll")) + \
    sorted((ROOT / "tests" / "good").glob("*.atoll"))


def _load(spec):
    try:
        return atoll.load(str(spec))
    except Exception as e:   # a spec that needs options or files given: not this test's business
        pytest.skip(f"does not load with defaults: {e}")


def _fresh(game, st) -> list:
    """The outcomes of ``st``'s chance event counted afresh: (id, count, total)."""
    return [(a.id, n, total) for a, n, total in R._ChanceNode.count(game, st.pending).out]


def _explicit_nodes(game, seed: int, cap: int = 400):
    """The chance nodes of a random game with explicit chance, as reached
    (states at a chance node, before an outcome is applied), and the
    number of them whose outcomes were counted from the last node's."""
    st = game.new_initial_state(seed=seed, chance="explicit")
    rng = random.Random(seed)
    derived = 0
    for _ in range(cap):
        if st.is_terminal():
            break
        if st.is_chance_node():
            node = st._chance
            if node is not None and node.counts(st.pending):   # made when the draw stopped
                derived += 1
            yield st, derived
            outcomes = st.chance_outcomes()
            if rng.random() < 0.2:   # now and then a clone goes on instead
                st = st.clone()
            st.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            moves = st.legal_moves()
            if not moves:
                break
            st.apply_move(rng.randrange(len(moves)))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_kept_outcomes_are_the_counted_ones(spec):
    game = _load(spec)
    if not game.source.count("X.draw("):
        pytest.skip("no chance")
    for seed in range(3):
        for st, _ in _explicit_nodes(game, seed):
            got = [(a.id, n, total) for a, n, total in st._chance_counts()]
            assert got == _fresh(game, st)
            # every outcome is found by its id, and nothing else is
            for a, _p in st.chance_outcomes():
                assert st._chance.item_of(a.id) == a.params[0]
            assert st._chance.item_of(-1) is R._NONE


def test_outcomes_are_counted_from_the_last_node():
    """MasterIslands deals and resupplies from one pile: after the first
    count of a game, every chance node is counted from the last one."""
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"))
    nodes = derived = 0
    for seed in range(3):
        last = 0
        for st, last in _explicit_nodes(game, seed):
            nodes += 1
            assert [(a.id, n, t) for a, n, t in st._chance_counts()] == _fresh(game, st)
        derived += last
    assert nodes > 20 and derived >= nodes - 3


def test_a_bag_not_left_by_the_last_draw_is_counted():
    """A node is derived only from a draw that left the very bag drawn
    from now, out of a bag equal to the last node's: else it is counted."""
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"))
    st = game.new_initial_state(seed=1, chance="explicit")
    node = R._ChanceNode.count(game, st.pending)
    bag, elem = st.pending[2], st.pending[3]
    item = bag[0]
    rest = bag[1:]
    pending = (None, [], rest, elem, [])
    assert node.after(pending, (bag, item, rest)) is not None
    assert node.after(pending, (bag, item, type(rest)(list(rest)))) is None   # not the very bag left
    assert node.after(pending, (bag[1:], item, rest)) is None            # drawn from another bag
    assert node.after(pending, None) is None
    assert node.after((None, [], rest, ("list", "int"), []), (bag, item, rest)) is None   # another type
    equal = type(bag)(list(bag))
    assert equal is not bag
    d = node.after(pending, (equal, item, rest))   # an equal bag
    assert [(a.id, n, t) for a, n, t in d.out] == \
        [(a.id, n, t) for a, n, t in R._ChanceNode.count(game, pending).out]


def test_openspiel_chance_slots_are_those_counted_afresh():
    pyspiel = pytest.importorskip("pyspiel")
    import atoll.openspiel as aos
    from atoll.encoding import ActionIndex
    name = aos.register(str(ROOT / "spec" / "masterislands.atoll"), players=2, name="atoll_chance_nodes_test")
    game = pyspiel.load_game(name)
    index = ActionIndex(game.atoll, 1024, "max_chance_outcomes")
    rng = random.Random(3)
    for seed in range(3):
        st = game.new_initial_state()
        seen = 0
        while not st.is_terminal() and seen < 60:
            if st.is_chance_node():
                outcomes = st.atoll_state.chance_outcomes()
                slots = index.assign(a for a, _ in outcomes)
                slot_of = {a.id: s for s, a in slots.items()}
                want = sorted((slot_of[a.id], p) for a, p in outcomes)
                assert st.chance_outcomes() == want
                assert {s: a.id for s, a in st._core.moves().items()} == {s: a.id for s, a in slots.items()}
                seen += 1
                st.apply_action(want[rng.randrange(len(want))][0])
            else:
                legal = st.legal_actions()
                st.apply_action(legal[rng.randrange(len(legal))])
