"""The OpenSpiel adapter: OpenSpiel's own random_sim_test on every shipped
game, plus chance nodes, the sequential form of simultaneous stages,
information states, registration, and the MCTS example."""
import importlib.util
import json
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed (pip install '.[openspiel]')")

import atoll  # noqa: E402
import atoll.openspiel as aos  # noqa: E402
from contracts import check_chance, check_outcome, expected_returns  # noqa: E402
from ecosystem_cases import GOOD, cases  # noqa: E402
from helpers import MASTERISLANDS, ROOT  # noqa: E402


def load(path, players=None, options=None, name=None):
    return pyspiel.load_game(aos.register(path, players=players, options=options, name=name))


@pytest.mark.parametrize("path, players, options", cases())
def test_random_sim_test(path, players, options):
    key = "_".join([path.stem, str(players)] + list((options or {}).values()))
    game = load(path, players, options, name=f"atoll_test_{key}")
    assert game.num_players() == players
    sims = 3 if path.parent == GOOD else 1      # the small games, more often
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.parametrize("path, players, options", cases())
def test_play_keeps_the_contract(path, players, options):
    """A random game through OpenSpiel keeps the play contract of the model
    (tests/contracts.py): chance outcomes weighted by their share of the bag,
    the same probabilities on both sides, and returns that agree with the
    winners and the ending."""
    import random
    key = "_".join([path.stem, str(players)] + list((options or {}).values()))
    game = load(path, players, options, name=f"atoll_contract_{key}")
    state = game.new_initial_state()
    rng = random.Random(5)
    while not state.is_terminal():
        if state.is_chance_node():
            check_chance(state.atoll_state)
            mine = {a.id: p for a, p in state.atoll_state.chance_outcomes()}
            outcomes = state.chance_outcomes()
            assert len(outcomes) == len(mine)
            assert sorted(p for _, p in outcomes) == sorted(mine.values())
            state.apply_action(rng.choice([a for a, _ in outcomes]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    model = state.atoll_state
    check_outcome(model.game, model)
    assert list(state.returns()) == expected_returns(model.winners(), model.game.num_players)


def test_chance_nodes_are_openspiel_chance_nodes():
    game = load(MASTERISLANDS, 2)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = state.chance_outcomes()
    atoll_outcomes = state.atoll_state.chance_outcomes()
    assert len(outcomes) == len(atoll_outcomes) > 1
    assert sorted(p for _, p in outcomes) == sorted(p for _, p in atoll_outcomes)
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    assert state.legal_actions() == [a for a, _ in outcomes] == sorted(a for a, _ in outcomes)
    first = state.action_to_string(pyspiel.PlayerId.CHANCE, outcomes[-1][0])
    draws = 0
    while state.is_chance_node():           # the setup's draws: hands, then the first card
        state.apply_action(state.chance_outcomes()[-1][0])
        draws += 1
    view = state.atoll_state.observation(0)["state"]
    assert view["pile"]["size"] == 48 - draws and draws == 3 + 3 + 1
    card = view["hand"][0][0]                # the first draw went to player 0's hand
    assert first == f"chance: draw Card({card['colour']}, {card['value']})"


def test_a_game_without_chance_or_hidden_state_is_deterministic_and_perfect():
    game = load(GOOD / "nim.atoll", 2)
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM    # nim allows 3 players
    assert game.max_chance_outcomes() == 0
    two_only = load(GOOD / "ending_names.atoll").get_type()
    assert two_only.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert load(MASTERISLANDS, 2).get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION


def test_simultaneous_stage_is_played_in_turn_with_hidden_choices():
    game = load(GOOD / "sealed_bids.atoll", 2)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    after = {}
    for bid in (1, 3):
        state = game.new_initial_state()
        assert state.current_player() == 0
        assert state.atoll_state.current_player() == atoll.SIMULTANEOUS
        slot = next(a for a in state.legal_actions() if state.action_to_string(0, a).endswith(f"n={bid})"))
        state.apply_action(slot)
        assert state.current_player() == 1
        after[bid] = state
    for p, same in ((0, False), (1, True)):
        assert (after[1].information_state_string(p) == after[3].information_state_string(p)) is same
        assert (after[1].observation_string(p) == after[3].observation_string(p)) is same
        assert (list(after[1].observation_tensor(p)) == list(after[3].observation_tensor(p))) is same


def test_information_state_remembers_what_the_observation_forgets():
    """Nim: after 1+2 and 2+1 stones taken the heap looks the same, but the
    players remember different pasts."""
    game = load(GOOD / "nim.atoll", 2)
    states = []
    for first, second in ((1, 2), (2, 1)):
        state = game.new_initial_state()
        for n in (first, second):
            state.apply_action(next(a for a in state.legal_actions()
                                    if state.action_to_string(state.current_player(), a).endswith(f"n={n})")))
        states.append(state)
    a, b = states
    assert a.atoll_state.observation(0)["state"]["stones"] == b.atoll_state.observation(0)["state"]["stones"]
    for p in (0, 1):
        assert a.information_state_string(p) != b.information_state_string(p)
    # asked late (replayed from the history) or kept up to date: the same string
    c = game.new_initial_state()
    c.information_state_string(0)
    for action in a.history():
        c.apply_action(action)
    assert c.information_state_string(1) == a.information_state_string(1)


def test_clone_and_serialization_keep_the_state():
    game = load(MASTERISLANDS, 2)
    state = game.new_initial_state()
    for _ in range(12):
        state.apply_action(state.legal_actions()[0])
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[-1])
    assert str(clone) != str(state) and len(clone.history()) == len(state.history()) + 1
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state) and state2.history() == state.history()


def test_players_is_a_game_parameter():
    name = aos.register(MASTERISLANDS, players=2, name="atoll_test_params")
    assert pyspiel.load_game(name).num_players() == 2
    game = pyspiel.load_game(f"{name}(players=4)")
    assert game.num_players() == 4 and str(game) == f"{name}(players=4)"
    t = game.get_type()
    assert (t.min_num_players, t.max_num_players) == (2, 4)
    assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_registering_bad_input_is_refused_with_a_reason():
    with pytest.raises(atoll.SpecError):
        aos.register(GOOD / "nim.atoll", players=9)
    with pytest.raises(atoll.SpecError):
        aos.register(ROOT / "no_such_game.atoll")
    with pytest.raises(ValueError, match="letters, digits and underscores"):
        aos.register(GOOD / "nim.atoll", name="nim game")
    with pytest.raises(ValueError, match="num_actions"):
        aos.register(GOOD / "nim.atoll", num_actions=0)
    game = atoll.load(GOOD / "nim.atoll", players=3)
    assert pyspiel.load_game(aos.register(game, name="atoll_test_loaded")).num_players() == 3


def _example():
    spec = importlib.util.spec_from_file_location("openspiel_mcts", ROOT / "examples" / "openspiel_mcts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mcts_example_plays(capsys):
    example = _example()
    assert example.main([str(GOOD / "nim.atoll"), "--games", "4", "--simulations", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["games"]) == 4 and out["simulations"] == 30
    assert all(sorted(g["returns"]) == [-1.0, 1.0] for g in out["games"])
    # Nim from 9 stones is a first-player win, and 30 simulations find it against random play
    assert out["mcts_wins"] >= 3
    assert example.main([str(MASTERISLANDS), "--games", "1", "--simulations", "2"]) == 0
    assert "won" in capsys.readouterr().out


def test_mcts_example_usage_errors(capsys):
    example = _example()
    assert example.main([str(GOOD / "nim.atoll"), "--games", "0"]) == 2
    assert example.main([str(GOOD / "nim.atoll"), "--simulations", "1"]) == 2
    assert example.main([str(GOOD / "nim.atoll"), "--mcts-seat", "5"]) == 2
    assert example.main([str(ROOT / "no_such_game.atoll")]) == 1
    assert "--games must be at least 1" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform != "linux", reason="the example's help is checked once")
def test_mcts_example_help(capsys):
    with pytest.raises(SystemExit) as e:
        _example().main(["--help"])
    assert e.value.code == 0
    assert "examples:" in capsys.readouterr().out


def python_blocks(path):
    return [b.split("```", 1)[0] for b in path.read_text(encoding="utf-8").split("```python\n")[1:]]


def test_the_documented_openspiel_examples_run(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    blocks = [b for b in python_blocks(ROOT / "docs" / "ecosystem.md") if "pyspiel" in b]
    assert len(blocks) == 2
    for code in blocks:
        exec(compile(code, "docs/ecosystem.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0 [") and out[1] in ("[1.0, -1.0]", "[-1.0, 1.0]")


def test_the_readme_adapter_example_runs(monkeypatch):
    pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed (pip install '.[pettingzoo]')")
    monkeypatch.chdir(ROOT)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = next(b for b in python_blocks(ROOT / "README.md") if "atoll.openspiel" in b)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["env"].possible_agents == ["player_0", "player_1"]
    assert namespace["game"].num_players() == 2 and "docs/ecosystem.md" in readme
