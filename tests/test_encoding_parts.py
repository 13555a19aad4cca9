"""ObservationEncoder.encode_state (the vector made from parts kept per
state variable) gives exactly encode(state.observation(player)), in every
state of random games of every shipped and tests/good spec, for every
player, hidden parts included."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import atoll
from atoll.encoding import ObservationEncoder

ROOT = Path(__file__).resolve().parent.parent
SPECS = [ROOT / "spec" / "masterislands.atoll", ROOT / "spec" / "kanaloa.atoll"] + \
    sorted((ROOT / "tests" / "good").glob("*.atoll"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_parts_give_the_whole_encoding(spec):
    try:
        game = atoll.load(str(spec))
    except Exception as e:
        pytest.skip(f"does not load with defaults: {e}")
    pairs = [(ObservationEncoder(game, h), ObservationEncoder(game, h)) for h in (None, 0, 7)]
    for seed in range(2):
        st = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(60):
            for p in range(game.num_players):
                for enc, fresh in pairs:
                    want = fresh.encode(st.observation(p))
                    assert enc.encode_state(st, p) == want
                    if p == 0:   # the array kept per player, changed where the vector changed
                        assert enc.encode_array(st, p).tolist() == np.array(want, np.float32).tolist()
            if st.is_terminal() or not st.legal_actions():
                break
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
    with pytest.raises(ValueError):
        pairs[0][0].encode_state(st, game.num_players)


@pytest.mark.parametrize("size", [1024, 64, 13])
def test_slots_of_moves_are_the_slots_of_actions(size):
    """ActionIndex.assign_moves (from legal_moves(), no Action objects) gives
    each action the slot assign gives it, clashes included."""
    from atoll.compiler.playout import Moves
    from atoll.encoding import ActionIndex, ActionIndexFull
    game = atoll.load(str(ROOT / "spec" / "masterislands.atoll"), players=3)
    index = ActionIndex(game, size)
    seen = 0
    for seed in range(3):
        st = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            moves, actions = st.legal_moves(), st.legal_actions()
            if moves.__class__ is Moves:
                try:
                    want = {s: (a.kind, a.params) for s, a in index.assign(actions).items()}
                except ActionIndexFull as e:
                    with pytest.raises(ActionIndexFull, match=str(e)[:30]):
                        index.assign_moves(moves)
                else:
                    got = index.assign_moves(moves)
                    assert {s: (actions[i].kind, actions[i].params) for s, i in got.items()} == want
                    seen += 1
            st.apply_action(actions[rng.randrange(len(actions))])
    assert seen > 50
