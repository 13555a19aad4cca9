"""Procedures (`proc`, call statements) and choices inside effects
(`choose x in D by p`): their meaning in the model, and that every reader of
effects (frame, integer bounds, the z3 abstraction and induction, the search,
mutants, docs, the adapters' labels) follows a call and waits for a choice."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.compiler import pipeline
from atoll.compiler.frame import Frame
from atoll.compiler.runtime import ModelError
from atoll.verify import verdicts as V
from atoll.verify.explore import state_key
from atoll.verify.runner import run

HARVEST = Path(__file__).parent / "good" / "harvest_procs.atoll"

BASE = """
game g { title: "G" players: 2..2 }
state {
  player n: int = 0 visible all
  player log: list[int] = [] visible all
  pool: bag[int] = bag([1, 2, 3, 4]) visible nobody
}
def others(p: Player): Player = (p + 1) % player_count
flow { round { turns in seats: play_ } }
ending over immediately when any(n[p] >= 6 for p in players) => rank p by n[p]
"""


def spec(tmp_path, body: str, name: str = "g.atoll") -> Path:
    p = tmp_path / name
    p.write_text(BASE + body)
    return p


def play_to(st, pick=lambda legal: legal[0]):
    st.apply_action(pick(st.legal_actions()))
    return st


# ---------------------------------------------------------------- procedures

def test_a_call_runs_the_body_with_its_parameters_and_touches_no_caller_local(tmp_path):
    """The procedure's `k` and `let t` are its own: the caller's `k` and `t`
    keep their values after the call (a procedure cannot clobber a local)."""
    p = spec(tmp_path, """
proc add(q: Player, k: int) { let t = k * 2  n[q] = n[q] + t }
phase play_ {
  action go(k: int in [1]) {
    let t = 5
    add(others(me), 3)
    log[me] = [k, t]
    end phase
  }
}
""")
    st = play_to(atoll.load(p).new_initial_state(0))
    assert st.S[1] == (0, 6) and st.S[2] == ((1, 5), ())


def test_nested_calls_and_the_frame_see_what_the_procedure_writes(tmp_path):
    p = spec(tmp_path, """
proc inner(q: Player) { log[q] = log[q] + [1] }
proc outer(q: Player) { inner(q) }
phase play_ { action go() { outer(me) n[me] = n[me] + 1 end phase } }
""")
    comp = pipeline.compile_spec(p)
    body = comp.program.actions["go"][1].body
    assert ("state", "log") in Frame(comp.program).written(body, "play_")
    st = play_to(atoll.load(p).new_initial_state(0))
    assert st.S[2] == ((1,), ())


def test_the_induction_follows_a_call_both_ways(tmp_path):
    """An invariant a procedure breaks is never PROVED (a call is not a no-op
    to z3), and one it keeps is proved by induction through the call."""
    body = """
proc drop(q: Player) { n[q] = n[q] - AMOUNT }
phase play_ { action go() { drop(me) n[me] = n[me] + 2 end phase } }
property non_negative invariant all(n[p] >= 0 for p in players)
"""
    kept = {r.property: r for r in run(str(spec(tmp_path, body.replace("AMOUNT", "1"), "a.atoll")),
                                       games=20)}["non_negative"]
    assert kept.verdict == V.PROVED and "induction" in kept.method, (kept.method, kept.detail)
    broken = {r.property: r for r in run(str(spec(tmp_path, body.replace("AMOUNT", "3"), "b.atoll")),
                                         games=20)}["non_negative"]
    assert broken.verdict == V.VIOLATED


def test_termination_measure_through_a_procedure(tmp_path):
    body = """
proc gain(q: Player, k: int) { n[q] = n[q] + k }
phase play_ { action go() { gain(me, STEP) end phase } }
property ends terminates by 12 - n[0] - n[1] per action
"""
    good = {r.property: r for r in run(str(spec(tmp_path, body.replace("STEP", "1"), "a.atoll")),
                                       games=20)}["ends"]
    assert good.verdict == V.PROVED, good.detail
    bad = {r.property: r for r in run(str(spec(tmp_path, body.replace("STEP", "0"), "b.atoll")),
                                      games=20)}["ends"]
    assert bad.verdict == V.VIOLATED


def test_mutants_reach_inside_a_procedure_once():
    from atoll.verify import mutants as MT
    comp = pipeline.compile_spec(HARVEST)
    text = comp.program.sources[str(HARVEST)]
    rules = {m.rule for m in MT.generate(comp.program, text, str(HARVEST))}
    assert {"proc gain", "proc plant"} <= rules


def test_docs_show_the_procedure_and_the_calls():
    from atoll.docgen import editions, rulebook
    doc = rulebook.load(HARVEST)
    lines = "\n".join(rulebook.stmt_lines(doc, doc.prog.actions["harvest"][1].body))
    assert "the procedure :atoll:`plant`" in lines and "chooses one of" in lines
    designer = editions.designer_edition(doc, editions.Context())
    assert "Procedures" in designer and "plant(p: Player, c: Crop)" in designer
    players = editions.players_edition(doc, editions.Context())
    assert "**plant** (of *p*, *c*)" in players and "One more plant of crop c" in players


# ---------------------------------------------------------------- choices inside effects

CHOICE = """
phase play_ {
  action go() {
    draw c from pool
    n[me] = n[me] + c
    choose k: int in [x for x in [1, 2, 3] if x != c] by others(me)
    n[me] = n[me] + k
    log[me] = log[me] + [c, k]
    end phase
  }
}
"""


def test_the_effect_waits_for_the_chooser_and_happens_all_at_once(tmp_path):
    g = atoll.load(spec(tmp_path, CHOICE))
    st = g.new_initial_state(3)
    before = list(st.S)
    st.apply_action(st.legal_actions()[0])
    assert st.current_player() == 1                      # the other player chooses
    assert st.S == before                                # nothing of the effect has happened yet
    opts = st.legal_actions()
    assert len(opts) == 2 and all(a.player == 1 for a in opts)
    assert st.legal_actions(player=0) == []
    drawn = [x for x in (1, 2, 3) if x not in [a.params[0] for a in opts]]
    st.apply_action(opts[-1])
    c, k = st.S[2][0]
    assert [c] == drawn or c == 4                          # the draw was not made again
    assert k == opts[-1].params[0] and st.S[1][0] == c + k
    assert st.current_player() == 1 and "player 1 chose k" in " ".join(st.events())


def test_a_choices_ids_are_computed_when_asked_for(tmp_path, monkeypatch):
    """Listing the options of a choice computes no id; applying one computes
    its own only; an id given instead of the action still selects it."""
    g = atoll.load(spec(tmp_path, CHOICE))
    st = g.new_initial_state(3)
    st.apply_action(st.legal_actions()[0])
    asked = []
    real = g._action_id
    monkeypatch.setattr(g, "_action_id", lambda *a: asked.append(a) or real(*a))
    opts = st.legal_actions()
    assert len(opts) == 2 and asked == [] and all(a._id is None for a in opts)
    twin = st.clone()
    chosen_id = opts[-1].id
    asked.clear()
    st.apply_action(opts[-1])
    assert [a[1] for a in asked] == [opts[-1].params]   # the history's id of the chosen option, no other
    twin.apply_action(chosen_id)
    assert twin.to_json() == st.to_json()


def test_a_choice_is_a_move_for_every_reader_of_actions(tmp_path):
    from atoll import render, terminal
    g = atoll.load(spec(tmp_path, CHOICE))
    st = play_to(g.new_initial_state(0))
    a = st.legal_actions()[0]
    assert render.move_label(g, a) == f"choose k = {a.params[0]}"
    assert render.action_text(g, st, a) == f"choose k = {a.params[0]}"
    assert "choice inside the effect of `go`" in terminal.why(g, st, a)
    assert str(a).startswith("player 1 chooses k = ")


def test_saves_clones_and_explicit_chance_at_a_choice(tmp_path):
    g = atoll.load(spec(tmp_path, CHOICE))
    st = g.new_initial_state(0, chance="explicit")
    st.apply_action(st.legal_actions()[0])
    assert st.is_chance_node()
    st.apply_action(st.chance_outcomes()[1][0])          # draw 2
    assert not st.is_chance_node() and st.current_player() == 1
    assert sorted(a.params[0] for a in st.legal_actions()) == [1, 3]
    back = g.state_from_json(st.to_json())
    assert back == st and [a.id for a in back.legal_actions()] == [a.id for a in st.legal_actions()]
    c = st.clone()
    c.apply_action(c.legal_actions()[0])
    assert st.current_player() == 1 and c.S[2][0] == (2, 1)
    back.apply_action(back.legal_actions()[1])
    assert back.S[2][0] == (2, 3)


def test_the_search_tells_a_waiting_choice_from_the_position_before(tmp_path):
    g = atoll.load(spec(tmp_path, CHOICE))
    st = g.new_initial_state(0, chance="explicit")
    before = state_key(g, st)
    st.apply_action(st.legal_actions()[0])
    st.apply_action(st.chance_outcomes()[0][0])
    assert st.S == g.new_initial_state(0, chance="explicit").S
    assert state_key(g, st) != before


def test_an_empty_choice_is_a_model_error_and_changes_nothing(tmp_path):
    g = atoll.load(spec(tmp_path, CHOICE.replace("if x != c]", "if x > 5]")))
    st = g.new_initial_state(0)
    before = st.to_json()
    with pytest.raises(ModelError, match="choose `k` from nothing"):
        st.apply_action(st.legal_actions()[0])
    assert st.to_json() == before


def test_random_play_with_choices_keeps_the_contract():
    from contracts import play
    g = atoll.load(HARVEST, players=3)
    seen = play(g, 4, chance="explicit", every=5)
    assert seen["steps"] > 20


def test_the_simulator_and_an_adapter_play_through_choices():
    from atoll.pettingzoo import env as pz_env
    e = pz_env(str(HARVEST), players=2)
    e.reset(seed=1)
    rng = random.Random(1)
    for agent in e.agent_iter(max_iter=400):
        _, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        mask = info["action_mask"] if "action_mask" in info else e.observe(agent)["action_mask"]
        e.step(rng.choice([i for i, ok in enumerate(mask) if ok]))
    assert not e.agents


def test_an_int_past_the_bound_made_in_a_procedure_is_named(tmp_path):
    p = spec(tmp_path, """
proc grow(q: Player) { n[q] = n[q] * 1000000 + 1 }
phase play_ { action go() { grow(me) end phase } }
""")
    p.write_text(p.read_text().replace("n[p] >= 6", "n[p] < 0"))
    g = atoll.load(p)
    st = g.new_initial_state(0)
    with pytest.raises(ModelError, match="`n` holds an int past the bound"):
        for _ in range(20):
            st.apply_action(st.legal_actions()[0])


# ---------------------------------------------------------------- events and triggers

MARKET = Path(__file__).parent / "good" / "market_events.atoll"

EVENTS = """
event scored(p: Player, k: int) "Points were scored."
event doubled(p: Player)
trigger bonus on scored(q, k) from x in [1, 2] when k > x optional when x == 2 { n[q] = n[q] + 1 }
trigger echo on scored(q, k) when k == 3 { log[q] = log[q] + [k]  emit doubled(q) }
trigger twice on doubled(q) { log[q] = log[q] + [0] }
phase play_ { action go() { emit scored(me, 3) end phase } }
"""


def test_triggers_run_at_the_emit_in_order_and_an_optional_one_asks(tmp_path):
    g = atoll.load(spec(tmp_path, EVENTS))
    st = g.new_initial_state(0)
    st.apply_action(st.legal_actions()[0])
    # x = 1: not optional (its `optional when` fails), so it ran; x = 2 asks player 0
    assert st.current_player() == 0
    assert [str(a) for a in st.legal_actions()] == ["player 0 chooses bonus = true",
                                                    "player 0 chooses bonus = false"]
    declined = st.clone()
    st.apply_action(st.legal_actions()[0])
    declined.apply_action(declined.legal_actions()[1])
    assert st.S[1][0] == 2 and declined.S[1][0] == 1
    assert st.S[2][0] == (3, 0)           # `echo` after `bonus`, and `doubled`'s trigger inside it


def test_the_induction_follows_an_emit(tmp_path):
    body = """
event hit(p: Player)
trigger hurt on hit(q) { n[q] = n[q] - AMOUNT }
phase play_ { action go() { n[me] = n[me] + 2  emit hit(me) end phase } }
property non_negative invariant all(n[p] >= 0 for p in players)
"""
    kept = {r.property: r for r in run(str(spec(tmp_path, body.replace("AMOUNT", "1"), "a.atoll")),
                                       games=20)}["non_negative"]
    assert kept.verdict == V.PROVED and "induction" in kept.method, (kept.method, kept.detail)
    broken = {r.property: r for r in run(str(spec(tmp_path, body.replace("AMOUNT", "3"), "b.atoll")),
                                         games=20)}["non_negative"]
    assert broken.verdict == V.VIOLATED


def test_trigger_mutants_and_docs():
    from atoll.verify import mutants as MT
    from atoll.docgen import editions, rulebook
    comp = pipeline.compile_spec(MARKET)
    text = comp.program.sources[str(MARKET)]
    ms = [m for m in MT.generate(comp.program, text, str(MARKET)) if m.rule == "trigger refund"]
    assert any("`when` negated" in m.what for m in ms), [m.what for m in ms]
    for m in ms:   # each mutant of a trigger still parses and checks, or is refused with a diagnostic
        assert m.apply(text) != text
    designer = editions.designer_edition(rulebook.load(MARKET), editions.Context())
    assert "trigger ``refund`` (for each :atoll:`k` in :atoll:`owned[p]`" in designer


def test_events_play_with_the_contract():
    from contracts import play
    seen = play(atoll.load(MARKET, players=3), 2, chance="explicit", every=5)
    assert seen["steps"] > 20


# ---------------------------------------------------------------- rule modifiers

TOLL = Path(__file__).parent / "good" / "toll_modifiers.atoll"

MODS = """
def cost(p: Player, k: int): int = k + 1
modify cost(p, k) by cap when size(log[p]) > 0 => min2(value, 2)
modify cost(p, k) by cheap when k == 1 => min2(value, 1)
modify cost(p, k) by LAST
phase play_ { action go(k: int in [1, 2, 3]) { n[me] = n[me] + cost(me, k)  log[me] = log[me] + [k] end phase } }
"""


def test_modifiers_apply_in_order_where_their_test_holds(tmp_path):
    p = spec(tmp_path, MODS.replace("LAST", "tax when k == 3 => value + 1"))
    comp = pipeline.compile_spec(p)
    assert [d.code for d in comp.diagnostics] == ["A0705", "A0705"]   # `tax` after two `min2`s
    g = atoll.load(p)
    st = g.new_initial_state(0)
    for k in (3, 3, 3):   # 4, then `tax` 5, for each player; player 0 again: capped at 2, then `tax` 3
        st.apply_action(next(a for a in st.legal_actions() if a.params == (k,)))
    assert st.S[1] == (5 + 3, 5)


def test_modifiers_of_one_kind_commute_without_a_warning(tmp_path):
    p = spec(tmp_path, MODS.replace("LAST", "floor when k == 3 => min2(value, 3)"))
    assert pipeline.compile_spec(p).diagnostics == []


def test_a_modifier_has_its_exact_meaning_for_z3(tmp_path):
    """The induction reads the def with its modifier folded in: a modifier
    that keeps each step's cost at 2 or more proves the invariant, one that
    lowers it to 1 breaks it."""
    body = """
def cost(p: Player, k: int): int = k + 1
modify cost(p, k) by edge when k == 1 => CHANGE
phase play_ { action go(k: int in [1, 2, 3]) { n[me] = n[me] + cost(me, k) - 2 end phase } }
property no_fall invariant all(n[p] >= 0 for p in players)
"""
    ok = {r.property: r for r in run(str(spec(tmp_path, body.replace("CHANGE", "max2(value, 2)"), "a.atoll")),
                                     games=5)}["no_fall"]
    assert ok.verdict == V.PROVED and "induction" in ok.method, (ok.method, ok.detail)
    bad = {r.property: r for r in run(str(spec(tmp_path, body.replace("CHANGE", "min2(value, 1)"), "b.atoll")),
                                      games=5)}["no_fall"]
    assert bad.verdict == V.VIOLATED


def test_modifier_mutants_docs_and_the_base_rule_as_written():
    from atoll.verify import mutants as MT
    from atoll.docgen import editions, rulebook
    comp = pipeline.compile_spec(TOLL)
    text = comp.program.sources[str(TOLL)]
    ms = MT.generate(comp.program, text, str(TOLL))
    assert {"modify season_pass", "modify mountain", "def toll"} <= {m.rule for m in ms}
    base = [m for m in ms if m.rule == "def toll"]
    assert base and all(m.apply(text).count("modify toll") == 3 for m in base)   # the modifiers untouched
    doc = rulebook.load(TOLL)
    designer = editions.designer_edition(doc, editions.Context())
    assert "- modified by ``season_pass`` when :atoll:`size(passes[p]) > 0`" in designer
    players = editions.players_edition(doc, editions.Context())
    assert "Changed by *season pass*: A season pass caps" in players


def test_verify_is_honest_where_play_waits_for_a_choice(tmp_path):
    """A probability over named actions that stops at a choice is UNKNOWN
    (the player's choice is not chance), never a verdict on the state before
    the effect; a worked example that reaches one without giving the choice fails
    and says why."""
    p = spec(tmp_path, CHOICE + """
property after_go probability(n[0] > 2 by go()) >= 1/2
example goes { play go()  expect n[0] > 0 }
""")
    got = {r.property: r for r in run(str(p), games=5)}
    assert got["after_go"].verdict == V.UNKNOWN
    assert "choice inside an effect" in got["after_go"].detail["reason"]
    assert got["goes"].verdict == V.FAILED
    # an example may give the choice (`choose k = VALUE`); one that does not
    # fails and says how
    why = got["goes"].detail["reason"]
    assert "waits for player" in why and "to choose `k`" in why and "after the action" in why, why


def test_a_loop_over_a_collection_known_by_size_havocs_what_its_calls_write(tmp_path):
    """A `for` the abstraction cannot unroll lets its body write anything: that
    includes what a procedure called in it writes (never PROVED wrongly)."""
    body = """
proc drop(q: Player) { n[q] = n[q] - 1 }
proc reset() { for q in players { n[q] = 0 } }
phase play_ { action go() { reset() for x in log[me] { drop(me) } log[me] = log[me] + [1] end phase } }
property non_negative invariant all(n[p] >= 0 for p in players)
"""
    got = {r.property: r for r in run(str(spec(tmp_path, body)), games=20)}["non_negative"]
    assert got.verdict == V.VIOLATED


def test_a_simultaneous_phase_may_call_a_procedure_on_its_own_player(tmp_path):
    """A call with `me` writes the player's own entries (allowed in a
    simultaneous stage); with another player, the checker still refuses it."""
    text = """
game g { title: "G" players: 2..2 }
state { player bid: int = 0 visible owner  player shown: int = 0 visible all }
proc set_bid(p: Player, k: int) { let q = p  bid[p] = k }
flow { round { simultaneous in players: bidding  turns in [0]: reveal } }
phase bidding { action put(k: int in [1, 2]) { set_bid(WHO, k) end phase } }
phase reveal { auto { for p in players { shown[p] = shown[p] + bid[p] } } }
ending e after_round when current_round >= 2 => rank p by shown[p]
"""
    ok = tmp_path / "ok.atoll"
    ok.write_text(text.replace("WHO", "me"))
    assert pipeline.compile_spec(ok).diagnostics == []
    bad = tmp_path / "bad.atoll"
    bad.write_text(text.replace("WHO", "(me + 1) % 2"))
    with pytest.raises(atoll.SpecError, match="their own `bid"):
        pipeline.compile_spec(bad)


def test_a_choice_while_the_game_starts_waits_saves_and_is_searched(tmp_path):
    """The first phase's `on enter` runs while the setup is under way: its
    choice waits like any other (before: a model error at the start)."""
    p = tmp_path / "enter.atoll"
    p.write_text("""
game e { title: "E" players: 2..2 }
state { player n: int = 0 visible all }
flow { round { turns in players: play_ } }
phase play_ {
  on enter { if current_round == 1 { choose k: int in [1, 2, 3] by me  n[me] = k } }
  action go() { n[me] = n[me] + 1 end phase }
}
ending over immediately when any(n[p] >= 6 for p in players) => rank p by n[p]
property small invariant all(n[p] <= 7 for p in players)
""")
    g = atoll.load(p)
    st = g.new_initial_state(0)
    assert st.current_player() == 0 and len(st.legal_actions()) == 3 and st.S[1] == (0, 0)
    assert g.state_from_json(st.to_json()) == st
    assert state_key(g, st) != state_key(g, play_to(st.clone(), lambda legal: legal[1]))
    st.apply_action(st.legal_actions()[2])
    assert st.S[1] == (3, 0) and [a.kind for a in st.legal_actions()] == ["go"]
    assert g.state_from_json(st.to_json()) == st
    r = {r.property: r for r in run(str(p), games=10)}["small"]
    assert r.verdict in (V.PROVED,) or r.verdict.startswith(("HOLDS", "NO VIOLATION")), r.verdict
