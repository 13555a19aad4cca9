"""The worker side of the fuzz run (``fuzz_specs.py``): what is done with
one case, in a process of its own, and the pool that runs cases with a
wall-clock and a memory limit per case."""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Iterable, Optional

import fuzz_gen as G

import atoll
from atoll.compiler import pipeline

FAILURES = ("CODE_EXEC", "INTERNAL", "HANG", "MEMORY", "MISCOMPILE", "LEAK", "ESCAPE", "BAD_LOAD")
ORDER = FAILURES + ("MODEL", "SPEC", "OK")
SECRET_OK = {"cards": [7, 7, 7], "title": "t", "k": 1}
SECRET_GAME = ('game secret { title: "TOPSECRET-5f1e" players: 2..2 }\n'
               "flow { round { turns in seats: p } }\n"
               "phase p { action go() { end phase } }\n")


class Outcome:
    """What one case did: its class (the worst of its findings) and the findings."""

    def __init__(self):
        self.findings: list[dict] = []
        self.plain = "OK"            # OK, SPEC or MODEL when nothing is wrong
        self.stages: list[str] = []
        self.notes: list[str] = []

    def add(self, cls: str, stage: str, detail: str, exc: Optional[BaseException] = None) -> None:
        f = {"class": cls, "stage": stage, "detail": detail[:2000]}
        if exc is not None:
            f["type"] = type(exc).__name__
            # a SyntaxError's text holds the file name: its message alone
            f["message"] = (exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc))[:500]
            f["traceback"] = "".join(traceback.format_exception(exc, limit=-8))[-4000:]
            f["where"] = _where(exc)
        self.findings.append(f)

    def set_plain(self, cls: str) -> None:
        if ORDER.index(cls) < ORDER.index(self.plain):
            self.plain = cls

    def to_json(self) -> dict:
        worst = min([f["class"] for f in self.findings] + [self.plain], key=ORDER.index)
        return {"class": worst, "findings": self.findings, "stages": self.stages, "notes": self.notes}


def _where(exc: BaseException) -> str:
    """The innermost frame of atoll's own code in the traceback."""
    tb = exc.__traceback__
    where = "?"
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if any(part in f for part in ("/compiler/", "/verify/", "/grammar/", "/atoll/")):
            where = f"{Path(f).name}:{tb.tb_frame.f_code.co_name}"
        elif f.startswith("<atoll"):
            where = f"<generated>:{tb.tb_frame.f_code.co_name}"
        tb = tb.tb_next
    return where


def materialize(case: G.Case, case_dir: Path, workdir: Path) -> Path:
    """Write the case's files under ``case_dir`` (never outside it)."""
    if case_dir.exists() or case_dir.is_symlink():
        shutil.rmtree(case_dir)
    case_dir.mkdir()
    root = case_dir.resolve()
    for rel, content in sorted(case.files.items(), key=lambda kv: isinstance(kv[1], tuple)):
        path = case_dir / rel
        if root not in path.parent.resolve().parents and path.parent.resolve() != root:
            raise ValueError(f"a case file outside the case folder: {rel!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple):
            if content[0] == "fifo":
                os.mkfifo(path)
            elif content[0] == "symlink":
                os.symlink(content[1].replace("@WORKDIR@", str(workdir)), path)
            elif content[0] == "dir":
                path.mkdir(exist_ok=True)
        else:
            data = content.replace("@WORKDIR@", str(workdir)) if isinstance(content, str) else content
            path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return case_dir / case.main


def _check_spec_error(out: Outcome, e: atoll.SpecError, stage: str) -> None:
    """A SpecError must carry registered diagnostics and render; it must not
    quote a file from outside the folder or hide a crash."""
    from atoll import diagnostics
    try:
        text = str(e)
        if not e.diagnostics:
            out.add("INTERNAL", stage, "a SpecError without diagnostics")
        for d in e.diagnostics:
            if d.code not in diagnostics.CODES:
                out.add("INTERNAL", stage, f"diagnostic code {d.code} is not registered")
            if d.span is None:
                out.notes.append(f"{d.code} without a position: {d.message[:80]}")
            json.dumps(d.to_json())
    except Exception as exc:   # noqa: BLE001
        out.add("INTERNAL", stage + " (rendering the diagnostics)", "", exc)
        return
    if G.SECRET in text:
        out.add("LEAK", stage, "a diagnostic quotes a file outside the spec's folder")
    if "MemoryError" in text:   # the memory limit stopped it: without one it would go on
        out.add("MEMORY", stage, "a diagnostic reports a MemoryError: " + text[:300])
    if "RecursionError" in text:
        out.notes.append("a diagnostic reports a RecursionError")
    out.set_plain("SPEC")


def _play(out: Outcome, game, seed: int, steps: int, chance: str) -> Optional[object]:
    """A random game of at most ``steps`` actions; states along it for the
    damaged saves (a third of the way, the first chance node), or None when
    a listed action was refused."""
    rng = random.Random(seed)
    st = game.new_initial_state(seed, chance=chance)
    keep = {}
    for step in range(steps):
        if step % 15 == 0:
            _round_trip(out, game, st)
        if step == steps // 3:
            keep["third"] = st.clone()
        if "chance" not in keep and st.is_chance_node():
            keep["chance"] = st.clone()
        if st.is_terminal():
            break
        legal = st.legal_actions()
        if not legal:
            break
        st.returns()
        st.scores()
        p = st.current_player()
        st.observation(p if p >= 0 else 0)
        if step % 10 == 0:
            str(st)
            [str(a) for a in legal]
        a = rng.choice(legal)
        try:
            st.apply_action(a)
        except atoll.IllegalAction as e:
            out.add("INTERNAL", "play", f"a listed legal action {a} is refused", e)
            return None
    _round_trip(out, game, st)
    st.winners()
    st.returns()
    return list(keep.values()) or [st]


def _round_trip(out: Outcome, game, st) -> None:
    text = st.to_json()
    back = game.state_from_json(text)
    if back.to_json() != text:
        out.add("INTERNAL", "json", "state_from_json(to_json()) is a different state")
    elif not st.is_terminal() and [a.id for a in back.legal_actions()] != [a.id for a in st.legal_actions()]:
        out.add("INTERNAL", "json", "a loaded state lists other legal actions")


_JUNK = [None, -1, 0, 1, 99, 1.5, 0.0, "x", "", [], {}, [0], [0, 0], True, 10 ** 30, [[0]], {"a": 1}, -3,
         ["nowhere", [99, -3]], {"action": "x", "outcomes": [], "bag": [], "type": "int"}]


def _damage(rng, d: dict) -> tuple[dict, str]:
    """A save with one field changed (the checksum made to fit, or dropped)."""
    d = json.loads(json.dumps(d))
    paths = []

    def walk(x, path):
        paths.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                if k != "checksum":
                    walk(v, path + (k,))
        elif isinstance(x, list):
            for i, v in enumerate(x[:6]):
                walk(v, path + (i,))
    walk(d, ())
    roots = sorted({q[0] for q in paths[1:]}, key=str)   # each part of the save as often
    root = rng.choice(roots) if roots else None
    path = rng.choice([q for q in paths[1:] if q[0] == root] or [()])
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    how = rng.choice(["junk", "junk", "delete", "dup", "neg"])
    if how == "delete" and path:
        parent.pop(path[-1])
    elif how == "dup" and isinstance(parent, list) and path:
        parent.insert(path[-1], parent[path[-1]])
    elif how == "neg" and path and isinstance(parent[path[-1]], int) and not isinstance(parent[path[-1]], bool):
        parent[path[-1]] = -parent[path[-1]] - 1
    elif path:
        how = "junk"
        parent[path[-1]] = rng.choice(_JUNK)
    d.pop("checksum", None)
    if rng.random() < 0.7:
        d["checksum"] = hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]
    return d, f"{how} at {'/'.join(map(str, path))}", path


def _saved(out: Outcome, game, st, seed) -> None:
    """Damaged saves: refused with CorruptState, or loaded and playable. One
    whose seed, chance mode and history are intact holds the state those
    give: a loader that accepts another one accepts an impossible state."""
    rng = random.Random(seed)
    base = json.loads(st.to_json())
    same = {k: v for k, v in base.items() if k != "checksum"}
    for _ in range(2):
        d, how, path = _damage(rng, base)
        try:
            s2 = game.state_from_json(json.dumps(d))
        except atoll.CorruptState as e:
            str(e)
            continue
        try:
            if path and path[0] not in ("history", "rng", "chance", "checksum") \
                    and {k: v for k, v in json.loads(s2.to_json()).items() if k != "checksum"} != same:
                out.add("BAD_LOAD", "saved", f"{how}: a damaged save loads as a state its history "
                                             f"does not lead to")
            s2.observation(0)
            str(s2)
            s2.returns()
            s2.scores()
            legal = s2.legal_actions()
            if legal:
                s2.apply_action(legal[0])
                s2.to_json()
        except atoll.ModelError:
            pass
        except Exception as e:   # noqa: BLE001 - CorruptState too: it was loaded
            out.add("INTERNAL", "saved", f"a damaged save loads, then fails ({how})", e)
            return


def _oracle(out: Outcome, game, oracle: dict) -> None:
    st = game.new_initial_state(0)
    legal = st.legal_actions()
    names = sorted(a.kind for a in legal)
    if names != oracle["legal"]:
        out.add("MISCOMPILE", "oracle", f"legal at the start: {names}, expected {oracle['legal']}")
        return
    slot = game.layout.slots[("state", "last")]
    for a in legal:
        s2 = st.clone()
        s2.apply_action(a)
        if s2.S[slot] != oracle["last"][a.kind]:
            out.add("MISCOMPILE", "oracle", f"action {a.kind} ran the effect of number {s2.S[slot]}, "
                                            f"expected {oracle['last'][a.kind]}")
            return


def _cli(out: Outcome, path: Path, which: str, timeout: float, report) -> None:
    args = {"check": ["check", str(path.resolve())],
            "simulate": ["simulate", str(path.resolve()), "-n", "2", "--max-steps", "60", "--check"],
            "check-json": ["check", "--json", str(path.resolve())]}[which]
    proc = subprocess.Popen([sys.executable, "-m", "atoll.cli"] + args, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    report(("child", proc.pid))
    try:
        so, se = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        out.add("HANG", f"cli {which}", f"`atoll {' '.join(args[:1])}` ran past {timeout} s")
        return
    finally:
        report(("child", None))
    so, se = so.decode("utf-8", "replace"), se.decode("utf-8", "replace")
    if proc.returncode == 3 or "Traceback (most recent call last)" in so + se \
            or proc.returncode not in (0, 1, 2):
        tail = (se or so)[-1500:]
        m = re.search(r"internal error \((\w+): (.*?)\)\. This is a bug", se, re.S)
        out.add("INTERNAL", f"cli {which}", f"exit {proc.returncode}: {tail}")
        if m:
            msg = m.group(2).split(" (")[0] if m.group(1) == "SyntaxError" else m.group(2)
            out.findings[-1]["type"], out.findings[-1]["message"] = m.group(1), msg[:500]
    if G.SECRET in so + se:
        out.add("LEAK", f"cli {which}", "the command prints a file outside the spec's folder")


CURRENT = ["?"]     # the stage of the case being run, for a MemoryError


def run_case(case: G.Case, opts: dict, report=lambda msg: None) -> dict:
    """Everything the fuzzer does with one case, in this process."""
    out = Outcome()
    workdir = Path.cwd()

    def stage(name):
        out.stages.append(name)
        CURRENT[0] = name
        report(("stage", name))
    stage("write")
    path = materialize(case, workdir / "case", workdir)
    games = []
    try:
        stage("compile")
        try:
            # a shipped variant extends `../game.atoll`: its case folder is trusted as
            # `atoll check spec` trusts `spec/` (the hostile cases get no such trust)
            comp = atoll.compile_spec(path, allow=[workdir / "case"] if case.generator == "variant" else ())
        except atoll.SpecError as e:
            _check_spec_error(out, e, "compile")
            comp = None
        if comp is not None:
            if "escape" in case.tags:
                out.add("ESCAPE", "compile", "the spec compiled, reading a file outside its folder")
            stage("instantiate")
            lo, hi = comp.program.player_range
            for n in range(lo, min(hi, lo + opts.get("counts", 3) - 1) + 1):
                try:
                    games.append(pipeline.instantiate(comp, n))
                except atoll.SpecError as e:
                    _check_spec_error(out, e, "instantiate")
            if case.oracle and games:
                stage("oracle")
                _oracle(out, games[0], case.oracle)
            stage("play")
            ix = case.data.get("index", 0)     # each case plays and damages other games
            for k, game in enumerate(games[:2]):
                for j, chance in enumerate(("auto", "explicit")):
                    try:
                        kept = _play(out, game, 10 * ix + 2 * k + j, opts.get("steps", 60), chance)
                    except atoll.ModelError:
                        out.set_plain("MODEL")
                        continue
                    if kept is not None and k == 0 and opts.get("saved", True):
                        stage("saved")
                        for m, st in enumerate(kept):
                            _saved(out, game, st, f"{ix}:{j}:{m}")
                        stage("play")
            if opts.get("verify") and comp.program.properties:
                stage("verify")
                from atoll.verify.runner import run
                try:
                    run(str(path), players=lo, games=3, timeout_ms=1000)
                except atoll.SpecError as e:
                    _check_spec_error(out, e, "verify")
    except MemoryError:
        raise
    except RecursionError as e:
        out.add("INTERNAL", out.stages[-1], "", e)
    except Exception as e:   # noqa: BLE001 - the point of the fuzzer
        out.add("INTERNAL", out.stages[-1], "", e)
    if opts.get("cli"):
        stage("cli")
        _cli(out, path, opts["cli"], opts.get("cli_timeout", 20), report)
    return out.to_json()


def _worker(conn, workdir: str, memory: int) -> None:
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    os.chdir(workdir)
    (Path(workdir) / "secret_ok.json").write_text(json.dumps(SECRET_OK))
    (Path(workdir) / "secret_leak.json").write_text(json.dumps({"cards": [G.SECRET], "title": [G.SECRET],
                                                                "k": {G.SECRET: [G.SECRET]}}))
    (Path(workdir) / "secret.atoll").write_text(SECRET_GAME)
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        case, opts = msg
        died = False
        try:
            res = run_case(case, opts, conn.send)
        except MemoryError:
            res = {"class": "MEMORY", "findings": [{"class": "MEMORY", "stage": CURRENT[0],
                                                    "detail": "MemoryError"}], "stages": [], "notes": []}
            died = True
        if os.path.exists("SENTINEL"):
            os.remove("SENTINEL")
            res["class"] = "CODE_EXEC"
            res["findings"].append({"class": "CODE_EXEC", "stage": res["stages"][-1] if res["stages"] else "?",
                                    "detail": "the file SENTINEL was created: a text of the spec ran as Python"})
        conn.send(("done", res))
        if died:
            return


# ================================================================ the pool

class _Slot:
    def __init__(self, ctx, root: Path, k: int, memory: int):
        self.ctx, self.root, self.k, self.memory = ctx, root, k, memory
        self.workdir = root / f"w{k}"
        self.workdir.mkdir(exist_ok=True)
        self.proc = None
        self.start()

    def start(self):
        parent, child = self.ctx.Pipe()
        self.conn = parent
        self.proc = self.ctx.Process(target=_worker, args=(child, str(self.workdir), self.memory), daemon=True)
        self.proc.start()
        child.close()
        self.task = None
        self.stage = None
        self.child = None

    def kill(self):
        if self.child:
            try:
                os.killpg(self.child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc.is_alive():
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.join()
        self.conn.close()

    def stop(self):
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(2)
        if self.proc.is_alive():
            self.kill()


def run_cases(tasks: Iterable[tuple], jobs: int = 2, timeout: float = 10.0, memory_mb: int = 2048,
              stage_timeouts: Optional[dict] = None, on_result=None) -> list[dict]:
    """Run (key, case, opts) tasks in a pool of ``jobs`` workers; return one
    record per task: key, class, findings, seconds."""
    stage_timeouts = {"cli": 25.0, "verify": 30.0, **(stage_timeouts or {})}
    ctx = multiprocessing.get_context("fork")
    root = Path(tempfile.mkdtemp(prefix="atoll-fuzz-"))
    slots = [_Slot(ctx, root, k, memory_mb * 2 ** 20) for k in range(jobs)]
    todo = iter(tasks)
    results = []
    pending = True
    try:
        while True:
            for s in slots:
                if s.task is None and pending:
                    nxt = next(todo, None)
                    if nxt is None:
                        pending = False
                        break
                    s.task, s.t0 = nxt, time.monotonic()
                    s.deadline, s.stage = s.t0 + timeout, "send"
                    s.conn.send((nxt[1], nxt[2]))
            busy = [s for s in slots if s.task is not None]
            if not busy:
                break
            wait = max(0.0, min(s.deadline for s in busy) - time.monotonic())
            ready = multiprocessing.connection.wait([s.conn for s in busy], timeout=wait)
            for s in busy:
                res, task, t0 = None, s.task, s.t0
                if s.conn in ready:
                    try:
                        msg = s.conn.recv()
                    except (EOFError, OSError):
                        s.proc.join()
                        code = s.proc.exitcode
                        res = {"class": "INTERNAL", "findings": [{
                            "class": "INTERNAL", "stage": s.stage, "type": "WorkerDied",
                            "message": f"the worker process died (exit code {code})", "detail": ""}],
                            "stages": [], "notes": []}
                        s.kill()
                        s.start()
                    else:
                        if msg[0] == "stage":
                            s.stage = msg[1]
                            if msg[1] in stage_timeouts:
                                s.deadline = time.monotonic() + stage_timeouts[msg[1]]
                        elif msg[0] == "child":
                            s.child = msg[1]
                        else:
                            res = msg[1]
                            if not s.proc.is_alive() or res["class"] == "MEMORY":
                                s.proc.join(5)
                                s.kill()
                                s.start()
                elif time.monotonic() >= s.deadline:
                    stage = s.stage
                    s.kill()
                    limit = stage_timeouts.get(stage, timeout)
                    res = {"class": "HANG", "findings": [{"class": "HANG", "stage": stage,
                                                          "detail": f"stage {stage} ran past {limit} s"}],
                           "stages": [], "notes": []}
                    sentinel = s.workdir / "SENTINEL"
                    if sentinel.exists():
                        sentinel.unlink()
                        res["class"] = "CODE_EXEC"
                        res["findings"].append({"class": "CODE_EXEC", "stage": stage, "detail": "SENTINEL"})
                    s.start()
                if res is not None:
                    res["key"] = task[0]
                    res["seconds"] = round(time.monotonic() - t0, 3)
                    results.append(res)
                    s.task = None
                    if on_result:
                        on_result(res)
    finally:
        for s in slots:
            s.stop()
        shutil.rmtree(root, ignore_errors=True)
    return results
