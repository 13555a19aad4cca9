"""Search that reaches late positions (issue 14, item 3): bounded searches
from positions sampled along random games, half of them played patiently
(no move that changes a score, when there is one), with a sample of each
chance event's outcomes; such a search finds violations but never proves."""
from __future__ import annotations

import json
from pathlib import Path

import atoll
import pytest
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


def _positions_with_actions(game, games, per_game, seed=0):
    """``sample_positions`` as it was written with Actions (the reference)."""
    import random
    from atoll.compiler.runtime import ModelError
    out = []
    for g in range(games):
        s = seed + 7919 * (g + 1)
        rng = random.Random(s)
        patient = g % 2 == 1 and game.ns.get("score") is not None
        pos = game.new_initial_state(seed=s, chance="explicit")
        ids, points = [], []
        try:
            while not pos.is_terminal() and len(ids) < 5000:
                if pos.is_chance_node():
                    a = pos.sample_chance()
                else:
                    legal = pos.legal_actions()
                    if not legal:
                        break
                    points.append(len(ids))
                    if patient:
                        before, keep = pos.scores(), []
                        for x in legal:
                            c = pos.clone()
                            try:
                                c.apply_action(x)
                                if c.scores() == before and not c.is_terminal():
                                    keep.append(x)
                            except ModelError:
                                continue
                        legal = keep or legal
                    a = legal[rng.randrange(len(legal))]
                pos.apply_action(a)
                ids.append(a.id)
        except ModelError:
            pass
        if not points:
            continue
        n = len(points)
        picks = sorted({points[min(n - 1, (i + 1) * n // per_game - 1)] for i in range(per_game)})
        pos = game.new_initial_state(seed=s, chance="explicit")
        done = 0
        for at in picks:
            for aid in ids[done:at]:
                pos.apply_action(aid)
            done = at
            out.append((pos.clone(), tuple(ids[:at]), s))
    return out


_SPECS = sorted((Path(__file__).parent.parent / "spec").glob("*.atoll")) + \
    sorted((Path(__file__).parent.parent / "spec" / "variants").glob("*.atoll")) + \
    [GOOD / "sealed_bids.atoll", GOOD / "dice_race.atoll"]


def _position(st):
    return (st.S, st.ctl, st.rng, st.outcome, st.pending, st.choosing, st.chosen, st.history)


@pytest.mark.parametrize("path", _SPECS, ids=lambda p: p.stem)
def test_positions_sampled_on_the_lean_path_are_those_sampled_with_actions(path):
    """The same positions (every part of the state, its history's ids) after
    the same action ids, the patient games included."""
    from atoll.compiler import pipeline
    comp = pipeline.compile_spec(path)
    game = pipeline.instantiate(comp, comp.program.player_range[0], {})
    lean = sample_positions(game, games=4, per_game=3, seed=1)
    ref = _positions_with_actions(game, games=4, per_game=3, seed=1)
    assert len(lean) == len(ref) and lean
    for (a, pa, sa), (b, pb, sb) in zip(lean, ref):
        assert (pa, sa) == (pb, sb)
        assert _position(a) == _position(b)
