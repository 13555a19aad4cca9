"""Invariants over legal actions: `invariant forall act(params): E`
(issue 14, item 1). Every legal action of that kind, listed completely, in
every position that search and play meet."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import atoll
from atoll.cli import main
from atoll.simulation import invariants

ROOT = Path(__file__).parent.parent
SPEC = '''game g { title: "G" players: 2 }
state { x: int = 0 visible all "x" }
flow { round { turns in seats: go } }
phase go "go" {
  steps: int = 0 "steps"
  action add(k: int in [1, 2, 3]) "add" cites "Adding" when x + k <= 9 {
    x = x + k
    steps = steps + 1
    if x == 9 { win [me] }
    end phase
  }
}
'''


def verify(capsys, path, *args) -> dict:
    main(["verify", str(path), "--json", *args])
    return {r["property"]: r for r in json.loads(capsys.readouterr().out)["results"]}


def test_holds_over_every_legal_action_and_names_the_one_that_breaks_it(tmp_path, capsys):
    p = tmp_path / "g.atoll"
    p.write_text(SPEC + '''
property within "within 9" invariant forall add(k): x + k <= 9 and steps == 0 and me == me
property only_ones "only ones" invariant forall add(k): k == 1
property never_three_late "no 3 once x is 7" invariant forall add(k): x < 7 or k < 3
''')
    rs = verify(capsys, p)
    assert rs["within"]["verdict"] == "PROVED"    # the search met the whole game
    r = rs["only_ones"]
    assert r["verdict"] == "VIOLATED"
    assert "may play `add(k=2)`" in r["counterexample"]["problem"]
    assert "action `add` of phase `go` (rulebook: Adding)" in r["counterexample"]["problem"]
    assert r["counterexample"]["steps"] == []      # at the start already
    assert "x = 0" in r["counterexample"]["position"]
    r = rs["never_three_late"]   # x + 3 <= 9 allows it at 6 only: x < 7 always holds when k = 3
    assert r["verdict"] == "PROVED"


def test_reads_the_acting_player(tmp_path, capsys):
    p = tmp_path / "g.atoll"
    p.write_text(SPEC + 'property first "p0 only" invariant forall add(k): me == 0\n')
    r = verify(capsys, p)["first"]
    assert r["verdict"] == "VIOLATED" and "player 1 may play" in r["counterexample"]["problem"]


def test_simulate_check_tests_them_too(tmp_path):
    p = tmp_path / "g.atoll"
    p.write_text(SPEC + 'property only_ones "only ones" invariant forall add(k): k == 1\n')
    g = atoll.load(p, players=2)
    checks = dict(invariants(g))
    st = g.new_initial_state(seed=0)
    assert checks["only_ones"](st) is False


def test_a_planted_rule_bug_in_a_shipped_game_is_caught(tmp_path, capsys):
    """MasterIslands with the player's own galleon no longer protecting its
    card (one of the audit's planted bugs): a conquest takes it."""
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    p = tmp_path / "spec" / "masterislands.atoll"
    text = p.read_text()
    assert "  q in fleet[p] or (others_galleons" in text
    p.write_text(text.replace("  q in fleet[p] or (others_galleons", "  (others_galleons"))
    r = verify(capsys, p, "--property", "conquests_are_lines_of_ten", "--games", "40")
    assert r["conquests_are_lines_of_ten"]["verdict"] == "VIOLATED"
    assert "conquer(line=" in r["conquests_are_lines_of_ten"]["counterexample"]["problem"]
