"""The positions play counts for the "distinct states" evidence, hashed
over a game one state after the other (verify.explore.PositionHasher): only
the values that changed are hashed again. These tests fail if the hasher
keeps the hash of a value that changed, or if the hash tells apart states
that the key (``state_key``) does not, or the other way round."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.verify.explore import PositionHasher, position_hash, state_key
from atoll.verify.reads import changed as changed_slots

ROOT = Path(__file__).resolve().parent.parent
_GOOD = sorted((ROOT / "tests" / "good").glob("*.atoll"))
_SHIPPED = sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll"))


def _load(path):
    try:
        return atoll.load(path, players=atoll.compile_spec(path).program.player_range[0])
    except Exception as e:   # a good spec that needs options to load
        pytest.skip(f"does not load with defaults: {e}")


def _states(game, seed: int, steps: int):
    """The states of a random game (lean moves, as play makes them), each
    with the slots changed since the state before (as bits)."""
    rng = random.Random(seed)
    st = game.new_initial_state(seed=seed)
    yield st, None
    for _ in range(steps):
        if st.is_terminal():
            return
        legal = st.legal_moves()
        if not legal:
            return
        before = list(st.S)
        st.apply_move(rng.randrange(len(legal)))
        yield st, changed_slots(before, st.S)


@pytest.mark.parametrize("path", _SHIPPED + _GOOD, ids=lambda p: p.stem)
def test_the_kept_hashes_are_the_hash_made_afresh(path):
    """Over random games of every shipped and good spec: the hasher told
    the changed slots, and the hasher that finds them by identity, give in
    each state the hash made from scratch; and two states have the same
    hash exactly when they have the same key."""
    game = _load(path)
    keys: dict = {}
    met = 0
    for seed in range(3):
        told, by_identity = PositionHasher(game), PositionHasher(game)
        for st, changed in _states(game, seed, 300):
            full = position_hash(game, st)
            assert told(st, changed) == full, (path.name, seed)
            assert by_identity(st) == full, (path.name, seed)
            key = state_key(game, st)
            assert keys.setdefault(key, full) == full, (path.name, seed)
            met += 1
    assert len(set(keys.values())) == len(keys), path.name   # no two keys share a hash
    assert met > 1


def test_a_state_out_of_order_is_hashed_as_itself():
    """The hasher may be given any state: one that does not follow the last
    is compared slot by slot, so the kept hashes of another game are not
    taken for its own."""
    game = _load(ROOT / "spec" / "masterislands.atoll")
    a = [st.clone() for st, _ in _states(game, 1, 40)]
    b = [st.clone() for st, _ in _states(game, 2, 40)]
    h = PositionHasher(game)
    for x, y in zip(a, b):
        assert h(x) == position_hash(game, x)
        assert h(y) == position_hash(game, y)
    assert len({position_hash(game, x) for x in a}) > 1


@pytest.mark.parametrize("v", [
    [], [1, 2, 3], [True, None, "a"], [(1, 2), (3, (4, 5))], [[1], [2, 3], []],
    [{1: 2}], [(1, [2])], [frozenset({1, 2}), "x"], [[(1, 2)], [{3: [4]}]],
])
def test_a_list_hashes_as_its_stand_in(v):
    """A list's hash is its stand-in's (``_slot``: the frozen list), whether
    it holds only hashable values (hashed as ``("list", *v)`` at once) or
    lists and maps (frozen): the positions counted keep the hashes they had."""
    from atoll.verify.explore import _freeze, _slot, _slot_hash
    assert _slot_hash(v) == hash(_slot(v)) == hash(_freeze(v))
