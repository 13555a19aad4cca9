"""Simulation: the shared chunk/merge steps, specs shipped as text, and the
Dask path giving the same summary as the local run."""
import json
import random
import shutil
import sys

import pytest

import atoll
from atoll import simulation
from atoll.cli import main
from helpers import MASTERISLANDS, SPEC

QUICK = SPEC / "variants" / "masterislands_quick.atoll"   # extends the base game, reads its data


def test_chunks_cover_every_seed_once():
    pieces = simulation.chunks(5, 23, 7)
    assert pieces == [(5, 7), (12, 7), (19, 7), (26, 2)]
    seeds = [s for first, count in pieces for s in range(first, first + count)]
    assert seeds == list(range(5, 28))


def test_records_merged_in_any_order_give_the_local_summary():
    game = atoll.load(MASTERISLANDS, players=3)
    local = simulation.simulate(game, 30, seed=11)
    records = []
    for first, count in simulation.chunks(11, 30, 4):
        records.extend(simulation.play_games(game, range(first, first + count)))
    random.Random(0).shuffle(records)
    merged = simulation.summarize(game, records, 30, 11, 1.0)
    assert simulation.outcome(merged) == simulation.outcome(local)
    assert local["finished"] == 30 and len(local["length"]["histogram"]) > 1
    assert sum(local["length"]["histogram"].values()) == 30


def test_summarize_refuses_missing_or_extra_records():
    game = atoll.load(MASTERISLANDS, players=2)
    records = simulation.play_games(game, range(3))
    with pytest.raises(ValueError, match="one record per seed"):
        simulation.summarize(game, records[:2], 3, 0, 1.0)
    with pytest.raises(ValueError, match="one record per seed"):
        simulation.summarize(game, records + records[:1], 3, 0, 1.0)


def test_a_bundled_spec_plays_without_its_files(tmp_path):
    copy = tmp_path / "spec"
    shutil.copytree(SPEC, copy)
    bundle = simulation.spec_bundle(copy / "variants" / QUICK.name, allow=[copy])
    names = dict(bundle.files)
    assert bundle.root == "variants/masterislands_quick.atoll"
    assert "masterislands.atoll" in names and any(n.startswith("data/") for n in names)
    shutil.rmtree(copy)   # the worker side has nothing but the text
    from_text = simulation.game_from_bundle(bundle, 3, {})
    loaded = atoll.load(QUICK, players=3)
    assert simulation.play_games(from_text, range(8)) == simulation.play_games(loaded, range(8))
    assert simulation.game_from_bundle(bundle, 3, {}) is from_text   # compiled once per thread


def test_dask_summary_equals_the_local_one():
    distributed = pytest.importorskip("distributed", reason="the Dask path needs atoll[dask]")
    from atoll.dask_sim import simulate_dask
    game = atoll.load(MASTERISLANDS, players=3, options={"mode": "corsair"})
    local = simulation.simulate(game, 40, seed=7)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        done = []

        class Seen:
            def update(self, k):
                done.append(k)
        r = simulate_dask(MASTERISLANDS, game, 40, seed=7, address=cluster.scheduler_address,
                          players=3, options={"mode": "corsair"}, chunk=6, progress=Seen())
    assert r["engine"]["name"] == "dask" and r["engine"]["chunks"] == 7
    assert simulation.outcome(r) == simulation.outcome(local)
    assert done[0] == 0 and sorted(done) == done and done[-1] == 40
    assert len(done) == 1 + 7   # the empty bar, then one step per chunk


def test_cli_dask_local_matches_the_local_run(capsys):
    pytest.importorskip("distributed", reason="the Dask path needs atoll[dask]")
    args = ["simulate", str(MASTERISLANDS), "-n", "12", "--players", "2", "--seed", "3", "--json"]
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(args + ["--dask", "local", "--workers", "1", "--chunk", "5"]) == 0
    out = capsys.readouterr()
    on_dask = json.loads(out.out)
    assert on_dask["engine"] == {"name": "dask", "scheduler": "local", "workers": 1, "threads": 1, "chunks": 3,
                                 "chunk_size": 5}
    assert simulation.outcome(on_dask) == simulation.outcome(local)
    assert "Traceback" not in out.err


def test_cli_unreachable_scheduler_is_a_clear_error(capsys):
    pytest.importorskip("distributed", reason="the Dask path needs atoll[dask]")
    assert main(["simulate", str(MASTERISLANDS), "-n", "3", "--dask", "tcp://127.0.0.1:1",
                 "--dask-timeout", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err and "Traceback" not in err
    assert main(["simulate", str(MASTERISLANDS), "-n", "3", "--dask", "nonsense"]) == 2
    assert "cannot reach the Dask scheduler at nonsense" in capsys.readouterr().err


def test_cli_without_dask_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)   # `import distributed` now fails
    assert main(["simulate", str(MASTERISLANDS), "-n", "3", "--dask", "local"]) == 2
    err = capsys.readouterr().err
    assert "install atoll[dask]" in err and "Traceback" not in err


@pytest.mark.parametrize("extra, message", [
    (["--workers", "2"], "--workers goes with --dask"),
    (["--chunk", "0", "--dask", "local"], "--chunk must be at least 1"),
    (["--workers", "2", "--dask", "tcp://127.0.0.1:1"], "--workers sets the size of a new local"),
])
def test_cli_dask_usage_errors(extra, message, capsys):
    assert main(["simulate", str(MASTERISLANDS), "-n", "3"] + extra) == 2
    assert message in capsys.readouterr().err


NIM_WITH_INVARIANTS = '''extends "{base}"

property heap_never_negative invariant stones >= 0

property heap_above_three "false once the heap is down to 3 or fewer" invariant stones > 3

property only_for_three_players when player_count == 3 invariant false
'''


def test_check_tests_every_applicable_invariant_at_every_step(tmp_path, capsys):
    """--check reports the first invariant that fails, with the action; an
    invariant whose `when` does not hold for the configuration is not tested."""
    spec = tmp_path / "nim_checked.atoll"
    spec.write_text(NIM_WITH_INVARIANTS.format(base=(SPEC.parent / "tests/good/nim.atoll").as_posix()))
    game = atoll.load(spec, players=2)
    assert [n for n, _ in simulation.invariants(game)] == ["heap_never_negative", "heap_above_three"]
    records = simulation.play_games(game, range(5), check=True)
    assert all(r.problem and r.problem.startswith("invariant `heap_above_three` is false after action")
               for r in records)
    assert all(r.problem is None for r in simulation.play_games(game, range(5)))   # unchecked: no problem
    assert main(["simulate", str(spec), "-n", "3", "--check", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert len(out["problems"]) == 3 and "heap_above_three" in out["problems"][0]["problem"]


def test_check_passes_on_a_shipped_game(capsys):
    assert main(["simulate", str(SPEC / "kanaloa.atoll"), "-n", "3", "--check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == 3


def test_check_tests_the_invariants_after_setup(tmp_path):
    """An invariant false from the start is reported as false after setup,
    before any action."""
    spec = tmp_path / "nim_false_at_start.atoll"
    spec.write_text(f'extends "{(SPEC.parent / "tests/good/nim.atoll").as_posix()}"\n\n'
                    'property big_heap "false from the start" invariant stones > 100\n')
    game = atoll.load(spec, players=2)
    records = simulation.play_games(game, range(3), check=True)
    assert [(r.length, r.problem) for r in records] == \
        [(0, "invariant `big_heap` is false after setup")] * 3


def _recount(game, records):
    wins, draws = [0] * game.num_players, 0
    for r in records:
        for p in r.winners:
            wins[p] += 1
        draws += not r.winners
    return wins, draws


@pytest.mark.parametrize("players,options", [(3, {}), (4, {"mode": "cooperative"})],
                         ids=["alone", "teams"])
def test_wins_per_seat_count_every_winner(players, options):
    """A team's win counts for each of its seats; a game nobody wins is a draw."""
    game = atoll.load(MASTERISLANDS, players=players, options=options)
    records = simulation.play_games(game, range(12))
    summary = simulation.summarize(game, records, 12, 0, 1.0)
    wins, draws = _recount(game, records)
    assert summary["wins_per_seat"] == wins and summary["draws"] == draws
    assert sum(1 for r in records if r.winners) + draws == 12
    if any(len(t) > 1 for t in game.teams):
        assert any(len(r.winners) == 2 for r in records), "no team won: the test shows nothing"
        for team in game.teams:
            assert len({wins[p] for p in team}) == 1, (game.teams, wins)
