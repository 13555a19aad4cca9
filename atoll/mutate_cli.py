"""`atoll mutate SPEC`: mutation testing of a spec's properties, its command
line and its report (the work is done by :mod:`atoll.verify.mutate`)."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from atoll.diagnostics import SpecError, printable

EXAMPLES = ("examples:\n  atoll mutate spec/GAME.atoll\n"
            "  atoll mutate spec/GAME.atoll --jobs 1 --max-mutants 50 --min-score 0.9\n"
            "  atoll mutate spec/GAME.atoll --list                 # the mutants, not run\n"
            "  atoll mutate spec/GAME.atoll --mutant 12 --mutant 40 --json\n"
            "  atoll mutate spec/GAME.atoll --dask local\n\n"
            "Each mutant is a small change of one rule (a constant one more or less, an operator\n"
            "swapped, a guard or a statement dropped, two cases swapped, an ending weakened...),\n"
            "compiled like any spec and checked with the spec's properties on a small budget.\n"
            "A mutant not killed in the configuration checked is checked again in up to\n"
            "--other-configs other configurations of the matrix where its rule runs.\n"
            "Score: killed / every mutant not shown equivalent nor refused by the compiler\n"
            "(unobserved and timed out count as not killed; docs/verify.md, \"Mutation\n"
            "testing\"). Exit status 0\n"
            "when the score is at least --min-score (when given), 1 otherwise or when the\n"
            "spec's own properties are not as expected, 2 for bad usage.")

DEFAULT_CACHE = ".atoll-cache"


def add_parser(add, game_args, ALLOW_HELP) -> None:
    p = add("mutate", "Mutation testing of a spec: change its rules one small bug at a time and "
            "report which changes its properties notice.", cmd_mutate)
    game_args(p)
    p.add_argument("--matrix", action="store_true",
                   help="check each mutant in every player count times every mode of `modes`")
    p.add_argument("--games", type=int, default=20,
                   help="games per property checked by play, and seeded games compared (default 20)")
    p.add_argument("--timeout", type=float, default=5.0,
                   help="z3 timeout per query, seconds (default 5)")
    p.add_argument("--mutant-timeout", type=float, default=None, metavar="S",
                   help="seconds per mutant (default: 3 times the original's checks, at least 60)")
    p.add_argument("--other-configs", type=int, default=1, metavar="N",
                   help="without --matrix: check a mutant not killed in up to N other configurations "
                   "of the matrix where its rule runs (default 1; 0: none)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="mutants checked in parallel processes (default: one per core)")
    p.add_argument("--dask", metavar="local|ADDRESS",
                   help="check the mutants on Dask: `local` or a scheduler address (needs atoll[dask])")
    p.add_argument("--dask-timeout", type=float, default=10.0, metavar="S",
                   help="with --dask: seconds to wait for the scheduler and a worker (default 10)")
    p.add_argument("--max-mutants", type=int, default=None, metavar="N",
                   help="check a sample of N mutants (chosen with --seed)")
    p.add_argument("--mutant", type=int, action="append", metavar="ID",
                   help="check only this mutant (repeatable; the ids of --list)")
    p.add_argument("--min-score", type=float, default=None, metavar="P",
                   help="exit 1 when the score is below P (0 to 1)")
    p.add_argument("--list", action="store_true", help="list the mutants with their diffs; check none")
    p.add_argument("--cache", metavar="DIR", help=f"keep results in DIR and reuse them (default: "
                   f"{DEFAULT_CACHE} when that folder exists)")
    p.add_argument("--no-cache", action="store_true", help="use no cache")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (a line per mutant)")


def cmd_mutate(args) -> int:
    from atoll.cli import CliError, _at_least, _options, _positive, _spec_file, _usage_error, spec_failure
    from atoll.verify import mutate as MU
    _at_least("--games", args.games, 0)
    _at_least("--jobs", args.jobs, 1)
    _at_least("--other-configs", args.other_configs, 0)
    _at_least("--max-mutants", args.max_mutants, 1)
    _positive("--timeout", args.timeout)
    _positive("--mutant-timeout", args.mutant_timeout)
    _positive("--dask-timeout", args.dask_timeout)
    if args.min_score is not None and not 0 <= args.min_score <= 1:
        _usage_error(f"--min-score is a fraction from 0 to 1, not {args.min_score}")
    if args.cache and args.no_cache:
        _usage_error("--cache and --no-cache do not go together")
    if args.dask and args.jobs:
        _usage_error("--jobs sets local processes; with --dask the cluster has its own workers")
    spec = _spec_file(args.spec)
    options = _options(args.option)
    cache = None if args.no_cache else (args.cache or (DEFAULT_CACHE if Path(DEFAULT_CACHE).is_dir() else None))
    st = MU.Settings(args.games, args.seed, int(args.timeout * 1000), limit=args.mutant_timeout or 0.0,
                     extra=args.other_configs)
    t0 = time.perf_counter()
    if args.list:
        return _list(args, spec)
    quiet = args.quiet
    if args.dask and args.dask != "local":   # before the original's checks: fail fast
        from atoll.dask_sim import DaskSetupError, probe
        try:
            probe(args.dask, args.dask_timeout)
        except DaskSetupError as e:
            raise CliError(str(e), 2, "dask") from None
    _say(quiet, f"atoll mutate: checking the original {printable(spec)} ...")
    try:
        p = MU.plan(spec, args.players, options, args.matrix, st, args.max_mutants, args.mutant, cache)
    except SpecError as e:
        raise spec_failure(e) from None
    if args.mutant and len(p.chosen) < len(set(args.mutant)):
        missing = sorted(set(args.mutant) - {m.id for m in p.chosen})
        _usage_error(f"no mutant {', '.join(map(str, missing))} (the spec has {p.generated}: 0 to "
                     f"{p.generated - 1}; `--list` shows them)")
    _say(quiet, f"atoll mutate: the original took {p.base.seconds:.1f} s"
         + (" (verdicts from the cache)" if p.base.cached else "")
         + f"; {len(p.chosen)} of {p.generated} mutants to check, at most {p.settings.limit:.0f} s each")

    def on_result(rec, done, total):
        m = next(x for x in p.chosen if x.id == rec["id"])
        by = _by(rec)
        _say(quiet, f"[{done}/{total}] {rec['status']:<13} #{m.id} {m.rule}: {m.what}"
             + (f" ({by})" if by else "") + f" {rec.get('seconds', 0):.1f} s"
             + (" (cached)" if rec.get("cached") else ""))

    try:
        if args.dask:
            from atoll.dask_mutate import DaskSetupError, execute_dask
            try:
                records = execute_dask(p, args.dask, on_result, timeout=args.dask_timeout)
            except DaskSetupError as e:
                raise CliError(str(e), 2, "dask") from None
        else:
            records = MU.execute(p, args.jobs or os.cpu_count() or 1, on_result=on_result)
    except KeyboardInterrupt:
        return 130
    rep = MU.report(p, records, time.perf_counter() - t0)
    ok = not rep["baseline"]["broken"]
    if args.min_score is not None:
        ok = ok and rep["score"] is not None and rep["score"] >= args.min_score
    rep["min_score"] = args.min_score
    rep["ok"] = ok
    if args.json:
        print(json.dumps(rep, indent=2, default=str))
    else:
        print_report(rep)
    return 0 if ok else 1


def _say(quiet: bool, text: str) -> None:
    if not quiet:
        print(text, file=sys.stderr, flush=True)


def _list(args, spec) -> int:
    from atoll.cli import spec_failure
    from atoll.compiler import pipeline
    from atoll.verify.mutants import generate
    try:
        comp = pipeline.compile_spec(spec)
    except SpecError as e:
        raise spec_failure(e) from None
    name = str(Path(spec))   # as the compiler names the file in its spans
    text = comp.program.sources[name]
    ms = generate(comp.program, text, name)
    if args.json:
        print(json.dumps({"spec": spec, "mutants": [
            {"id": m.id, "rule": m.rule, "cites": list(m.cites), "kind": m.kind, "what": m.what,
             "line": m.line, "diff": m.diff(text)} for m in ms]}, indent=2))
        return 0
    for m in ms:
        print(f"#{m.id} {m.rule} ({m.kind}): {m.what}")
        for line in m.diff(text):
            print("    " + printable(line))
    print(f"{len(ms)} mutants of {printable(spec)}")
    return 0


def _by(rec: dict) -> str:
    by = rec.get("by") or {}
    if "model error" in by:
        return "model error: " + by["model error"][:80]
    if "property" in by:
        what = "example" if by.get("kind") == "example" else "property"
        where = "".join(f", {k}={v}" for k, v in (by.get("options") or {}).items())
        return f"{what} {by['property']}: {by['verdict']}, expected {by['expected']}" + (
            f"; with {by['players']} players{where}" if where else "")
    return rec.get("reason", "")[:100]


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def print_report(rep: dict) -> None:
    t = rep["totals"]
    configs = "; ".join(f"{c['players']} players" + (", " + ", ".join(f"{k}={v}" for k, v in c["options"].items())
                                                     if c["options"] else "") for c in rep["configurations"])
    b = rep["budget"]
    print(f"{printable(rep['spec'])}: {rep['run']} of {rep['generated']} mutants checked ({configs}; "
          f"{b['games']} games per property, z3 {b['timeout_ms'] / 1000:g} s per query)")
    if rep.get("other_configurations"):
        print(f"  a mutant not killed there: checked in up to {rep['other_configurations_per_mutant']} of "
              f"{len(rep['other_configurations'])} other configurations where its rule runs")
    if rep["baseline"]["broken"]:
        print(f"  the original spec itself fails: {', '.join(rep['baseline']['broken'])} "
              "(these cannot kill a mutant; fix them first)")
    head = f"{'rule':<28} {'mutants':>7} {'killed':>6} {'surv.':>5} {'unobs.':>6} {'equiv.':>6} " \
           f"{'n/c':>4} {'t/o':>4} {'score':>6}  cites"
    print(head)
    print("-" * len(head))
    for r in rep["rules"]:
        tout = r["timed out"] + r["error"]
        print(f"{printable(r['rule'])[:28]:<28} {r['mutants']:>7} {r['killed']:>6} {r['survived']:>5} "
              f"{r['unobserved']:>6} {r['equivalent']:>6} {r['not compiling']:>4} {tout:>4} "
              f"{_pct(r['score']):>6}  {printable(', '.join(r['cites']))[:60]}")
    print("-" * len(head))
    print(f"{'all rules':<28} {t['mutants']:>7} {t['killed']:>6} {t['survived']:>5} {t['unobserved']:>6} "
          f"{t['equivalent']:>6} {t['not compiling']:>4} {t['timed out'] + t['error']:>4} "
          f"{_pct(rep['score']):>6}")
    survivors = [m for m in rep["mutants"] if m["status"] == "survived"]
    if survivors:
        print(f"\nsurvivors: no property notices if this rule changes ({len(survivors)})")
        for m in survivors:
            _show(m)
    unobserved = [m for m in rep["mutants"] if m["status"] == "unobserved"]
    if unobserved:
        print(f"\nunobserved: no observable change in {b['games']} seeded games, and the same "
              f"verdicts, in every configuration where the code differs (likely equivalent, not "
              f"proved; counted as not killed) ({len(unobserved)})")
        for m in unobserved:
            _show(m)
    odd = [m for m in rep["mutants"] if m["status"] in ("timed out", "error")]
    if odd:
        print(f"\ntimed out or failed (neither killed nor survived) ({len(odd)})")
        for m in odd:
            _show(m, m["reason"])
    counted = t["killed"] + t["survived"] + t["unobserved"] + t["timed out"] + t["error"]
    print(f"\nscore: {_pct(rep['score'])} of {counted} mutants killed (every mutant not shown "
          f"equivalent nor refused by the compiler; unobserved and timed out count as not killed); "
          f"{_pct(rep['observed_score'])} of the {t['killed'] + t['survived']} killed or survived")
    print(f"  {t['equivalent']} equivalent (the same lowered code in the configurations checked), "
          f"{t['unobserved']} unobserved, {t['not compiling']} not compiling, "
          f"{t['timed out']} timed out, {t['error']} failed")
    print(f"  time: {rep['seconds']:.0f} s (the original's checks: {rep['baseline']['seconds']:.1f} s)")
    if rep.get("min_score") is not None:
        verdict = "at least" if rep["ok"] else "below"
        print(f"  the score is {verdict} --min-score {rep['min_score']:g}")
    print("  how to read this report: docs/verify.md, section \"Mutation testing\"")


def _show(m: dict, extra: str = "") -> None:
    cites = f" (rulebook: {printable(', '.join(m['cites']))})" if m["cites"] else ""
    print(f"  #{m['id']} {printable(m['rule'])}{cites}: {printable(m['what'])}" + (f" - {extra}" if extra else ""))
    for line in m["diff"]:
        print("      " + printable(line))
    if m.get("changed"):
        print("      verdicts that changed, still as expected: " + printable("; ".join(
            f"{name} {old} -> {new}" for name, old, new in m["changed"])))
    if m.get("proofs_not_rerun"):
        print("      (z3 proofs not run again, since the games already differ: "
              + printable(", ".join(m["proofs_not_rerun"])) + ")")
