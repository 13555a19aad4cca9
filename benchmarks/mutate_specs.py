"""Write benchmarks/mutate_specs.md from `atoll mutate --json` reports.

    python -m atoll.cli mutate spec/masterislands.atoll --jobs 1 --cache C --json > mi.json
    python -m atoll.cli mutate spec/kanaloa.atoll --jobs 1 --cache C --json > ka.json
    python benchmarks/mutate_specs.py mi.json ka.json [--out benchmarks/mutate_specs.md]

Per spec: the score, the counts per status, the run's time, the table per
rule, and every survivor and unobserved mutant as its one-line diff. The
part of the page after the line ``<!-- judged by hand -->`` (why each
survivor is judged harmless) is kept as it is.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

MARK = "<!-- judged by hand -->"
COLUMNS = ("killed", "survived", "unobserved", "equivalent", "not compiling")


def pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _config(c: dict) -> str:
    return f"{c['players']} players" + "".join(f", {k}={v}" for k, v in c["options"].items())


def section(rep: dict, hint: str = "") -> list[str]:
    t = rep["totals"]
    b = rep["budget"]
    configs = "; ".join(f"{c['players']} players" + "".join(f", {k}={v}" for k, v in c["options"].items())
                        for c in rep["configurations"])
    out = [f"## {rep['spec']}", ""]
    if rep.get("partial"):   # a run cut short: the records its cache holds
        out += [f"**Partial run**: {rep['partial']}; the counts and scores below are over those only.", ""]
    counted = t["killed"] + t["survived"] + t["unobserved"] + t["timed out"] + t["error"]
    others = rep.get("other_configurations") or []
    out += [
           f"- **score {pct(rep['score'])}** ({t['killed']} killed of {counted}: every mutant not shown "
           f"equivalent nor refused by the compiler; {t['unobserved']} unobserved, {t['survived']} "
           f"survived, {t['timed out'] + t['error']} timed out or failed, all counted as not killed); "
           f"over the {t['killed'] + t['survived']} killed or survived: {pct(rep.get('observed_score'))}",
           f"- {rep['run']} of {rep['generated']} mutants: " + ", ".join(f"{t[k]} {k}" for k in COLUMNS)
           + f", {t['timed out']} timed out, {t['error']} failed",
           f"- configuration: {configs}"
           + (f"; a mutant not killed there is checked in up to {min(rep['other_configurations_per_mutant'], len(others))} of "
              f"the {len(others)} other configurations of the matrix where its seeded games play otherwise "
              f"({'; '.join(_config(c) for c in others)})" if others else "")
           + f"; budget: {b['games']} games per property, z3 "
           f"{b['timeout_ms'] / 1000:g} s per query, at most {b['mutant_limit_s']:g} s per mutant",
           (f"- time: {rep['seconds']:.0f} s for the run" if not rep.get("partial") else "- time: the run was cut")
           + f"; the mutants' own checks {sum(m['seconds'] for m in rep['mutants']):.0f} s in all, each as "
           f"measured when it ran (the original's checks: "
           f"{rep['baseline']['seconds']:.0f} s{', from the cache' if rep['baseline']['cached'] else ''}); "
           f"{sum(1 for m in rep['mutants'] if m['cached'])} mutants read back from the cache"
           + (f"; {hint}" if hint else ""),
           "",
           "| rule | mutants | killed | surv. | unobs. | equiv. | n/c | t/o | score | cites |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rep["rules"]:
        out.append(f"| {cell(r['rule'])} | {r['mutants']} | {r['killed']} | {r['survived']} | "
                   f"{r['unobserved']} | {r['equivalent']} | {r['not compiling']} | "
                   f"{r['timed out'] + r['error']} | {pct(r['score'])} | {cell(', '.join(r['cites']))} |")
    out.append(f"| **all rules** | {t['mutants']} | {t['killed']} | {t['survived']} | {t['unobserved']} | "
               f"{t['equivalent']} | {t['not compiling']} | {t['timed out'] + t['error']} | "
               f"**{pct(rep['score'])}** | |")
    for status, title in (("survived", "Survivors"), ("unobserved", "Unobserved"),
                          ("timed out", "Timed out"), ("error", "Failed inside atoll")):
        ms = [m for m in rep["mutants"] if m["status"] == status]
        if not ms:
            continue
        out += ["", f"### {title} ({len(ms)})", ""]
        for m in ms:
            diff = " / ".join(m["diff"][:2])
            where = m.get("exercised_in") or []
            out.append(f"- #{m['id']} {cell(m['rule'])} ({cell(', '.join(m['cites'])) or 'no citation'}): "
                       f"{cell(m['what'])}: `{diff}`" + (f" ({cell(m['reason'])})" if status != "survived"
                                                         and m["reason"] else "")
                       + (f"; plays otherwise in: {'; '.join(_config({'players': n, 'options': o}) for n, o in where)}"
                          if status == "survived" and where else ""))
    return out + [""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", help="JSON reports of atoll mutate")
    ap.add_argument("--out", default=str(Path(__file__).with_name("mutate_specs.md")))
    args = ap.parse_args(argv)
    out = Path(args.out)
    kept = ""
    if out.exists() and MARK in out.read_text(encoding="utf-8"):
        kept = out.read_text(encoding="utf-8").split(MARK, 1)[1]
    lines = ["# `atoll mutate` on the shipped games", "",
             "Written by `benchmarks/mutate_specs.py` from the `--json` reports of",
             "`atoll mutate SPEC --jobs 1 --cache DIR` with the default budget (how to read it:",
             "docs/verify.md, \"Mutation testing\"). The score is killed over every mutant not",
             "shown equivalent (the same lowered code in every configuration of the matrix) nor",
             "refused by the compiler: survived, unobserved, timed out and failed count as not killed.", ""]
    for path in args.reports:
        lines += section(json.loads(Path(path).read_text(encoding="utf-8")))
    out.write_text("\n".join(lines) + "\n" + MARK + (kept or "\n"), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
