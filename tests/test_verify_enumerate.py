"""Theorems over concrete finite domains are checked input by input, in
Python; closed subterms that never end are not folded; building the z3
meaning of one property has a time limit. (Issue 18, item 4.)"""
from __future__ import annotations

import json

import pytest

from atoll.cli import main

BASE = """game e { title: "E" players: 2..2 }
state { n: int = 3 visible all }
flow { round { turns in seats: p } }
phase p { action go() { n = n - 1  end phase } }
ending over after_turn when n <= 0 => tie
const faces: list[int] = [1, 2, 3, 4, 5, 6]
const rolls: list[list[int]] = [[a, b, c, d] for a in faces for b in faces for c in faces for d in faces]
const outcomes: list[list[int]] = to_list(distinct([sorted(r) for r in rolls]))
def fact(k: int): int = match k { 0 => 1, 1 => 1, 2 => 2, 3 => 6, _ => 24 }
def weight(r: list[int]): int =
  24 / (fact(count_of(r, 1)) * fact(count_of(r, 2)) * fact(count_of(r, 3))
        * fact(count_of(r, 4)) * fact(count_of(r, 5)) * fact(count_of(r, 6)))
"""


def verify(tmp_path, capsys, props: str, *args) -> dict:
    path = tmp_path / "e.atoll"
    path.write_text(BASE + props)
    main(["verify", str(path), "--json", *args])
    out = json.loads(capsys.readouterr().out)
    assert "results" in out, out
    return {r["property"]: r for r in out["results"]}


def test_a_concrete_theorem_is_proved_by_enumeration(tmp_path, capsys):
    """126 grouped rolls of four dice against 1,296 ordered ones: it took
    z3 over 190 s and gave UNKNOWN; every input is now checked."""
    r = verify(tmp_path, capsys, "property grouped theorem forall r: list[int] in outcomes:\n"
               "  count(x for x in rolls if sorted(x) == r) == weight(r)\n")["grouped"]
    assert (r["verdict"], r["method"]) == ("PROVED", "enumeration")
    assert r["detail"]["enumerated"] == 126
    assert "126 inputs" in r["detail"]["evidence"]["z3"]


def test_a_false_concrete_theorem_shows_the_input_and_both_sides(tmp_path, capsys):
    props = ("property grouped theorem forall r: list[int] in outcomes:\n"
             "  count(x for x in rolls if sorted(x) == r) == weight(r) + (if r == [1, 1, 2, 2] then 1 else 0)\n")
    r = verify(tmp_path, capsys, props)["grouped"]
    assert (r["verdict"], r["method"]) == ("VIOLATED", "enumeration")
    cx = r["counterexample"]
    assert cx["inputs"] == {"r": "[1, 1, 2, 2]"}
    assert list(cx["values"].values()) == ["6", "7"]


def test_an_empty_domain_is_vacuous(tmp_path, capsys):
    r = verify(tmp_path, capsys, "property none theorem forall k: int in range(0): k > 5\n")["none"]
    assert r["verdict"] == "PROVED" and r["detail"]["vacuous"] == "vacuous: the domain is empty"


def test_domains_that_depend_on_each_other_or_are_too_many_go_to_z3(tmp_path, capsys):
    props = ("property dep theorem forall a: int in [1, 2], b: int in range(a): b < a\n"
             "property many theorem forall a: int in range(400), b: int in range(400): a * b >= 0\n")
    rs = verify(tmp_path, capsys, props)
    assert rs["dep"]["method"] == "z3"   # (z3 has no meaning for `range(a)` of a symbolic a: UNKNOWN)
    assert (rs["many"]["verdict"], rs["many"]["method"]) == ("PROVED", "z3")


def test_an_input_where_the_body_fails_is_reported_by_z3(tmp_path, capsys):
    """A partial operation: enumeration leaves it to z3, which names the input."""
    r = verify(tmp_path, capsys, "property idx theorem forall k: int in [0, 1, 6]: faces[k] > 0\n")["idx"]
    assert r["method"] == "z3" and r["verdict"] == "UNKNOWN"
    assert "undefined for some input" in r["detail"]["reason"] and "k=6" in r["detail"]["reason"]


def test_a_closed_subterm_that_never_ends_is_not_run_for_ever(tmp_path, capsys, monkeypatch):
    """It used to be evaluated in Python with no budget (900 million steps).
    The enumeration's budget is lowered here (the default takes seconds to
    run out): what is tested is that it runs out and gives no verdict."""
    from atoll.verify import solver
    monkeypatch.setattr(solver, "ENUMERATE_STEPS", 200_000)
    r = verify(tmp_path, capsys, "property big theorem forall k: int in [1, 2]:\n"
               "  k + sum(x * y for x in range(30000) for y in range(30000)) > 0\n")["big"]
    assert r["verdict"] == "UNKNOWN"


def test_building_the_z3_meaning_has_a_time_limit(tmp_path, capsys, monkeypatch):
    from atoll.verify import z3sem
    monkeypatch.setattr(z3sem, "BUILD_SECONDS", 0)
    r = verify(tmp_path, capsys, "property dep theorem forall a: int in between(1, 5), b: int in between(0, a):\n"
               "  sum(x[1] for x in rolls if x[0] == b) >= 0\n")["dep"]
    assert r["verdict"] == "UNKNOWN"
    assert "building the z3 meaning took more than 0 s" in json.dumps(r["detail"])
