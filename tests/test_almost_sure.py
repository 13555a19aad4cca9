"""`terminates with probability 1` (issue 18, item 3): decided over the
whole reachable graph; a search that cannot meet every state is UNKNOWN."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import atoll
from atoll.cli import main
from atoll.verify import almost_sure

GOOD = Path(__file__).parent / "good" / "first_six.atoll"


def verify(capsys, path, *args) -> dict:
    main(["verify", str(path), "--json", *args])
    out = json.loads(capsys.readouterr().out)
    return {r["property"]: r for r in out["results"]}


def test_a_game_that_may_never_end_ends_with_probability_1(capsys):
    r = verify(capsys, GOOD)["ends"]
    assert (r["verdict"], r["method"]) == ("PROVED", "exhaustive search")
    assert r["detail"]["within"] == 2   # throw, then the six
    el = r["detail"]["expected length"]
    assert el["ended"] == el["games"] and el["ci95"][0] <= el["mean"] <= el["ci95"][1]


def test_players_who_can_pass_for_ever_violate_it(capsys):
    r = verify(capsys, GOOD, "--option", "waiting=true")["ends_if_nobody_waits"]
    assert r["verdict"] == "VIOLATED" and r["ok"]
    assert "keep the game going for ever" in r["counterexample"]["problem"]


def test_a_stuck_game_does_not_end(tmp_path, capsys):
    p = tmp_path / "s.atoll"
    p.write_text(GOOD.read_text().replace("when waiting\n", "when false\n")
                 .replace("if d[0] == 6 {\n      win [me]\n    }\n    end phase", "end phase")
                 .replace("action throw() \"Throw: a six wins.\" {", "action throw() \"Throw.\" when last == 0 {"))
    r = verify(capsys, p)["ends"]
    assert r["verdict"] == "VIOLATED"
    assert "stuck" in r["counterexample"]["problem"]


def test_a_search_that_cannot_meet_every_state_is_unknown(capsys, monkeypatch):
    monkeypatch.setattr(almost_sure, "MAX_STATES", 5)
    r = verify(capsys, GOOD)["ends"]
    assert r["verdict"] == "UNKNOWN" and "more than 5 states" in r["detail"]["reason"]


def test_only_probability_1_is_checked(tmp_path):
    p = tmp_path / "t.atoll"
    p.write_text(GOOD.read_text().replace("terminates with probability 1\n\nproperty", "terminates with probability 2\n\nproperty", 1))
    with pytest.raises(atoll.SpecError) as e:
        atoll.compile_spec(p)
    assert "A0103" in str(e.value) and "probability 1" in str(e.value)


def test_ranks_are_sound_on_a_small_graph():
    """The backward rule: a chance state needs one won outcome, a choice
    needs every choice won; a choice with none (stuck) is never won."""
    class St:
        def __init__(self, kind): self.kind = kind
        def is_terminal(self): return self.kind == "end"
        def is_chance_node(self): return self.kind == "chance"

    class G:
        order = ["a", "b", "c", "d", "e", "x"]
        state = {"a": St("choice"), "b": St("chance"), "c": St("choice"), "d": St("end"),
                 "e": St("choice"), "x": St("choice")}
        edges = {"a": [("b", 1), ("c", 2)], "b": [("d", 3), ("a", 4)], "c": [("b", 5)],
                 "e": [("e", 6), ("d", 7)], "x": []}
    rank = almost_sure._ranks(G)
    assert rank == {"d": 0, "b": 1, "c": 2, "a": 3}   # e can loop for ever; x is stuck
