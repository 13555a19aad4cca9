"""Mutation testing of a spec's properties (``atoll mutate``).

Each mutant of the rules (:mod:`atoll.verify.mutants`) is compiled by the
normal compiler, like any spec, and checked with the spec's properties (and
its examples) on a small budget (:mod:`atoll.verify.mutate_eval` says in
which order, and in which configurations). Its status:

- ``killed``: some property (or example) is not as the spec expects, where
  the original spec's is; or the model fails (a model error in the seeded
  games). The property that noticed is named, with the configuration.
- ``survived``: every verdict is as expected, and the mutant plays
  differently from the original in the seeded games of some configuration
  (or some verdict differs without breaking an expectation): no property
  notices the change.
- ``unobserved``: every verdict is the same as the original's and the
  seeded games play exactly alike, in the configurations checked and in
  every other configuration of the matrix where its code differs ("no
  observable change in N seeded games"); likely equivalent, not proved.
- ``equivalent``: the lowered Python of every configuration of the matrix
  (or of those checked, with ``--matrix`` or without modes) is the same as
  the original's: a sound argument of equivalence for those configurations.
- ``not compiling``: the compiler refuses the mutant (or one of its
  configurations); counted apart.
- ``timed out``: the mutant's checks ran past the time limit.

The score counts every mutant not shown equivalent (nor refused by the
compiler) as not killed unless it is killed: killed / (killed + survived +
unobserved + timed out + failed). The score over the mutants observed,
killed / (killed + survived), is reported beside it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from atoll.compiler import pipeline
from atoll.compiler.runtime import ModelError
from atoll.diagnostics import SpecError
from atoll.verify import verdicts as V
from atoll.verify import mutate_cache as MC
from atoll.verify.mutants import Mutant, generate, reads
from atoll.verify.mutate_eval import config_key as _config_key, evaluate_mutant, folded_hash

PURE = ("theorem", "witness", "well_defined")   # read constants, functions and options only
STATUSES = ("killed", "survived", "unobserved", "equivalent", "not compiling", "timed out", "error")


@dataclass(frozen=True)
class Settings:
    """The budget of each mutant's checks."""
    games: int = 20            # games per property checked by play, and seeded games of the digest
    seed: int = 0
    timeout_ms: int = 5_000    # z3, per query
    cap: int = 3_000           # actions after which a game of the digest is cut
    limit: float = 0.0         # seconds per mutant (0: from the original's time)
    extra: int = 1             # other configurations of the matrix a mutant not killed is checked in


class MutantTimeout(BaseException):
    """The per-mutant time limit (a BaseException, so no checker swallows it)."""


# ---------------------------------------------------------------- one spec, all its checks

def play_digest(game, games: int, seed: int, cap: int) -> str:
    """The digest of seeded play (as benchmarks/play_digest.py): each
    decision by a seeded pick among the legal actions, chance by the
    model's seeded stream; every decision, the ending, winners and scores
    (a game with no legal action and no ending stops, recorded as such).
    One digest per game, joined by commas."""
    return ",".join(game_digest(game, s, cap) for s in range(seed, seed + games))


def game_digest(game, s: int, cap: int) -> str:
    """The digest of the seeded game of seed ``s``."""
    h = hashlib.sha256()
    pick = random.Random(s)
    state = game.new_initial_state(seed=s)
    for _ in range(cap):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        if not legal:   # a deadlock: the game stops here
            h.update(b"deadlock|")
            break
        a = legal[pick.randrange(len(legal))]
        h.update(f"{state.current_player()}:{a}|".encode())
        state.apply_action(a)
    h.update(json.dumps([state.ending(), list(state.winners()), state.scores()]
                        if state.is_terminal() else ["cut", state.scores()]).encode())
    return h.hexdigest()[:12]


def plays_otherwise(game, seed: int, cap: int, original: str) -> bool:
    """Whether some seeded game plays otherwise than the original's (the
    games of ``original``, a :func:`play_digest`), stopping at the first."""
    return any(game_digest(game, seed + i, cap) != d for i, d in enumerate(original.split(",")))


def check_property(prog, game, pr, st: Settings, spec_path: str) -> Optional[dict]:
    """One property's verdict, as `atoll verify` gives it; None when its
    `when` rules it out for this configuration."""
    from atoll.verify.runner import applies, check_one
    if not applies(None, game, pr):
        return None
    expected = pr.expect or V.DEFAULT_EXPECTATION[pr.kind]
    t0 = time.perf_counter()
    try:
        method, verdict, detail, _ = check_one(prog, game, pr, st.games, st.seed, spec_path, st.timeout_ms)
        reason = (detail or {}).get("reason", "")
    except (MutantTimeout, KeyboardInterrupt):
        raise
    except Exception as e:   # a checker's bug: no verdict (as `atoll verify` says)
        verdict, reason = V.UNKNOWN, f"internal error in the checker ({type(e).__name__}: {e})"
    return {"property": pr.name, "kind": pr.kind, "verdict": verdict, "expected": expected,
            "ok": V.EXPECTATIONS[expected](verdict), "seconds": time.perf_counter() - t0,
            "reason": str(reason)[:300]}


def quick_property(prog, game, pr, st: Settings, spec_path: str) -> tuple[Optional[dict], bool]:
    """One property's verdict for a mutant, and whether its z3 proof was
    left for later. An invariant that must hold is decided by search and
    play first: their VIOLATED is the verdict whatever z3 says, and when
    they find it holding, a proof by induction could only turn the verdict
    into PROVED, which holds too: the mutant is not killed either way, so
    the proof is deferred (``True``). A `terminates ... per turn` is decided
    by search and play alone (z3's argument per turn is only a detail of
    the report), so the detail is not computed. Any other property, or a
    play verdict that does not hold (say UNKNOWN), gets the full check."""
    from atoll.verify.play import check_by_play
    from atoll.verify.runner import applies
    expected = pr.expect or V.DEFAULT_EXPECTATION[pr.kind]
    quick = (pr.kind == "invariant" and expected == "holds") or \
        (pr.kind == "terminates" and pr.step != "action")
    if not quick:
        return check_property(prog, game, pr, st, spec_path), False
    if not applies(None, game, pr):
        return None, False
    t0 = time.perf_counter()
    try:
        verdict, detail, _ = check_by_play(game, pr, st.games, st.seed, spec_path)
        reason = (detail or {}).get("reason", "")
    except (MutantTimeout, KeyboardInterrupt):
        raise
    except Exception as e:
        verdict, reason = V.UNKNOWN, f"internal error in the checker ({type(e).__name__}: {e})"
    ok = V.EXPECTATIONS[expected](verdict)
    if pr.kind == "invariant" and verdict != V.VIOLATED and not ok:
        return check_property(prog, game, pr, st, spec_path), False   # a proof may still decide
    return ({"property": pr.name, "kind": pr.kind, "verdict": verdict, "expected": expected, "ok": ok,
             "seconds": time.perf_counter() - t0, "reason": str(reason)[:300]},
            pr.kind == "invariant" and ok)


def run_examples(comp) -> list[dict]:
    """The spec's `example` declarations, where the toolchain has them (a
    hook: ``atoll.verify.examples.run_examples``), as verdicts."""
    try:
        from atoll.verify.examples import run_examples as run
    except ImportError:
        return []
    if not getattr(comp.program, "examples", None):
        return []
    return [{"property": r.property, "kind": "example", "verdict": r.verdict, "expected": r.expected,
             "ok": r.ok, "seconds": r.seconds, "reason": ""} for r in run(comp)]


# ---------------------------------------------------------------- the original

@dataclass
class Baseline:
    configs: list                 # [(players, options)]
    verdicts: dict                # config key -> {property: verdict record}
    examples: dict                # example name -> record
    hashes: dict                  # config key -> folded source hash
    digests: dict                 # config key -> play digest
    seconds: float
    order: list                   # property names, cheapest first
    cached: bool = False
    extra: list = field(default_factory=list)   # the other configurations of the matrix

    @property
    def broken(self) -> list[str]:
        """Properties (and examples) the original itself does not satisfy."""
        bad = {r["property"] for v in self.verdicts.values() for r in v.values() if not r["ok"]}
        return sorted(bad | {r["property"] for r in self.examples.values() if not r["ok"]})


def baseline(spec: str, comp, configs, st: Settings, cache_dir=None, extra=()) -> Baseline:
    """The original: its verdicts in the configurations checked; its
    lowered code and play digest in those and in the ``extra`` ones (its
    verdicts there are computed when a mutant first needs them)."""
    from atoll.verify.runner import _run_config
    t0 = time.perf_counter()
    prog = comp.program
    verdicts, hashes, digests, cost, cached = {}, {}, {}, {}, False
    for n, opts in list(configs) + list(extra):
        game = pipeline.instantiate(comp, n, opts)
        key = _config_key(n, opts)
        hashes[key] = folded_hash(game)
        digests[key] = play_digest(game, st.games, st.seed, st.cap)
    for n, opts in configs:
        key = _config_key(n, opts)
        if cache_dir is not None:
            from atoll.verify.cache import Budget, ResultCache
            rc = ResultCache(cache_dir, Budget(st.games, st.seed, st.timeout_ms))
            results = rc.results(spec, n, opts)
            cached = cached or rc.hits > 0
            verdicts[key] = {r.property: {"property": r.property, "kind": r.kind, "verdict": r.verdict,
                                          "expected": r.expected, "ok": r.ok, "seconds": r.seconds,
                                          "reason": str((r.detail or {}).get("reason", ""))[:300]}
                             for r in results if r.property in prog.properties}
        else:   # as `atoll verify` checks them (the games shared: verify.playbook)
            from atoll.verify.runner import applies
            game = pipeline.instantiate(comp, n, opts)
            names = [p for p, pr in prog.properties.items() if applies(None, game, pr)]
            verdicts[key] = {r.property: {"property": r.property, "kind": r.kind, "verdict": r.verdict,
                                          "expected": r.expected, "ok": r.ok, "seconds": r.seconds,
                                          "reason": str((r.detail or {}).get("reason", ""))[:300]}
                             for r in _run_config(spec, st.games, st.seed, st.timeout_ms, (), n, opts,
                                                  names, comp=comp)}
        for name, r in verdicts[key].items():
            cost[name] = cost.get(name, 0.0) + r["seconds"]
    examples = {r["property"]: r for r in run_examples(comp)}
    order = sorted(prog.properties, key=lambda p: cost.get(p, 0.0))
    return Baseline(list(configs), verdicts, examples, hashes, digests, time.perf_counter() - t0,
                    order, cached, [list(c) for c in extra])


# ---------------------------------------------------------------- one mutant (in a worker)

def _compile_text(files: tuple, root: str, text: str):
    """Compile the spec whose file ``root`` reads ``text``, with the other
    files of its bundle beside it (in a folder of its own, then deleted)."""
    with tempfile.TemporaryDirectory(prefix="atoll-mutant-") as d:
        for rel, body in files:
            f = Path(d, rel)
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(text if rel == root else body, encoding="utf-8")
        return pipeline.compile_spec(Path(d, root), allow=[d])


class _Limit:
    """A time limit by SIGALRM, where signals can be used (the main thread);
    elsewhere (Dask's worker threads) the checks' own budgets bound a mutant."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.armed = False

    def __enter__(self):
        if self.seconds > 0 and threading.current_thread() is threading.main_thread():
            def ring(signum, frame):
                raise MutantTimeout()
            self.previous = signal.signal(signal.SIGALRM, ring)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def evaluate(task: dict) -> dict:
    """Check one mutant: a picklable task in, a picklable record out (run
    here, in a process of a pool, or on a Dask worker)."""
    t0 = time.perf_counter()
    out = {"id": task["id"], "status": "error", "by": None, "reason": "", "checked": 0}
    try:
        with _Limit(task["limit"]):
            evaluate_mutant(task, out)
    except MutantTimeout:
        out.update(status="timed out", reason=f"the checks ran past {task['limit']:.0f} s")
    except Exception as e:   # a bug of atoll: said, and the run goes on
        out.update(status="error", reason=f"{type(e).__name__}: {e}"[:300])
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


# ---------------------------------------------------------------- many mutants

def skipped_properties(prog, m: Mutant) -> list[str]:
    """Properties whose verdict a mutant cannot change: theorems, witnesses
    and well_defined read only constants, functions and options, so a mutant
    of anything else, or of one they do not read, leaves them as they are."""
    out = []
    for pr in prog.properties.values():
        if pr.kind not in PURE:
            continue
        if m.decl[0] == "rules":
            if m.decl[1] not in ("teams", "require"):
                out.append(pr.name)
        elif m.decl[1] not in reads(prog, (pr.binders, pr.body, pr.when, pr.objective)):
            out.append(pr.name)
    return out


def choose(mutants: list[Mutant], max_mutants: Optional[int], seed: int,
           ids: Optional[list[int]] = None) -> list[Mutant]:
    """The mutants to run: those named, or a seeded sample of at most max_mutants."""
    if ids:
        wanted = set(ids)
        return [m for m in mutants if m.id in wanted]
    if max_mutants is not None and max_mutants < len(mutants):
        keep = set(random.Random(seed).sample(range(len(mutants)), max_mutants))
        return [m for m in mutants if m.id in keep]
    return mutants


@dataclass
class Plan:
    """What a run needs: the spec, its mutants, the original's verdicts."""
    spec: str
    comp: object
    text: str
    mutants: list
    chosen: list
    configs: list
    base: Baseline
    settings: Settings
    bundle: object
    cache_dir: Optional[Path] = None
    generated: int = 0
    kills: dict = field(default_factory=dict)   # property -> mutants it killed (orders the checks)
    segments: Optional[MC.Segments] = None      # the checks' declarations (the cache of kills)
    toolchain: str = ""                          # the toolchain's digest when the run began

    @property
    def extra(self) -> list:
        return self.base.extra if self.settings.extra > 0 else []

    def keyed_configs(self) -> list:
        """What of the configurations a record depends on (in its cache keys)."""
        return [self.configs, self.extra, self.settings.extra]

    def task(self, m: Mutant) -> dict:
        b = self.base
        props = self.comp.program.properties
        # `terminates` first: a mutant that never ends makes every game of the
        # other checks run to its cap, and the measure shows it at once
        order = sorted(b.order, key=lambda p: (props[p].kind != "terminates", -self.kills.get(p, 0),
                                               b.order.index(p)))
        return {"id": m.id, "spec": self.spec, "files": self.bundle.files, "root": self.bundle.root,
                "text": m.apply(self.text), "configs": self.configs,
                "settings": self.settings.__dict__, "hashes": b.hashes, "digests": b.digests,
                "verdicts": b.verdicts, "broken": b.broken, "order": order,
                "example_order": sorted(b.examples, key=lambda e: -self.kills.get(e, 0)),
                "extra": self.extra, "cache": str(self.cache_dir) if self.cache_dir else None,
                "toolchain": self.toolchain,
                "skip": skipped_properties(self.comp.program, m), "limit": self.settings.limit}


def plan(spec: str, players=None, options=None, matrix=False, st: Settings = Settings(),
         max_mutants=None, ids=None, cache_dir=None) -> Plan:
    """Compile the spec, list its mutants, check the original."""
    from atoll.simulation import spec_bundle
    from atoll.verify.runner import configurations
    from atoll.verify.cache import toolchain_digest
    spec = str(Path(spec))   # as the compiler names the file in its spans
    comp = pipeline.compile_spec(spec)
    prog = comp.program
    configs = configurations(comp, players, options or {}, matrix)
    extra = [] if matrix or st.extra <= 0 else other_configurations(comp, players, options or {}, configs)
    text = prog.sources[spec]
    mutants = generate(prog, text, spec)
    chosen = choose(mutants, max_mutants, st.seed, ids)
    base = baseline(spec, comp, configs, st, cache_dir, extra)
    if st.limit <= 0:   # from what the original's checks cost (when they took it, if cached)
        cost = max(base.seconds, sum(r["seconds"] for v in base.verdicts.values() for r in v.values())
                   + sum(r["seconds"] for r in base.examples.values()))
        # the configurations checked, and up to `extra` others for a mutant not killed there
        st = dataclasses.replace(st, limit=max(60.0, 3 * cost) * (1 + min(st.extra, len(extra))))
    return Plan(spec, comp, text, mutants, chosen, configs, base, st, spec_bundle(spec),
                Path(cache_dir) if cache_dir else None, len(mutants),
                segments=MC.Segments(prog, text, spec), toolchain=toolchain_digest())


def other_configurations(comp, players, options: dict, configs: list) -> list:
    """The configurations of the matrix (player counts times the values of
    the `modes`) besides those checked, with the options and the player
    count given kept as given: where a rule dead in the configurations
    checked (a mode's rule, a count's) runs."""
    from atoll.verify.runner import configurations

    def resolved(n, opts):
        return _config_key(n, pipeline.instantiate(comp, n, opts).options)
    seen = {resolved(n, o) for n, o in configs}
    out = []
    for n, opts in configurations(comp, players, {}, True):
        if any(opts.get(k, v) != v for k, v in options.items()):
            continue
        opts = {**opts, **options}
        try:
            key = resolved(n, opts)
        except SpecError:
            continue
        if key not in seen:
            seen.add(key)
            out.append((n, opts))
    return out


def execute(p: Plan, jobs: int = 1, submit_pool=None, on_result: Optional[Callable] = None) -> list[dict]:
    """Run every chosen mutant (cached ones read back), ``jobs`` at a time:
    here for one job, else in a process pool (or the pool given, e.g.
    Dask's). ``on_result(record, done, total)`` after each one."""
    records, todo = {}, []
    for m in p.chosen:
        rec = _cached(p, m)
        if rec is not None:
            records[m.id] = rec
            _note(p, rec)
            if on_result:
                on_result(rec, len(records), len(p.chosen))
        else:
            todo.append(m)
    if not todo:
        return [records[m.id] for m in p.chosen]
    if jobs <= 1 and submit_pool is None:
        for m in todo:
            rec = evaluate(p.task(m))
            _finish(p, m, rec, records, on_result)
        return [records[m.id] for m in p.chosen]
    pool = submit_pool
    owned = None
    if pool is None:
        from concurrent.futures import ProcessPoolExecutor
        owned = pool = ProcessPoolExecutor(max_workers=jobs)
    try:
        _run_pool(p, pool, todo, max(1, jobs), records, on_result)
    finally:
        if owned is not None:
            owned.shutdown(cancel_futures=True)
    return [records[m.id] for m in p.chosen]


def _run_pool(p: Plan, pool, todo: list, jobs: int, records: dict, on_result) -> None:
    """Keep about two tasks per job in flight, so that the checks of later
    mutants are ordered by what killed the earlier ones."""
    from concurrent.futures import FIRST_COMPLETED, wait
    pending, queue = {}, list(todo)
    while queue or pending:
        while queue and len(pending) < 2 * jobs:
            m = queue.pop(0)
            pending[pool.submit(evaluate, p.task(m))] = m
        done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
        for fut in done:
            m = pending.pop(fut)
            _finish(p, m, fut.result(), records, on_result)


def _finish(p: Plan, m: Mutant, rec: dict, records: dict, on_result) -> None:
    records[m.id] = rec
    _note(p, rec)
    _store(p, m, rec)
    if on_result:
        on_result(rec, len(records), len(p.chosen))


def _note(p: Plan, rec: dict) -> None:
    by = rec.get("by") or {}
    if rec["status"] == "killed" and "property" in by:
        p.kills[by["property"]] = p.kills.get(by["property"], 0) + 1


def _cache_path(p: Plan, m: Mutant) -> Optional[Path]:
    if p.cache_dir is None:
        return None
    return p.cache_dir / "mutants" / f"{MC.mutant_key(p.bundle, m.apply(p.text), p.keyed_configs(), p.settings, p.toolchain)}.json"


def _rules_path(p: Plan, m: Mutant) -> Optional[Path]:
    if p.cache_dir is None:
        return None
    rules = p.segments.rules_text(m.edits)
    if rules is None:
        return None
    return p.cache_dir / "kills" / f"{MC.rules_key(p.bundle, rules, p.keyed_configs(), p.settings, p.toolchain)}.json"


def _cached(p: Plan, m: Mutant) -> Optional[dict]:
    path = _cache_path(p, m)
    if path is None:
        return None
    rec = MC.read(path)
    if rec is not None and rec.get("status") in STATUSES:
        return {**rec, "id": m.id, "cached": True}
    # A kill on the same rules by a check still there, word for word, and
    # still satisfied by the original; or the same lowered code.
    kept = MC.read(_rules_path(p, m)) if _rules_path(p, m) is not None else None
    if kept is None or not isinstance(kept.get("record"), dict):
        return None
    rec, killer = kept["record"], kept.get("killer")
    if rec.get("status") == "equivalent" and killer is None:
        return {**rec, "id": m.id, "cached": True}
    if rec.get("status") != "killed" or killer is None or killer in p.base.broken:
        return None
    text = p.segments.check_text(p.comp.program, killer)
    if text is None or MC.hashlib.sha256(text.encode()).hexdigest() != kept.get("check"):
        return None
    return {**rec, "id": m.id, "cached": True}


def _store(p: Plan, m: Mutant, rec: dict) -> None:
    path = _cache_path(p, m)
    if path is None or rec["status"] in ("timed out", "error"):   # those may go otherwise next time
        return
    MC.write(path, rec)
    rules = _rules_path(p, m)
    if rules is None:
        return
    killer = (rec.get("by") or {}).get("property") if rec["status"] == "killed" else None
    if rec["status"] == "equivalent":
        MC.write(rules, {"record": rec, "killer": None})
    elif killer is not None:
        text = p.segments.check_text(p.comp.program, killer)
        if text is not None:
            MC.write(rules, {"record": rec, "killer": killer,
                             "check": MC.hashlib.sha256(text.encode()).hexdigest()})


# ---------------------------------------------------------------- the report

NOT_KILLED = ("survived", "unobserved", "timed out", "error")


def score(counts: dict) -> Optional[float]:
    """Killed over every mutant not shown equivalent nor refused by the
    compiler: an unobserved, timed out or failed mutant counts as not killed."""
    n = counts["killed"] + sum(counts[s] for s in NOT_KILLED)
    return None if n == 0 else counts["killed"] / n


def observed_score(counts: dict) -> Optional[float]:
    """Killed over killed and survived: the mutants whose change was seen."""
    n = counts["killed"] + counts["survived"]
    return None if n == 0 else counts["killed"] / n


def report(p: Plan, records: list[dict], seconds: float) -> dict:
    """The whole result as plain data (the JSON of ``atoll mutate --json``)."""
    by_id = {m.id: m for m in p.chosen}
    mutants, rules = [], {}
    for rec in records:
        m = by_id[rec["id"]]
        entry = {"id": m.id, "rule": m.rule, "cites": list(m.cites), "kind": m.kind, "what": m.what,
                 "line": m.line, "diff": m.diff(p.text), "status": rec["status"], "by": rec.get("by"),
                 "reason": rec.get("reason", ""), "seconds": rec.get("seconds", 0.0),
                 "checked": rec.get("checked", 0), "cached": bool(rec.get("cached")),
                 "changed": rec.get("changed", []), "proofs_not_rerun": rec.get("proofs not rerun", []),
                 "configurations_checked": rec.get("configurations checked", []),
                 "exercised_in": rec.get("exercised in", [])}
        mutants.append(entry)
        r = rules.setdefault(m.rule, {"rule": m.rule, "cites": list(m.cites), "line": m.line,
                                      "mutants": 0, **{s: 0 for s in STATUSES}})
        r["mutants"] += 1
        r[rec["status"]] += 1
        r["line"] = min(r["line"], m.line)
    for r in rules.values():
        r["score"] = score(r)
    totals = {s: sum(r[s] for r in rules.values()) for s in STATUSES}
    totals["mutants"] = len(records)
    return {"spec": p.spec, "generated": p.generated, "run": len(records),
            "configurations": [{"players": n, "options": o} for n, o in p.configs],
            "other_configurations": [{"players": n, "options": o} for n, o in p.extra],
            "other_configurations_per_mutant": p.settings.extra if p.extra else 0,
            "budget": {"games": p.settings.games, "seed": p.settings.seed,
                       "timeout_ms": p.settings.timeout_ms, "mutant_limit_s": round(p.settings.limit, 1)},
            "baseline": {"seconds": round(p.base.seconds, 2), "cached": p.base.cached,
                         "broken": p.base.broken,
                         "verdicts": [r for v in p.base.verdicts.values() for r in v.values()],
                         "examples": list(p.base.examples.values())},
            "totals": totals, "score": score(totals), "observed_score": observed_score(totals),
            "rules": sorted(rules.values(), key=lambda r: r["line"]), "mutants": mutants,
            "seconds": round(seconds, 2)}
