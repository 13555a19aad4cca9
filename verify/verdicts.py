"""The fixed vocabulary of verdicts, and what each expectation accepts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

PROVED = "PROVED"
VIOLATED = "VIOLATED"
WITNESS_FOUND = "WITNESS FOUND"
NO_WITNESS = "NO WITNESS"
UNKNOWN = "UNKNOWN"


def holds_up_to(k: int) -> str:
    return f"HOLDS UP TO {k}"


def no_violation_in(n: int) -> str:
    return f"NO VIOLATION IN {n} GAMES"


def is_holding(verdict: str) -> bool:
    return verdict == PROVED or verdict.startswith("HOLDS UP TO") or verdict.startswith("NO VIOLATION")


# What an author may write after `expect`, and the verdicts it accepts.
EXPECTATIONS = {
    "proved": lambda v: v == PROVED,
    "holds": is_holding,
    "violated": lambda v: v == VIOLATED,
    "witness": lambda v: v == WITNESS_FOUND,
    "no_witness": lambda v: v == NO_WITNESS,
    "unknown": lambda v: v == UNKNOWN,
}

# With no `expect`, a property expects to hold (or, for a search, to find).
DEFAULT_EXPECTATION = {"theorem": "proved", "witness": "witness", "well_defined": "proved",
                       "invariant": "holds",
                       "deadlock_free": "holds", "terminates": "holds", "reachable": "witness"}


@dataclass
class Result:
    property: str
    kind: str
    method: str
    players: Optional[int]
    options: dict
    verdict: str
    expected: str
    seconds: float = 0.0
    detail: object = None
    counterexample: object = None
    cites: tuple = field(default_factory=tuple)
    axes: tuple = field(default_factory=tuple)   # the options that tell configurations apart
    traceback: Optional[str] = None   # when a checker failed internally (printed by `--debug`)

    @property
    def ok(self) -> bool:
        return EXPECTATIONS[self.expected](self.verdict)

    def to_json(self) -> dict:
        return {"property": self.property, "kind": self.kind, "method": self.method,
                "players": self.players, "options": self.options, "verdict": self.verdict,
                "expected": self.expected, "ok": self.ok, "seconds": round(self.seconds, 3),
                "detail": self.detail, "counterexample": self.counterexample}
