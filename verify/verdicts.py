"""The fixed vocabulary of verdicts, and what each expectation accepts."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

PROVED = "PROVED"
VIOLATED = "VIOLATED"
WITNESS_FOUND = "WITNESS FOUND"
NO_WITNESS = "NO WITNESS"
UNKNOWN = "UNKNOWN"
# The verdicts of a worked example (`example`): every step did as written, or one did not.
PASSED = "PASSED"
FAILED = "FAILED"


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
    "passes": lambda v: v == PASSED,   # an example (it has no `expect` word of its own)
}

# With no `expect`, a property expects to hold (or, for a search, to find).
DEFAULT_EXPECTATION = {"theorem": "proved", "witness": "witness", "well_defined": "proved",
                       "invariant": "holds", "action_invariant": "holds",
                       "deadlock_free": "holds", "terminates": "holds", "reachable": "witness",
                       "almost_surely": "proved", "probability": "proved", "expectation": "proved",
                       "example": "passes"}


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
    description: str = ""             # the property's summary in the spec

    @property
    def ok(self) -> bool:
        return EXPECTATIONS[self.expected](self.verdict)

    def to_json(self) -> dict:
        return {"property": self.property, "kind": self.kind, "method": self.method,
                "players": self.players, "options": self.options, "verdict": self.verdict,
                "expected": self.expected, "ok": self.ok, "seconds": round(self.seconds, 3),
                "detail": self.detail, "counterexample": self.counterexample,
                "description": self.description}


# ---------------------------------------------------------------- what a verdict rests on

_Z3_GROUNDS = {
    ("theorem", PROVED): "z3: no value of the binders in their domains makes the body false",
    ("theorem", VIOLATED): "z3: the input shown makes the body false",
    ("well_defined", PROVED): "z3: over the binders' domains some case always applies, and "
                              "cases that overlap agree",
    ("well_defined", VIOLATED): "z3: the input shown has no case, or two that disagree",
    ("witness", WITNESS_FOUND): "z3: the values shown satisfy the body",
    ("witness", NO_WITNESS): "z3: no value of the binders in their domains satisfies the body",
}


def with_evidence(kind: str, method: str, verdict: str, detail) -> dict:
    """The detail with its ``evidence`` entry: the checkers by search and
    play fill it in themselves; a z3 verdict gets what z3 established."""
    detail = dict(detail or {})
    if "evidence" in detail:
        return detail
    if method == "z3 abstraction" and verdict == PROVED:
        detail["evidence"] = {"z3": "z3: over an abstraction of the state (collections known by "
                                    "their size), no action leaves the measure as high, and the "
                                    "measure starts at the bound shown"}
    elif method.startswith("exact enumeration"):
        detail["evidence"] = {"exact": _exact_grounds(detail, verdict)}
    elif method == "enumeration":
        n = (detail.get("enumerated") if detail else None)
        detail["evidence"] = {"z3": (f"every one of the {_n(n)} inputs checked in Python, as the model "
                                     "evaluates the body" if n is not None else
                                     "the input shown, checked in Python, makes the body false")}
    elif (kind, verdict) in _Z3_GROUNDS:
        detail["evidence"] = {"z3": _Z3_GROUNDS[kind, verdict]}
    else:
        detail["evidence"] = {"z3": "no answer: " + str(detail.get("reason", "see the detail"))}
    return detail


def _exact_grounds(detail: dict, verdict: str) -> str:
    """What an exact probability or expectation rests on."""
    if verdict == UNKNOWN:
        return "no answer: " + str(detail.get("reason", "see the detail"))
    if "outcomes" in detail:
        given = f" ({detail['given']})" if detail.get("given") else ""
        return (f"exact: every one of the {_n(detail['outcomes'])} outcomes of the draws "
                f"weighed with fractions{given}")
    stopped = "; ".join(f"{why}: {p}" for why, p in detail.get("stopped", {}).items())
    return (f"exact: every line of play along the {actions(detail['actions'])} named followed, "
            f"chance outcomes weighed with fractions ({_states(detail['positions'])}, "
            f"{_n(detail['chance events'])} chance events; where play stopped: {stopped})")


def _n(x: int) -> str:
    return f"{x:,}"


def actions(k: int) -> str:
    return f"{k} action{'s' * (k != 1)}"


def _states(k: int) -> str:
    return f"{_n(k)} state{'s' * (k != 1)}"


def evidence_text(detail) -> str:
    """One line on what a verdict rests on, from its detail's ``evidence``."""
    ev = (detail or {}).get("evidence") or {}
    parts = []
    if "example" in ev:
        parts.append(ev["example"])
    if "z3" in ev:
        parts.append(ev["z3"])
    if "exact" in ev:
        parts.append(ev["exact"])
    s = ev.get("search")
    if s:
        if s["complete"]:
            reach = "the whole game"
        elif s.get("stopped") == "violated":
            reach = "stopped at the first state found"
        elif s.get("wide setup"):
            reach = "not through the setup's chance events"
        elif s["depth"] < 0:
            reach = "not even the first actions"
        else:
            reach = f"every play of at most {actions(s['depth'])}"
        stuck = f" ({_n(s['stuck'])} with no legal action and no ending)" if s.get("stuck") else ""
        met = f" ({_n(s['states met'])} met)" if s.get("states met", s["states"]) > s["states"] else ""
        parts.append(f"search from the start: {_states(s['states'])} searched{met}, "
                     f"{_n(s['decision states'])} where a player moves{stuck}, {reach}")
    s = ev.get("sampled setups")
    if s:
        reach = "stopped at the state found" if s.get("stopped") else \
            f"every play of at most {actions(s['depth'])} from each"
        parts.append(f"search from {s['setups']} sampled setup{'s' * (s['setups'] != 1)}: "
                     f"{_states(s['decision states'])} "
                     f"where a player moves, {reach}")
    s = ev.get("sampled positions")
    if s:
        lo, hi = max(s["depth"] or 0, 0), max(s.get("deepest") or 0, 0)
        stop = "stopped at the state found" if s.get("stopped") else \
            f"{lo} to {hi} decisions deep" if lo != hi else f"{lo} decision{'s' * (lo != 1)} deep from each"
        parts.append(f"search from {s['positions']} positions sampled along {s['games']} random games "
                     f"(at most {s['chance sample']} outcomes of each chance event): "
                     f"{_states(s['decision states'])} where a player moves, {stop}")
    g = ev.get("games")
    if g:
        cut = []
        if g.get("cut at the cap"):
            cut.append(f"{g['cut at the cap']} cut at {_n(g['cap'])} actions")
        if g.get("cut by the time budget"):
            cut.append(f"{g['cut by the time budget']} cut by the time budget")
        endings = ", ".join(f"{k} {v}" for k, v in g["endings"].items()) or "none"
        parts.append(f"{g['played']} games ({g['uniform']} uniformly random, {g['steered']} "
                     f"steered by hypothesis), {_n(g['actions'])} actions, "
                     f"{round(100 * g['random choices'])}% of choices random, "
                     f"{_n(g['distinct states'])} distinct states"
                     + (f" ({'; '.join(cut)})" if cut else "") + f"; endings: {endings}"
                     + (f"; never reached: {', '.join(g['endings not reached'])}"
                        if g.get("endings not reached") else ""))
    return "; ".join(parts)
