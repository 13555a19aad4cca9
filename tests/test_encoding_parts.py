"""ObservationEncoder.encode_state (the vector made from parts kept per
state variable) gives exactly encode(state.observation(player)), in every
state of random games of every shipped and tests/good spec, for every
player, hidden parts included."""
from __future__ import annotations

import random
from pathlib import Path

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
                    assert enc.encode_state(st, p) == fresh.encode(st.observation(p))
            if st.is_terminal() or not st.legal_actions():
                break
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
    with pytest.raises(ValueError):
        pairs[0][0].encode_state(st, game.num_players)
