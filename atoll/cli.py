"""The `atoll` command line: check, verify, mutate, play, simulate, docs, lower, explain.

Exit codes: 0 success; 1 the spec has errors (or a simulation hit a model
error or a deadlock); 2 bad usage (unknown option, bad player count, a
missing file, a folder where a file is needed, a Dask scheduler that does
not answer...); 3 an internal error, a bug (``atoll --debug ...`` prints its
traceback). With ``--json`` every failure is also a JSON object on stdout:
``{"ok": false, "error": {"kind", "message", "exit", "diagnostics"}}``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Optional

from atoll.compiler import files, limits, pipeline
from atoll.compiler.runtime import ModelError
from atoll.diagnostics import SpecError, printable, render_all
from atoll.simulation import play_random_game, simulate  # noqa: F401 (the local engine)

def _play_help() -> list:
    from atoll.terminal import HELP
    return HELP.splitlines()[1:]


EXAMPLES = {
    "check": "examples:\n  atoll check spec/GAME.atoll\n  atoll check spec            "
             "# every .atoll file under spec/\n  atoll check --json spec/GAME.atoll",
    "play": "examples:\n  atoll play spec/GAME.atoll --players 2\n"
            "  atoll play spec/GAME.atoll --players 4 --option KEY=VALUE --seat 1 --auto\n\n"
            "While playing, type:\n" + "\n".join("  " + line for line in _play_help()),
    "simulate": "examples:\n  atoll simulate spec/GAME.atoll -n 1000 --players 4\n"
                "  atoll simulate spec/GAME.atoll -n 200 --option KEY=VALUE "
                "--players 3 --json\n"
                "  atoll simulate spec/GAME.atoll -n 20000 --dask local --report balance/\n"
                "  atoll simulate spec/GAME.atoll -n 1000000 --dask tcp://HOST:8786\n\n"
                "Game i plays with seed SEED+i, here or on Dask: the same seed gives the same\n"
                "summary. --dask needs the extra: pip install \"atoll[dask]\"; the workers of a\n"
                "remote cluster need atoll installed.",
    "lower": "examples:\n  atoll lower spec/GAME.atoll | less",
    "serve": "examples:\n  atoll serve spec/GAME.atoll --players 3            # then open http://127.0.0.1:8000/\n"
             "  atoll serve spec/GAME.atoll --seat all             # hot-seat: you play every seat\n"
             "  atoll verify spec/GAME.atoll --json > report.json\n"
             "  atoll serve spec/GAME.atoll --trace report.json --property NAME   # then open /trace\n\n"
             "The page plays the spec and every spec under its folder. Needs the web extra:\n"
             "pip install \"atoll[web]\" (Starlette and Uvicorn). It listens on 127.0.0.1 only,\n"
             "unless --host says otherwise.",
    "explain": "examples:\n  atoll explain A0101\n  atoll explain        # every code",
    "docs": "examples:\n  atoll docs                        # the project's docs/ into docs/_build/html\n"
            "  atoll docs -o site --games 20     # a smaller verification budget\n"
            "  atoll docs spec/GAME.atoll -o site   # the pages of one spec, no Sphinx project needed\n\n"
            "Needs the docs extra: pip install \"atoll[docs]\". Verification results are cached\n"
            "beside the output, keyed by the contents of the specs, so later builds are fast.\n"
            "The first build verifies every game in every configuration of its matrix (the\n"
            "dashboard) before reading the pages, all configurations in one pool of --jobs\n"
            "processes, the longest first: about six minutes for the shipped games on two\n"
            "idle cores (12 CPU minutes), each configuration logged as it is done.\n"
            "--no-verify builds in seconds.",
    "verify": "examples:\n  atoll verify spec/GAME.atoll\n"
              "  atoll verify spec/GAME.atoll --matrix\n"
              "  atoll verify spec/GAME.atoll --property NAME --json\n\n"
              "verdicts: PROVED, HOLDS UP TO k, NO VIOLATION IN N GAMES, VIOLATED, WITNESS FOUND,\n"
              "NO WITNESS, UNKNOWN; for an example, PASSED or FAILED. Exit status 0 exactly when\n"
              "every verdict matches what the spec expects (`expect ...`; without it, a property\n"
              "expects to hold or to be found, an example to pass).",
}


class CliError(Exception):
    """A failure the command reports and exits with: ``status`` 2 for bad
    usage, 1 for a spec with errors; ``kind`` names it in JSON."""

    def __init__(self, message: str, status: int = 2, kind: str = "usage",
                 error: Optional[SpecError] = None, text: Optional[str] = None):
        super().__init__(message)
        self.message, self.status, self.kind, self.error = message, status, kind, error
        self.text = text or (str(error) if error is not None else f"atoll: {message}")


def report_failure(e: CliError, as_json: bool) -> int:
    """Print a failure: the text on stderr, and with --json its JSON object on stdout."""
    print(e.text, file=sys.stderr)
    if as_json:
        diags = [d.to_json() for d in e.error.diagnostics] if e.error is not None else []
        print(json.dumps({"ok": False, "error": {"kind": e.kind, "message": e.message,
                                                 "exit": e.status, "diagnostics": diags}}, indent=2))
    return e.status


def _usage_error(msg: str):
    raise CliError(msg)


def spec_failure(e: SpecError) -> CliError:
    """A spec that does not load: exit 1, or 2 when only the options or the
    player count asked for are at fault."""
    usage = all(d.code in ("A0302", "A0303") for d in e.diagnostics)
    first = e.diagnostics[0].message if e.diagnostics else "the spec has errors"
    return CliError(first, 2 if usage else 1, "usage" if usage else "spec", e)


def _options(pairs) -> dict:
    out = {}
    for p in pairs or []:
        if "=" not in p:
            _usage_error(f"--option takes KEY=VALUE, not {p!r}")
        k, v = p.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _spec_file(spec) -> str:
    """A spec argument that must be one file."""
    p = Path(spec)
    if not p.exists():
        _usage_error(f"{spec}: no such file")
    if p.is_dir():
        _usage_error(f"{spec} is a folder: name one .atoll file")
    return spec


def _load(args):
    try:
        return pipeline.load(_spec_file(args.spec), args.players, _options(args.option))
    except SpecError as e:
        raise spec_failure(e) from None


def _at_least(flag: str, value, least: int) -> None:
    if value is not None and value < least:
        _usage_error(f"{flag} must be at least {least}, not {value}")


def _positive(flag: str, value) -> None:
    """A number of seconds: more than 0, and finite."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        _usage_error(f"{flag} must be a number of seconds more than 0, not {value}")


def _spec_files(paths) -> list[tuple[Path, Optional[Path]]]:
    """Every spec a list of files and folders names, with the folder named
    on the command line (a tree the spec may read) or None."""
    out = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend((f, p) for f in sorted(p.rglob("*.atoll")))
        elif not p.exists():
            _usage_error(f"{p}: no such file or folder")
        else:
            out.append((p, None))
    return out


# ---------------------------------------------------------------- check

def player_counts(lo: int, hi: int) -> list[int]:
    """The player counts `check` builds a game for: every one of a range of
    at most limits.CHECK_PLAYER_COUNTS, else that many spread over the range
    (both ends and the counts next to them included)."""
    k = limits.CHECK_PLAYER_COUNTS
    if hi - lo + 1 <= k:
        return list(range(lo, hi + 1))
    picks = {lo, lo + 1, hi - 1, hi}
    step = (hi - lo) / (k - len(picks) + 1)
    picks |= {lo + round(step * i) for i in range(1, k - len(picks) + 1)}
    return sorted(picks)[:k]


def cmd_check(args) -> int:
    found = _spec_files(args.files)
    if not found:
        return _usage_error("no .atoll files found")
    failed = 0
    report = []
    for f, tree in found:
        try:
            comp = pipeline.compile_spec(f, [tree] if tree else ())
            for n in player_counts(*comp.program.player_range):   # constants, requirements: per count
                try:
                    pipeline.instantiate(comp, n)
                except SpecError as e:
                    if any(d.code != "A0303" for d in e.diagnostics):
                        raise
            diags, sources = comp.diagnostics, comp.program.sources
            ok = True
        except SpecError as e:
            diags, sources, ok = e.diagnostics, e.sources, False
        failed += not ok
        if args.json:
            report.append({"file": str(f), "ok": ok, "diagnostics": [d.to_json() for d in diags]})
        else:
            if diags:
                print(render_all(diags, sources), end="\n\n")
            errors = sum(d.severity == "error" for d in diags)
            warnings = len(diags) - errors
            status = "ok" if ok else "FAILED"
            print(f"{status}: {printable(str(f))} ({errors} error{'s' * (errors != 1)}, "
                  f"{warnings} warning{'s' * (warnings != 1)})")
    if args.json:
        print(json.dumps({"files": report, "ok": failed == 0}, indent=2))
    return 1 if failed else 0


# ---------------------------------------------------------------- simulate

class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total: int, label: str, enabled: Optional[bool] = None):
        self.total, self.label = total, label
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.start = time.perf_counter()
        self.last = 0.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if done < self.total and now - self.last < 0.1:
            return
        self.last = now
        frac = done / self.total if self.total else 1
        bar = "#" * int(30 * frac)
        rate = done / max(now - self.start, 1e-9)
        sys.stderr.write(f"\r{self.label} [{bar:<30}] {done}/{self.total} {rate:.0f}/s")
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def print_summary(r: dict) -> None:
    print(f"{r['game']}: {r['games']} random games, {r['players']} players, options {r['options']}, "
          f"seeds {r['seed']}..{r['seed'] + r['games'] - 1}")
    L = r["length"]
    print(f"  length (actions): mean {L['mean']:.1f}, min {L['min']}, max {L['max']}")
    print(f"  endings: " + ", ".join(f"{k}: {v}" for k, v in r["endings"].items()))
    print("  seat  wins  win rate  score mean  min  max")
    for p in range(r["players"]):
        s = r["scores_per_seat"][p]
        print(f"  {p:>4}  {r['wins_per_seat'][p]:>4}  {r['win_rate_per_seat'][p]:>8.1%}  "
              f"{s['mean']:>10.2f}  {s['min']:>3}  {s['max']:>3}")
    print(f"  draws (no winner): {r['draws']}")
    print("  score distribution (score: games):")
    for p in range(r["players"]):
        h = r["scores_per_seat"][p]["histogram"]
        print(f"    seat {p}: " + "  ".join(f"{k}:{v}" for k, v in h.items()))
    eng = r.get("engine", {})
    where = "" if eng.get("name") != "dask" else \
        f", on Dask {eng['scheduler']} ({eng['workers']} workers, {eng['chunks']} chunks)"
    print(f"  speed: {r['games_per_s']:.1f} games/s, {r['actions_per_s']:.0f} actions/s "
          f"({r['seconds']:.2f} s{where})")
    for p in r["problems"][:10]:
        print(f"  PROBLEM seed {p['seed']}: {p['problem']}")


def cmd_simulate(args) -> int:
    _at_least("-n", args.n, 1)
    _at_least("--max-steps", args.max_steps, 1)
    _positive("--dask-timeout", args.dask_timeout)
    for flag, value in (("--workers", args.workers), ("--chunk", args.chunk)):
        if value is not None and args.dask is None:
            return _usage_error(f"{flag} goes with --dask")
        _at_least(flag, value, 1)
    if args.workers is not None and args.dask != "local":
        return _usage_error("--workers sets the size of a new local cluster (--dask local); "
                            "a remote cluster has its own workers")
    for flag, folder in (("--report", args.report), ("--replays", args.replays)):
        if folder and Path(folder).exists() and not Path(folder).is_dir():
            return _usage_error(f"{flag} takes a folder; {folder} is a file")
    game = _load(args)
    prog = Progress(args.n, "simulating", None if not args.json else False)
    if args.dask is None:
        r = simulate(game, args.n, args.seed, prog, args.max_steps, args.check)
    else:
        from atoll.dask_sim import DaskSetupError, simulate_dask
        try:
            r = simulate_dask(args.spec, game, args.n, args.seed, address=args.dask,
                              players=args.players, options=_options(args.option), progress=prog,
                              max_steps=args.max_steps, chunk=args.chunk, workers=args.workers,
                              check=args.check,
                              timeout=args.dask_timeout)
        except DaskSetupError as e:
            raise CliError(str(e), 2, "dask") from None
    if args.json:
        print(json.dumps(r, indent=2))
    else:
        print_summary(r)
    if args.report:
        from atoll.report import write_report
        try:
            written = write_report(r, args.report)
        except OSError as e:
            return _usage_error(f"cannot write the report to {args.report}: {e.strerror or e}")
        print(f"report: {written[0]} and {written[1]}", file=sys.stderr if args.json else sys.stdout)
    if args.replays:
        from atoll.simulation import write_replays
        try:
            written = write_replays(game, args.spec, r, args.replays, args.max_steps, args.check)
        except OSError as e:
            return _usage_error(f"cannot write the replays to {args.replays}: {e.strerror or e}")
        print(f"replays: {len(written)} in {args.replays} (atoll serve {args.spec} --trace "
              f"{written[0]})", file=sys.stderr if args.json else sys.stdout)
    return 1 if r["problems"] else 0


# ---------------------------------------------------------------- play

def cmd_play(args, stdin=None, out=None) -> int:
    from atoll import terminal
    game = _load(args)
    if not 0 <= args.seat < game.num_players:
        return _usage_error(f"--seat must be 0..{game.num_players - 1}")
    return terminal.play(game, args.seat, args.seed, stdin or sys.stdin, out or sys.stdout,
                         auto=args.auto)


# ---------------------------------------------------------------- serve

def cmd_serve(args) -> int:
    from atoll.web.serve import serve
    return serve(args, _options(args.option), _usage_error, spec_failure)


# ---------------------------------------------------------------- lower

def cmd_lower(args) -> int:
    try:
        comp = pipeline.compile_spec(_spec_file(args.spec))
    except SpecError as e:
        raise spec_failure(e) from None
    print(comp.source, end="")
    return 0


# ---------------------------------------------------------------- verify

# The report's text: atoll.verdict_text (`_detail_text` keeps its old name here).
from atoll.verdict_text import detail_text as _detail_text, print_verify_table  # noqa: E402,F401


def _verify_one(args, spec: str, tree: Optional[Path] = None):
    from atoll.verify.runner import run
    prog = Progress(1, "verifying", None if not args.json else False)

    def progress(done, total, name):
        prog.total = total
        prog.label = f"verifying {name:<24}"
        prog.update(done - 1)
    try:
        with files.trusted([tree] if tree else []):
            jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1) if args.matrix else 1
            results = run(spec, args.players, _options(args.option), args.matrix, args.property,
                          args.seed, args.games, int(args.timeout * 1000), progress, jobs=jobs,
                          dask=args.dask, dask_timeout=args.dask_timeout)
    except SpecError as e:
        raise spec_failure(e) from None
    except Exception as e:
        from atoll.dask_sim import DaskSetupError
        if isinstance(e, DaskSetupError):
            raise CliError(str(e), 2, "dask") from None
        raise
    prog.update(prog.total)
    return results


def cmd_verify(args) -> int:
    """One spec, or every spec of a folder (as `check` does)."""
    _at_least("--games", args.games, 0)
    if args.jobs is not None:
        _at_least("--jobs", args.jobs, 1)
    if args.dask is not None and not args.matrix:
        _usage_error("--dask goes with --matrix (each configuration is one task)")
    _positive("--dask-timeout", args.dask_timeout)
    _positive("--timeout", args.timeout)
    _options(args.option)
    if not Path(args.spec).is_dir():
        results = _verify_one(args, _spec_file(args.spec))
        if args.json:
            print(json.dumps({"spec": args.spec, "results": [r.to_json() for r in results]}, indent=2))
        else:
            print_verify_table(args.spec, results, args.matrix)
        return 0 if all(r.ok for r in results) else 1
    found = _spec_files([args.spec])
    if not found:
        _usage_error(f"no .atoll files found in {args.spec}")
    status, report = 0, []
    for f, tree in found:
        try:
            results = _verify_one(args, str(f), tree)
        except CliError as e:
            status = max(status, e.status)
            report.append({"spec": str(f), "ok": False, "error": {
                "kind": e.kind, "message": e.message, "exit": e.status,
                "diagnostics": [d.to_json() for d in e.error.diagnostics] if e.error else []}})
            if not args.json:
                print(str(e.error) if e.error is not None else f"atoll: {e.message}", end="\n\n")
            continue
        ok = all(r.ok for r in results)
        status = max(status, 0 if ok else 1)
        report.append({"spec": str(f), "ok": ok, "results": [r.to_json() for r in results]})
        if not args.json:
            print_verify_table(str(f), results, args.matrix)
            print()
    if args.json:
        print(json.dumps({"specs": report, "ok": status == 0}, indent=2))
    return status


# ---------------------------------------------------------------- explain

def cmd_explain(args) -> int:
    """Named codes: the whole explanation (what it means, what to do, an
    example); no code: every code in one line each."""
    from atoll.diagnostics import CODES
    from atoll.explain import explanation
    status = 0
    if not args.codes:
        for c in sorted(CODES):
            severity, title, text = CODES[c]
            print(f"{c} ({severity}): {title}\n  {text}")
        return 0
    for i, c in enumerate(c.upper() for c in args.codes):
        if c not in CODES:
            print(f"atoll: no diagnostic code {c} (`atoll explain` lists them all)", file=sys.stderr)
            status = 2
            continue
        print(("\n" if i else "") + explanation(c))
    return status


# ---------------------------------------------------------------- docs

def cmd_docs(args) -> int:
    import importlib.util
    if importlib.util.find_spec("sphinx") is None:
        print("atoll: `atoll docs` needs Sphinx, which is not installed: "
              "pip install \"atoll[docs]\" (Sphinx and myst-parser)", file=sys.stderr)
        return 2
    from atoll.docgen import site
    source = Path(args.source) if args.source else site.find_project()
    if source is None:
        return _usage_error("no Sphinx project here (no docs/conf.py): give a docs folder, "
                            "a spec file or a folder of specs")
    if not source.exists():
        return _usage_error(f"{source} does not exist")
    if args.games is not None and args.games < 0:
        return _usage_error(f"--games must be 0 or more, not {args.games}")
    _at_least("--jobs", args.jobs, 1)
    settings = {}
    if args.games is not None:
        settings["atoll_verify_games"] = args.games
    if args.no_verify:
        settings["atoll_verify"] = 0
    if source.is_dir() and (source / "conf.py").is_file():
        out = Path(args.output) if args.output else source / "_build" / "html"
        doctrees = out / ".doctrees" if args.output else source / "_build" / "doctrees"
    else:
        if source.is_file() and source.suffix != ".atoll":
            return _usage_error(f"{source} is neither a Sphinx project, a spec nor a folder of specs")
        out = Path(args.output) if args.output else Path("site")
        doctrees = out / ".atoll" / "doctrees"
        source = site.standalone_source([source.resolve()], out / ".atoll" / "source")
    readers = args.jobs or os.cpu_count() or 1
    # the cores shared among the readers: the verification before the read
    # runs in readers x atoll_matrix_jobs processes (atoll.sphinx.pool_size)
    settings["atoll_matrix_jobs"] = max(1, (os.cpu_count() or 1) // readers)
    status = site.build(source, out, doctrees, settings, strict=args.strict, jobs=readers)
    if status == 0:
        print(f"atoll: the site is in {out / 'index.html'}")
        return 0
    return 1


# ---------------------------------------------------------------- main

class _Parser(argparse.ArgumentParser):
    """Usage errors raise CliError (so that --json can report them) instead
    of printing and exiting."""

    def error(self, message):
        raise CliError(f"{self.prog}: {message}", 2, "usage",
                       text=f"{self.format_usage()}{self.prog}: error: {message}")


ALLOW_HELP = ("trust DIR: the spec may read files in it (repeatable). By default a spec reads "
              "only files in its own folder and below it")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(
        prog="atoll", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Atoll: write board-game rules once, then check, verify, play and simulate them.",
        epilog="examples:\n  atoll check spec\n  atoll verify spec/GAME.atoll\n  atoll simulate spec/GAME.atoll -n 1000 "
               "--players 4\n  atoll play spec/GAME.atoll --players 2\n\n"
               "Run `atoll COMMAND --help` for each command's options.")
    ap.add_argument("--version", action="version", version="atoll 0.1.0")
    ap.add_argument("--debug", action="store_true",
                    help="on an internal error (a bug in atoll), print its Python traceback")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, help_, fn):
        p = sub.add_parser(name, help=help_, description=help_, epilog=EXAMPLES[name],
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(fn=fn)
        return p

    p = add("check", "Parse and check specs; report every problem with its position.", cmd_check)
    p.add_argument("files", nargs="+", metavar="FILE", help="spec files or folders of specs "
                   "(a spec found in a folder may read files anywhere under that folder)")
    p.add_argument("--json", action="store_true", help="print the diagnostics as JSON")
    p.add_argument("--allow-path", action="append", metavar="DIR", help=ALLOW_HELP)

    def game_args(p):
        p.add_argument("spec", metavar="SPEC", help="the .atoll file (a game or a variant)")
        p.add_argument("--players", type=int, default=None, help="number of players "
                       "(default: the fewest the game allows)")
        p.add_argument("--option", action="append", metavar="KEY=VALUE",
                       help="set an option or house rule (repeatable)")
        p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        p.add_argument("--allow-path", action="append", metavar="DIR", help=ALLOW_HELP)

    p = add("simulate", "Play many games by random agents and summarise them.", cmd_simulate)
    game_args(p)
    p.add_argument("-n", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--max-steps", type=int, default=100_000,
                   help="give up a game after this many actions (default 100000)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--check", action="store_true",
                   help="test every `invariant` property of the spec after every action; "
                        "a game where one fails is reported as a problem (exit 1)")
    p.add_argument("--report", metavar="DIR", help="also write a balance report into DIR: "
                   "report.md, report.html and SVG plots (seat advantage with a significance "
                   "test, game lengths, scores per seat, endings)")
    p.add_argument("--replays", metavar="DIR", help="also write a replay (seed-N.json) of every "
                   "game that ended on a problem, or of the first game when none did: "
                   "`atoll serve SPEC --trace DIR/seed-N.json` steps through it")
    p.add_argument("--dask", metavar="local|ADDRESS", help="play the games on Dask: `local` "
                   "starts a local cluster, an address such as tcp://HOST:8786 uses a running "
                   "scheduler (needs atoll[dask])")
    p.add_argument("--workers", type=int, metavar="N", help="with --dask local: worker "
                   "processes (default: one per core)")
    p.add_argument("--chunk", type=int, metavar="N", help="with --dask: games per task "
                   "(default: about 16 tasks per worker thread, 10 to 500 games each)")
    p.add_argument("--dask-timeout", type=float, default=10.0, metavar="S",
                   help="with --dask: seconds to wait for the scheduler and a worker (default 10)")

    p = add("play", "Play a game in the terminal against random agents.", cmd_play)
    game_args(p)
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--auto", action="store_true",
                   help="play your move for you when it is your only one (a forced move)")

    p = add("serve", "Play a spec in the browser, or step through a trace of it (a local web app).",
            cmd_serve)
    game_args(p)
    p.add_argument("--seat", default="0", metavar="N|all",
                   help="the seat you play (default 0); `all`: every seat in turn (hot-seat)")
    p.add_argument("--port", type=int, default=8000, help="the port to listen on (default 8000)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--trace", metavar="FILE", help="a trace to step through at /trace: a report "
                   "of `atoll verify --json` (a counterexample or a witness), a replay of "
                   "`atoll simulate --replays`, or a saved game")
    p.add_argument("--property", metavar="NAME", help="with --trace: the property of the report "
                   "whose trace to show (default: the first that has one)")

    p = add("verify", "Check the properties a spec declares, with z3 and hypothesis, and play its "
            "worked examples; given a folder, every spec under it.", cmd_verify)
    game_args(p)
    p.add_argument("--property", action="append", metavar="NAME", help="only this property or example (repeatable)")
    p.add_argument("--matrix", action="store_true",
                   help="every player count times every mode the game block lists in `modes`")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="with --matrix: configurations checked in N processes at once (default: the "
                        "number of cores); the verdicts are the same as with 1")
    p.add_argument("--dask", metavar="local|ADDRESS",
                   help="with --matrix: check the configurations on Dask, one task each: `local` "
                        "starts a local cluster of --jobs workers, an address such as "
                        "tcp://HOST:8786 uses a running scheduler (needs atoll[dask]); the "
                        "verdicts are the same as locally")
    p.add_argument("--dask-timeout", type=float, default=10.0, metavar="S",
                   help="with --dask: seconds to wait for the scheduler and a worker (default 10)")
    p.add_argument("--games", type=int, default=100,
                   help="games per property checked by play (default 100; 0: bounded exhaustive "
                        "search only, verdict HOLDS UP TO k)")
    p.add_argument("--timeout", type=float, default=20.0, help="z3 timeout per query, seconds (default 20)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")

    from atoll.mutate_cli import EXAMPLES as MUTATE_EXAMPLES, add_parser as add_mutate
    EXAMPLES.setdefault("mutate", MUTATE_EXAMPLES)
    add_mutate(add, game_args, ALLOW_HELP)

    p = add("docs", "Build the documentation site: rulebooks, verdicts and pictures from the specs.",
            cmd_docs)
    p.add_argument("source", nargs="?", metavar="SOURCE",
                   help="a Sphinx project folder (default: ./docs), or a spec or folder of specs "
                        "to document without one")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="where to write the HTML (default: SOURCE/_build/html, or ./site for specs)")
    p.add_argument("--games", type=int, default=None,
                   help="games per property checked by play (default: the project's setting, 100)")
    p.add_argument("--no-verify", action="store_true", help="leave the verification results out")
    p.add_argument("--strict", action="store_true",
                   help="fail on any warning, a verdict that is not the one the spec expects "
                        "included (Sphinx's -W -n, as the tests do); without it such a verdict "
                        "is printed as a warning")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="read the pages in N processes at once (default: the number of cores), "
                        "and verify the specs before in as many (with 1, one per core); "
                        "the pages are the same as with 1")
    p.add_argument("--allow-path", action="append", metavar="DIR", help=ALLOW_HELP)

    p = add("lower", "Print the Python module a spec lowers to.", cmd_lower)
    p.add_argument("spec", metavar="SPEC", help="the .atoll file to lower")
    p.add_argument("--allow-path", action="append", metavar="DIR", help=ALLOW_HELP)

    p = add("explain", "Explain diagnostic codes: what each means, what to do, an example.",
            cmd_explain)
    p.add_argument("codes", nargs="*", metavar="CODE",
                   help="a diagnostic code such as A0101 (the code in `error[A0101]`); "
                        "none: list every code")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    try:
        args = ap.parse_args(argv)
    except CliError as e:
        return report_failure(e, as_json)
    except SystemExit as e:   # --help, --version
        return int(e.code or 0)
    if not getattr(args, "fn", None):
        ap.print_help()
        return 2
    as_json = bool(getattr(args, "json", False))
    try:
        with files.trusted(getattr(args, "allow_path", None) or []):
            return args.fn(args)
    except CliError as e:
        return report_failure(e, as_json)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:   # output piped into `head` and the like
        try:
            sys.stdout = open("/dev/null", "w")
        except OSError:   # pragma: no cover
            pass
        return 0
    except SystemExit as e:
        return int(e.code or 0)
    except ModelError as e:
        return report_failure(CliError(f"model error: {e}", 1, "model"), as_json)
    except Exception as e:   # an internal error: say it is a bug
        if args.debug:
            traceback.print_exc()
        return report_failure(CliError(
            f"internal error ({type(e).__name__}: {_short(e)}). This is a bug in atoll, not in your spec; "
            "please report it with the command you ran"
            + (" and the traceback above." if args.debug else
               " and the traceback that `atoll --debug ...` prints."), 3, "internal"), as_json)


def _short(e: Exception) -> str:
    try:
        text = str(e)
    except Exception:   # pragma: no cover - a message that cannot be printed
        return "?"
    return text if len(text) <= 300 else text[:300] + "..."


if __name__ == "__main__":   # pragma: no cover
    # `python -m atoll.cli`: run the module as imported, not this __main__
    # copy, so that the modules that import atoll.cli (mutate, docs) raise and
    # catch the very classes main() catches
    from atoll import cli as _cli
    sys.exit(_cli.main())
