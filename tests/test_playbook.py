"""Games played once for every property of a configuration
(verify.playbook): each property gets exactly the run it gets alone, and
the verdicts and evidence are those of checking each property alone."""
from __future__ import annotations

from pathlib import Path

import pytest

from atoll.compiler import pipeline
from atoll.verify import playbook
from atoll.verify.play import check_by_play
from atoll.verify.runs import PlayCheck

ROOT = Path(__file__).resolve().parent.parent

SPEC = '''game g { title: "G" players: 2..3 }
state {
  player banked: int = 0 visible all "banked"
  at_risk: int = 0 visible all "at risk"
  last: list[int] = [] visible all "the last roll"
}
flow { round { turns in seats: push } }
phase push "push" {
  action roll_dice() "roll" {
    roll r from dice(2, 6)
    last = r
    if 1 in r { at_risk = 0  end phase } else { at_risk = at_risk + r[0] + r[1] }
  }
  action stop() "stop" when at_risk > 0 {
    banked[me] = banked[me] + at_risk
    at_risk = 0
    if banked[me] >= 30 { win [me] }
    end phase
  }
}
property stays "stays" invariant at_risk >= 0
property fails_late "fails in some games" invariant at_risk < 20
property fails_at_once "fails at the start" invariant at_risk > 0
property cannot_say "cannot be evaluated before a roll" invariant last[0] >= 0
property some_stop "a stop is allowed" invariant forall stop(): at_risk > 0
property stuck "never stuck" deadlock_free
property reached "reached" reachable banked[0] >= 10
property never "not reached" reachable banked[0] > 1000
property lowers "a measure per turn" terminates by 100 - banked[0] - banked[1] per turn
property stop_early "stops come early" invariant forall stop(): at_risk < 15
property stop_unsure "cannot be evaluated for a stop" invariant forall stop(): last[at_risk] >= 0
'''


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    p = tmp_path_factory.mktemp("pb") / "g.atoll"
    p.write_text(SPEC)
    comp = pipeline.compile_spec(p)
    return pipeline.instantiate(comp, 2, {}), str(p), comp.program


def _fields(r):
    return (r.violation, r.actions, r.steps, r.seed, r.outcome, r.failed, r.choices,
            r.random_choices, r.ending, r.cut, sorted(r.states), r.cap)


@pytest.mark.parametrize("record", [True, False])
def test_each_property_gets_the_run_it_gets_alone(game, record):
    g, _, prog = game
    props = list(prog.properties.values())
    checks = []
    for pr in props:
        c = PlayCheck(g, pr)
        c.record_states = record
        checks.append(c)
    outcomes = set()
    for seed in range(12):
        for choices in ((), (1, 0, 1, 1, 0, 1), (0,) * 30):
            together = playbook.play_together(g, checks, seed, choices, record=record)
            for c, r in zip(checks, together):
                alone = c.play(seed, choices, "uniform")
                assert _fields(r) == _fields(alone), (c.pr.name, seed, choices)
                outcomes.add((c.pr.name, r.outcome))
    # the cases that matter were met: a violation late and at once, an error, an end, a cap
    assert {("fails_late", "violation"), ("fails_at_once", "violation"), ("cannot_say", "error"),
            ("stays", "ok"), ("reached", "violation"), ("never", "ok"),
            ("stop_early", "violation"), ("stop_unsure", "error"), ("some_stop", "ok")} <= outcomes


_SPECS = sorted(ROOT.glob("spec/*.atoll")) + sorted(ROOT.glob("spec/variants/*.atoll"))


@pytest.mark.parametrize("path", _SPECS, ids=lambda p: p.stem)
def test_shipped_properties_get_the_runs_they_get_alone(path):
    """Every property of a shipped spec that shares its games (action
    invariants checked over the lean moves of their action only, the
    properties about one state only when a slot they read changed, the
    positions hashed incrementally) gets, field by field, the run it gets
    playing alone (every state checked the long way)."""
    comp = pipeline.compile_spec(path)
    g = pipeline.instantiate(comp, comp.program.player_range[0], {})
    checks = []
    for pr in comp.program.properties.values():
        if playbook.shares(pr):
            c = PlayCheck(g, pr, max_steps=120)
            c.record_states = True
            checks.append(c)
    assert checks
    for seed in range(3):
        together = playbook.play_together(g, checks, seed)
        for c, r in zip(checks, together):
            alone = c.play(seed, (), "uniform")
            assert _fields(r) == _fields(alone), (path.name, c.pr.name, seed)


def test_kanaloa_has_action_invariants_to_share():
    """(the shipped spec that makes the test above check action invariants
    over the lean moves)"""
    comp = pipeline.compile_spec(ROOT / "spec" / "kanaloa.atoll")
    assert sum(pr.kind == "action_invariant" for pr in comp.program.properties.values()) > 5


@pytest.mark.parametrize("states", [40])   # the searches decide little: play decides
def test_a_shared_check_is_the_check_alone(game, monkeypatch, states):
    from atoll.verify import play
    monkeypatch.setattr(play, "MAX_STATES", states)
    g, path, prog = game
    props = [pr for pr in prog.properties.values() if playbook.shares(pr)]
    alone = {pr.name: check_by_play(g, pr, 12, 0, path) for pr in props}
    playbook.plan(g, props, 12, 0, path)
    try:
        together = {pr.name: check_by_play(g, pr, 12, 0, path) for pr in props}
        b = playbook.book(g, props[0], 12, 0)
        assert b.uniform and b.steered   # the games were in fact played together
    finally:
        playbook.forget(g)
    assert together == alone
    assert {v[0] for v in together.values()} >= {"VIOLATED", "NO VIOLATION IN 15 GAMES"}


def test_the_joint_search_is_dropped_when_a_property_fails(game):
    g, path, prog = game
    props = [prog.properties[n] for n in ("stays", "fails_late")]
    b = playbook.Book(g, props, 40, 0, path)
    b.uniform = {"stays": []}
    assert set(b._joint(30.0)) == {"stays"}   # alone, it is shared
    b.uniform = {"stays": [], "fails_late": []}
    assert b._joint(30.0) == {}   # a failing game: each property searches alone


def test_verify_matrix_on_dask_gives_the_local_verdicts(tmp_path, capsys):
    distributed = pytest.importorskip("distributed", reason="the Dask path needs atoll[dask]")
    import json
    from atoll.cli import main
    from test_matrix_sharing import SPEC as SMALL
    p = tmp_path / "g.atoll"
    p.write_text(SMALL)
    only = ["--property", "pure", "--property", "behaviour", "--games", "4"]
    main(["verify", str(p), "--matrix", "--json", "--jobs", "1", *only])
    local = json.loads(capsys.readouterr().out)["results"]
    # one thread: z3 is not safe to run in two threads of one process at once
    # (two threads segfaulted here); `--dask local` itself uses processes
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        main(["verify", str(p), "--matrix", "--json", "--dask", cluster.scheduler_address, *only])
    dask = json.loads(capsys.readouterr().out)["results"]
    key = lambda r: (r["property"], r["players"], json.dumps(r["options"], sort_keys=True))  # noqa: E731
    assert [(key(r), r["verdict"]) for r in local] == [(key(r), r["verdict"]) for r in dask]
    # The same methods, except that a z3 proof that runs out of its time limit
    # on a busy machine (the suite runs in parallel) leaves the search alone.
    bare = lambda m: m.replace("z3 induction + ", "")  # noqa: E731
    assert [bare(r["method"]) for r in local] == [bare(r["method"]) for r in dask]


def test_verify_dask_needs_the_matrix_and_a_scheduler(tmp_path, capsys):
    import json
    from atoll.cli import main
    p = tmp_path / "g.atoll"
    p.write_text(SPEC)
    assert main(["verify", str(p), "--json", "--dask", "local"]) == 2
    assert "--matrix" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert main(["verify", str(p), "--matrix", "--json", "--dask", "tcp://127.0.0.1:9",
                 "--dask-timeout", "0.5"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["kind"] == "dask"


def test_induction_follows_setup_once_per_game(game, monkeypatch):
    """Every invariant's base case starts from the same abstract setup,
    followed once per game; the verdicts are those of following it each time."""
    from atoll.verify import induction
    g, _, prog = game
    props = [prog.properties[n] for n in ("stays", "fails_at_once")]
    fresh = []
    for pr in props:
        induction._SETUPS.pop(g, None)
        induction._BASES.pop(g, None)
        fresh.append(induction.check_induction(prog, g, pr, 5000))
    calls = []
    real = induction.Abstraction.before_setup
    monkeypatch.setattr(induction.Abstraction, "before_setup",
                        lambda self, cons: calls.append(1) or real(self, cons))
    induction._SETUPS.pop(g, None)
    induction._BASES.pop(g, None)
    kept = [induction.check_induction(prog, g, pr, 5000) for pr in props]
    assert kept == fresh and fresh[1][1]["step"] == "setup"
    assert len(calls) == 1


def test_nothing_is_kept_for_a_configuration_once_checked(game, monkeypatch):
    """A matrix checked in one process keeps nothing of a configuration
    once its checks are made: its sampled positions (which hold the game)
    and so its search graphs go with it."""
    import gc
    from atoll.verify import explore, play, runner
    monkeypatch.setattr(play, "MAX_STATES", 40)   # bounded searches: positions are sampled
    _, path, prog = game
    names = [n for n, pr in prog.properties.items() if playbook.shares(pr)]
    gc.collect()
    positions, graphs = len(play._POSITIONS), len(explore._GRAPHS)
    sampled = []
    real = play.sample_positions
    monkeypatch.setattr(play, "sample_positions", lambda *a, **k: sampled.append(1) or real(*a, **k))
    out = runner._run_config(path, 4, 0, 5000, (), 2, {}, names)
    assert len(out) == len(names) and sampled   # positions were sampled for this configuration
    gc.collect()
    assert len(play._POSITIONS) <= positions and len(explore._GRAPHS) <= graphs


BIDS = (ROOT / "tests" / "good" / "sealed_bids.atoll").read_text()
# a leak from the third round on, past where the bounded search gets: play finds it
LEAK = ("  player tokens: list[int] = [] visible owner\n",
        "    if current_round >= 3 { tokens[me] = [1 for k in range(n)] }\n")


@pytest.mark.parametrize("leaky", [False, True])
def test_a_shared_no_leak_check_is_the_check_alone(tmp_path, monkeypatch, leaky):
    """A `no_leak` property shares the uniform (and steered) games: its one
    check (``Book.check_of``) meets the search's states and then each game's
    in the same order as alone, so it compares and counts the same secret
    choices (the evidence's ``secret choices``) and finds the same leak."""
    from atoll.verify import play
    monkeypatch.setattr(play, "MAX_STATES", 30)   # a bounded search: play decides
    monkeypatch.setattr(play, "POSITION_GAMES", 0)   # (no searches from sampled positions)
    text = BIDS + "\nproperty bids_secret no_leak\nproperty fine invariant true\n"
    if leaky:
        state, effect = "  player bid: int = 0 visible owner", "    bid[me] = n\n"
        assert state in text and effect in text
        text = text.replace(state, LEAK[0] + state).replace(effect, effect + LEAK[1])
    p = tmp_path / "g.atoll"
    p.write_text(text)
    comp = pipeline.compile_spec(p)
    g = pipeline.instantiate(comp, 3, {})
    props = [comp.program.properties[n] for n in ("fine", "bids_secret")]
    assert all(playbook.shares(pr) for pr in props)
    alone = {pr.name: check_by_play(g, pr, 8, 0, str(p)) for pr in props}
    playbook.plan(g, props, 8, 0, str(p))
    try:
        together = {pr.name: check_by_play(g, pr, 8, 0, str(p)) for pr in props}
        b = playbook.book(g, props[1], 8, 0)
        assert "bids_secret" in b.uniform   # its games were in fact played together
        assert ("bids_secret" in b.steered) == (not leaky)
    finally:
        playbook.forget(g)
    assert together == alone
    verdict, detail, _ = together["bids_secret"]
    if leaky:
        assert verdict == "VIOLATED" and "secret choice shows" in together["bids_secret"][2]["problem"]
    else:
        assert verdict == "NO VIOLATION IN 10 GAMES" and "secret choices compared" in detail["secret choices"]


def test_a_dropped_joint_search_leaves_the_no_leak_counts_as_they_were(tmp_path):
    """When the joint steered search is dropped, a `no_leak` property
    searches alone: what its check counted over the dropped games is undone."""
    p = tmp_path / "g.atoll"
    p.write_text(BIDS + "\nproperty bids_secret no_leak\nproperty fails invariant current_round < 2\n")
    comp = pipeline.compile_spec(p)
    g = pipeline.instantiate(comp, 3, {})
    props = [comp.program.properties[n] for n in ("bids_secret", "fails")]
    b = playbook.Book(g, props, 8, 0, str(p))
    leaks = b.check_of("bids_secret").leaks
    leaks.rng.random()
    before = leaks.save()
    b.uniform = {"bids_secret": []}
    assert set(b._joint(30.0)) == {"bids_secret"} and leaks.met > before[0]   # alone, it is shared
    leaks.restore(before)
    b.uniform = {"bids_secret": [], "fails": []}
    assert b._joint(30.0) == {}   # a failing game: each property searches alone
    assert leaks.save() == before


_STUCK = '''game g { title: "G" players: 2..2 }
state {
  n: int = 0 visible all "count"
}
flow { round { turns in seats: push } }
phase push "push" {
  action inc() "inc" when n < 3 {
    n = n + 1
    end phase
  }
}
property stuck "never stuck" deadlock_free
property small "small" invariant n < 10
property grows "grows" invariant n < 2
property three "three reached" reachable n == 3
'''


@pytest.mark.parametrize("cap", [1, 2, 3, 4])
def test_a_deadlock_on_the_last_allowed_action_is_seen_together_as_alone(tmp_path, cap):
    """Deadlock freedom is looked at right after each action (its listing
    read, when it has moves, without the long way): a state stuck on the
    game's last allowed action (the cap) is a violation then, not a game
    cut at the cap, together as alone; the invariants and the goal watched
    by their function first report as alone."""
    p = tmp_path / "stuck.atoll"
    p.write_text(_STUCK)
    comp = pipeline.compile_spec(p)
    g = pipeline.instantiate(comp, 2, {})
    checks = []
    for pr in comp.program.properties.values():
        c = PlayCheck(g, pr, max_steps=cap)
        c.record_states = True
        checks.append(c)
    together = playbook.play_together(g, checks, 0)
    for c, r in zip(checks, together):
        assert _fields(r) == _fields(c.play(0, (), "uniform")), (cap, c.pr.name)
    outcome = {c.pr.name: (r.outcome, r.cut) for c, r in zip(checks, together)}
    if cap == 3:   # stuck after the third action: the cap is not what stops it
        assert outcome["stuck"] == ("violation", None)
    assert outcome["grows"] == (("violation", None) if cap >= 2 else ("cut", "cap"))
    assert outcome["three"] == (("violation", None) if cap >= 3 else ("cut", "cap"))
