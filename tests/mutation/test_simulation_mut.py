"""atoll.simulation in detail: the summary computed by hand from records,
each way a random game can stop (invariant after setup or after an action,
deadlock, step cap, model error), and the spec bundle a worker rebuilds a
game from. Small specs written here, so each test runs in milliseconds."""
import json
import random
import time
from types import SimpleNamespace

import pytest

import atoll
from atoll import simulation as S
from atoll.simulation import Record

RACE = """
game race {
  title: "Race"
  players: 2..3
}

state {
  steps: int = 0 visible all
  player got: int = 0 visible all
}

flow {
  round {
    turns in seats: move
  }
}

phase move "Move." {
  action step(n: int in [1, 2]) GUARD {
    steps = steps + n
    got[me] = got[me] + n
    end phase
  }
}

ending far immediately when steps >= 6
  => rank p by got[p] else shared

score p = got[p]

PROPS
"""


def race(tmp_path, players=2, guard="", props="", name="race.atoll"):
    f = tmp_path / name
    f.write_text(RACE.replace("GUARD", guard).replace("PROPS", props))
    return atoll.load(f, players=players)


def steps_of(game, st):
    return json.loads(st.to_json())["values"][game.layout.names.index("steps")]


def test_summary_by_hand():
    game = SimpleNamespace(num_players=2, title="T", options={"k": 1})
    recs = [Record(1, 6, "a", (0, 1), (2, 2), None),
            Record(0, 4, "b", (0,), (3, 1), None),
            Record(3, 2, None, (), (), "deadlock"),
            Record(2, 4, "a", (), (0, 5), None)]
    s = S.summarize(game, recs, 4, 0, 2.0)
    assert s["game"] == "T" and s["players"] == 2 and s["options"] == {"k": 1}
    assert s["games"] == 4 and s["seed"] == 0 and s["finished"] == 3
    assert s["problems"] == [{"seed": 3, "problem": "deadlock"}]
    assert s["length"] == {"mean": 14 / 3, "min": 4, "max": 6, "histogram": {"4": 2, "6": 1}}
    assert list(s["endings"].items()) == [("a", 2), ("b", 1)]   # sorted by name
    assert s["wins_per_seat"] == [2, 1] and s["draws"] == 1
    assert s["win_rate_per_seat"] == [2 / 3, 1 / 3]
    assert s["scores_per_seat"] == [
        {"mean": 5 / 3, "min": 0, "max": 3, "histogram": {"0": 1, "2": 1, "3": 1}},
        {"mean": 8 / 3, "min": 1, "max": 5, "histogram": {"1": 1, "2": 1, "5": 1}}]
    assert s["seconds"] == 2.0 and s["games_per_s"] == 2.0 and s["actions_per_s"] == 7.0
    assert s["engine"] == {"name": "local"}
    assert S.summarize(game, recs, 4, 0, 2.0, {"name": "x"})["engine"] == {"name": "x"}
    assert S.outcome(s) == {k: v for k, v in s.items()
                            if k not in ("seconds", "games_per_s", "actions_per_s", "engine")}
    assert "finished" in S.outcome(s) and "seconds" not in S.outcome(s)


def test_summary_of_no_finished_game_and_of_no_time():
    game = SimpleNamespace(num_players=2, title="T", options={})
    s = S.summarize(game, [Record(5, 3, None, (), (), "cap")], 1, 5, 0)
    assert s["finished"] == 0 and s["draws"] == 0
    assert s["length"] == {"mean": 0, "min": 0, "max": 0, "histogram": {}}
    assert s["win_rate_per_seat"] == [0, 0]
    assert s["scores_per_seat"] == [{"mean": 0, "min": 0, "max": 0, "histogram": {}}] * 2
    assert s["games_per_s"] == 0 and s["actions_per_s"] == 0


def test_draws_and_games_without_a_named_ending():
    game = SimpleNamespace(num_players=2, title="T", options={})
    recs = [Record(0, 1, None, (1,), (0, 1), None), Record(1, 1, "z", (), (0, 0), None),
            Record(2, 1, "z", (), (0, 0), None), Record(3, 1, "y", (0,), (1, 0), None)]
    s = S.summarize(game, recs, 4, 0, 1.0)
    assert list(s["endings"].items()) == [(None, 1), ("y", 1), ("z", 2)]   # None sorts as "None"
    assert s["draws"] == 2 and s["wins_per_seat"] == [1, 1]


def test_a_seed_twice_is_refused_whatever_the_records_hold():
    game = SimpleNamespace(num_players=1, title="T", options={})
    twice = [Record(0, 2, "a", (0,), (1,), None), Record(0, 2, None, (), (), "cap")]
    with pytest.raises(ValueError, match="one record per seed 0..1"):
        S.summarize(game, twice, 2, 0, 1.0)


def test_histogram_keys_in_numeric_order():
    game = SimpleNamespace(num_players=1, title="T", options={})
    recs = [Record(0, 10, "e", (0,), (10,), None), Record(1, 9, "e", (0,), (9,), None),
            Record(2, 10, "e", (0,), (10,), None)]
    s = S.summarize(game, recs, 3, 0, 1.0)
    assert list(s["length"]["histogram"].items()) == [("9", 1), ("10", 2)]


def test_summary_wants_exactly_the_seeds_of_the_run():
    game = SimpleNamespace(num_players=1, title="T", options={})
    rec = [Record(1, 1, "e", (0,), (1,), None)]
    with pytest.raises(ValueError, match="seed 0..0, got 1 records"):
        S.summarize(game, rec, 1, 0, 1.0)
    assert S.summarize(game, rec, 1, 1, 1.0)["finished"] == 1


def test_chunks():
    assert S.chunks(3, 5, 0) == [(3, 1), (4, 1), (5, 1), (6, 1), (7, 1)]
    assert S.chunks(0, 4, 4) == [(0, 4)] and S.chunks(0, 0, 3) == []
    assert S.chunks(10, 5, 3) == [(10, 3), (13, 2)]


def test_a_random_game_is_uniform_play_seeded_by_its_seed(tmp_path):
    game = race(tmp_path)
    for seed in range(6):
        st, steps, err = S.play_random_game(game, seed)
        mine, rng, n = game.new_initial_state(seed=seed), random.Random(seed), 0
        while not mine.is_terminal():
            legal = mine.legal_actions()
            mine.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        assert err is None and steps == n and st.to_json() == mine.to_json()
    recs = S.play_games(game, [4, 2])
    assert [r.seed for r in recs] == [4, 2]
    st, steps, _ = S.play_random_game(game, 2)
    assert recs[1] == Record(2, steps, st.ending(), tuple(st.winners()), tuple(st.scores()), None)


def test_invariants_checked_after_each_action_only_when_asked(tmp_path):
    game = race(tmp_path, props="property small invariant steps < 4")
    assert [n for n, _ in S.invariants(game)] == ["small"]
    for seed in range(5):
        st, steps, err = S.play_random_game(game, seed, check=True)
        assert steps_of(game, st) >= 4 and err.startswith(f"invariant `small` is false after action {steps}, step(n=")
        assert steps < S.play_random_game(game, seed)[1]   # stopped early
        assert S.play_random_game(game, seed)[2] is None   # not checked
    assert all(r.problem is None for r in S.play_games(game, range(3)))   # not checked by default
    assert S.simulate(game, 3)["problems"] == []
    rec = S.play_games(game, [0], check=True)[0]
    assert rec.problem.startswith("invariant `small`") and rec.length > 0 and rec.ending is None
    assert rec.winners == () and rec.scores == ()


def test_an_invariant_false_at_the_start(tmp_path):
    game = race(tmp_path, props="property started invariant steps > 0")
    st, steps, err = S.play_random_game(game, 0, check=True)
    assert (steps, err) == (0, "invariant `started` is false after setup")
    summary = S.simulate(game, 2, seed=0, check=True)
    assert summary["problems"] == [{"seed": 0, "problem": "invariant `started` is false after setup"},
                                   {"seed": 1, "problem": "invariant `started` is false after setup"}]


def test_an_invariant_applies_only_where_its_when_holds(tmp_path):
    props = "property never when player_count == 3 invariant steps < 0\nproperty fine invariant steps >= 0"
    two, three = race(tmp_path, 2, props=props), race(tmp_path, 3, props=props)
    assert [n for n, _ in S.invariants(two)] == ["fine"]
    assert [n for n, _ in S.invariants(three)] == ["never", "fine"]
    assert S.play_random_game(two, 0, check=True)[2] is None
    assert S.play_random_game(three, 0, check=True)[2] == "invariant `never` is false after setup"


def test_deadlock_and_step_cap(tmp_path):
    game = race(tmp_path, guard="when steps < 2")
    st, steps, err = S.play_random_game(game, 0)
    assert err == "deadlock: a non-terminal state has no legal action"
    assert steps_of(game, st) >= 2 and steps in (1, 2) and not st.is_terminal()
    free = race(tmp_path, name="free.atoll")
    st, steps, err = S.play_random_game(free, 0, max_steps=2)
    assert (steps, err) == (2, "no end after 2 actions")
    assert S.play_random_game(free, 0, max_steps=20)[2] is None
    rec = S.play_games(free, [0], max_steps=1)[0]
    assert rec == Record(0, 1, None, (), (), "no end after 1 actions")


def test_a_model_error_is_a_problem_of_that_game(tmp_path):
    spec = RACE.replace("steps = steps + n", "steps = steps + n\n    draw c from pile").replace(
        "player got", "pile: bag[int] = bag[int]() visible nobody\n  player got")
    (tmp_path / "err.atoll").write_text(spec.replace("GUARD", "").replace("PROPS", ""))
    game = atoll.load(tmp_path / "err.atoll", players=2)
    seen = []
    recs = S.play_games(game, [7, 8], on_game=seen.append)
    assert seen == [1, 2]
    assert [r.seed for r in recs] == [7, 8]
    for r in recs:
        assert r.problem.startswith("model error: ") and r.length == 0 and r.ending is None
        assert r.winners == () and r.scores == ()


def test_simulate_plays_the_seeds_of_the_run(tmp_path):
    game = race(tmp_path)
    seen = []
    t0 = time.perf_counter()
    s = S.simulate(game, 5, seed=3, progress=SimpleNamespace(update=seen.append))
    assert 0 < s["seconds"] <= time.perf_counter() - t0
    assert seen == [1, 2, 3, 4, 5]
    by_hand = S.summarize(game, S.play_games(game, range(3, 8)), 5, 3, 1.0)
    assert S.outcome(s) == S.outcome(by_hand) and s["engine"] == {"name": "local"}
    assert s["seconds"] > 0
    assert S.outcome(S.simulate(game, 5, seed=4)) != S.outcome(s)
    assert S.simulate(game, 5)["seed"] == 0
    assert S.outcome(S.simulate(game, 5)) == S.outcome(S.simulate(game, 5, seed=0))


def test_bundle_compiled_once_per_configuration(tmp_path):
    (tmp_path / "race.atoll").write_text(RACE.replace("GUARD", "").replace("PROPS", ""))
    b = S.spec_bundle(tmp_path / "race.atoll")
    assert b.root == "race.atoll" and [n for n, _ in b.files] == ["race.atoll"]
    two = S.game_from_bundle(b, 2, None)
    assert S.game_from_bundle(b, 2, {}) is two
    three = S.game_from_bundle(b, 3, {})
    assert three is not two and (two.num_players, three.num_players) == (2, 3)
    assert S.play_chunk(b, 3, {}, 5, 3, 1000) == S.play_games(three, range(5, 8))
    assert S.play_chunk(b, 2, None, 0, 2, 1) == [Record(0, 1, None, (), (), "no end after 1 actions"),
                                                  Record(1, 1, None, (), (), "no end after 1 actions")]
    assert S.spec_bundle(tmp_path / "race.atoll").digest == b.digest
    (tmp_path / "race.atoll").write_text(RACE.replace("GUARD", "").replace("PROPS", "") + "\n")
    assert S.spec_bundle(tmp_path / "race.atoll").digest != b.digest


VARIANT = """
extends "../race.atoll"

override far_at
const far_at: int = 2
"""


def test_a_bundle_carries_a_variant_its_base_and_the_data(tmp_path):
    base = tmp_path / "base"
    (base / "variants").mkdir(parents=True)
    (base / "data" / "sets").mkdir(parents=True)
    (base / "data" / "sets" / "bonus.json").write_text('{"xs": [1, 2]}')
    spec = RACE.replace("GUARD", "").replace("PROPS", "").replace("steps >= 6", "steps >= far_at")
    spec = spec.replace("state {", 'const far_at: int = 6\n\n'
                        'data bonus: list[int] from "data/sets/bonus.json" key "xs"\n\n'
                        'option start: int = 0\n\nstate {').replace("steps: int = 0", "steps: int = start")
    spec = spec.replace("n: int in [1, 2]", "n: int in bonus")
    (base / "race.atoll").write_text(spec)
    (base / "variants" / "quick.atoll").write_text(VARIANT)
    with pytest.raises(atoll.SpecError):
        S.spec_bundle(base / "variants" / "quick.atoll")   # may not read the folder above
    b = S.spec_bundle(base / "variants" / "quick.atoll", allow=[base])
    assert b.root == "variants/quick.atoll"
    assert dict(b.files) == {"race.atoll": spec, "variants/quick.atoll": VARIANT,
                             "data/sets/bonus.json": '{"xs": [1, 2]}'}
    local = atoll.load(base / "variants" / "quick.atoll", players=2, allow=[base])
    import shutil
    shutil.rmtree(base)
    g = S.game_from_bundle(b, 2, {"start": 1})
    assert g.options == {"start": 1}
    assert S.game_from_bundle(b, 2, {"start": 1}) is g
    plain = S.game_from_bundle(b, 2, {})
    assert plain is not g and plain.options == {"start": 0}
    assert S.play_games(plain, range(6)) == S.play_games(local, range(6))
    assert S.play_chunk(b, 2, {"start": 1}, 0, 4, 100) == S.play_games(g, range(4))
    assert S.play_chunk(b, 2, {"start": 1}, 0, 4, 100) != S.play_chunk(b, 2, {}, 0, 4, 100)


def test_play_chunk_checks_the_invariants_only_when_asked(tmp_path):
    (tmp_path / "race.atoll").write_text(RACE.replace("GUARD", "").replace(
        "PROPS", "property small invariant steps < 2"))
    b = S.spec_bundle(tmp_path / "race.atoll")
    assert all(r.problem is None for r in S.play_chunk(b, 2, {}, 0, 3, 100))
    checked = S.play_chunk(b, 2, {}, 0, 3, 100, check=True)
    assert all(r.problem.startswith("invariant `small`") for r in checked)


def test_the_bundle_key_reads_options_in_any_order(tmp_path):
    spec = RACE.replace("GUARD", "").replace("PROPS", "").replace(
        "state {", "option a: int = 0\noption b: int = 0\n\nstate {")
    (tmp_path / "race.atoll").write_text(spec)
    b = S.spec_bundle(tmp_path / "race.atoll")
    g = S.game_from_bundle(b, 2, {"a": 1, "b": 2})
    assert S.game_from_bundle(b, 2, {"b": 2, "a": 1}) is g
    assert S.game_from_bundle(b, 2, {"a": 2, "b": 1}) is not g
