"""Verification results kept on disk, for tools that ask again and again
(the docs build runs every property of every game at each build).

A result set is stored under a key made of the contents of every file the
spec reads (the spec, the game it extends, its data files), the
configuration (player count and the complete options), the budget (games,
seed, z3 timeout) and the toolchain's own source, so a changed rule, data
file, option or verifier never reuses an old verdict.

Several processes may share one folder (two docs builds, the test suite's
workers): a result missing from it is computed under a lock on its key, and
a process that waited for the lock reads what the other one stored instead
of computing it again.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from atoll.compiler import pipeline
from atoll.verify import verdicts as V
from atoll.verify import runner
from atoll.verify.runner import configurations, run


try:
    import fcntl
except ImportError:   # not POSIX: no lock; two processes may then compute the same result
    fcntl = None


def _on_a_fresh_stack(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a thread of its own, the caller waiting.
    CPython 3.11 keeps a thread's Python frames in 16 KiB chunks, each
    mapped when a call needs it and unmapped when that call returns: a loop
    whose calls go back and forth over the end of a chunk maps and unmaps
    one at every call (with its page faults: the kernel's time). Called
    from deep in a docs build (Sphinx, docutils, a directive...), the
    verifier's inner loops sat on such an end: 40,000 maps and unmaps for
    one `no_leak` check that makes 300 alone, and most of a full docs
    build's 160 s of system time. A fresh thread starts with an empty
    stack, so the verifier runs at the depth it has when run alone,
    whoever calls it. Exceptions are raised in the caller."""
    import threading
    out: dict = {}

    def body():
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:   # raised again in the caller's thread
            out["error"] = e
    t = threading.Thread(target=body, name="atoll-verify")
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


@contextmanager
def _locked(path: Path):
    """An exclusive lock on ``path`` (a lock file beside the results) while
    the block runs; it is released when the block ends, however it ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@lru_cache(maxsize=1)
def toolchain_digest() -> str:
    """A digest of the source of the packages a verdict depends on (the
    grammar, the compiler and the verifier; not the docs or the CLI)."""
    import atoll.compiler
    import atoll.grammar
    import atoll.verify
    h = hashlib.sha256()
    for pkg in (atoll.grammar, atoll.compiler, atoll.verify):
        for f in sorted(Path(pkg.__file__).parent.glob("*.py")) + \
                sorted(Path(pkg.__file__).parent.glob("*.lark")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def spec_digest(comp) -> str:
    """A digest of every file a compiled spec was read from."""
    prog = comp.program
    files = sorted(set(prog.sources) | {str(Path(d.span.file).parent / d.path)
                                        for d in prog.data.values()})
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).name.encode())
        try:
            h.update(Path(f).read_bytes())
        except OSError:
            h.update(b"<unreadable>")
    return h.hexdigest()


@dataclass(frozen=True)
class Budget:
    games: int = 100
    seed: int = 0
    timeout_ms: int = 20_000


def _result_to_data(r: V.Result) -> dict:
    return {"property": r.property, "kind": r.kind, "method": r.method, "players": r.players,
            "options": r.options, "verdict": r.verdict, "expected": r.expected,
            "seconds": r.seconds, "detail": r.detail, "counterexample": r.counterexample,
            "cites": list(r.cites), "axes": list(r.axes), "description": r.description}


def _result_from_data(d: dict) -> V.Result:
    return V.Result(d["property"], d["kind"], d["method"], d["players"], d["options"], d["verdict"],
                    d["expected"], d["seconds"], d["detail"], d["counterexample"],
                    tuple(d["cites"]), tuple(d["axes"]), None, d.get("description", ""))


class ResultCache:
    """Verification results of one (spec, configuration, budget), computed
    once and then read from ``folder`` (one JSON file per key)."""

    def __init__(self, folder, budget: Budget = Budget(), jobs: Optional[int] = None):
        self.folder = Path(folder)
        self.budget = budget
        self.jobs = jobs   # processes per matrix computed, default one per core
        self.hits = 0
        self.misses = 0

    def key(self, comp, players: int, options: dict) -> str:
        game = pipeline.instantiate(comp, players, options)
        data = {"spec": spec_digest(comp), "toolchain": toolchain_digest(), "players": players,
                "options": game.options, "budget": [self.budget.games, self.budget.seed,
                                                     self.budget.timeout_ms]}
        return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()

    def results(self, spec_path, players: Optional[int] = None,
                options: Optional[dict] = None, via_matrix: bool = False) -> list[V.Result]:
        """The results of every property for one configuration (the fewest
        players and the default options unless given). With ``via_matrix``,
        a configuration of the matrix not yet computed is computed with the
        whole matrix (each check once, in parallel: see :meth:`matrix`)."""
        comp = pipeline.compile_spec(spec_path)
        lo, _ = comp.program.player_range
        players = lo if players is None else players
        options = dict(options or {})
        key = self.key(comp, players, options)
        found = self._read(self.folder / f"{key}.json")
        if found is not None:
            self.hits += 1
            return found
        if via_matrix:
            for n, opts, rs in self.matrix(spec_path):
                if n == players and self.key(comp, n, opts) == key:
                    return rs
        with _locked(self.folder / f"{key}.lock"):
            found = self._read(self.folder / f"{key}.json")   # stored while this process waited
            if found is not None:
                self.hits += 1
                return found
            self.misses += 1
            out = _on_a_fresh_stack(run, str(spec_path), players, options, games=self.budget.games,
                                    seed=self.budget.seed, timeout_ms=self.budget.timeout_ms)
            self._store(self.folder / f"{key}.json",
                        {"spec": str(spec_path), "results": [_result_to_data(r) for r in out]})
        return out

    def _read(self, path: Path) -> Optional[list[V.Result]]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return [_result_from_data(d) for d in data["results"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def matrix(self, spec_path, on_config=None, jobs: Optional[int] = None) \
            -> list[tuple[int, dict, list[V.Result]]]:
        """Every configuration of `verify --matrix`, each with its results.
        ``on_config(k, total, players, options, seconds)`` after each one.
        When any is missing, the whole matrix is computed as `verify
        --matrix` does (each check once, shared between the configurations
        that cannot tell it apart; ``jobs`` processes, default one per core)
        and every configuration is stored."""
        comp = pipeline.compile_spec(spec_path)
        configs = configurations(comp, None, {}, True)
        paths = [self.folder / f"{self.key(comp, n, opts)}.json" for n, opts in configs]
        found = [self._read(p) for p in paths]
        if any(f is None for f in found):
            with _locked(paths[0].with_suffix(".matrix.lock")):
                found = [self._read(p) for p in paths]   # stored while this process waited
                if any(f is None for f in found):
                    return self._compute_matrix(spec_path, configs, paths, found, on_config, jobs)
        self.hits += len(found)
        out = []
        for k, ((n, opts), rs) in enumerate(zip(configs, found), 1):
            out.append((n, opts, rs))
            if on_config:
                on_config(k, len(configs), n, opts, 0.0)
        return out

    def _compute_matrix(self, spec_path, configs, paths, found, on_config, jobs):
        t0 = time.perf_counter()
        self.misses += sum(f is None for f in found)
        grouped: list = []
        _on_a_fresh_stack(run, str(spec_path), None, {}, True, games=self.budget.games,
                          seed=self.budget.seed, timeout_ms=self.budget.timeout_ms,
                          jobs=jobs or self.jobs or os.cpu_count() or 1, by_config=grouped)
        seconds = (time.perf_counter() - t0) / max(1, len(configs))
        out = []
        for k, ((n, opts, rs), path) in enumerate(zip(grouped, paths), 1):
            self._store(path, {"spec": str(spec_path), "results": [_result_to_data(r) for r in rs]})
            out.append((n, opts, rs))
            if on_config:
                on_config(k, len(configs), n, opts, seconds)
        return out

    def _store(self, path: Path, data: dict) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, default=str)
        os.replace(tmp, path)   # atomic: a reader never sees half a file

    # ------------------------------------------------------------ many specs, one pool

    def fill(self, spec_paths, jobs: Optional[int] = None, log=None) -> dict:
        """Every configuration of the matrices of ``spec_paths`` that is not
        stored yet, computed in ONE pool of ``jobs`` processes (default one
        per core) and stored as :meth:`matrix` stores it, so that readers
        asking later only read. Each configuration of each spec is a task of
        its own (its checks that no other configuration shares, as `verify
        --matrix` plans them), and each spec's examples one more; the longest
        are handed out first (:func:`order`), so that no long task starts
        last while the other processes idle. Nothing is started when
        everything is stored. A spec that does not compile, and a spec one
        of whose tasks fails, is left out (nothing of it stored): whoever
        asks for it computes it as before and reports the error as before.
        ``log(text)`` tells what is done. Returns {spec: "stored" |
        "cached" | "failed" | "skipped"}."""
        say = log or (lambda text: None)
        status: dict = {}
        wanted = []
        for spec in spec_paths:
            if self._complete(spec):   # no compiling: a rebuild stays about a second
                status[str(spec)] = "cached"
                continue
            try:
                comp = pipeline.compile_spec(spec)
                configs = configurations(comp, None, {}, True)
                paths = [self.folder / f"{self.key(comp, n, opts)}.json" for n, opts in configs]
            except Exception:   # a spec with errors: its pages report them
                status[str(spec)] = "skipped"
                continue
            if all(p.is_file() for p in paths):
                status[str(spec)] = "cached"
                self._note_complete(spec, comp, paths)
            else:
                wanted.append((spec, comp, configs, paths))
        wanted = [w for w in wanted if w[3]]   # (a spec whose every configuration a `require` rules out)
        if not wanted:
            return status
        with ExitStack() as locks:
            for _, _, _, paths in sorted(wanted, key=lambda w: str(w[3][0])):
                locks.enter_context(_locked(paths[0].with_suffix(".matrix.lock")))
            todo = []
            for spec, comp, configs, paths in wanted:
                if all(self._read(p) is not None for p in paths):   # stored while this process waited
                    status[str(spec)] = "cached"
                else:
                    todo.append(_Spec(spec, comp, configs, paths))
            if todo:
                status.update(self._fill(todo, jobs or self.jobs or os.cpu_count() or 1, say))
        return status

    def _fill(self, specs: list, jobs: int, say) -> dict:
        timings = self._timings()
        tasks = []
        for sp in specs:
            prog = sp.comp.program
            sp.plan, sp.axes = runner.plan_checks(sp.comp, list(prog.properties.values()), sp.configs, {})
            runner._FORKED[str(sp.path)] = sp.comp   # the workers fork with it: no compiling again
            for n, opts, names in runner.plan_tasks(sp.plan):
                tasks.append(Task(sp, n, opts, tuple(names)))
            if prog.examples:
                tasks.append(Task(sp, None, None, ()))
            self.misses += sum(self._read(p) is None for p in sp.paths)
        tasks = order(tasks, timings, self.budget)
        say(f"verifying {len(tasks)} tasks of {len(specs)} specs in {jobs} processes, "
            f"the longest first (results are cached: only new or changed specs take time)")
        status, left = {}, {id(sp): sum(1 for t in tasks if t.spec is sp) for sp in specs}
        computed: dict = {id(sp): {} for sp in specs}
        ran: dict = {}
        failed: set = set()
        done = [0]
        args = (self.budget.games, self.budget.seed, self.budget.timeout_ms)

        def finished(t: Task, ok: bool, payload) -> None:
            sp = t.spec
            done[0] += 1
            if not ok:
                if id(sp) not in failed:
                    failed.add(id(sp))
                    status[str(sp.path)] = "failed"
                    say(f"{sp.path.name}: {payload} (its pages compute it again and report it)")
                return
            results, wall, cpu = payload
            timings[t.timing_key()] = cpu
            say(f"[{done[0]}/{len(tasks)}] {sp.path.name}: {t.label()} ({wall:.1f} s)")
            if t.players is None:
                ran[id(sp)] = results
            else:
                for r in results:
                    computed[id(sp)][runner.computed_key(r)] = r
            left[id(sp)] -= 1
            if left[id(sp)] == 0 and id(sp) not in failed:
                self._store_matrix(sp, computed[id(sp)], ran.get(id(sp), []))
                status[str(sp.path)] = "stored"
        try:
            with runner._frozen_for_fork():
                each_in_a_fork([(t, (str(t.spec.path), *args, t.spec.axes, t.players, t.options,
                                     t.names)) for t in tasks], jobs, finished,
                               skip=lambda t: id(t.spec) in failed)
        finally:   # (stopped by Ctrl-C too: the specs done are stored, and the times known kept)
            self._store_timings(timings)
        return status

    def _store_matrix(self, sp, computed: dict, examples: list) -> None:
        """As :meth:`_compute_matrix` stores what ``run(..., by_config=...)`` returns."""
        for (n, opts, rs), path in zip(runner.assemble(sp.comp.program, sp.plan, computed, sp.axes),
                                       sp.paths):
            rs = rs + list(examples)
            self._store(path, {"spec": str(sp.path), "results": [_result_to_data(r) for r in rs]})
        self._note_complete(sp.path, sp.comp, sp.paths)

    # A spec's matrix known to be complete, without compiling it: the files
    # it read (with their digest), the toolchain, the budget, and the
    # entries of its configurations. Sound: the entries' keys are a function
    # of exactly these (the configurations and each one's complete options
    # come from the spec's files; see :meth:`key`), so while the digest is
    # the same, so are the keys, and the entries are there or not.

    def _manifest(self, spec) -> Path:
        name = hashlib.sha256(str(Path(spec).resolve()).encode()).hexdigest()[:32]
        return self.folder / "complete" / f"{name}.json"

    def _stamp(self, files: list) -> str:
        h = hashlib.sha256()
        for f in files:
            h.update(Path(f).name.encode())
            try:
                h.update(Path(f).read_bytes())
            except OSError:
                h.update(b"<unreadable>")
        h.update(json.dumps([toolchain_digest(), self.budget.games, self.budget.seed,
                             self.budget.timeout_ms]).encode())
        return h.hexdigest()

    def _complete(self, spec) -> bool:
        try:
            data = json.loads(self._manifest(spec).read_text(encoding="utf-8"))
            return data["spec"] == str(Path(spec).resolve()) and \
                data["stamp"] == self._stamp(data["files"]) and \
                all((self.folder / f"{k}.json").is_file() for k in data["entries"])
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def _note_complete(self, spec, comp, paths: list) -> None:
        prog = comp.program
        files = sorted(set(prog.sources) | {str(Path(d.span.file).parent / d.path)
                                            for d in prog.data.values()})
        self._store(self._manifest(spec), {"spec": str(Path(spec).resolve()), "files": files,
                                           "stamp": self._stamp(files),
                                           "entries": [Path(p).stem for p in paths]})

    def _timings(self) -> dict:
        try:
            data = json.loads((self.folder / TIMINGS).read_text(encoding="utf-8"))
            return {str(k): float(v) for k, v in data.items()}
        except (OSError, ValueError, AttributeError, TypeError):
            return {}

    def _store_timings(self, timings: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(timings, f, indent=0, sort_keys=True)
        os.replace(tmp, self.folder / TIMINGS)


TIMINGS = "timings.json"   # CPU seconds of each task the last time it ran: the order of the next


@dataclass(eq=False)
class _Spec:
    path: Path
    comp: object
    configs: list
    paths: list
    plan: list = None
    axes: tuple = ()


@dataclass(eq=False)
class Task:
    """One configuration's own checks (``players`` None: the spec's examples)."""
    spec: _Spec
    players: Optional[int]
    options: Optional[dict]
    names: tuple

    def timing_key(self) -> str:
        where = "examples" if self.players is None else \
            f"{self.players} " + json.dumps(self.options, sort_keys=True, default=str)
        return f"{Path(self.spec.path).resolve()} {where}"

    def label(self) -> str:
        if self.players is None:
            return "examples"
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.players} players" + (f", {opts}" if opts else "")


def guess(tasks: list, seed: int) -> dict:
    """The length of tasks that never ran here, a static guess (in no unit:
    only compared with other guesses): the first random game each
    configuration's play will play (the seed's, on the lean path, up to
    ``runner.PROBE_ACTIONS`` actions, as `verify --matrix` orders its
    configurations), its actions times its spec's CPU time per action over
    all such games of the spec (one game's own time is too noisy: the first
    one pays for warming up). Most of a configuration's time is its games:
    a game that runs to the cap, or a slow game, makes a long configuration.
    A spec's examples: 0 (they are few and short)."""
    from atoll.compiler import playout
    steps: dict = {}
    per_spec: dict = {}
    for t in tasks:
        if t.players is None:
            continue
        c0 = time.process_time()
        try:
            game = pipeline.instantiate(t.spec.comp, t.players, t.options)
            n = playout.play_random(game, seed, max_steps=runner.PROBE_ACTIONS)[1]
        except Exception:   # a game that fails to start or to play: its checks say so
            n = 0
        steps[id(t)] = n
        spent = per_spec.setdefault(id(t.spec), [0, 0.0])
        spent[0] += n
        spent[1] += time.process_time() - c0
    out = {}
    for t in tasks:
        if t.players is None:
            out[id(t)] = 0.0
            continue
        n, seconds = per_spec[id(t.spec)]
        out[id(t)] = steps[id(t)] * (seconds / n if n else 0.0)
    return out


def order(tasks: list, timings: dict, budget: Budget) -> list:
    """The tasks longest first: those timed at their last run (``timings``,
    CPU seconds) by that time, before those never timed (by :func:`guess`),
    the list's own order between equals. Only the order changes: each task
    computes what it would compute in any order."""
    untimed = [t for t in tasks if t.timing_key() not in timings]
    guessed = guess(untimed, budget.seed) if untimed else {}

    def key(k_t):
        k, t = k_t
        known = timings.get(t.timing_key())
        return (0, -known, k) if known is not None else (1, -guessed[id(t)], k)
    return [t for _, t in sorted(enumerate(tasks), key=key)]


def _run_task(spec_path, games, seed, timeout_ms, axes, players, options, names):
    """In a pool's process: one task's results, its wall and its CPU seconds
    (on a fresh stack, as the docs' verification always runs: see
    :func:`_on_a_fresh_stack`; the process has no other thread running)."""
    def body():
        if players is None:
            from atoll.verify.examples import run_examples
            comp = runner._FORKED.get(spec_path) or pipeline.compile_spec(spec_path)
            return run_examples(comp, None)
        return runner._run_config(spec_path, games, seed, timeout_ms, axes, players, options, list(names))
    t0, c0 = time.perf_counter(), time.process_time()
    out = _on_a_fresh_stack(body)
    return out, time.perf_counter() - t0, time.process_time() - c0


def each_in_a_fork(tasks: list, jobs: int, finished, skip=lambda t: False) -> None:
    """Run ``_run_task(*args)`` for each (task, args) of ``tasks``, in that
    order, ``jobs`` at a time, each in a process of its own forked from this
    one; ``finished(task, ok, result or error text)`` here as each ends. A
    process per task, not a pool of long-lived workers: what a task computes
    then depends on the task alone, never on which tasks ran before it in
    the same process (z3's models do: the same query gives another
    counterexample after other queries), so the results are the same
    whatever the order, the number of processes or the other specs. A task
    for which ``skip(task)`` holds when its turn comes is not started.
    Ctrl-C (or any error here) terminates the running processes."""
    import multiprocessing
    from multiprocessing.connection import wait
    ctx = multiprocessing.get_context("fork")
    pending = list(tasks)
    running: dict = {}
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                task, args = pending.pop(0)
                if skip(task):
                    continue
                r, w = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_in_a_fork, args=(w, args), daemon=True)
                proc.start()
                w.close()
                running[r] = (proc, task)
            if not running:
                continue
            for r in wait(list(running)):
                proc, task = running.pop(r)
                try:
                    ok, payload = r.recv()
                except (EOFError, OSError):
                    ok, payload = False, None
                r.close()
                proc.join()
                if not ok and payload is None:
                    payload = f"the process checking it ended without a result (exit code {proc.exitcode})"
                finished(task, ok, payload)
    except BaseException:
        for proc, _ in running.values():
            if proc.is_alive():
                proc.terminate()
        for proc, _ in running.values():
            proc.join(5)
        raise


def _in_a_fork(conn, args) -> None:
    """(in a forked process) One task, its result sent back through ``conn``."""
    _leave_interrupts_to_the_parent()
    try:
        out = (True, _run_task(*args))
    except BaseException as e:   # sent back as text: the parent reports it
        out = (False, f"{type(e).__name__}: {e}")
    try:
        conn.send(out)
    except Exception as e:   # a result that does not pickle
        conn.send((False, f"{type(e).__name__}: {e}"))
    conn.close()


def _leave_interrupts_to_the_parent() -> None:
    """(in a forked process) Ctrl-C reaches the whole process group: the
    forked processes ignore it, and the parent, which gets it too,
    terminates them (:func:`each_in_a_fork`) instead of each printing a
    traceback."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
