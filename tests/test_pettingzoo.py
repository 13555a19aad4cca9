"""The PettingZoo adapter: PettingZoo's own api_test and seed_test on every
shipped game, plus what those tests do not look at (hidden information,
stable action slots, simultaneous stages, rewards, errors)."""
import warnings

import pytest

pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed (pip install '.[pettingzoo]')")
np = pytest.importorskip("numpy", reason="the pettingzoo extra is not installed (pip install '.[pettingzoo]')")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import atoll  # noqa: E402
import atoll.pettingzoo as apz  # noqa: E402
from atoll.encoding import ActionIndexFull, ObservationEncoder  # noqa: E402
from contracts import check_outcome, expected_returns  # noqa: E402
from ecosystem_cases import GOOD, cases  # noqa: E402
from helpers import MASTERISLANDS, ROOT  # noqa: E402

# PettingZoo warns about every dict observation outside its own classic
# environments (which it lists by name); the action-mask dict is what the
# brief and PettingZoo's docs ask for.
EXPECTED_WARNINGS = ("Observation space for each agent probably should be",
                     "Observation is not a NumPy array")


@pytest.mark.parametrize("path, players, options", cases())
def test_api_test_and_seed_test(path, players, options, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(apz.env(path, players=players, options=options), num_cycles=1000)
    other = {str(w.message)[:120] for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)}
    assert not other
    seed_test(lambda: apz.env(path, players=players, options=options), num_cycles=500)
    assert "Passed API test" in capsys.readouterr().out


def play_to_end(env, pick):
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else pick(agent, obs))


def test_a_seed_gives_the_game_of_that_seed():
    env = apz.env(MASTERISLANDS, players=3)
    env.reset(seed=7)
    assert env.atoll_state.to_json() == env.game.new_initial_state(seed=7).to_json()
    first = env.atoll_state.to_json()
    env.reset()
    assert env.atoll_state.to_json() != first      # the next game of the seeded stream
    again = apz.env(MASTERISLANDS, players=3)
    again.reset(seed=7)
    again.reset()
    assert again.atoll_state.to_json() == env.atoll_state.to_json()


def test_mask_and_slots_match_the_legal_actions():
    env = apz.env(MASTERISLANDS, players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        seat = env.possible_agents.index(agent)
        legal = env.atoll_state.legal_actions()
        assert env.atoll_state.current_player() == seat
        slots = np.flatnonzero(obs["action_mask"])
        assert len(slots) == len(legal)
        assert {str(env.action_of(int(s))) for s in slots} == {str(a) for a in legal}
        assert env.legal_moves() == {int(s): str(env.action_of(int(s))) for s in slots}
        env.step(int(rng.choice(slots)))


def test_a_move_keeps_its_slot_from_state_to_state():
    env = apz.env(GOOD / "nim.atoll", players=2)
    seen = {}
    for seed in range(5):
        env.reset(seed=seed)
        while env.agents and not env.terminations[env.agent_selection]:
            for slot, label in env.legal_moves().items():
                assert seen.setdefault(label, slot) == slot
            env.step(max(env.legal_moves()))
    assert len(seen) == 3           # take 1, 2 or 3 stones: three moves, three slots


def test_rewards_at_the_end_are_the_returns():
    env = apz.env(GOOD / "draw.atoll", players=3)
    env.reset(seed=11)
    totals = {a: 0.0 for a in env.possible_agents}
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if not (terminated or truncated):
            assert reward == 0
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    returns = env.atoll_state.returns()
    assert env.atoll_state.is_terminal()
    assert [totals[a] for a in env.possible_agents] == returns
    # and the returns keep the play contract (tests/contracts.py): they agree with the winners and the ending
    check_outcome(env.game, env.atoll_state)


@pytest.mark.parametrize("path, players, options", cases())
def test_rewards_keep_the_play_contract(path, players, options):
    """Over a random game of each case, the rewards summed per agent are the
    returns the contract expects from the winners (tests/contracts.py)."""
    env = apz.env(path, players=players, options=options)
    env.reset(seed=3)
    totals = {a: 0.0 for a in env.possible_agents}
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.atoll_state
    assert state.is_terminal()
    check_outcome(env.game, state)
    assert [totals[a] for a in env.possible_agents] == expected_returns(state.winners(), env.game.num_players)


def test_simultaneous_players_choose_in_turn_without_seeing_each_other():
    views = []
    for bid in (1, 3):
        env = apz.env(GOOD / "sealed_bids.atoll", players=2)
        env.reset(seed=0)
        assert env.agent_selection == "player_0"
        assert env.atoll_state.current_player() == atoll.SIMULTANEOUS
        slot = next(s for s, label in env.legal_moves().items() if label.endswith(f"n={bid})"))
        env.step(slot)
        assert env.agent_selection == "player_1"
        views.append((env.observe("player_0")["observation"], env.observe("player_1")["observation"]))
        assert len(env.legal_moves()) == 3
    (mine_1, theirs_1), (mine_3, theirs_3) = views
    assert not np.array_equal(mine_1, mine_3)      # player 0 sees their own bid
    assert np.array_equal(theirs_1, theirs_3)      # player 1 does not


def test_observation_encodes_the_declared_state():
    game = atoll.load(GOOD / "draw.atoll", players=2)
    enc = ObservationEncoder(game)
    st = game.new_initial_state(seed=5)
    while st.scores()[0] == 0:
        st.apply_action(st.legal_actions()[0])
    obs = st.observation(1)
    v = enc.encode(obs)
    assert len(v) == enc.size == len(enc.low) == len(enc.high)
    offsets = {name: off for name, _, off in enc.slots}
    assert v[offsets["points"]:offsets["points"] + 2] == [float(x) for x in obs["state"]["points"]]
    hand = offsets["hand"]                         # a per-player list: one size per seat
    assert v[hand:hand + 2] == [float(obs["state"]["hand"][0]["size"]), float(len(obs["state"]["hand"][1]))]
    assert v[hand] > 0
    assert v[obs["player"]] == 1.0 and sum(v[:2]) == 1.0
    assert sum(v[enc.exact:]) > 0                  # player 1's own cards are hashed in
    assert all(lo <= x <= hi for x, lo, hi in zip(v, enc.low, enc.high))


def test_hidden_cards_do_not_reach_the_observation():
    """Two deals that give player 0 the same hand and player 1 different
    ones: player 0's vectors are equal."""
    game = atoll.load(GOOD / "draw.atoll", players=2)
    enc = ObservationEncoder(game)
    by_hand = {}
    for seed in range(200):
        st = game.new_initial_state(seed=seed)
        hands = st.observation(0)["state"]["hand"], st.observation(1)["state"]["hand"]
        mine, theirs = repr(sorted(map(repr, hands[0][0]))), repr(hands[1][1])
        by_hand.setdefault(mine, {}).setdefault(theirs, st)
    a, b = next(list(g.values())[:2] for g in by_hand.values() if len(g) > 1)
    assert a.observation(1) != b.observation(1)
    assert enc.encode(a.observation(0)) == enc.encode(b.observation(0))


def test_truncation_after_max_steps():
    env = apz.env(MASTERISLANDS, players=2, max_steps=5)
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if truncated:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 5 and not env.atoll_state.is_terminal()


def test_bad_use_is_refused_with_a_reason():
    env = apz.env(GOOD / "nim.atoll", players=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    illegal = next(s for s in range(env.index.size) if s not in env.legal_moves())
    with pytest.raises(atoll.IllegalAction, match=f"action {illegal} is not legal now"):
        env.step(illegal)
    with pytest.raises(ValueError, match="integer slot"):
        env.step("take")
    env.step(np.int64(min(env.legal_moves())))      # numpy integers are fine
    with pytest.raises(ValueError, match="players and options"):
        apz.env(env.game, players=3)
    with pytest.raises(ValueError, match="render_mode"):
        apz.env(GOOD / "nim.atoll", render_mode="rgb_array")
    with pytest.raises(atoll.SpecError):
        apz.env(GOOD / "nim.atoll", players=7)


def test_too_few_action_slots_names_the_remedy():
    env = apz.env(GOOD / "nim.atoll", players=2, num_actions=2)
    with pytest.raises(ActionIndexFull, match="num_actions="):
        env.reset(seed=0)


def test_render_shows_the_position():
    env = apz.env(GOOD / "nim.atoll", players=2, render_mode="ansi")
    env.reset(seed=0)
    assert "stones" in env.render()


def python_blocks(path):
    return [b.split("```", 1)[0] for b in path.read_text(encoding="utf-8").split("```python\n")[1:]]


def test_the_documented_pettingzoo_example_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    blocks = [b for b in python_blocks(ROOT / "docs" / "ecosystem.md") if "atoll.pettingzoo" in b]
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/ecosystem.md", "exec"), {})
    assert "[" in capsys.readouterr().out      # it printed the returns
