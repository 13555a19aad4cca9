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
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from atoll.compiler import pipeline
from atoll.verify import verdicts as V
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
