"""Mutation testing of the toolchain with mutmut 3 (see "Mutation testing" in
benchmarks/README.md and docs/testing.md).

    python benchmarks/mutation.py                    # every module below, in order
    python benchmarks/mutation.py runtime check      # some of them
    python benchmarks/mutation.py runtime --sample 4 # one mutant in 4, chosen at random (seeded)
    python benchmarks/mutation.py runtime --again    # only the last run's survivors (after new tests)
    python benchmarks/mutation.py lower --again --only stmt__mutmut_197  # some of them
    python benchmarks/mutation.py runtime --report   # the table of the last run, no new run
    python benchmarks/mutation.py runtime --survivors  # the diff of each surviving mutant
    python benchmarks/mutation.py lower --crashes    # why each crashed mutant crashed (rerun)
    python benchmarks/mutation.py lower --explain NAME  # one mutant's tests, their errors shown

Each module is mutated in its own workspace, build/mutation/<name>/, against
its own list of fast tests (TESTS below): mutmut runs, for each mutant, only
those tests of the list that reach the mutated function.

Why a workspace: the package's folders are mapped (compiler/ is
atoll.compiler, verify/ is atoll.verify, grammar/ is atoll.grammar), while
mutmut names a mutant by the path of its file. The workspace lays the
sources out as the installed package is (atoll/compiler/runtime.py), so
mutmut's names match the modules the tests import, and the mutated copy in
build/mutation/<name>/mutants/ comes first on sys.path (before the editable
install's finder).

Each mutant runs in a fresh process forked from a server that has imported
the libraries only (``forkserver``, warm-up ``import`` of PRELOAD): no
compiled game, verdict or other cached result of one mutant's run (or of the
clean run) is seen by another. One worker, under ``nice``, so that the run
shares the machine politely; a run is resumable (mutmut keeps the results in
the workspace; ``--fresh`` starts again).

Crashes are not timeouts. mutmut files exit status 255 under "timeout", but
255 is what its worker returns when running the tests raised: with pytest,
a usage error (exit 4), which is what a test id that can no longer be
collected gives. The lowering's tests compile specs while they are
collected (tests/test_play.py's configurations, the digests' specs), so a
mutant that breaks compiling makes collection fail and every one of its test
ids "not found": the mutant is detected, at once, not after a time limit.
Such a mutant is counted here as "crashed" (detected), apart from the real
timeouts (SIGXCPU from mutmut's time limit). The clean run collected the
same ids, so the crash is the mutant's; ``--crashes`` shows it for each one
(the mutant's tests run again with it active, and the first error kept,
in crashes.json): a crash that does not happen again is counted as a
survivor.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "mutation"

# What the lowering must keep: the pinned digests of seeded play of every
# shipped and good spec (any change in what a game does changes one), every
# kind of ending, and the tests of the forms the lowering writes. The 50 s
# random-play test is left out (the digests see what it sees, faster).
LOWERING_TESTS = [
    "tests/mutation/test_lowering_mut.py",
    "tests/test_contracts.py::test_seeded_play_digest_is_pinned",
    "tests/test_contracts.py::test_every_kind_of_ending_is_played",
    "tests/test_contracts.py::test_a_team_ranking_keeps_the_contract",
    "tests/test_play.py", "tests/test_simultaneous.py", "tests/test_dice.py",
    "tests/test_rounds.py", "tests/test_let_tuples.py", "tests/test_lowering_frame.py",
    "tests/test_codegen_safety.py", "tests/test_with_and_empty.py", "tests/test_maybe.py",
    "-k", "not test_random_play_keeps_the_contract",
]

# module name -> (file in the installed package's layout, the fast tests that
# exercise it). The order is the order of a full run.
TESTS = {
    "runtime": ("atoll/compiler/runtime.py", [
        "tests/mutation/test_runtime_mut.py", "tests/test_flow_fast.py", "tests/test_generated_flow.py",
        "tests/test_contracts.py", "tests/test_play.py", "tests/test_saves.py",
        "tests/test_save_rules.py", "tests/test_position.py", "tests/test_simultaneous.py",
        "tests/test_rounds.py", "tests/test_with_and_empty.py", "tests/test_intbound.py",
        # the slowest: a 40 s random-play test, and those that play Kanaloa
        # (each mutant reached by them would spend seconds on each)
        "-k", "not test_random_play_keeps_the_contract and not kanaloa and not guarded"
              " and not test_explicit_chance_nodes and not test_damaged_saves",
    ]),
    # compiler/runtime.py was split (no behaviour change): the flow engine,
    # the transaction and the text of a state are its own modules now, run
    # with runtime's tests
    "flow_engine": ("atoll/compiler/flow_engine.py", None),
    "transaction": ("atoll/compiler/transaction.py", None),
    "game_text": ("atoll/compiler/game_text.py", None),
    "check": ("atoll/compiler/check.py", [
        "tests/mutation/test_check_mut.py",
        "tests/test_diagnostics.py", "tests/test_let_tuples.py", "tests/test_with_and_empty.py",
        "tests/test_intbound.py", "tests/test_mangling.py", "tests/test_stdlib.py",
        # reads check.py's own text for its messages: a mutated copy has more
        "-k", "not test_every_type_rule_has_a_bad_case",
    ]),
    "lower_actions": ("atoll/compiler/lower_actions.py", LOWERING_TESTS),
    "z3sem": ("atoll/verify/z3sem.py", [
        "tests/mutation/test_z3sem_mut.py", "tests/mutation/test_z3sem_units.py",
        "tests/test_z3_agreement.py", "tests/test_z3_trust.py",
        # the random agreement test and the symbolic collections take 17 s
        # together, the play of every proved bound 4 s
        "-k", "not meanings_agree and not symbolic_collections and not every_proved_bound",
    ]),
    "termination": ("atoll/verify/termination.py", [
        "tests/mutation/test_termination_mut.py",
        "tests/test_z3_trust.py", "tests/test_almost_sure.py",
        "-k", "not every_proved_bound",
    ]),
    "simulation": ("atoll/simulation.py", [
        "tests/mutation/test_simulation_mut.py",
    ]),
    "lower": ("atoll/compiler/lower.py", LOWERING_TESTS),
}

for _split in ("flow_engine", "transaction", "game_text"):
    TESTS[_split] = (TESTS[_split][0], TESTS["runtime"][1])

# Imported by the fork server before it forks a worker: the libraries, the
# toolchain's modules and its parser (tests/mutation/warmup.py), never a
# compiled spec or a result.
PRELOAD = ["z3", "lark", "hypothesis", "pytest", "_pytest.python", "tests.mutation.warmup"]

# The package as installed: (folder in the repository, folder in the package).
LAYOUT = [("atoll", "atoll"), ("compiler", "atoll/compiler"),
          ("verify", "atoll/verify"), ("grammar", "atoll/grammar")]
# What the tests read beside the package (tests/ itself is copied by mutmut).
DATA = ["spec", "examples", "docs"]

# mutmut's worker exits -1 (255) when running the tests raised; its pytest
# runner raises on pytest's exit 4 (a test id not found), i.e. a collection
# that the mutant broke (see the docstring). mutmut calls it a timeout.
CRASHED = 255


def status(code) -> str:
    from mutmut.stats import status_by_exit_code
    if code == CRASHED:
        return "crashed"
    return status_by_exit_code[code]


def _ignore(_dir, names):
    return [n for n in names if n in ("__pycache__", ".hypothesis", ".pytest_cache", "_build")]


TIMEOUT_MULTIPLIER = 4.0   # --timeout-multiplier
# Modules that run while a spec compiles, and the time the tests' collection
# spends compiling specs (measured: about 10 s on this machine, when quiet).
COMPILING = {"lower", "lower_actions", "check"}
COMPILE_SECONDS = 20.0


def prepare(name: str, fresh: bool) -> Path:
    """Lay out the workspace of one module (kept between runs unless fresh)."""
    target, tests = TESTS[name]
    ws = WORK / name
    if fresh and ws.exists():
        shutil.rmtree(ws)
    ws.mkdir(parents=True, exist_ok=True)
    # The sources are refreshed at each run; mutmut notices a changed file.
    for src, dst in LAYOUT:
        shutil.copytree(ROOT / src, ws / dst, dirs_exist_ok=True, ignore=_ignore)
    for d in ["tests"] + DATA:
        if (ws / d).exists():
            shutil.rmtree(ws / d)
        shutil.copytree(ROOT / d, ws / d, ignore=_ignore)
    (ws / "preload.txt").write_text("\n".join(PRELOAD) + "\n")
    toml = [
        "[tool.mutmut]",
        'source_paths = ["atoll"]',
        f"only_mutate = [{json.dumps(target)}]",
        f"also_copy = {json.dumps(DATA)}",
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        'pytest_add_cli_args = ["-p", "no:cacheprovider"]',
        'process_isolation = "forkserver"',
        'forkserver_warmup = "import"',
        'preload_modules_file = "preload.txt"',
        "use_git_change_detection = false",
        # a mutant that loops is stopped after this many times its tests' time
        # (mutmut's default, 30 times, costs minutes per looping mutant; on a
        # busy machine a low one makes slow runs look like loops)
        f"timeout_multiplier = {TIMEOUT_MULTIPLIER}",
        # seconds added to a test's measured time before multiplying: the
        # lowering's tests compile specs while they are collected, which
        # mutmut does not count in a test's time (so every mutant timed out)
        f"timeout_constant = {COMPILE_SECONDS if name in COMPILING else 1.0}",
        "",
        "[tool.pytest.ini_options]",
        'testpaths = ["tests"]',
        'addopts = "-q"',
        "",
    ]
    (ws / "pyproject.toml").write_text("\n".join(toml))
    # A stale copy of the tests or data would hide a change to them, and
    # mutmut's record of which test reaches which function would miss what a
    # changed test now reaches: both are made again (the results are kept).
    for d in ["tests"] + DATA:
        if (ws / "mutants" / d).exists():
            shutil.rmtree(ws / "mutants" / d)
    (ws / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    # mutmut copies again only the .py files that changed: the grammar and
    # the other data files of the package are refreshed here
    if (ws / "mutants" / "atoll").is_dir():
        for f in (ws / "atoll").rglob("*"):
            if f.is_file() and f.suffix != ".py" and "__pycache__" not in f.parts:
                dst = ws / "mutants" / f.relative_to(ws)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, dst)
    return ws


GENERATE = """
from pathlib import Path
from mutmut.__main__ import copy_src_dir, copy_also_copy_files, setup_source_paths, create_mutants
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
Path("mutants").mkdir(exist_ok=True)
copy_src_dir(); copy_also_copy_files(); setup_source_paths(); create_mutants(1)
"""


# Modules that compiling a spec does not use: the fork server may compile the
# repository's specs once (tests/mutation/warmup.py) without hiding a mutant.
WARM = {"runtime", "flow_engine", "transaction", "game_text", "simulation", "z3sem", "termination"}


def mutmut(ws: Path, *args: str) -> int:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
               ATOLL_MUTATION_WARM="1" if ws.name in WARM else "0")
    cmd = ["nice", "-n", "10", sys.executable, "-m", "mutmut", *args]
    return subprocess.call(cmd, cwd=ws, env=env)


def results(ws: Path, name: str) -> dict:
    """mutant name -> status, read from mutmut's own record of the run."""
    meta = ws / "mutants" / (TESTS[name][0] + ".meta")
    if not meta.exists():
        return {}
    data = json.loads(meta.read_text())
    res = {k: status(v) for k, v in data.get("exit_code_by_key", {}).items()}
    # a crash that did not happen again when rerun (--crashes) is not counted
    # as a detection
    for k, why in _crashes(ws).items():
        if res.get(k) == "crashed" and why.get("exit") == 0:
            res[k] = "survived"
    return res


def _crashes(ws: Path) -> dict:
    f = ws / "crashes.json"
    return json.loads(f.read_text()) if f.exists() else {}


def explain(ws: Path, mutant: str, quiet: bool = False) -> dict:
    """Run one mutant's tests again, with it active, outside mutmut; return
    pytest's exit status and its first error (printed unless quiet)."""
    stats = json.loads((ws / "mutants" / "mutmut-stats.json").read_text())
    func = mutant.rsplit("__mutmut_", 1)[0]
    tests = sorted(stats["tests_by_mangled_function_name"].get(func, []))
    env = dict(os.environ, MUTANT_UNDER_TEST=mutant, PYTHONDONTWRITEBYTECODE="1",
               ATOLL_MUTATION_WARM="0")
    cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", "--rootdir=.", "--tb=short", "-x",
           "-q", "-p", "no:randomly", "-p", "no:cacheprovider", *tests]
    r = subprocess.run(cmd, cwd=ws / "mutants", env=env, capture_output=True, text=True)
    out = [ln for ln in (r.stdout + r.stderr).splitlines() if "found no collectors" not in ln]
    errors = [ln.strip() for ln in out if ln.startswith("E ") and "stopping after" not in ln]
    where = [ln.strip("_ ") for ln in out if ln.startswith("____") and "test session" not in ln]
    why = {"exit": r.returncode, "error": errors[0] if errors else "",
           "where": where[0] if where else ""}
    if not quiet:
        print("\n".join(out[-60:]))
        print(f"pytest exit {r.returncode} for {mutant}")
    return why


def sample(res: dict, n: int, seed: int) -> list:
    """One mutant in n of a module, drawn with the seed (the same draw each time)."""
    every = sorted(res)
    return sorted(random.Random(seed).sample(every, max(1, len(every) // n)))


def table(name: str, res: dict, seconds: float | None, sampled: int | None) -> str:
    counts: dict = {}
    for s in res.values():
        counts[s] = counts.get(s, 0) + 1
    checked = {k: v for k, v in res.items() if v != "not checked"}
    killed = sum(1 for v in checked.values() if v in ("killed", "crashed", "timeout", "segfault"))
    score = 100.0 * killed / len(checked) if checked else 0.0
    parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    took = f", {seconds:.0f} s" if seconds is not None else ""
    samp = f" (sample of {sampled})" if sampled else ""
    return f"{name}: {len(res)} mutants{samp}: {parts}; raw score {score:.1f}%{took}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help=f"some of: {', '.join(TESTS)} (default: all)")
    ap.add_argument("--sample", type=int, default=0, help="run one mutant in N, chosen at random")
    ap.add_argument("--seed", type=int, default=0, help="the seed of the sample")
    ap.add_argument("--fresh", action="store_true", help="forget the previous results")
    ap.add_argument("--again", action="store_true",
                    help="run again only the mutants that survived or timed out in the last run "
                         "(after new tests, or with a larger --timeout-multiplier)")
    ap.add_argument("--only", nargs="+", metavar="MUTANT",
                    help="with --again: only these of them (a name's end will do, e.g. stmt__mutmut_197), "
                         "say the survivors that new tests were written against")
    ap.add_argument("--timeout-multiplier", type=float, default=4.0,
                    help="a mutant whose tests take this many times the clean run's time counts as a "
                         "timeout (default 4; raise it on a busy machine, and rerun the timeouts with --again)")
    ap.add_argument("--report", action="store_true", help="only print the last results")
    ap.add_argument("--survivors", action="store_true", help="print each surviving mutant's diff")
    ap.add_argument("--crashes", action="store_true",
                    help="run each crashed mutant's tests again and keep why it crashed (crashes.json)")
    ap.add_argument("--explain", metavar="MUTANT", help="run one mutant's tests and show their errors")
    a = ap.parse_args(argv)
    global TIMEOUT_MULTIPLIER
    TIMEOUT_MULTIPLIER = a.timeout_multiplier
    names = a.modules or list(TESTS)
    for n in names:
        if n not in TESTS:
            ap.error(f"unknown module {n!r}; known: {', '.join(TESTS)}")
    for name in names:
        ws = WORK / name
        if a.explain:
            explain(ws, a.explain)
            continue
        if a.crashes:
            known = _crashes(ws)
            res = results(ws, name)
            if (ws / "sample.txt").exists():
                keep = set((ws / "sample.txt").read_text().split())
                res = {k: v for k, v in res.items() if k in keep}
            for k in sorted(k for k, v in res.items() if v == "crashed"):
                if k not in known:
                    known[k] = explain(ws, k, quiet=True)
                    (ws / "crashes.json").write_text(json.dumps(known, indent=1, ensure_ascii=False))
                print(f"{k.rsplit('.', 1)[-1]}: exit {known[k]['exit']}: {known[k]['where']}: "
                      f"{known[k]['error']}")
            continue
        if a.report or a.survivors:
            res = results(ws, name)
            if a.sample > 1:   # the table of that sample only
                keep = set(sample(res, a.sample, a.seed))
                res = {k: v for k, v in res.items() if k in keep}
            print(table(name, res, None, len(res) if a.sample > 1 else None))
            if a.survivors:
                for k, v in sorted(res.items()):
                    if v == "survived":
                        subprocess.call([sys.executable, "-m", "mutmut", "show", k], cwd=ws)
            continue
        ws = prepare(name, a.fresh)
        if not a.again:
            # a new run may run a crashed mutant again: its rerun is stale
            (ws / "crashes.json").unlink(missing_ok=True)
        t0 = time.monotonic()
        if a.again:
            # a timeout may be a slow machine rather than a loop: run it again too
            pick = sorted(k for k, v in results(ws, name).items() if v in ("survived", "no tests", "timeout"))
            if (ws / "sample.txt").exists():   # the last run was a sample: stay in it
                keep = set((ws / "sample.txt").read_text().split())
                pick = [k for k in pick if k in keep]
            if a.only:
                pick = [k for k in pick if any(k.endswith(o) for o in a.only)]
            rc = mutmut(ws, "run", "--max-children", "1", *pick) if pick else 0
            res = results(ws, name)
            if (ws / "sample.txt").exists():
                keep = set((ws / "sample.txt").read_text().split())
                res = {k: v for k, v in res.items() if k in keep}
        elif a.sample > 1:
            # mutmut names its mutants when it generates them: generate them
            # first (as `mutmut run` does), then run the sample by name.
            subprocess.check_call([sys.executable, "-c", GENERATE], cwd=ws)
            pick = sample(results(ws, name), a.sample, a.seed)
            (ws / "sample.txt").write_text("\n".join(pick) + "\n")
            rc = mutmut(ws, "run", "--max-children", "1", *pick)
            res = {k: v for k, v in results(ws, name).items() if k in set(pick)}
        else:
            (ws / "sample.txt").unlink(missing_ok=True)
            rc = mutmut(ws, "run", "--max-children", "1")
            res = results(ws, name)
        took = time.monotonic() - t0
        line = table(name, res, took, len(res) if a.sample > 1 else None)
        print(line)
        (ws / "summary.txt").write_text(line + "\n" + "".join(
            f"{k}: {v}\n" for k, v in sorted(res.items()) if v != "killed"))
        if rc not in (0, None):
            print(f"mutmut exited {rc} for {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
