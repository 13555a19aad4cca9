"""Search that reaches late positions (issue 14, item 3): bounded searches
from positions sampled along random games, half of them played patiently
(no move that changes a score, when there is one), with a sample of each
chance event's outcomes; such a search finds violations but never proves."""
from __future__ import annotations

import json
from pathlib import Path

import atoll
from atoll.cli import main
from atoll.verify.explore import explore
from atoll.verify.play import sample_positions

GOOD = Path(__file__).parent / "good"
LATE = '''game late { title: "Late" players: 2 }
state {
  pile: bag[int] = bag(between(1, 12)) visible nobody "pile"
  n: int = 0 visible all "cards drawn"
  player pts: int = 0 visible all "points"
}
flow { round { turns in seats: go } }
phase go "go" {
  action tick() "draw a card" when size(pile) > 0 { draw c from pile  n = n + c - c + 1  end phase }
  action cash() "a point; two win" { pts[me] = pts[me] + 1  if pts[me] >= 2 { win [me] }  end phase }
}
score p = pts[p]
property pile_lasts "the pile never runs out (false: it can)" invariant size(pile) > 0
'''


def verify(capsys, path, *args) -> dict:
    main(["verify", str(path), "--json", *args])
    return {r["property"]: r for r in json.loads(capsys.readouterr().out)["results"]}


def test_a_late_violation_is_found_from_sampled_positions(tmp_path, capsys):
    """Twelve draws of twelve different cards: the search from the start
    cannot get there, and random play ends first; a patient game does."""
    p = tmp_path / "late.atoll"
    p.write_text(LATE)
    r = verify(capsys, p, "--games", "0")["pile_lasts"]
    assert r["verdict"] == "VIOLATED", r
    assert "sampled" in r["detail"]["search"]
    steps = r["counterexample"]["steps"]
    assert sum(1 for s in steps if s["action"] == "tick()") == 12
    # the trace replays from the start, chance outcomes included, to an empty pile
    g = atoll.load(p, players=2)
    st = g.new_initial_state(seed=r["counterexample"]["seed"], chance="explicit")
    for s in steps:
        st.apply_action(s["id"])
    assert st.S[g.layout.names.index("pile")] == ()


def test_positions_are_spread_over_games_and_include_the_end(tmp_path):
    p = tmp_path / "late.atoll"
    p.write_text(LATE)
    g = atoll.load(p, players=2)
    pos = sample_positions(g, games=2, per_game=4, seed=0)
    assert pos, "no position sampled"
    patient = [x for x in pos if x[2] == 2 * 7919]   # the second game is played patiently
    assert patient and max(x[0].S[g.layout.names.index("n")] for x in patient) == 12
    for state, prefix, seed in pos:   # each position is reached again by its prefix
        again = g.new_initial_state(seed=seed, chance="explicit")
        for aid in prefix:
            again.apply_action(aid)
        assert again == state


def test_a_sampled_search_never_counts_as_complete():
    g = atoll.load(GOOD / "first_six.atoll", players=2)
    full = explore(g, lambda st: None, 5000)
    assert full.outcome == "exhausted"
    part = explore(g, lambda st: None, 5000, chance_k=2)
    assert part.outcome == "sampled" and part.sampled


def test_the_verdict_says_what_was_searched(tmp_path, capsys):
    p = tmp_path / "late.atoll"
    p.write_text(LATE.replace("invariant size(pile) > 0", "invariant n <= 12"))
    r = verify(capsys, p, "--games", "10")["pile_lasts"]
    assert r["verdict"].startswith("NO VIOLATION")
    from atoll.verify.verdicts import evidence_text
    text = evidence_text(r["detail"])
    assert "positions sampled along 6 random games" in text and "outcomes of each chance event" in text
