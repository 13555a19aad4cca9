"""A verification matrix that does each check once (issue 15, item 3): a
check that reads neither the player count nor the mode that tell two
configurations apart runs once and is shared; configurations run in
parallel processes with the same verdicts."""
from __future__ import annotations

import json

from atoll.cli import main

SPEC = '''game g { title: "G" players: 2..3  modes: "fast" }
option fast: bool = false "Take two at a time."
const step: int = if fast then 2 else 1
state { n: int = 6 visible all "tokens" }
flow { round { turns in seats: go } }
phase go "go" {
  action take() "take" when n >= step { n = n - step  if n == 0 { win [me] }  end phase }
  action stop() "stop" when n < step { tie }
}
def double(x: int): int = 2 * x
property pure "reads nothing of the matrix" theorem forall x: int in between(0, 5): double(x) == x + x
property by_mode "reads the mode through a constant" theorem forall x: int in between(0, 5): x * step >= x
property by_players "reads the player count" theorem forall x: int in [player_count]: x >= 2
property behaviour "about play: never shared" invariant n >= 0
'''


def run(capsys, path, *args) -> list:
    main(["verify", str(path), "--matrix", "--json", *args])
    return json.loads(capsys.readouterr().out)["results"]


def test_checks_are_shared_where_they_cannot_differ(tmp_path, capsys):
    p = tmp_path / "g.atoll"
    p.write_text(SPEC)
    rs = run(capsys, p, "--jobs", "1")
    by = {}
    for r in rs:
        by.setdefault(r["property"], []).append(r)
    assert all(len(v) == 4 for v in by.values())        # 2 player counts x 2 modes
    computed = {k: sum("(shared)" not in r["method"] for r in v) for k, v in by.items()}
    assert computed == {"pure": 1, "by_mode": 2, "by_players": 2, "behaviour": 4}
    shared = next(r for r in by["pure"] if "(shared)" in r["method"])
    assert shared["detail"]["shared"].startswith("the same check as for 2 players, fast=false")
    assert "the player count" in shared["detail"]["shared"] and "`fast`" in shared["detail"]["shared"]
    assert all(r["ok"] for r in rs)


def test_parallel_jobs_give_the_same_verdicts(tmp_path, capsys):
    p = tmp_path / "g.atoll"
    p.write_text(SPEC)
    one = run(capsys, p, "--jobs", "1")
    two = run(capsys, p, "--jobs", "2")
    key = lambda r: (r["property"], r["players"], json.dumps(r["options"], sort_keys=True))  # noqa: E731
    assert [(key(r), r["verdict"], r["method"]) for r in one] == \
           [(key(r), r["verdict"], r["method"]) for r in two]


def test_the_longest_configurations_are_handed_out_first(tmp_path):
    """With processes to share them, the configurations whose first random
    game is longest go first (here `fast = false`: six turns, not three),
    then those with more checks; every configuration is still there once."""
    from atoll.compiler import pipeline
    from atoll.verify.runner import _longest_first
    p = tmp_path / "g.atoll"
    p.write_text(SPEC)
    comp = pipeline.compile_spec(p)
    tasks = [(2, {"fast": True}, ["behaviour"]), (3, {"fast": True}, ["behaviour", "by_mode"]),
             (2, {"fast": False}, ["behaviour"]), (3, {"fast": False}, ["behaviour", "pure"])]
    order = _longest_first(comp, tasks, 0)
    assert order == [tasks[3], tasks[2], tasks[1], tasks[0]]


def test_the_workers_fork_from_a_frozen_parent_that_is_unfrozen_after(tmp_path, monkeypatch):
    """The configurations' processes fork while the parent's objects are
    frozen (``gc.freeze``: a worker's collections then leave the memory it
    shares with the parent unwritten), and the parent is unfrozen after;
    a caller's own freeze is left as it was."""
    import concurrent.futures as cf
    import gc
    from atoll.verify import runner
    seen = []

    class Spy(cf.ProcessPoolExecutor):
        def __init__(self, *a, **k):
            seen.append(gc.get_freeze_count())
            super().__init__(*a, **k)
    monkeypatch.setattr(cf, "ProcessPoolExecutor", Spy)
    spec = tmp_path / "g.atoll"
    spec.write_text(SPEC)
    before = gc.get_freeze_count()
    assert before == 0
    serial = runner.run(str(spec), matrix=True, games=3, jobs=1)
    forked = runner.run(str(spec), matrix=True, games=3, jobs=2)
    assert len(seen) == 1 and seen[0] > 0 and gc.get_freeze_count() == 0
    assert [(r.property, r.players, r.verdict) for r in forked] == [(r.property, r.players, r.verdict) for r in serial]
    gc.freeze()
    try:
        runner.run(str(spec), matrix=True, games=3, jobs=2)
        assert gc.get_freeze_count() > 0   # not unfrozen by the run
    finally:
        gc.unfreeze()
