"""The turn flow lowered to code (compiler/lower_flow.py, ``flend_*``): every
spec plays the same games, states, histories, saves and errors with the
generated flow as with the interpreter (``FlowEngine._next_phase`` and
``_settle``), and a flow bug planted in the generation is caught."""
from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

import atoll
from atoll.compiler import lower_flow, pipeline
from atoll.compiler.runtime import IllegalAction, ModelError

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").glob("*.atoll")) + sorted((ROOT / "spec" / "variants").glob("*.atoll")) \
    + [ROOT / "tests" / "golden" / "countdown.atoll"] + sorted((ROOT / "tests" / "good").glob("*.atoll"))


def _games(spec, n=None, options=None):
    """The same game twice: with the generated flow, and with the interpreter."""
    comp = atoll.compile_spec(str(spec))
    lo, hi = comp.program.player_range
    n = lo if n is None else n
    a = pipeline.instantiate(comp, n, options or {})
    b = pipeline.instantiate(comp, n, options or {})
    b._flend = None
    return a, b


def _play(game, seed: int, chance: str, cap: int = 400):
    """A seeded random game on the lean path: the state, and at each step
    what was listed (or the error met)."""
    st = game.new_initial_state(seed=seed, chance=chance)
    rng = random.Random(seed)
    trail = []
    for _ in range(cap):
        if st.is_terminal():
            break
        try:
            L = st.legal_moves()
        except ModelError as e:
            trail.append(("error", str(e)))
            break
        if not L:
            break
        trail.append((st.current_player(), st.phase(), tuple(st.ctl), len(L)))
        try:
            st.apply_move(rng.randrange(len(L)))
        except (ModelError, IllegalAction) as e:
            trail.append(("error", str(e)))
            break
    return st, trail


def _same_play(a, b, seeds=range(4), chances=("auto", "explicit")):
    """None if ``a`` and ``b`` play the same games, else where they part."""
    for seed in seeds:
        for chance in chances:
            sa, ta = _play(a, seed, chance)
            sb, tb = _play(b, seed, chance)
            if ta != tb:
                k = next(i for i, (x, y) in enumerate(zip(ta + [None], tb + [None])) if x != y)
                return f"seed {seed} {chance}: step {k}: {ta[k:k + 1]} != {tb[k:k + 1]}"
            if sa.to_json() != sb.to_json() or sa.ctl != sb.ctl or sa.outcome != sb.outcome:
                return f"seed {seed} {chance}: the final states differ: {sa.ctl} {sb.ctl}"
    return None


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_generated_flow_plays_as_the_interpreter(spec):
    comp = atoll.compile_spec(str(spec))
    lo, hi = comp.program.player_range
    for n in sorted({lo, hi}):
        try:
            a, b = _games(spec, n)
        except Exception as e:   # a spec that needs options or files given
            pytest.skip(f"does not load with defaults: {e}")
        assert a._flend is not None   # every spec with a flow has it
        assert _same_play(a, b) is None, (spec.stem, n)


def test_the_generated_flow_runs():
    """MasterIslands' phase ends go through the generated steps (not only
    the interpreter), and each generated step is met in some game."""
    game, _ = _games(ROOT / "spec" / "masterislands.atoll", 3)
    met = {}
    for name, fn in list(game.ns.items()):
        if name.startswith(("flend_", "flstage_", "flround_")):
            def counted(*args, fn=fn, key=name):
                met[key] = met.get(key, 0) + 1
                return fn(*args)
            game.ns[name] = counted   # as the module calls it
    game._flend = [[[game.ns[fn.__name__] for fn in stage] for stage in rd] for rd in game._flend]
    for seed in range(5):
        _play(game, seed, "auto")
    # the usual round: discovery, conquest, resupply, then the next round
    # (the Corsair's round is off by default)
    assert {"flend_1_0_0", "flend_1_0_1", "flend_1_0_2", "flround_1", "flstage_1_0"} <= set(met)
    assert not any(name.endswith(("_0_0_0", "_0_1_0", "_0_2_0")) for name in met)


def test_saved_games_load_the_same():
    """A save made with the generated flow loads (replayed) with either."""
    a, b = _games(ROOT / "spec" / "masterislands.atoll", 2)
    for seed in range(3):
        st, _ = _play(a, seed, "auto", cap=40)
        text = st.to_json()
        assert b.state_from_json(text).to_json() == text
        assert a.state_from_json(text).to_json() == text


ERRORS = textwrap.dedent('''
    game errs {
      title: "Errors"
      players: 2..3
    }
    state {
      count: int = 0 visible all
      table: map[int, int] = map[int, int]() visible all
    }
    flow {
      round {
        turns in seats: act, tidy, check
      }
    }
    phase act {
      action step(n: int in [1, 2]) {
        count = count + n
        end phase
      }
    }
    phase tidy {
      auto {
        if count == 7 {
          count = count + table[count]
        }
      }
    }
    phase check {
      on enter {
        if count == 5 {
          count = table[99]
        }
      }
      done when count > 100 or count % 2 == 0
      action more() {
        count = count + 1
      }
    }
    ending big after_turn when count >= 9 and table[count] == 0 => tie
''')


def test_errors_are_worded_the_same(tmp_path):
    """An error in an `auto`, an `on enter` or an ending, met inside the
    generated flow, is raised as the interpreter raises it (the same text,
    naming the same step), and the state is unchanged."""
    spec = tmp_path / "errs.atoll"
    spec.write_text(ERRORS)
    a, b = _games(spec, 2)
    met = set()
    for seed in range(30):
        sa, ta = _play(a, seed, "auto")
        sb, tb = _play(b, seed, "auto")
        assert ta == tb, seed
        assert sa.to_json() == sb.to_json()
        if ta[-1][0] == "error":
            met.add(ta[-1][1].split(":")[0])
    # the games meet an error in each of an `auto`, an `on enter` and an ending
    assert met == {"evaluating phase `tidy`", "evaluating entering phase `check`", "evaluating ending `big`"}


def test_a_planted_flow_bug_is_caught(monkeypatch):
    """The comparison above fails on a flow that forgets to count the phase
    past the last one before testing the endings `after_turn` (a terminal
    state then names the last phase, not one past it)."""
    spec = ROOT / "tests" / "good" / "claims.atoll"
    a, b = _games(spec)
    assert _same_play(a, b) is None
    real = lower_flow.FlowLowerer.flow_end

    def planted(self, i, j, st, k):
        n = len(self.lines)
        real(self, i, j, st, k)
        self.lines[n:] = [x for x in self.lines[n:] if "as _next_phase leaves it" not in x]

    monkeypatch.setattr(lower_flow.FlowLowerer, "flow_end", planted)
    bad, good = _games(spec)
    assert "_next_phase leaves it" not in bad.source
    assert _same_play(bad, good) is not None


LOOP = textwrap.dedent('''
    game loop {
      title: "Loop"
      players: 2..2
    }
    state {
      active: Player = 0 visible all
      n: int = 0 visible all
    }
    flow {
      round {
        turns round seats from active: pick, spin
      }
    }
    phase pick {
      done when n > 0
      action start() {
        n = 1
      }
    }
    phase spin {
      auto {
        n = 3 - n
      }
    }
''')


def test_a_flow_without_decisions_stops_as_in_the_interpreter(tmp_path):
    """After the first action no phase waits for a decision and the stage
    never ends: the generated flow (one step returning the next) stops the
    game with the interpreter's error, and the state is unchanged."""
    spec = tmp_path / "loop.atoll"
    spec.write_text(LOOP)
    for game in _games(spec):
        st = game.new_initial_state(seed=0)
        before = st.to_json()
        with pytest.raises(ModelError, match="a million automatic steps without a decision"):
            st.apply_move(0)
        assert st.to_json() == before


def test_on_enter_shares_its_listings_only_where_sound():
    """MasterIslands' `on enter` asks `can(place)`/`can(sail)` and its `done
    when` asks them again: with the default options the enter's listings are
    kept for the `done when` (``phenterm_discovery``). With `discovery_stuck
    = partial` the listing of `place` reads `stuck`, which the `on enter`
    writes after asking: no sharing."""
    spec = ROOT / "spec" / "masterislands.atoll"
    a, b = _games(spec, 3)
    assert "phenterm_discovery" in a.ns
    partial = {"discovery_stuck": "partial"}
    a, b = _games(spec, 3, partial)
    assert "phenterm_discovery" not in a.ns
    assert _same_play(a, b, seeds=range(4), chances=("auto",)) is None


FLIP = textwrap.dedent('''
    game flip {
      title: "Flip"
      players: 2..2
    }
    state {
      count: int = 0 visible all
    }
    flow {
      round {
        turns in seats: pick, bump
      }
    }
    phase pick {
      open: bool = false
      on enter {
        open = can(take) and count % 2 == 0
      }
      done when not can(take)
      action take(k: int in [1, 2])
        when not open
      {
        count = count + k
        end phase
      }
    }
    phase bump {
      action go() {
        count = count + 1
        end phase
      }
    }
    ending over after_turn when count > 12 => tie
''')


def test_an_on_enter_that_changes_the_listing_keeps_nothing(tmp_path, monkeypatch):
    """The `on enter` writes `open`, which `choose` reads: its listing at the
    `can` is not the listing after the `on enter`, so nothing is shared.
    Planted (the writes not looked at): the games change, and the
    comparison sees it."""
    spec = tmp_path / "flip.atoll"
    spec.write_text(FLIP)
    a, b = _games(spec)
    assert "phenterm_pick" not in a.ns
    assert _same_play(a, b) is None
    monkeypatch.setattr(lower_flow.FlowLowerer, "_value_reads", lambda self, e: set())
    bad, good = _games(spec)
    assert "phenterm_pick" in bad.ns
    assert _same_play(bad, good) is not None


SHARED = textwrap.dedent('''
    game sharing {
      title: "Sharing"
      players: 2..2
    }
    state {
      count: int = 1 visible all
      table: map[int, int] = map[int, int]() visible all
    }
    flow {
      round {
        turns in seats: pick
      }
    }
    phase pick {
      open: bool = false
      on enter {
        open = can(take)
      }
      done when not can(take)
      action take(k: int in [1, 2, 3])
        when k == 1 or count % 2 == 1 or table[k] > 0
      {
        count = count + k
        end phase
      }
    }
    ending full after_turn when count > 9 => tie
''')


def test_a_shared_listing_that_fails_falls_back_to_can(tmp_path):
    """Where the listing that the `on enter` keeps meets an error that
    `can` (stopping at its first choice) does not, the `on enter` answers
    with `can`, and play raises where the interpreter raises."""
    spec = tmp_path / "shared.atoll"
    spec.write_text(SHARED)
    a, b = _games(spec)
    assert "phenterm_pick" in a.ns
    assert _same_play(a, b, seeds=range(12)) is None
    errors = {_play(a, s, "auto")[1][-1][0] for s in range(12)}
    assert "error" in errors


ROUNDS = textwrap.dedent('''
    game rounds {
      title: "Rounds"
      players: 2..2
    }
    state {
      count: int = 0 visible all
    }
    flow {
      round when current_round < LIMIT {
        turns in [p for p in seats if p >= count % 2]: go
        turns in [count % 3]: go
      }
    }
    phase go {
      action step(n: int in [1, 2]) {
        count = count + n
        end phase
      }
    }
''')


@pytest.mark.parametrize("limit", ["4", "40"])
def test_stage_and_round_errors_are_the_interpreters(tmp_path, limit):
    """A stage that names a seat the game does not have, or a round that
    no `round` applies to, met by the generated flow at the start of a stage
    or the end of a round, stops play with the interpreter's error."""
    spec = tmp_path / "rounds.atoll"
    spec.write_text(ROUNDS.replace("LIMIT", limit))
    a, b = _games(spec)
    assert _same_play(a, b, seeds=range(10)) is None
    ends = {_play(a, s, "auto")[1][-1][1].split(";")[0] for s in range(10)}
    assert "a stage of the flow names players [2]" in ends
    assert ("no `round` of the flow applies" in ends) == (limit == "4")
