"""Compare the verdict tables of two `atoll verify --json` runs (before and
after a change): every (property, players, options) row, its verdict and
whether it is as expected; and, for the checks by play, the games behind it.

    python benchmarks/compare_verdicts.py BEFORE.json AFTER.json

A verdict "NO VIOLATION IN N GAMES" names the games played, which the time
budget of play can cut on a loaded machine: two such verdicts that differ
only in N are listed apart, with the games each run did not play for lack
of time. Exit status 0 when every verdict is the same (up to those N), 1
otherwise.

With ``--evidence``, the evidence of the checks by search and play is
compared too (games, actions, distinct states, decision states, endings...):
a faster verifier must rest its verdicts on the same games and searches.
Rows whose games the time budget cut are left out of that comparison.
"""
from __future__ import annotations

import json
import re
import sys


def rows(path: str) -> dict:
    data = json.loads(open(path, encoding="utf-8").read())
    results = data["results"] if "results" in data else \
        [r for s in data["specs"] for r in s.get("results", [])]
    out = {}
    for r in results:
        key = (r["property"], r["players"], json.dumps(r["options"], sort_keys=True))
        out[key] = r
    return out


def games_cut(r: dict) -> int:
    ev = (r.get("detail") or {}).get("evidence") or {}
    g = ev.get("games") if isinstance(ev, dict) else None
    return g.get("not played (time budget)", 0) + g.get("cut by the time budget", 0) \
        if isinstance(g, dict) else 0


def compare(before: dict, after: dict) -> dict:
    same, by_games, differ = [], [], []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            differ.append((key, a and a["verdict"], b and b["verdict"]))
            continue
        if a["verdict"] == b["verdict"] and a["ok"] == b["ok"]:
            same.append(key)
            continue
        norm = lambda v: re.sub(r"IN \d+ GAMES", "IN N GAMES", v)  # noqa: E731
        if norm(a["verdict"]) == norm(b["verdict"]) and a["ok"] == b["ok"]:
            by_games.append((key, a["verdict"], games_cut(a), b["verdict"], games_cut(b)))
        else:
            differ.append((key, a["verdict"], b["verdict"]))
    return {"same": same, "games": by_games, "differ": differ}


EVIDENCE_KEYS = ("played", "uniform", "steered", "actions", "longest", "distinct states",
                 "random choices", "endings", "cut at the cap", "states", "states met",
                 "decision states", "chance states", "final states", "depth", "positions", "setups")


def _evidence(r: dict) -> dict:
    ev = (r.get("detail") or {}).get("evidence") or {}
    if not isinstance(ev, dict):
        return {}
    out = {}
    for part, d in ev.items():
        if isinstance(d, dict):
            out[part] = {k: d[k] for k in EVIDENCE_KEYS if k in d}
    return out


def compare_evidence(before: dict, after: dict) -> list:
    """The rows (both computed, no game cut by time) whose evidence differs."""
    out = []
    for key in sorted(set(before) & set(after)):
        a, b = before[key], after[key]
        if games_cut(a) or games_cut(b):
            continue
        ea, eb = _evidence(a), _evidence(b)
        for part in sorted(set(ea) | set(eb)):
            if ea.get(part) != eb.get(part):
                out.append((key, part, ea.get(part), eb.get(part)))
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    evidence = "--evidence" in argv
    argv = [a for a in argv if a != "--evidence"]
    before, after = rows(argv[0]), rows(argv[1])
    c = compare(before, after)
    shared = sum("(shared)" in r["method"] for r in after.values())
    print(f"{len(before)} rows before, {len(after)} after ({shared} shared after); "
          f"{len(c['same'])} the same verdict")
    if c["games"]:
        print(f"{len(c['games'])} differ only in the number of games played "
              "(the time budget of play; games cut or not played for lack of time):")
        for key, va, ca, vb, cb in c["games"]:
            print(f"  {key[0]} ({key[1]} players, {key[2]}): {va} [{ca} cut] -> {vb} [{cb} cut]")
    if c["differ"]:
        print(f"{len(c['differ'])} DIFFERENT verdicts:")
        for key, va, vb in c["differ"]:
            print(f"  {key[0]} ({key[1]} players, {key[2]}): {va} -> {vb}")
    bad = bool(c["differ"])
    if evidence:
        diff = compare_evidence(before, after)
        print(f"evidence: {len(diff)} differences")
        for key, part, ea, eb in diff:
            print(f"  {key[0]} ({key[1]} players, {key[2]}) {part}:\n    before {ea}\n    after  {eb}")
        bad = bad or bool(diff)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
