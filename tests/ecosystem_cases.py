"""The games the ecosystem adapters are tested on (tests/test_pettingzoo.py,
tests/test_openspiel.py): every shipped spec (games and variants) at its
smallest player count, the modes of a game that change its flow, and every
valid spec of tests/good at the player counts its header lists.
benchmarks/ecosystem.py runs the same checks on every player count."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from atoll.compiler.pipeline import compile_spec
from helpers import ROOT, SPEC

GOOD = ROOT / "tests" / "good"
# Modes that change the flow (other phases, teams), as (spec, players, options).
MODES = [(SPEC / "masterislands.atoll", 3, {"mode": "corsair"}),
         (SPEC / "masterislands.atoll", 4, {"mode": "cooperative"})]


def good_counts(path: Path) -> list[int]:
    """The player counts of a tests/good spec's ``# players:`` header line."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#\s*players:\s*(.*)$", line)
        if m:
            return [int(x) for x in m.group(1).split(",")]
    return [compile_spec(path).program.player_range[0]]


def is_xfail(path: Path) -> bool:
    return any(line.startswith("# xfail:") for line in path.read_text(encoding="utf-8").splitlines()
               if line.startswith("#"))


def cases(all_counts: bool = False) -> list:
    out = []
    for path in sorted(SPEC.rglob("*.atoll")):
        lo, hi = compile_spec(path).program.player_range
        for n in range(lo, (hi if all_counts else lo) + 1):
            out.append(pytest.param(path, n, {}, id=f"{path.stem}-{n}p"))
    for path, n, options in MODES:
        out.append(pytest.param(path, n, options, id=f"{path.stem}-{n}p-" + "-".join(options.values())))
    for path in sorted(GOOD.glob("*.atoll")):
        if is_xfail(path):
            continue
        for n in good_counts(path):
            out.append(pytest.param(path, n, {}, id=f"good-{path.stem}-{n}p"))
    return out
