"""Isle of Skye through PettingZoo and OpenSpiel (issue 13, item 5).

The secret price is the large action space: a player may put any amount of
gold from 1 up on each of two tiles, after marking a third for discard. The
spec makes it a sequence of small choices (`discard(t)`, then `put_gold(n)`
for the next unpriced tile, n from 1 to what the player can still afford),
so a state never offers more than one action per gold amount; the adapters
give every move a stable slot among `num_actions` (1024) by hashing its id,
and the mask holds exactly the legal ones. The generic api_test, seed_test
and random_sim_test already run on this game (ecosystem_cases); these tests
look at the pricing step itself."""
import pytest

pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed (pip install '.[pettingzoo]')")
np = pytest.importorskip("numpy", reason="the pettingzoo extra is not installed (pip install '.[pettingzoo]')")
pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install '.[openspiel]')")

import atoll  # noqa: E402
import atoll.openspiel as aos  # noqa: E402
import atoll.pettingzoo as apz  # noqa: E402
from helpers import ROOT  # noqa: E402

SKYE = ROOT / "spec" / "isle_of_skye.atoll"


def to_pricing(env):
    """Play the first agent's moves until the secret pricing step."""
    env.reset(seed=4)
    while env.atoll_state.phase() != "set_prices":
        env.step(min(env.legal_moves()))


def test_the_price_is_one_slot_per_gold_amount_and_the_mask_is_the_legal_moves():
    env = apz.env(SKYE, players=3)
    to_pricing(env)
    assert env.atoll_state.current_player() == atoll.SIMULTANEOUS
    agent = env.agent_selection
    seat = env.possible_agents.index(agent)
    moves = env.legal_moves()
    assert sorted(m.split(": ")[-1].split("(")[0] for m in moves.values()) == ["discard"] * 3   # one of three
    env.step(min(moves))
    moves = env.legal_moves()
    gold = env.atoll_state.observation(seat)["state"]["gold"][seat]
    # the first tile takes 1 .. gold - 1 (the second tile still needs 1)
    assert sorted(moves.values()) == sorted(f"put_gold(n={n})" for n in range(1, gold))
    mask = env.observe(agent)["action_mask"]
    assert int(mask.sum()) == len(moves) and all(mask[s] for s in moves)
    assert len(mask) == 1024


def test_another_players_secret_price_is_not_in_the_observation():
    views = []
    for pick in (min, max):     # the lowest and the highest price
        env = apz.env(SKYE, players=3)
        to_pricing(env)
        first = env.agent_selection
        others = [a for a in env.possible_agents if a != first]
        env.step(min(env.legal_moves()))          # the same discard
        while env.agent_selection == first:
            moves = env.legal_moves()
            env.step(pick(moves, key=lambda s: moves[s]))
        views.append([env.observe(a)["observation"] for a in [first] + others])
    low, high = views
    assert not np.array_equal(low[0], high[0])    # the chooser sees its own prices
    for a, b in zip(low[1:], high[1:]):
        assert np.array_equal(a, b)               # nobody else does


def test_openspiel_plays_the_pricing_in_turn_with_hidden_choices():
    game = pyspiel.load_game(aos.register(SKYE, players=2, name="atoll_skye_pricing"))
    assert game.num_distinct_actions() == 1024
    after = {}
    for pick in (min, max):
        state = game.new_initial_state()
        while state.atoll_state.phase() != "set_prices" or state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node()
                               else min(state.legal_actions()))
        chooser = state.current_player()
        state.apply_action(min(state.legal_actions()))
        while state.current_player() == chooser:
            acts = state.legal_actions()
            names = {a: state.action_to_string(chooser, a) for a in acts}
            assert all(n.startswith("put_gold(n=") for n in names.values())
            state.apply_action(pick(acts, key=lambda a: int(names[a][len("put_gold(n="):-1])))
        after[pick] = (state, chooser)
    (a, chooser), (b, _) = after[min], after[max]
    other = 1 - chooser
    assert a.information_state_string(chooser) != b.information_state_string(chooser)
    assert a.observation_string(other) == b.observation_string(other)
    assert list(a.observation_tensor(other)) == list(b.observation_tensor(other))
