"""The adapters' fast paths give what their plain paths give: OpenSpiel's
``is_chance_node`` and ``legal_actions`` answered in Python (without the
call through OpenSpiel's C++) against the C++ answers of ``pyspiel.State``."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("spec,players", [("spec/masterislands.atoll", 2), ("spec/masterislands.atoll", 3),
                                          ("tests/good/sealed_bids.atoll", 2), ("tests/good/dice_race.atoll", 2)])
def test_openspiel_answers_in_python_are_the_cpp_ones(spec, players):
    pyspiel = pytest.importorskip("pyspiel")
    import atoll.openspiel as aos
    name = aos.register(str(ROOT / spec), players=players, name="atoll_fast_" + Path(spec).stem)
    game = pyspiel.load_game(name)
    rng = random.Random(players)
    for _ in range(2):
        st = game.new_initial_state()
        for _step in range(150):
            assert st.is_chance_node() == pyspiel.State.is_chance_node(st)
            assert st.legal_actions() == pyspiel.State.legal_actions(st)
            for p in range(players):   # every seat, to move or not
                assert st.legal_actions(p) == pyspiel.State.legal_actions(st, p)
            if st.is_terminal():
                break
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("spec,players", [("spec/masterislands.atoll", 2), ("spec/masterislands.atoll", 4),
                                          ("spec/kanaloa.atoll", 3), ("tests/good/sealed_bids.atoll", 2),
                                          ("tests/good/dice_race.atoll", 2)])
def test_pettingzoo_agent_to_move_and_mask_are_the_plain_ones(spec, players):
    """The PettingZoo environment's agent to move (read from the state's
    control where one player decides) is ``acting_player`` of the state, and
    the mask (filled without a Python loop) holds exactly the legal slots."""
    pytest.importorskip("pettingzoo")
    import numpy as np
    import atoll
    import atoll.pettingzoo as apz
    from atoll.encoding import acting_player
    env = apz.env(atoll.load(str(ROOT / spec), players=players))
    rng = random.Random(players)
    for seed in range(2):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=300):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert env._seat[agent] == acting_player(env.atoll_state)
            slots = np.flatnonzero(obs["action_mask"]).tolist()
            assert slots == sorted(env.legal_moves())
            assert not np.flatnonzero(env.observe(env.possible_agents[(env._seat[agent] + 1) % players])
                                      ["action_mask"]).size
            env.step(slots[rng.randrange(len(slots))])
