"""Invariants proved by induction with z3 (issue 14, item 2): the base
(after setup, every outcome) and every step (actions, phase entries, `auto`)
from any state of the declared types where the invariant holds; `assuming`
strengthens the step with other invariants, which must hold jointly."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import atoll
from atoll.cli import main
from atoll.compiler import pipeline
from atoll.verify.induction import check_induction

ROOT = Path(__file__).parent.parent
CARDS = '''game g { title: "G" players: 2 }
state {
  pile: bag[int] = bag([1, 2, 3, 4, 5, 6]) visible nobody "pile"
  player hand: list[int] = [] visible owner "hand"
  discards: list[int] = [] visible all "discards"
  player pts: int = 0 visible all "points"
}
setup { for p in players { deal 2 from pile to hand[p] } }
flow { round { turns in seats: go } }
phase go "go" {
  action take() "take" when size(pile) > 0 and size(hand[me]) < 3 {
    draw c from pile
    hand[me] = hand[me] + [c]
    end phase
  }
  action play(c: int in hand[me]) "play" {
    hand[me] = remove(hand[me], c)
    discards = discards + [c]
    pts[me] = pts[me] + 1
    if pts[me] >= 5 { win [me] }
    end phase
  }
  action pass() "pass" when size(pile) == 0 and size(hand[me]) == 0 { tie }
}
property conserved "six cards" invariant size(pile) + size(discards) + sum(size(hand[p]) for p in players) == 6
property hands_small "at most three" invariant all(size(hand[p]) <= 3 for p in players)
property points_are_discards "each point is a discard" invariant sum(pts[p] for p in players) == size(discards)
property discards_bounded "at most six discards" invariant size(discards) <= 6
property discards_bounded_by_conservation "at most six discards" invariant size(discards) <= 6 assuming conserved
'''


def outcome(tmp_path, text, prop, players=2):
    p = tmp_path / "g.atoll"
    p.write_text(text)
    comp = pipeline.compile_spec(p)
    game = pipeline.instantiate(comp, players, {})
    return check_induction(comp.program, game, comp.program.properties[prop], 20_000)


@pytest.mark.parametrize("prop", ["conserved", "hands_small", "points_are_discards"])
def test_inductive_invariants_are_proved(tmp_path, prop):
    kind, detail = outcome(tmp_path, CARDS, prop)
    assert kind == "proved", detail
    assert detail["steps"] == ["take", "play", "pass"]


def test_a_counterexample_to_induction_shows_the_step_and_strengthening_proves_it(tmp_path):
    kind, cti = outcome(tmp_path, CARDS, "discards_bounded")
    assert kind == "not inductive"
    assert cti["step"] == "play" and cti["breaks"] == "discards_bounded"
    assert (cti["before"]["discards"], cti["after"]["discards"]) == ("6 items", "7 items")
    kind, detail = outcome(tmp_path, CARDS, "discards_bounded_by_conservation")
    assert kind == "proved" and detail["with"] == ["conserved"]


def test_a_false_invariant_is_never_proved(tmp_path):
    """Each planted bug makes the invariant false in some reachable state:
    induction must not prove it (play then finds the violation)."""
    bugs = {
        "conserved": ("hand[me] = hand[me] + [c]", "hand[me] = hand[me] + [c, c]"),
        "hands_small": ("size(hand[me]) < 3", "size(hand[me]) < 4"),
        "points_are_discards": ("pts[me] = pts[me] + 1", "pts[me] = pts[me] + 2"),
    }
    for prop, (old, new) in bugs.items():
        assert old in CARDS
        kind, _ = outcome(tmp_path, CARDS.replace(old, new), prop)
        assert kind == "not inductive", prop


def test_a_false_base_is_caught(tmp_path):
    kind, cti = outcome(tmp_path, CARDS.replace("deal 2 from pile", "deal 3 from pile")
                        .replace("size(hand[p]) <= 3", "size(hand[p]) <= 2"), "hands_small")
    assert kind == "not inductive" and cti["step"] == "setup"


def test_what_the_flow_changes_gives_no_argument(tmp_path):
    text = CARDS + 'property rounds "rounds" invariant current_round >= 0\n'
    kind, reason = outcome(tmp_path, text, "rounds")
    assert kind == "unknown" and "round counter" in reason


def test_the_verdict_says_what_it_rests_on(tmp_path, capsys):
    p = tmp_path / "g.atoll"
    p.write_text(CARDS)
    main(["verify", str(p), "--json"])
    rs = {r["property"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    r = rs["conserved"]
    assert r["verdict"] == "PROVED" and r["method"].startswith("z3 induction")
    assert "by induction" in r["detail"]["evidence"]["z3"]
    r = rs["discards_bounded"]   # not inductive alone: play decides, and the note says why
    assert r["verdict"].startswith(("NO VIOLATION", "HOLDS", "PROVED"))
    assert "not inductive" in r["detail"]["evidence"]["z3"] and "`play`" in r["detail"]["evidence"]["z3"]


def test_assuming_names_other_invariants(tmp_path):
    with pytest.raises(atoll.SpecError) as e:
        p = tmp_path / "g.atoll"
        p.write_text(CARDS + 'property x "x" invariant size(discards) <= 6 assuming conservd\n')
        pipeline.compile_spec(p)
    assert "A0101" in str(e.value) and "did you mean `conserved`" in str(e.value)


def test_shipped_invariants_proved_by_induction():
    """Kanaloa's card count (with the hand limit) and the discards bound
    (assuming it), and three of MasterIslands'."""
    want = {("kanaloa", 3): ["cards_conserved", "discards_within_the_cards"],
            ("masterislands", 2): ["hands_within_three", "fleets_keep_their_galleons", "idle_counts_turns"]}
    for (name, n), props in want.items():
        comp = pipeline.compile_spec(ROOT / "spec" / f"{name}.atoll")
        game = pipeline.instantiate(comp, n, {})
        for prop in props:
            kind, detail = check_induction(comp.program, game, comp.program.properties[prop], 20_000)
            assert kind == "proved", (name, prop, detail)
