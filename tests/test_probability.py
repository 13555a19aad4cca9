"""Exact probabilities and expectations, chance events in traces and play,
and phase variables before their phase starts (issue 18, items 2, 5 and 7).

The game is tests/good/harbour_dice.atoll (our own); every value it states
is computed here again, independently, by brute force over the ordered
rolls, and each stated value changed must turn the verdict to VIOLATED.
"""
from __future__ import annotations

import io
import json
import re
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

import atoll
from atoll.cli import main
from atoll.compiler import names as N
from atoll.verify import chance

GOOD = Path(__file__).parent / "good"
HARBOUR = GOOD / "harbour_dice.atoll"
CHANCE_PROPS = ("squall", "higher_die", "tide", "two_rolls_lost", "one_roll_then_stop")


def verify(capsys, path, *args) -> dict:
    main(["verify", str(path), "--json", *args])
    out = json.loads(capsys.readouterr().out)
    return {r["property"]: r for r in out["results"]}


def stated(prop: str) -> Fraction:
    m = re.search(rf"property {prop}\b.*?\)\s*==\s*(\d+)/(\d+)", HARBOUR.read_text(), re.S)
    return Fraction(int(m.group(1)), int(m.group(2)))


# ---------------------------------------------------------------- the values, by brute force

ROLLS = [tuple(sorted(r)) for r in product(range(1, 7), repeat=2)]   # 36 ordered rolls
TIDES = [0, 0, 0, 1]


def brute_two_rolls_lost() -> Fraction:
    """roll, keep the higher die, roll: the progress is 0 where play stops."""
    lost = Fraction(0)
    for r1 in ROLLS:
        if r1[0] == r1[1]:
            lost += Fraction(1, 36)          # a squall on the first roll
            continue
        if r1[1] >= 5:                       # the distance is covered: no second roll
            continue
        for r2 in ROLLS:
            if r2[0] == r2[1]:
                lost += Fraction(1, 36 * 36)
    return lost


def brute_one_roll_then_stop() -> Fraction:
    total = Fraction(0)
    for r in ROLLS:
        if r[0] == r[1]:
            continue                          # the boat stays at 0
        for t in TIDES:
            total += Fraction(min(5, r[1] + t), 36 * 4)
    return total


def test_each_stated_value_agrees_with_brute_force():
    assert stated("squall") == Fraction(sum(r[0] == r[1] for r in ROLLS), 36)
    no_double = [r for r in ROLLS if r[0] != r[1]]
    assert stated("higher_die") == Fraction(sum(r[1] for r in no_double), len(no_double))
    assert stated("tide") == Fraction(TIDES.count(1), len(TIDES))
    assert stated("two_rolls_lost") == brute_two_rolls_lost()
    assert stated("one_roll_then_stop") == brute_one_roll_then_stop()


def test_the_chance_properties_are_proved_exactly(capsys):
    rs = verify(capsys, HARBOUR)
    for p in CHANCE_PROPS:
        r = rs[p]
        assert r["verdict"] == "PROVED", (p, r)
        assert r["method"].startswith("exact enumeration"), r
        assert "exact:" in json.dumps(r["detail"]["evidence"])
    # grouped outcomes: two dice are 21 rolls, not 36
    assert rs["squall"]["detail"]["outcomes"] == 21
    # conditioning is said: the filter keeps 5/6 of the draws
    assert rs["higher_die"]["detail"]["given"].startswith("the filters keep 5/6")
    # along play: where each line stopped, with its probability (a kept 5 or 6 forbids the second roll)
    stops = rs["two_rolls_lost"]["detail"]["stopped"]
    assert stops["`roll_dice()` was not legal"].startswith("1/2")
    assert rs["one_roll_then_stop"]["detail"]["expected value"].startswith("133/36")
    assert rs["ends"]["verdict"] == "PROVED"   # termination with probability 1


@pytest.mark.parametrize("prop", CHANCE_PROPS)
def test_a_changed_value_is_violated_with_the_value_computed(tmp_path, capsys, prop):
    text = HARBOUR.read_text()
    q = stated(prop)
    wrong = q + Fraction(1, 1000)
    old = f"== {q.numerator}/{q.denominator}"
    block = re.search(rf"property {prop}\b.*?{re.escape(old)}", text, re.S)
    mutated = text[:block.start()] + block.group(0).replace(old, f"== {wrong.numerator}/{wrong.denominator}") \
        + text[block.end():]
    p = tmp_path / "h.atoll"
    p.write_text(mutated)
    r = verify(capsys, p, "--property", prop)[prop]
    assert r["verdict"] == "VIOLATED"
    assert r["counterexample"]["computed"].startswith(f"{q.numerator}/{q.denominator}") or \
        r["counterexample"]["computed"] == str(q.numerator)


SMALL = '''game g { title: "G" players: 2 }
state { x: int = 0 visible all "x" }
flow { round { turns in seats: go } }
phase go "go" {
  action a() "a" { roll d from dice(2, 6)  x = x + d[0]  end phase }
  action b(k: int in [1, 2]) "b" { x = k  win [me] }
}
'''


def one(tmp_path, capsys, prop: str, *args) -> dict:
    p = tmp_path / "s.atoll"
    p.write_text(SMALL + prop + "\n")
    return next(iter(verify(capsys, p, *args).values()))


def test_bounds_compare_exactly(tmp_path, capsys):
    assert one(tmp_path, capsys, 'property p "p" probability(1 in r for r in dice(2, 6)) >= 11/36')["verdict"] == "PROVED"
    assert one(tmp_path, capsys, 'property p "p" probability(1 in r for r in dice(2, 6)) < 11/36')["verdict"] == "VIOLATED"
    assert one(tmp_path, capsys, 'property p "p" probability(1 in r for r in dice(2, 6)) <= 10/36')["verdict"] == "VIOLATED"
    assert one(tmp_path, capsys, 'property p "p" expectation(r[0] + r[1] for r in dice(2, 6)) == 7')["verdict"] == "PROVED"
    assert one(tmp_path, capsys, 'property p "p" expectation(r[0] - r[1] for r in dice(2, 6)) == -35/18')["verdict"] == "PROVED"


def test_each_draw_is_uniform_over_its_own_collection(tmp_path, capsys):
    """A later draw may depend on an earlier one: b is uniform over a..3
    once a is drawn (7/18), not uniform over the 6 pairs (1/2)."""
    r = one(tmp_path, capsys, 'property p "p" probability(b > a for a in between(1, 3) for b in between(a, 3)) == 7/18')
    assert r["verdict"] == "PROVED", r


def test_what_cannot_be_computed_is_unknown_never_violated(tmp_path, capsys, monkeypatch):
    r = one(tmp_path, capsys, 'property p "p" probability(r[0] > 6 for r in dice(2, 6) if r[0] > 6) == 0')
    assert r["verdict"] == "UNKNOWN" and "no combination of draws" in r["detail"]["reason"]
    r = one(tmp_path, capsys, 'property p "p" probability(v > 0 for v in list[int]()) == 0')
    assert r["verdict"] == "UNKNOWN" and "empty collection" in r["detail"]["reason"]
    monkeypatch.setattr(chance, "MAX_POSITIONS", 3)
    r = one(tmp_path, capsys, 'property p "p" expectation(x by a(), a()) == 1')
    assert r["verdict"] == "UNKNOWN" and "more than 3 positions" in r["detail"]["reason"]
    monkeypatch.setattr(chance, "MAX_OUTCOMES", 10)
    r = one(tmp_path, capsys, 'property p "p" probability(1 in r for r in dice(2, 6)) == 11/36')
    assert r["verdict"] == "UNKNOWN" and "more than 10 combinations" in r["detail"]["reason"]


def test_play_stops_where_the_player_changes_and_reads_me(tmp_path, capsys):
    """`a()` ends the turn: `b(2) * 2` is never played; x is the lower die (91/36 on average)."""
    assert Fraction(sum(r[0] for r in ROLLS), 36) == Fraction(91, 36)
    r = one(tmp_path, capsys, 'property p "p" expectation(x by a(), b(2) * 2) == 91/36')
    assert r["verdict"] == "PROVED", r
    assert list(r["detail"]["stopped"]) == ["another player was to move"]


# ---------------------------------------------------------------- events

def test_a_trace_shows_rolls_and_described_branches(tmp_path, capsys):
    p = tmp_path / "h.atoll"
    p.write_text(HARBOUR.read_text() + '\nproperty calm "x" invariant progress < 3\n')
    main(["verify", str(p), "--property", "calm"])
    out = capsys.readouterr().out
    assert re.search(r"chance: roll \[\d, \d\]\n\s+» rolled \[\d, \d\]", out), out
    assert "the position after the last step:" in out and "progress = " in out
    p.write_text(HARBOUR.read_text() + '\nproperty never_squall "x" invariant boat[0] == 0 or true\n'
                 '\nproperty no_squall "x" reachable progress == 0 and sail.thrown == [] and current_round > 1\n')
    steps = verify(capsys, p, "--property", "no_squall")["no_squall"]["detail"]["trace"]
    events = [e for s in steps for e in s.get("events", ())]
    assert events, steps


def test_play_shows_the_others_rolls_and_branches(tmp_path):
    """Over a few seeded games against random players: the others' rolls and
    the branches described in words are shown as they happen."""
    g = atoll.load(HARBOUR, players=2)
    from atoll import terminal
    text = ""
    for seed in range(12):
        out = io.StringIO()
        terminal.play(g, 0, seed, io.StringIO("1\n" * 200), out, auto=True)   # keep the higher die, stop
        text += out.getvalue()
    assert re.search(r"player 1: roll_dice\(\)\n\s+» rolled \[\d, \d\]", text), text
    assert re.search(r"you[^:]*: roll_dice\(\)\n\s+» rolled \[\d, \d\]", text), text
    assert "» a double: a squall takes the turn's progress" in text
    assert "» the boat reaches the harbour" in text


SECRET = '''game g { title: "G" players: 2 }
state { player seen: list[int] = [] visible owner "x"  n: int = 0 visible all "n" }
flow { round { turns in seats: go } }
phase go "go" {
  action a() "a" {
    roll d from dice(2, 6) visible SEEN
    seen[me] = d
    n = n + 1
    if n > 3 { win [me] }
    end phase
  }
}
'''


@pytest.mark.parametrize("seen", ["owner", "nobody", "all"])
def test_who_sees_a_roll_in_play(tmp_path, seen):
    p = tmp_path / "s.atoll"
    p.write_text(SECRET.replace("SEEN", seen))
    g = atoll.load(p, players=2)
    st = g.new_initial_state(seed=1)
    st.apply_action(st.legal_actions()[0])          # player 0 rolls
    assert st.events() and st.events()[0].startswith("rolled")   # a designer's trace sees it
    mine, theirs = st.events(viewer=0, actor=0), st.events(viewer=1, actor=0)
    assert bool(mine) == (seen != "nobody")
    assert bool(theirs) == (seen == "all")


def test_what_a_draw_took_is_not_told_to_players(tmp_path):
    p = tmp_path / "d.atoll"
    p.write_text('''game g { title: "G" players: 2 }
state { deck: bag[int] = bag([1, 2, 3, 4]) visible nobody "d"  player hand: list[int] = [] visible owner "h" }
flow { round { turns in seats: go } }
phase go "go" {
  action take() "t" when size(deck) > 0 { draw c from deck  hand[me] = hand[me] + [c]  end phase }
  action pass() "p" when size(deck) == 0 { win [me] }
}
''')
    g = atoll.load(p, players=2)
    st = g.new_initial_state(seed=1)
    st.apply_action(st.legal_actions()[0])
    assert st.events()[0].startswith("drew ")
    assert st.events(viewer=0, actor=0) == [] and st.events(viewer=1, actor=0) == []
    ex = g.new_initial_state(seed=1, chance="explicit")
    ex.apply_action(ex.legal_actions()[0])
    assert ex.chance_kind() == "draw" and ex.events() == []   # not finished yet


# ---------------------------------------------------------------- phase variables

def test_phase_variables_hold_their_start_value_before_the_phase_starts():
    g = atoll.load(HARBOUR, players=2)
    st = g.new_initial_state(seed=0, chance="explicit")
    i = g.layout.names.index("sail.thrown")
    assert st.S[i] == ()
    assert g.ns[N.prop("thrown_is_a_roll")](st.S) is True
    # a start value that reads the state has none before its phase starts
    first = len(g.layout.names) - len(g.info["phase_initial"])
    assert g.info["phase_initial"][i - first] == ()


def test_a_start_value_that_reads_the_state_waits_for_the_phase(tmp_path):
    p = tmp_path / "h.atoll"
    p.write_text(HARBOUR.read_text().replace("thrown: list[int] = []", "thrown: list[int] = [progress]"))
    g = atoll.load(p, players=2)
    i = g.layout.names.index("sail.thrown")
    first = len(g.layout.names) - len(g.info["phase_initial"])
    assert g.info["phase_initial"][i - first] is None
    assert g.new_initial_state(seed=0).S[i] == (0,)   # given when the phase starts
