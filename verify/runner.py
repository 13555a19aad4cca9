"""The property runner: every property of a spec, for one configuration or
for the matrix of player counts and modes, as results with verdicts."""
from __future__ import annotations

import gc
import itertools
import time
import traceback
from contextlib import contextmanager
from typing import Iterable, Optional

from atoll.compiler import names as N
from atoll.compiler import pipeline
from atoll.compiler.check import Checker
from atoll.diagnostics import Reporter, SpecError
from atoll.verify import verdicts as V
from atoll.verify.play import check_by_play
from atoll.verify.chance import check_chance
from atoll.verify.induction import check_induction
from atoll.verify.matrix import reads_text, share_key
from atoll.verify.almost_sure import check_almost_sure
from atoll.verify.solver import check_theorem, check_well_defined, check_witness
from atoll.verify.termination import check_measure, check_turn_measure
from atoll.verify.z3sem import Unsupported, Z3Eval


def configurations(comp, players: Optional[int], options: dict, matrix: bool) -> list[tuple[int, dict]]:
    """(players, options) pairs to verify: one, or every player count times
    every value of the options the game block names in `modes`."""
    prog = comp.program
    lo, hi = prog.player_range
    if not matrix:
        return [(players if players is not None else lo, dict(options))]
    axes = [a.strip() for a in str(prog.meta("modes", "")).split(",") if a.strip()]
    checker = Checker(prog, Reporter())
    values = []
    for a in axes:
        o = prog.options[a]
        t = checker.resolve(o.type)
        values.append(list(prog.enums[t[1]].members) if isinstance(t, tuple) else [False, True])
    out = []
    counts = [players] if players is not None else range(lo, hi + 1)
    for n in counts:
        for combo in itertools.product(*values):
            opts = dict(options)
            opts.update(dict(zip(axes, combo)))
            try:
                pipeline.instantiate(comp, n, opts)
            except SpecError:
                continue   # a `require` rules this combination out
            out.append((n, opts))
    return out


def check_termination(prog, game, pr, games, seed, spec_path, timeout_ms):
    """z3 over the size abstraction first; a concrete run by play when it fails."""
    outcome = check_measure(prog, game, pr, timeout_ms)
    if outcome[0] == "proved":   # for every outcome of setup (not only this seed's)
        return "z3 abstraction", V.PROVED, outcome[1], None
    verdict, detail, cex = check_by_play(game, pr, games, seed, spec_path)
    play_method = detail.pop("method", "hypothesis play")
    if outcome[0] == "fails":
        detail = {**detail, "z3": f"`{outcome[1]}` may not lower the measure",
                  "abstract counterexample": outcome[2]}
        if verdict not in (V.VIOLATED, V.PROVED):   # PROVED here: the whole game was searched
            verdict = V.UNKNOWN
            detail["reason"] = (f"z3 found that `{outcome[1]}` may not lower the measure over the "
                                f"abstract state; no concrete run showed it in {games} games")
        return f"z3 + {play_method.split()[0]}", verdict, detail, cex
    detail = {**detail, "z3": f"no z3 proof: {outcome[1]}"}
    return play_method, verdict, detail, cex


def check_invariant(prog, game, pr, games, seed, spec_path, timeout_ms):
    """z3 by induction where the abstraction can (PROVED for every reachable
    state), and search and play in any case (they confirm a proof, and
    decide when there is none; a concrete violation always wins)."""
    outcome = check_induction(prog, game, pr, timeout_ms)
    verdict, detail, cex = check_by_play(game, pr, games, seed, spec_path)
    play_method = detail.pop("method", "hypothesis play")
    detail.setdefault("evidence", {})["z3"] = induction_text(outcome)
    if outcome[0] == "proved":
        detail["induction"] = outcome[1]
        if verdict == V.VIOLATED:   # the abstraction let a real violation through: say so
            detail["reason"] = ("z3 found the invariant inductive, yet a game breaks it: this is a bug "
                                "in atoll's abstraction (please report it); the game is the verdict")
            return play_method, verdict, detail, cex
        return f"z3 induction + {play_method.split()[0]}", V.PROVED, detail, None
    if outcome[0] == "not inductive":
        detail["induction"] = {"fails": outcome[1]}
    else:
        detail["induction"] = {"unknown": outcome[1]}
    return play_method, verdict, detail, cex


def induction_text(outcome) -> str:
    """What the induction argument established, in one line."""
    kind, d = outcome
    if kind == "proved":
        joint = f", together with {', '.join(f'`{n}`' for n in d['with'])}" if d["with"] else ""
        return (f"z3 by induction: it holds once setup is done, whatever setup draws, and each of "
                f"the {len(d['steps'])} steps ({', '.join(d['steps'])}) keeps it from any state of the "
                f"declared types where it holds{joint}")
    if kind == "not inductive":
        if d["step"] == "setup":
            return f"z3 induction: `{d['breaks']}` can be false once setup is done ({_vals(d['after'])})"
        pairs = "; ".join(f"{k}: {d['before'].get(k, '?')}, then {v}" for k, v in d["after"].items())
        return (f"z3 induction: not inductive: from a state where it holds, `{d['step']}` can break "
                f"`{d['breaks']}` ({pairs}); that state may not be reachable, so search and play decide")
    return f"no z3 induction argument: {d}"


def _vals(values: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items()) or "values not shown"


def applies(comp, game, pr) -> bool:
    if pr.when is None:
        return True
    return bool(game.ns[N.prop_when(pr.name)]())


@contextmanager
def _frozen_for_fork():
    """The parent's objects out of the collector's reach while the workers
    fork from it (``gc.freeze``), and back after. A forked worker shares the
    parent's memory until it writes to it; each full collection in a worker
    wrote to every object it inherited (the collector's own counts), so the
    whole of a large parent (a docs build's reader) was copied into every
    worker and walked at each collection. Frozen objects are not collected:
    garbage in a cycle that forms meanwhile waits for the unfreeze."""
    if gc.get_freeze_count():   # the caller's own freeze: left as it is
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run(spec_path: str, players: Optional[int] = None, options: Optional[dict] = None,
        matrix: bool = False, only: Optional[Iterable[str]] = None, seed: int = 0,
        games: int = 100, timeout_ms: int = 20_000, progress=None,
        examples: bool = True, jobs: int = 1, dask: Optional[str] = None,
        dask_timeout: float = 10.0, by_config: Optional[list] = None) -> list[V.Result]:
    """Every property in every configuration asked for. In a matrix, a
    check whose verdict cannot differ between two configurations (it reads
    neither the options nor the player count that tell them apart: see
    ``verify.matrix``) runs once and the other configurations share its
    result; with ``jobs`` > 1 the configurations run in that many processes
    (the same verdicts, for the same seed); with ``dask`` (``"local"`` or a
    scheduler's address) they run on Dask, ``jobs`` workers for a local
    cluster (``atoll.dask_verify``). ``by_config``, a list, receives
    (players, options, results) for each configuration, the examples
    included in each (as a run of that configuration alone has them)."""
    comp = pipeline.compile_spec(spec_path)
    prog = comp.program
    props = list(prog.properties.values())
    if only:
        wanted = set(only)
        unknown = wanted - set(prog.properties) - set(prog.examples)
        if unknown:
            from atoll.diagnostics import Diagnostic, did_you_mean
            raise SpecError([Diagnostic("A0302", f"no property `{u}`", None,
                                        did_you_mean(u, list(prog.properties) + list(prog.examples)))
                                for u in sorted(unknown)])
        props = [p for p in props if p.name in wanted]
    plan, axes = plan_checks(comp, props, configurations(comp, players, options or {}, matrix),
                             options or {})
    total = sum(1 for *_, todo in plan for _, own in todo if own is None)
    computed = {}
    args = (str(spec_path), games, seed, timeout_ms, axes)
    done = [0]

    def tick(name):
        done[0] += 1
        if progress:
            progress(done[0], total, name)

    tasks = plan_tasks(plan)
    if dask is not None or (jobs > 1 and len(tasks) > 1):
        tasks = _longest_first(comp, tasks, seed)
    if dask is not None:
        import concurrent.futures as cf
        from atoll import simulation
        from atoll.dask_verify import dask_pool
        bundle = simulation.spec_bundle(spec_path)
        with dask_pool(dask, jobs if dask == "local" else None, dask_timeout) as pool:
            futs = [pool.submit(run_task, (bundle, *args, n, opts, names)) for n, opts, names in tasks]
            for f in cf.as_completed(futs):
                for r in f.result():
                    computed[computed_key(r)] = r
                    tick(r.property)
    elif jobs > 1 and len(tasks) > 1:
        import concurrent.futures as cf
        import multiprocessing
        _FORKED[str(spec_path)] = comp   # the workers fork with it: no compiling again
        with _frozen_for_fork(), \
                cf.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as ex:
            futs = {ex.submit(_run_config, *args, n, opts, names): (n, names) for n, opts, names in tasks}
            for f in cf.as_completed(futs):
                for r in f.result():
                    computed[computed_key(r)] = r
                    tick(r.property)
    else:
        for n, opts, names in tasks:
            for r in _run_config(*args, n, opts, names, comp=comp, on_result=lambda r: tick(r.property)):
                computed[computed_key(r)] = r
    results = assemble(prog, plan, computed, axes)
    if by_config is not None:
        by_config.extend(results)
    results = [r for *_, mine in results for r in mine]
    if examples:   # once: each example sets its own players and options
        from atoll.verify.examples import run_examples
        ran = run_examples(comp, set(only) if only else None)
        if by_config is not None:
            for *_, mine in by_config:
                mine.extend(ran)
        results += ran
    return results


def plan_checks(comp, props, configs, options: dict):
    """Which configuration computes each check, the others sharing it: a
    list of (players, options, the game's complete options, [(property,
    None or the (players, options) that computes it)]) per configuration,
    and the axes the results name."""
    prog = comp.program
    modes = [a.strip() for a in str(prog.meta("modes", "")).split(",") if a.strip()]
    axes = tuple(modes + [k for k in options if k not in modes])
    plan, owner = [], {}
    for n, opts in configs:
        game = pipeline.instantiate(comp, n, opts)
        todo = []
        for pr in props:
            if not applies(comp, game, pr):
                continue
            key = share_key(prog, pr, n, game.options) if len(configs) > 1 else None
            if key is not None and key in owner:
                todo.append((pr.name, owner[key]))
            else:
                if key is not None:
                    owner[key] = (n, dict(game.options))
                todo.append((pr.name, None))
        plan.append((n, opts, game.options, todo))
    return plan, axes


def plan_tasks(plan) -> list:
    """(players, options, the properties it computes) of each configuration of a plan."""
    return [(n, opts, [name for name, own in todo if own is None]) for n, opts, _, todo in plan]


def computed_key(r: V.Result) -> tuple:
    """How :func:`assemble` finds a computed result."""
    return (r.property, r.players, _frozen(r.options))


def assemble(prog, plan, computed: dict, axes) -> list:
    """(players, options, results) of each configuration of a plan, from the
    results computed (by :func:`computed_key`): a shared check is shown as such."""
    out = []
    for n, opts, game_opts, todo in plan:
        mine = []
        for name, own in todo:
            if own is None:
                mine.append(computed[(name, n, _frozen(game_opts))])
                continue
            first = computed[(name, own[0], _frozen(own[1]))]
            mine.append(_shared(prog, first, n, game_opts, axes))
        out.append((n, opts, mine))
    return out


PROBE_ACTIONS = 2000   # the most actions of the game that tells a configuration's length


def _longest_first(comp, tasks: list, seed: int) -> list:
    """The configurations in the order to hand them to the processes: the
    longest first, so that a long one does not start last while the other
    processes idle. A configuration's length is told by the first game its
    play will play (the random game of the seed, on the lean path, up to
    ``PROBE_ACTIONS`` actions: most of a configuration's time is its games,
    and in a configuration whose random games do not end, they run to the
    cap); then by the number of its checks. Only the order changes: each
    configuration is checked as it would be in any other order."""
    from atoll.compiler import playout

    def length(task):
        n, opts, names = task
        try:
            game = pipeline.instantiate(comp, n, opts)
            steps = playout.play_random(game, seed, max_steps=PROBE_ACTIONS)[1]
        except Exception:   # a game that fails to start or to play: its checks say so
            steps = 0
        return (steps, len(names))
    keyed = [(length(t), i, t) for i, t in enumerate(tasks)]
    keyed.sort(key=lambda k: (-k[0][0], -k[0][1], k[1]))
    return [t for _, _, t in keyed]


def _frozen(opts: dict) -> tuple:
    return tuple(sorted(opts.items(), key=lambda kv: kv[0]))


def _shared(prog, first: V.Result, n: int, opts: dict, axes) -> V.Result:
    """The result of a check computed for another configuration, shown as shared."""
    import dataclasses
    where = ", ".join([f"{first.players} players"] +
                      [f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                       for k, v in first.options.items() if k in axes])
    unread = reads_text(prog, prog.properties[first.property], axes)
    detail = dict(first.detail or {})
    detail["shared"] = f"the same check as for {where}" + (
        f" (the property reads none of: {unread})" if unread else "")
    return dataclasses.replace(first, players=n, options=dict(opts), seconds=0.0, detail=detail,
                               method=f"{first.method} (shared)")


def run_task(task):
    """A Dask task: one configuration of a bundled spec (compiled on the
    worker; ``spec_path`` only names it in counterexamples, as locally)."""
    bundle, spec_path, games, seed, timeout_ms, axes, n, opts, names = task
    return _run_config(spec_path, games, seed, timeout_ms, axes, n, opts, names,
                       comp=_compiled(bundle))


_BUNDLES: dict = {}
_FORKED: dict = {}   # spec path -> the compiled spec a forked worker inherits


def _compiled(bundle):
    """A bundled spec compiled once per worker process."""
    comp = _BUNDLES.get(bundle.digest)
    if comp is None:
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory(prefix="atoll-spec-") as d:
            for rel, text in bundle.files:
                f = Path(d, rel)
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(text, encoding="utf-8")
            comp = _BUNDLES[bundle.digest] = pipeline.compile_spec(Path(d, bundle.root), allow=[d])
    return comp


def _run_config(spec_path, games, seed, timeout_ms, axes, n, opts, names, comp=None, on_result=None):
    """The checks ``names`` in one configuration (in a worker process, or here)."""
    if comp is None:
        comp = _FORKED.get(str(spec_path)) or pipeline.compile_spec(spec_path)
    prog = comp.program
    game = pipeline.instantiate(comp, n, opts)
    from atoll.verify import playbook   # the games of play-based checks, played once for all
    playbook.plan(game, [prog.properties[name] for name in names], games, seed, str(spec_path))
    try:
        return _checks(prog, game, spec_path, games, seed, timeout_ms, axes, n, names, on_result)
    finally:
        playbook.forget(game)
        from atoll.verify import play
        play.forget(game)   # its searches' graphs and sampled positions: not asked for again


def _checks(prog, game, spec_path, games, seed, timeout_ms, axes, n, names, on_result):
    out = []
    for name in names:
        pr = prog.properties[name]
        t0 = time.perf_counter()
        expected = pr.expect or V.DEFAULT_EXPECTATION[pr.kind]
        try:
            method, verdict, detail, counterexample = check_one(
                prog, game, pr, games, seed, str(spec_path), timeout_ms)
            trace = None
        except Exception as e:   # a bug of a checker: this property has no verdict, the others go on
            method, verdict, counterexample = "none", V.UNKNOWN, None
            detail = {"reason": f"internal error in the checker ({type(e).__name__}: {e}); this is "
                                "a bug in atoll, not in the spec (`atoll --debug` shows where)"}
            trace = traceback.format_exc()
        detail = V.with_evidence(pr.kind, method, verdict, detail)   # what it rests on
        r = V.Result(pr.name, pr.kind, method, n, game.options, verdict, expected,
                     time.perf_counter() - t0, detail, counterexample, pr.notes.cites,
                     axes, trace, pr.notes.summary)
        out.append(r)
        if on_result is not None:
            on_result(r)
    return out


def check_one(prog, game, pr, games, seed, spec_path, timeout_ms):
    """The checker of one property: (method, verdict, detail, counterexample)."""
    counterexample = None
    if pr.kind == "theorem":
        verdict, detail, counterexample = check_theorem(prog, game, pr, timeout_ms)
        method = "enumeration" if "enumerated" in (detail or counterexample or {}) else "z3"
    elif pr.kind == "well_defined":
        method = "z3"
        verdict, detail, counterexample = check_well_defined(prog, game, pr, timeout_ms)
    elif pr.kind == "witness":
        method = "z3 optimize" if pr.objective else "z3"
        verdict, detail, counterexample = check_witness(prog, game, pr, timeout_ms)
    elif pr.kind in ("probability", "expectation"):
        method, verdict, detail, counterexample = check_chance(prog, game, pr, timeout_ms)
    elif pr.kind == "almost_surely":
        method, verdict, detail, counterexample = check_almost_sure(game, pr, games, seed, str(spec_path))
    elif pr.kind == "invariant":
        method, verdict, detail, counterexample = check_invariant(
            prog, game, pr, games, seed, str(spec_path), timeout_ms)
    elif pr.kind == "terminates" and pr.step == "action":
        method, verdict, detail, counterexample = check_termination(
            prog, game, pr, games, seed, str(spec_path), timeout_ms)
    else:
        verdict, detail, counterexample = check_by_play(game, pr, games, seed, spec_path)
        method = detail.pop("method", "hypothesis play")
        if pr.kind == "terminates" and pr.step == "turn":
            detail["z3"] = check_turn_measure(prog, game, pr, timeout_ms)
    return method, verdict, detail, counterexample
