"""Verdicts by search and play say what they rest on, and a cap, a budget or
a chance node is never taken for a counterexample (issue 10, items 5 and 9).

The checkers are called below the z3 layer (``check_by_play``), so that what
z3 can prove does not decide which of them runs."""
import json

from atoll.cli import main
from atoll.compiler import pipeline
from atoll.simulation import play_random_game
from atoll.verify import verdicts as V
from atoll.verify.play import check_by_play
from atoll.verify.runner import run
from atoll.verify.runs import PlayCheck

# An invariant that only a run of risky moves breaks. The search (a tree of
# 2^depth states) cannot reach 12 risky moves; first-move play never takes
# one; uniform play takes about half of 40.
RARE = """
game rare { players: 2..2 }
state {
  moves: int = 0
  risky: int = 0
  trail: int = 0
}
flow { round { turns in seats: move } }
phase move {
  action safe() { moves = moves + 1  trail = trail * 2  end phase }
  action risk() { moves = moves + 1  risky = risky + 1  trail = trail * 2 + 1  end phase }
}
ending calm immediately when moves >= 40 and risky < 20 => tie
ending wild immediately when moves >= 40 => tie
property careful invariant risky < 12
property sane invariant risky <= moves
"""

# The setup deals 5 of 40 cards: more deals than the search's budget.
DEALT = """
game dealt { players: 2..2 }
state {
  pile: bag[int] = bag([i for i in range(40)])
  player hand: list[int] = []
}
setup { for p in players { deal 5 from pile to hand[p] } }
flow { round { turns in seats: move } }
phase move {
  action play(c: int in hand[me]) { hand[me] = remove(hand[me], c)  end phase }
}
ending out immediately when any(size(hand[p]) == 0 for p in players) => tie
property full_hands invariant size(pile) == 40 or all(size(hand[p]) == 5 for p in players)
property dealt_once invariant size(pile) == 30
"""

# Each action draws a card and lowers `left`: the measure goes 4, 3, 2, 1, 0.
DRAWN = """
game drawn { players: 2..2 }
state {
  pile: bag[int] = bag([1, 2, 3, 4, 5, 6])
  player hand: list[int] = []
  left: int = 4
}
flow { round { turns in seats: move } }
phase move {
  action take() when left > 0 {
    left = left - 1
    draw c from pile
    hand[me] = hand[me] + [c]
    end phase
  }
}
ending over immediately when left == 0 => tie
property falls terminates by left per action
"""

# Every game ends after exactly `start` actions.
LONG = """
game long { players: 2..2 }
option start: int = 3000
state { left: int = start }
flow { round { turns in seats: move } }
phase move { action step() when left > 0 { left = left - 1  end phase } }
ending over immediately when left == 0 => tie
property falls terminates by left per action
property falls_per_turn terminates by left per turn
"""

# A turn that never ends, through ever new states: no cycle, and no end.
ENDLESS = """
game endless { players: 2..2 }
state { count: int = 0 }
flow { round { turns in seats: move } }
phase move {
  done when count < 0
  action tick() { count = count + 1 }
}
ending over immediately when count < 0 => tie
property ends terminates by 5 per turn
property small invariant count >= 0
"""


def load(tmp_path, text, name, players=2, options=None):
    p = tmp_path / f"{name}.atoll"
    p.write_text(text)
    comp = pipeline.compile_spec(p)
    return p, comp, pipeline.instantiate(comp, players, options or {})


def by_play(tmp_path, text, name, prop, games=20, seed=0, **kw):
    p, comp, game = load(tmp_path, text, name, options=kw.pop("options", None))
    return check_by_play(game, comp.program.properties[prop], games, seed, str(p), **kw)


# ---------------------------------------------------------------- item 9: play as strong as simulate

def test_a_rare_violation_under_first_moves_is_found_by_uniform_play(tmp_path):
    p, comp, game = load(tmp_path, RARE, "rare")
    chk = PlayCheck(game, comp.program.properties["careful"])
    assert chk.play(0, (), "first").outcome == "ok"            # first-move play never breaks it
    broken = sum(chk.play(s, ()).outcome == "violation" for s in range(20))
    assert broken >= 15                                        # uniform play nearly always does
    verdict, detail, cex = by_play(tmp_path, RARE, "rare", "careful", games=10)
    assert verdict == V.VIOLATED
    assert cex["problem"] == "the invariant is false in this state"
    assert [s["rule"] for s in cex["steps"]].count("risk") == 12   # shrunk: nothing but the 12
    assert len(cex["steps"]) <= 24
    again = by_play(tmp_path, RARE, "rare", "careful", games=10)   # seeded: the same answer
    assert again[2]["steps"] == cex["steps"]


def test_play_plays_simulates_games(tmp_path):
    """Game i of verify is `atoll simulate`'s game of seed `seed + i`."""
    _, comp, game = load(tmp_path, RARE, "rare")
    chk = PlayCheck(game, comp.program.properties["sane"])
    for s in (0, 7, 12):
        run = chk.play(s, ())
        state, steps, _ = play_random_game(game, s)
        assert (run.steps, run.ending) == (steps, state.ending())
        assert run.random_choices == len(run.choices) == steps


def test_the_detail_says_what_a_pass_rests_on(tmp_path):
    verdict, detail, _ = by_play(tmp_path, RARE, "rare", "sane", games=40)
    assert verdict == V.no_violation_in(50)          # 40 uniformly random, 10 steered
    ev = detail["evidence"]
    g = ev["games"]
    assert (g["played"], g["uniform"], g["steered"]) == (50, 40, 10)
    assert g["actions"] == 50 * 40 and g["longest"] == 40
    assert g["random choices"] >= 0.9 and g["distinct states"] > 1000
    assert set(g["endings"]) == {"calm", "wild"} and sum(g["endings"].values()) == 50
    assert g["endings not reached"] == []
    assert ev["search"]["decision states"] > 1000 and ev["search"]["depth"] >= 9
    text = V.evidence_text(detail)
    assert "50 games (40 uniformly random, 10 steered by hypothesis)" in text
    assert f"endings: calm {g['endings']['calm']}, wild {g['endings']['wild']}" in text or \
        f"endings: wild {g['endings']['wild']}, calm {g['endings']['calm']}" in text


def test_every_verdict_rests_on_something_in_text_and_json(tmp_path, capsys):
    p = tmp_path / "rare.atoll"
    p.write_text(RARE + "property t theorem forall n: int in between(0, 3): n + 0 == n\n")
    assert main(["verify", str(p), "--json", "--games", "8", "--property", "sane",
                 "--property", "t"]) == 0
    out = json.loads(capsys.readouterr().out)
    for r in out["results"]:
        assert r["detail"]["evidence"], r["property"]
    sane = next(r for r in out["results"] if r["property"] == "sane")
    assert sane["detail"]["evidence"]["games"]["endings"]
    main(["verify", str(p), "--games", "8", "--property", "sane", "--property", "t"])
    text = capsys.readouterr().out
    assert text.count("rests on: ") == 2 and "endings: " in text


# ---------------------------------------------------------------- item 9: the search reaches decisions

def test_search_past_a_wide_setup_checks_positions_where_players_move(tmp_path):
    """The deal alone exceeds the budget: the search from the start checks no
    position where a player moves (it used to say HOLDS UP TO 2); searches
    from sampled deals find the violation one move in."""
    verdict, detail, cex = by_play(tmp_path, DEALT, "dealt", "full_hands", games=0)
    assert detail["evidence"]["search"]["decision states"] == 0
    assert verdict == V.VIOLATED and detail["method"] == "exhaustive search"
    assert detail["evidence"]["sampled setups"]["decision states"] > 0
    steps = cex["steps"]
    assert [s["player"] for s in steps].count(-1) == 10 and steps[-1]["rule"] == "play"
    import atoll
    game = atoll.load(tmp_path / "dealt.atoll", players=2)   # the trace replays
    state = game.new_initial_state(seed=cex["seed"], chance="explicit")
    for s in steps:
        state.apply_action(s["id"])
    assert not game.ns["prop_full_hands"](state.S)


def test_a_bounded_search_that_never_left_the_deal_holds_up_to_nothing(tmp_path):
    verdict, detail, _ = by_play(tmp_path, DEALT, "dealt", "dealt_once", games=0)
    assert verdict == V.UNKNOWN and "setup's chance" in detail["reason"]
    assert detail["evidence"]["sampled setups"]["decision states"] > 0


def test_the_state_before_the_deal_is_not_checked(tmp_path):
    """A chance node is not a position: the pile before the setup's deal
    (40 cards) never breaks `size(pile) == 30`."""
    verdict, detail, _ = by_play(tmp_path, DEALT, "dealt", "dealt_once", games=5)
    assert verdict == V.no_violation_in(6)


# ---------------------------------------------------------------- item 5: false VIOLATED

def test_a_measure_is_compared_after_the_draw_it_waits_for(tmp_path):
    verdict, detail, cex = by_play(tmp_path, DRAWN, "drawn", "falls")
    assert cex is None, cex and cex["problem"]              # it said "4 then 4"
    assert verdict == V.PROVED and detail["evidence"]["search"]["complete"]
    broken = DRAWN.replace("left = left - 1\n", "left = left - (if left == 2 then 0 else 1)\n")
    verdict, _, cex = by_play(tmp_path, broken, "drawn2", "falls")
    assert verdict == V.VIOLATED                            # a real stall is still found
    assert "2 then 2" in cex["problem"]


def test_a_game_longer_than_the_old_cap_is_not_violated(tmp_path):
    """3,000 actions each: the measure's start is the cap (it used to stop at 2,000)."""
    for prop in ("falls", "falls_per_turn"):
        verdict, detail, cex = by_play(tmp_path, LONG, "long", prop, games=2, max_states=100)
        assert verdict == V.no_violation_in(3), (prop, cex and cex["problem"])
        assert detail["evidence"]["games"]["endings"] == {"over": 3}


def test_a_cap_is_never_a_counterexample(tmp_path):
    verdict, detail, cex = by_play(tmp_path, ENDLESS, "endless", "ends", games=1, max_states=100)
    assert verdict == V.UNKNOWN and cex is None
    assert "had not ended" in detail["reason"]
    assert detail["evidence"]["games"]["cut at the cap"] == 2
    verdict, detail, _ = by_play(tmp_path, ENDLESS, "endless", "small", games=3, max_states=100,
                                 play_seconds=0.0)
    assert verdict == V.no_violation_in(1)   # one game, cut by the time budget; the others unplayed
    g = detail["evidence"]["games"]
    assert g["cut by the time budget"] == 1 and g["not played (time budget)"] == 2


def test_the_runner_keeps_the_evidence(tmp_path):
    p = tmp_path / "drawn.atoll"
    p.write_text(DRAWN)
    [r] = run(str(p), games=4)
    assert r.verdict == V.PROVED and r.detail["evidence"]


def test_a_game_the_time_budget_stops_early_is_not_held_against_termination(tmp_path, monkeypatch):
    """A game stopped by the time budget before it had run as long as a game
    that ended says nothing about termination (issue 13: Isle of Skye's
    `game_ends` was UNKNOWN on a loaded machine); one stopped later still
    makes the verdict UNKNOWN."""
    from atoll.verify.runs import Run
    for cut_at, unknown in ((50, False), (500, True)):
        script = [Run(None, [0] * 100, 100, 0, "ok", ending="over"),
                  Run(None, [0] * cut_at, cut_at, 1, "cut", cut="time")]

        def fake(self, seed, choices=(), policy="uniform", stop_at=None):
            return script.pop(0) if script else Run(None, [0] * 100, 100, seed, "ok", ending="over")
        monkeypatch.setattr(PlayCheck, "play", fake)
        verdict, detail, _ = by_play(tmp_path, LONG, "long", "falls_per_turn", games=2, max_states=10)
        if unknown:
            assert verdict == V.UNKNOWN and "had not ended" in detail["reason"]
        else:
            assert verdict == V.no_violation_in(detail["games"] - 1), detail.get("reason")
            assert "not counted" in detail["cut early"]
