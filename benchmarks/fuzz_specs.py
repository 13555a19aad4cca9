"""Fuzz the toolchain with generated, mutated and hostile specs.

    python benchmarks/fuzz_specs.py -n 10000 --seed 1 [--jobs 2] [--json]
    python benchmarks/fuzz_specs.py --case 123 --seed 1        # one case again, verbosely
    python benchmarks/fuzz_specs.py --replay benchmarks/fuzz_findings/finding_03.json

Every case (see ``fuzz_gen.py`` and ``fuzz_hostile.py``) runs in a worker
process of a pool (``fuzz_worker.py``),
with a wall-clock limit (``--timeout``, 10 s: past it the worker is killed
and the case is a HANG) and a memory limit (``--memory``, 2 GB of address
space: a ``MemoryError`` is a MEMORY case). The worker compiles the spec
(``atoll.compile_spec``), instantiates it for its first player counts,
plays short random games in both chance modes, saves and loads the states
(``to_json``/``state_from_json``) and loads damaged saves, checks the
oracle of the cases that have one, and on a sample runs ``atoll check`` or
``atoll simulate`` as a command (25 s, the start of Python included) and
``verify`` in process (3 games, 1 s per z3 query; 30 s in all).

Outcomes: ``OK``, ``SPEC`` (a ``SpecError`` with diagnostics), ``MODEL`` (a
``ModelError`` in play), and the failures ``CODE_EXEC`` (the file
``SENTINEL`` appeared in the worker's folder: a hostile text ran as
Python), ``INTERNAL`` (any other exception, an exit code 3 or a traceback
of the command line, a save that does not load back the same), ``HANG``,
``MEMORY``, ``MISCOMPILE`` (the oracle of a case disagrees), ``LEAK`` (the
content of a file outside the spec's folder appears in a diagnostic),
``ESCAPE`` (a spec compiled although it reads a file outside its folder) and
``BAD_LOAD`` (a damaged save, its checksum made to fit, loads as a state
that its seed and history do not lead to).

Each distinct failure has a signature; the run prints a table of outcomes
per generator and the signatures with a count and the smallest example,
shrunk by deleting lines while the signature stays (not for hangs nor
examples of a dozen lines or fewer), and
writes them to ``--findings`` (default ``benchmarks/fuzz_findings``).
"""
from __future__ import annotations

import argparse
import base64
import json
import re
import sys
import time
from pathlib import Path
from typing import Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_gen as G   # noqa: E402
import fuzz_hostile as H   # noqa: E402
from fuzz_worker import FAILURES, ORDER, run_cases   # noqa: E402

GENERATORS: dict[str, tuple[Callable, float]] = {
    "grammar": (G.gen_grammar, 0.08), "framed": (G.gen_framed, 0.14), "mutate": (G.gen_mutate, 0.22),
    "variant": (G.gen_variant, 0.06), "hostile_text": (G.gen_hostile_text, 0.10),
    "hostile_name": (G.gen_hostile_name, 0.06), "hostile_path": (H.gen_hostile_path, 0.05),
    "hostile_data": (H.gen_hostile_data, 0.07), "hostile_extends": (H.gen_hostile_extends, 0.04),
    "deep": (H.gen_deep, 0.07), "limits": (H.gen_limits, 0.04), "expensive": (H.gen_expensive, 0.02),
    "collide": (H.gen_collide, 0.05),
}


def make_case(seed: int, index: int, only: Optional[list] = None) -> G.Case:
    """Case ``index`` of the run with ``seed``: the same numbers, the same case."""
    import random
    rng = random.Random(f"{seed}:{index}")
    gens = [(k, v) for k, v in GENERATORS.items() if not only or k in only]
    name = rng.choices([k for k, _ in gens], weights=[w for _, (_, w) in gens])[0]
    case = GENERATORS[name][0](rng)
    case.data["index"] = index
    return case


# ================================================================ signatures

def _norm(msg: str) -> str:
    msg = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", msg)
    msg = re.sub(r"(?<![A-Z])\d+", "N", msg)
    return msg[:70]


def signature(case_tags: tuple, generator: str, f: dict) -> str:
    cls, stage = f["class"], f["stage"]
    if cls == "INTERNAL":
        what = f"{f.get('type', '?')}: {_norm(f.get('message', f.get('detail', '')))}" \
            if f.get("type") else _norm(f.get("detail", ""))
        where = f" @ {f['where']}" if f.get("where") else ""
        return f"INTERNAL {stage}: {what}{where}"
    tags = "/".join(t for t in case_tags[:3] if not t.endswith(".atoll"))
    if cls in ("HANG", "MEMORY"):
        return f"{cls} {stage} [{generator}: {tags}]"
    if cls == "BAD_LOAD":
        field = f["detail"].split(":")[0].split(" at ")[-1].split("/")[0]   # the damaged part
        return f"BAD_LOAD saved: {field}"
    if cls == "MISCOMPILE":
        return f"MISCOMPILE {stage} [{generator}]"
    if cls == "CODE_EXEC":
        return f"CODE_EXEC [{generator}: {tags}]"
    return f"{cls} {stage} [{generator}: {tags}]"


def warm_up() -> None:
    """Build the parsers and import the verifier once, before the workers fork."""
    from atoll.grammar import lalr
    from atoll.grammar.parse import _parser
    import atoll.verify.runner  # noqa: F401
    _parser()
    lalr.grammar()


def options_for(index: int, case: G.Case, args) -> dict:
    opts = {"steps": args.steps, "counts": getattr(args, "counts", 3)}
    if args.cli_every and (case.cli or index % args.cli_every == 0):
        opts["cli"] = ["check", "simulate", "check-json"][index % 3] if not case.cli else "check"
    if args.verify_every and index % args.verify_every == 1:
        opts["verify"] = True
    return opts


# ================================================================ shrinking

def shrink(case: G.Case, opts: dict, sig: str, budget: float, jobs: int, timeout: float) -> Optional[str]:
    """Delete lines of the main file while the case keeps the signature."""
    main = case.files.get(case.main)
    if not isinstance(main, str):
        return None
    lines = main.split("\n")
    t_end = time.monotonic() + budget
    chunk = max(1, len(lines) // 2)

    def keeps(cand: list) -> bool:
        c = G.Case(case.generator, case.tags, dict(case.files), case.main, case.note, case.oracle, case.cli,
                   dict(case.data))
        c.files[case.main] = "\n".join(cand)
        res = run_cases([(0, c, opts)], jobs=1, timeout=timeout)[0]
        return any(signature(c.tags, c.generator, f) == sig for f in res["findings"])
    while chunk >= 1 and time.monotonic() < t_end:
        i, changed = 0, False
        while i < len(lines) and time.monotonic() < t_end:
            cand = lines[:i] + lines[i + chunk:]
            if cand and keeps(cand):
                lines, changed = cand, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return "\n".join(lines)


# ================================================================ the run

def encode_case(case: G.Case) -> dict:
    files = {}
    for k, v in case.files.items():
        if isinstance(v, bytes):
            files[k] = {"bytes": base64.b64encode(v).decode()}
        elif isinstance(v, tuple):
            files[k] = {"special": list(v)}
        else:
            files[k] = v
    return {"generator": case.generator, "tags": list(case.tags), "files": files, "main": case.main,
            "note": case.note, "oracle": case.oracle, "cli": case.cli, "index": case.data.get("index", 0)}


def decode_case(d: dict) -> G.Case:
    files = {}
    for k, v in d["files"].items():
        if isinstance(v, dict):
            files[k] = base64.b64decode(v["bytes"]) if "bytes" in v else tuple(v["special"])
        else:
            files[k] = v
    return G.Case(d["generator"], tuple(d["tags"]), files, d["main"], d.get("note", ""),
                  d.get("oracle"), d.get("cli", False), {"index": d.get("index", 0)})


def fuzz(n: int, seed: int, jobs: int, timeout: float, memory_mb: int, args, progress=None,
         only=None, skip=None) -> dict:
    """Run ``n`` cases; the summary, and per signature the smallest example."""
    t0 = time.monotonic()
    cases = {}

    def tasks():
        for i in range(n):
            case = make_case(seed, i, only)
            if skip and skip(case):
                continue
            cases[i] = case
            yield i, case, options_for(i, case, args)
    by_sig: dict = {}
    classes: dict = {}
    by_gen: dict = {}
    notes: dict = {}
    done = [0]

    def on_result(res):
        case = cases.pop(res["key"])
        classes[res["class"]] = classes.get(res["class"], 0) + 1
        g = by_gen.setdefault(case.generator, {})
        g[res["class"]] = g.get(res["class"], 0) + 1
        for nt in res.get("notes", []):
            k = _norm(nt)
            notes[k] = notes.get(k, 0) + 1
        for f in res["findings"]:
            sig = signature(case.tags, case.generator, f)
            e = by_sig.setdefault(sig, {"signature": sig, "class": f["class"], "count": 0,
                                        "generators": {}, "size": None})
            e["count"] += 1
            e["generators"][case.generator] = e["generators"].get(case.generator, 0) + 1
            if e["size"] is None or case.size() < e["size"]:
                e.update(size=case.size(), index=res["key"], finding=f, note=case.note,
                         case=encode_case(case), opts=options_for(res["key"], case, args),
                         seconds=res["seconds"])
        done[0] += 1
        if progress:
            progress(done[0], res)
    results = run_cases(tasks(), jobs, timeout, memory_mb, on_result=on_result)
    seconds = time.monotonic() - t0
    return {"n": len(results), "seed": seed, "jobs": jobs, "timeout_s": timeout, "memory_mb": memory_mb,
            "seconds": round(seconds, 1), "specs_per_s": round(len(results) / seconds, 2),
            "classes": {k: classes.get(k, 0) for k in ORDER},
            "by_generator": by_gen, "signatures": sorted(by_sig.values(), key=lambda e: (ORDER.index(e["class"]),
                                                                                         -e["count"])),
            "notes": notes}


def print_summary(s: dict, out=sys.stdout) -> None:
    p = lambda *a: print(*a, file=out)   # noqa: E731
    p(f"\n{s['n']} specs, seed {s['seed']}, {s['jobs']} workers, {s['seconds']} s "
      f"({s['specs_per_s']} specs/s); limits {s['timeout_s']} s, {s['memory_mb']} MB")
    cols = [c for c in ORDER if s["classes"].get(c) or c in ("INTERNAL", "HANG", "CODE_EXEC", "OK")]
    p("\n| generator | " + " | ".join(cols) + " | total |")
    p("|---|" + "---:|" * (len(cols) + 1))
    for g in sorted(s["by_generator"]):
        row = s["by_generator"][g]
        p(f"| {g} | " + " | ".join(str(row.get(c, 0)) for c in cols) + f" | {sum(row.values())} |")
    p("| **all** | " + " | ".join(str(s["classes"].get(c, 0)) for c in cols) + f" | {s['n']} |")
    fails = [e for e in s["signatures"] if e["class"] in FAILURES]
    p(f"\n{len(fails)} distinct failure signature(s):")
    for k, e in enumerate(fails, 1):
        p(f"  {k:2}. [{e['count']}x] {e['signature']}   (e.g. case {e['index']}: {e['note'][:100]!r})")
    if s.get("notes"):
        p("\nnotes (not failures):")
        for k, v in sorted(s["notes"].items(), key=lambda kv: -kv[1])[:15]:
            p(f"  [{v}x] {k}")


def save_findings(s: dict, folder: Path, shrink_budget: float, jobs: int, timeout: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("finding_*"):
        old.unlink()
    lines = ["# Fuzz findings", "", f"Run: {s['n']} specs, seed {s['seed']}, {s['seconds']} s.", ""]
    fails = [e for e in s["signatures"] if e["class"] in FAILURES]
    for k, e in enumerate(fails, 1):
        case = decode_case(e["case"])
        shrunk = None
        main_text = case.files.get(case.main)
        if shrink_budget and e["class"] != "HANG" and isinstance(main_text, str) \
                and main_text.count("\n") > 12:
            shrunk = shrink(case, e["opts"], e["signature"], shrink_budget, jobs, timeout)
        rec = dict(e, shrunk=shrunk)
        (folder / f"finding_{k:02}.json").write_text(json.dumps(rec, indent=1, ensure_ascii=False))
        main = shrunk if shrunk is not None else case.files.get(case.main)
        if isinstance(main, str):
            (folder / f"finding_{k:02}.atoll").write_text(main)
        f = e["finding"]
        lines += [f"## {k}. {e['signature']}", "", f"{e['count']} case(s); generators: "
                  + ", ".join(f"{g} {c}" for g, c in e["generators"].items()) + ".",
                  f"Example: case {e['index']} ({e['note'][:300]}); main file {case.main!r}.", ""]
        if f.get("traceback"):
            lines += ["```", f["traceback"].strip()[-1200:], "```", ""]
        elif f.get("detail"):
            lines += ["```", f["detail"][-1200:], "```", ""]
        if isinstance(main, str) and len(main) < 3000:
            lines += ["```", main.rstrip(), "```", ""]
    (folder / "finding_summary.md").write_text("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=1000, help="number of cases (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case (default 10)")
    ap.add_argument("--memory", type=int, default=2048, help="address space per worker, MB (default 2048)")
    ap.add_argument("--steps", type=int, default=60, help="actions per random game (default 60)")
    ap.add_argument("--cli-every", type=int, default=40, help="run the command line on every N-th case")
    ap.add_argument("--verify-every", type=int, default=25, help="verify every N-th case")
    ap.add_argument("--only", action="append", help="only this generator (repeatable)")
    ap.add_argument("--findings", default=str(Path(__file__).parent / "fuzz_findings"))
    ap.add_argument("--shrink", type=float, default=60.0, help="seconds to shrink each finding (0: none)")
    ap.add_argument("--case", type=int, help="run one case of the seed again and print what it did")
    ap.add_argument("--replay", help="run the example of a saved finding again")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    warm_up()
    if args.case is not None or args.replay:
        if args.replay:
            rec = json.loads(Path(args.replay).read_text())
            case, opts = decode_case(rec["case"]), rec["opts"]
            if rec.get("shrunk"):
                case.files[case.main] = rec["shrunk"]
        else:
            case = make_case(args.seed, args.case, args.only)
            opts = options_for(args.case, case, args)
        print(f"case: {case.generator} {case.tags} {case.note[:300]!r}\nmain: {case.main!r}")
        res = run_cases([(0, case, opts)], 1, args.timeout, args.memory)[0]
        for f in res["findings"]:
            print(f"{signature(case.tags, case.generator, f)}\n{f.get('traceback', f.get('detail', ''))}")
        print(f"class: {res['class']} ({res['seconds']} s)")
        return 0 if res["class"] not in FAILURES else 1

    def progress(k, res):
        if k % 100 == 0 or res["class"] in FAILURES:
            print(f"\r{k}/{args.n} {res['class']:<10}", end="", file=sys.stderr, flush=True)
    s = fuzz(args.n, args.seed, args.jobs, args.timeout, args.memory, args, progress, args.only)
    print(file=sys.stderr)
    if args.findings:
        save_findings(s, Path(args.findings), args.shrink, args.jobs, args.timeout)
    if args.json:
        slim = dict(s, signatures=[{k: v for k, v in e.items() if k not in ("case", "finding", "opts")}
                                   | {"type": e["finding"].get("type"), "message": e["finding"].get("message")}
                                   for e in s["signatures"]])
        print(json.dumps(slim, indent=1))
    else:
        print_summary(s)
    return 1 if any(s["classes"][c] for c in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
