"""compiler/check.py in detail: what every broken spec of tests/bad is told,
word for word, and type rules checked on both sides (the spec that breaks a
rule is refused with its code, the one next to it that keeps the rule is
accepted).

The messages are pinned in tests/mutation/bad_messages.json: every
diagnostic (code, line, column, message, hint) of every case. A change to a
message is a change to what a user reads: regenerate the file with
``ATOLL_UPDATE_MESSAGES=1 pytest tests/mutation/test_check_mut.py -k pinned``
and review the diff. A missing file fails; it is written only by that
command."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import atoll

TESTS = Path(__file__).resolve().parent.parent
PINNED = Path(__file__).resolve().parent / "bad_messages.json"
UPDATE = os.environ.get("ATOLL_UPDATE_MESSAGES") == "1"


def told(path: Path) -> list:
    try:
        atoll.compile_spec(path)
    except atoll.SpecError as e:
        # the checkout's folder is not part of a message's meaning
        return [[d.code, d.span.line if d.span else None, d.span.column if d.span else None,
                 d.message.replace(str(TESTS), "TESTS"), d.hint.replace(str(TESTS), "TESTS")]
                for d in e.diagnostics]
    return []


def test_pinned_messages_of_every_bad_case():
    got = {p.name: told(p) for p in sorted((TESTS / "bad").glob("*.atoll"))}
    if UPDATE:
        PINNED.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert PINNED.exists(), f"{PINNED.name} is missing: regenerate it (see the module's docstring)"
    want = json.loads(PINNED.read_text())
    assert sorted(got) == sorted(want), "a case was added or removed: regenerate and review"
    for name in want:
        assert got[name] == want[name], name


GAME = """
game g {{ title: "G" players: 2..3 }}

record Pt {{ x: int, y: int }}
enum Colour {{ red, blue }}

const k: int = 2
const xs: list[int] = [1, 2, 3]

state {{
  n: int = 0 visible all
  flag: bool = false visible all
  pts: list[Pt] = list[Pt]() visible all
  player got: int = 0 visible all
}}

flow {{ round {{ turns in seats: act }} }}

phase act "Act." {{
  action go(v: int in xs) when {guard} {{
    {body}
    end phase
  }}
}}

ending over immediately when n >= 6 => rank p by got[p] else shared

score p = got[p]
"""


def codes(tmp_path, guard="true", body="n = n + v"):
    f = tmp_path / "g.atoll"
    f.write_text(GAME.format(guard=guard, body=body))
    try:
        atoll.compile_spec(f)
    except atoll.SpecError as e:
        return [d.code for d in e.diagnostics if d.severity == "error"]
    return []


# (guard, body): accepted, and the same with one thing broken: refused with A0103
PAIRS = [
    ("n < 3", "n < false"),
    ("n <= k", "flag <= k"),
    ("flag and n > 0", "n and flag"),
    ("not flag", "not n"),
    ("n + 1 > 0", "n + flag > 0"),
    ("n - k >= 0", "flag - k >= 0"),
    ("n * 2 == 0", "n * flag == 0"),
    ("n / 2 == 0", "n / flag == 0"),
    ("n % 2 == 0", "n % flag == 0"),
    ("-n < 0", "-flag < 0"),
    ("v in xs", "flag in xs"),
    ("size(pts) == 0", "size(n) == 0"),
    ("n == k", "n == flag"),
    ("n != k", "n != flag"),
    ("flag or n > 1", "flag or n"),
]


@pytest.mark.parametrize("good, bad", PAIRS, ids=[b for _, b in PAIRS])
def test_a_guard_type_rule_both_ways(tmp_path, good, bad):
    assert codes(tmp_path, guard=good) == []
    got = codes(tmp_path, guard=bad)
    assert got and got[0] in ("A0103", "A0104", "A0105"), got


BODIES = [
    ("n = n + 1", "n = flag"),
    ("flag = n > 1", "flag = n"),
    ("got[me] = got[me] + 1", "got[me] = flag"),
    ("pts = pts + [Pt(x: 1, y: 2)]", "pts = pts + [Pt(x: 1, y: flag)]"),
    ("if flag { n = 1 }", "if n { n = 1 }"),
    ("n = size(pts)", "n = pts"),
]


@pytest.mark.parametrize("good, bad", BODIES, ids=[b for _, b in BODIES])
def test_an_effect_type_rule_both_ways(tmp_path, good, bad):
    assert codes(tmp_path, body=good) == []
    assert codes(tmp_path, body=bad), bad


RULES = """game g { title: "G" players: 2..2 }
enum Colour { red, blue }
teams = [[0], [1]]
state {
  n: int = 0 visible all
  c: Colour = red visible all
}
flow { round { turns in seats: act, other } }
phase act "Act." {
  action go() { n = n + 1  end phase }
}
phase other "Other." {
  action rest() { end phase }
}
ending over immediately when n >= 3 => tie
EXTRA
"""

# (an extra declaration, the code and the whole message of the first error)
REFUSED = [
    ('def t(): int = size(team_of(0, 1))', "A0104", "`team_of` takes one player"),
    ('def t(): int = size(team_of(true))', "A0103", "the player must be int, but this is bool"),
    ('property q theorem forall k: int in [1, 2]: k + n > 0', "A0101",
     "the property `q` cannot read the state variable `n`"),
    ('property p invariant can(go)', "A0107", "`can` is only meaningful in phases, not in the property `p`"),
    ('phase third "T." { action x() when can(rest) { end phase } }', "A0107",
     "`can(rest)` asks about an action of phase `other` from phase `third`"),
    ('phase third "T." { action x() when can(rest()) { end phase } }', "A0104",
     "`can` takes the name of one action"),
]


@pytest.mark.parametrize("extra, code, message", REFUSED, ids=[r[1] + ": " + r[2] for r in REFUSED])
def test_rules_of_calls_and_properties(tmp_path, extra, code, message):
    f = tmp_path / "g.atoll"
    f.write_text(RULES.replace("EXTRA", extra).replace("act, other", "act, other, third"
                                                        if "third" in extra else "act, other"))
    with pytest.raises(atoll.SpecError) as e:
        atoll.compile_spec(f)
    first = e.value.diagnostics[0]
    assert (first.code, first.message) == (code, message)
    f.write_text(RULES.replace("EXTRA", ""))
    atoll.compile_spec(f)   # the same spec without it is accepted


def test_an_unknown_function_gets_a_suggestion_and_teams_may_not_read_the_state(tmp_path):
    f = tmp_path / "g.atoll"
    f.write_text(RULES.replace("EXTRA", "def t(): int = sise(n)"))
    with pytest.raises(atoll.SpecError) as e:
        atoll.compile_spec(f)
    first = e.value.diagnostics[0]
    assert (first.code, first.message, first.hint) == ("A0101", "unknown function `sise`",
                                                        "did you mean `size`?")
    f.write_text(RULES.replace("EXTRA", "").replace("teams = [[0], [1]]", "teams = [[n], [1]]"))
    with pytest.raises(atoll.SpecError) as e:
        atoll.compile_spec(f)
    first = e.value.diagnostics[0]
    assert (first.code, first.message) == ("A0101", "the teams cannot read the state variable `n`")
