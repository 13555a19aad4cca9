"""Verdicts that are true: regressions for the z3 layer (termination by the
size abstraction, the z3 meaning of constants, vacuity, internal failures).
Each spec here is small and made for the test; the wrong verdict it guards
against was given before the fix."""
from __future__ import annotations

import pytest

import atoll
from atoll.compiler import pipeline
from atoll.verify import verdicts as V
from atoll.verify.runner import run
from atoll.verify.termination import check_measure


def verdict(tmp_path, text, name, **kw):
    p = tmp_path / "t.atoll"
    p.write_text(text)
    kw.setdefault("games", 20)
    return {r.property: r for r in run(str(p), only=[name], **kw)}[name]


def measure_outcome(tmp_path, text, name, players=2):
    p = tmp_path / "m.atoll"
    p.write_text(text)
    comp = pipeline.compile_spec(p)
    game = pipeline.instantiate(comp, players)
    return check_measure(comp.program, game, comp.program.properties[name], 5000)


# ---------------------------------------------------------------- 1. set union
UNION = """
game union { players: 2..2 }
state { s: set[int] = distinct([1]) }
flow { round { turns in seats: p } }
phase p { action add() { s = s + {1}  end phase } }
ending full immediately when size(s) >= 2 => tie
property ends terminates by 2 - size(s) per action
"""


def test_set_union_is_not_counted_as_one_more_item(tmp_path):
    """`s + {1}` when 1 is already in s adds nothing: the game loops for ever."""
    r = verdict(tmp_path, UNION, "ends")
    assert r.verdict == V.VIOLATED, (r.verdict, r.detail)
    assert "add" in r.detail["z3"]


def test_set_union_that_surely_grows_is_still_proved(tmp_path):
    """The size of a union is at least the larger side: adding a fresh item
    each time (a list joined to a list) is proved, with its bound."""
    text = UNION.replace("s: set[int] = distinct([1])", "s: list[int] = [1]").replace(
        "s = s + {1}", "s = s + [1]")
    r = verdict(tmp_path, text, "ends")
    assert r.verdict == V.PROVED, r.detail
    assert "at most 1 action" in r.detail["bound"]


@pytest.mark.parametrize("expr,ok", [
    ("s - {1}", False),          # may remove nothing
    ("distinct(to_list(s) + [9])", False),
])
def test_other_set_operations_give_no_false_proof(tmp_path, expr, ok):
    text = UNION.replace("s = s + {1}", f"s = {expr}").replace(
        "2 - size(s)", "size(s)").replace("size(s) >= 2", "size(s) == 0")
    out = measure_outcome(tmp_path, text, "ends")
    assert (out[0] == "proved") == ok, out


# ---------------------------------------------------------------- 2. draw inside an if
DRAW_IN_IF = """
game piles { players: 2..2 }
state { pile: bag[int] = bag([1, 2]) }
flow { round { turns in seats: p } }
phase p { action go() { if size(pile) > 0 { draw c from pile }  end phase } }
property ends terminates by size(pile) per action
"""


def test_a_draw_in_one_branch_does_not_assume_the_pile_is_not_empty(tmp_path):
    r = verdict(tmp_path, DRAW_IN_IF, "ends")
    assert r.verdict == V.VIOLATED, (r.verdict, r.detail)
    out = measure_outcome(tmp_path, DRAW_IN_IF, "ends")
    assert out[0] == "fails" and out[1] == "go"


def test_a_draw_on_every_path_is_still_proved(tmp_path):
    text = DRAW_IN_IF.replace("action go() {", "action go() when size(pile) > 0 {")
    r = verdict(tmp_path, text, "ends")
    assert r.verdict == V.PROVED, r.detail
    assert "at most 2 actions" in r.detail["bound"]


def test_a_branch_not_taken_adds_no_constraint(tmp_path):
    """`remove` of an empty list fails, but only where it is evaluated: the
    other branch of an `if ... then ... else` is not."""
    text = """
game prune { players: 2..2 }
state { h: list[int] = [1, 2] }
flow { round { turns in seats: p } }
phase p { action go() { h = if size(h) > 0 then without(remove(h, 1), [2]) else h  end phase } }
property ends terminates by size(h) per action
"""
    out = measure_outcome(tmp_path, text, "ends")
    assert out[0] == "fails" and out[2]["measure before"] == "0", out


# ---------------------------------------------------------------- 3. the start value
START = """
game start { players: 2..2 }
state { x: int = 0  b: bag[int] = bag([3, -3]) }
setup { draw v from b  x = v }
flow { round { turns in seats: p } }
phase p { action go() { x = x - 1  end phase } }
ending over immediately when x == 0 => tie
property ends terminates by x per action
"""


def _seed_with_start(tmp_path, text, value):
    p = tmp_path / "s.atoll"
    p.write_text(text)
    game = atoll.load(p, players=2)
    for seed in range(50):
        if game.new_initial_state(seed=seed).S[1] == value:
            return seed
    raise AssertionError("no seed gives that start")


@pytest.mark.parametrize("low", [-3, -1])   # -1: the boundary (a check of `< -1` passes -3 but not -1)
def test_the_start_of_the_measure_is_checked_for_every_setup_outcome(tmp_path, low):
    text = START.replace("bag([3, -3])", f"bag([3, {low}])")
    seed = _seed_with_start(tmp_path, text, 3)   # the seed where the measure starts at 3
    r = verdict(tmp_path, text, "ends", seed=seed)
    # from below 0 the game never reaches 0: no proof from z3 (the start may be below 0), and the search shows it
    assert r.verdict == V.VIOLATED, r.detail
    assert f"may start below 0 (at {low}" in r.detail["z3"], r.detail


def test_a_start_that_is_nonnegative_for_every_outcome_is_proved_with_the_largest(tmp_path):
    text = START.replace("bag([3, -3])", "bag([3, 5])")
    for seed in range(3):
        r = verdict(tmp_path, text, "ends", seed=seed)
        assert r.verdict == V.PROVED, r.detail
        assert "at most 5 actions" in r.detail["bound"], r.detail


def test_setup_loops_and_deals_are_followed(tmp_path):
    text = """
game deals { players: 2..3 }
state { deck: bag[int] = bag(between(1, 9))  player hand: list[int] = [] }
setup { for p in players { deal 2 from deck to hand[p] } }
flow { round { turns in seats: p } }
phase p { action play(c: int in hand[me]) { hand[me] = remove(hand[me], c)  end phase } }
property ends terminates by sum(size(hand[q]) for q in players) per action
"""
    r = verdict(tmp_path, text, "ends", players=3)
    assert r.verdict == V.PROVED, r.detail
    assert "at most 6 actions" in r.detail["bound"], r.detail


# ---------------------------------------------------------------- audit: other shortcuts
def test_equality_of_collections_known_by_size_is_not_decided_by_python(tmp_path):
    text = """
game eqs { players: 2..2 }
state { a: set[int] = distinct([1])  b: set[int] = distinct([2])  n: int = 3 }
flow { round { turns in seats: p } }
phase p { action go() { if a == b { n = n - 1 }  end phase } }
property ends terminates by n per action
"""
    assert measure_outcome(tmp_path, text, "ends")[0] == "fails"


def test_an_auto_step_after_enter_does_not_assume_no_ending(tmp_path):
    """`enter` runs right before `auto` with no check of the endings between:
    here the ending holds only there, and `auto` raises the measure back."""
    text = """
game autos { players: 2..2 }
state { n: int = 5 }
flow { round { turns in seats: a, b } }
phase a { on enter { n = 0 }  auto { if n == 0 { n = 5 } } }
phase b { action go() { n = n - 1  end phase } }
ending zero immediately when n == 0 => tie
property ends terminates by n per action
"""
    r = verdict(tmp_path, text, "ends")
    assert r.verdict == V.VIOLATED, (r.verdict, r.detail)


# ---------------------------------------------------------------- 6. internal failures
LINES_PARAM = """
game lines { players: 2..2 }
const lines: list[list[str]] = [["a", "b"], ["c"]]
state { n: int = 4  used: list[str] = [] }
flow { round { turns in seats: p } }
phase p { action take(l: list[str] in lines) when n > 0 { n = n - size(l)  used = used + l  end phase } }
property ends STEP
"""


@pytest.mark.parametrize("step", ["terminates by n per action", "terminates by n per turn"])
def test_a_parameter_from_a_list_of_lists_does_not_crash(tmp_path, step):
    r = verdict(tmp_path, LINES_PARAM.replace("STEP", step), "ends")
    assert "internal error" not in str(r.detail)
    # each choice takes 1 or 2: the measure drops, but may go below 0 (from 1, take 2)
    assert r.verdict == V.VIOLATED, r.detail
    if "per action" in step:
        assert r.detail["abstract counterexample"]["measure after"] == "-1", r.detail
    else:   # the per-turn argument says what happens: below 0, not a rise
        assert r.detail["z3"] == "z3: `take` may take the measure below 0 (1 then -1)", r.detail


def test_a_checker_that_fails_internally_gives_unknown_and_the_run_goes_on(tmp_path, monkeypatch):
    from atoll.verify import runner

    def boom(*a, **k):
        raise AttributeError("planted")
    monkeypatch.setattr(runner, "check_theorem", boom)
    p = tmp_path / "c.atoll"
    p.write_text(LINES_PARAM.replace("STEP", "terminates by n per action") +
                 "property t theorem forall x: int in [1, 2]: x > 0\n")
    rs = {r.property: r for r in run(str(p), games=10)}
    assert rs["t"].verdict == V.UNKNOWN
    assert "AttributeError: planted" in rs["t"].detail["reason"]
    assert "Traceback" in rs["t"].traceback and "boom" in rs["t"].traceback
    assert "traceback" not in rs["t"].to_json()["detail"]
    assert rs["ends"].verdict == V.VIOLATED   # the other property was still checked


# ---------------------------------------------------------------- 7. constant subterms
TOUCHING = """
game maps { players: 2..2 }
const touching: map[str, list[list[str]]] = {"A": [["A", "B"], ["C"]], "B": []}
state { n: int = 0 }
flow { round { turns in seats: p } }
phase p { action go() { end phase } }
property has_ab theorem forall k: str in ["A"]: ["A", "B"] in touching[k]
property lacks theorem forall k: str in ["A"]: not (["B"] in touching["A"])
property all_keys theorem forall k: str in keys(touching): size(touching[k]) <= 2
"""


@pytest.mark.parametrize("name", ["has_ab", "lacks", "all_keys"])
def test_constant_subterms_are_evaluated_before_z3(tmp_path, name):
    r = verdict(tmp_path, TOUCHING, name)
    assert r.verdict == V.PROVED, r.detail


def test_a_false_claim_on_constants_is_violated(tmp_path):
    r = verdict(tmp_path, TOUCHING.replace('not (["B"] in touching["A"])', '["B"] in touching["A"]'),
                "lacks")
    assert r.verdict == V.VIOLATED, r.detail


# ---------------------------------------------------------------- 8. vacuity
VACUOUS = """
game vac { players: 2..2 }
const none: list[int] = []
state { n: int = 0 }
flow { round { turns in seats: p } }
phase p { action go() { end phase } }
property empty theorem forall x: int in none: x == 99
property hyp theorem forall x: int in [1, 2, 3]: not (x > 5) or x == 99
property real theorem forall x: int in [1, 2, 3]: x < 5
"""


def test_a_theorem_over_an_empty_domain_says_it_is_vacuous(tmp_path):
    r = verdict(tmp_path, VACUOUS, "empty")
    assert r.verdict == V.PROVED
    assert r.detail["vacuous"] == "vacuous: the domain is empty"
    from atoll.cli import _detail_text
    assert "vacuous" in _detail_text(r)
    from atoll.docgen.verdicts import badge
    assert "vacuous" in badge(r.verdict, r.ok, r.detail)


def test_a_theorem_whose_hypothesis_never_holds_says_it_is_vacuous(tmp_path):
    r = verdict(tmp_path, VACUOUS, "hyp")
    assert r.verdict == V.PROVED and "vacuous" in r.detail["vacuous"]
    r = verdict(tmp_path, VACUOUS, "real")
    assert r.verdict == V.PROVED and "vacuous" not in r.detail


# ---------------------------------------------------------------- partial lookups
PARTIAL = """
game partial { players: 2..2 }
const m: map[str, int] = {"A": 1, "B": 2}
state { n: int = 0 }
flow { round { turns in seats: p } }
phase p { action go() { end phase } }
property missing_witness witness exists k: str in ["Z"]: m[k] == 5
property present_witness witness exists k: str in ["A", "Z"]: m[k] == 1
property missing_theorem theorem forall k: str in ["A", "Z"]: m[k] == m[k]
property present_theorem theorem forall k: str in ["A", "B"]: m[k] >= 1
"""


@pytest.mark.parametrize("name,want", [("missing_witness", V.NO_WITNESS), ("present_witness", V.WITNESS_FOUND),
                                       ("missing_theorem", V.UNKNOWN), ("present_theorem", V.PROVED)])
def test_a_missing_map_key_is_no_witness_and_no_proof(tmp_path, name, want):
    """A lookup of a key the map lacks fails in the model: z3 may not pick
    any value for it (a false witness), nor prove a claim that fails."""
    r = verdict(tmp_path, PARTIAL, name)
    assert r.verdict == want, (r.verdict, r.detail)
    if want == V.UNKNOWN:
        assert "undefined" in r.detail["reason"] and "Z" in r.detail["reason"]


def test_folding_agrees_with_the_symbolic_meaning(tmp_path):
    """A closed subterm gets the same value folded (Python) as symbolically (z3)."""
    import z3
    from atoll.verify.z3sem import Z3Eval, eq
    p = tmp_path / "f.atoll"
    p.write_text(TOUCHING + """
const cells: list[Pos] = [pos(0, 0), pos(1, 1), pos(2, 2), pos(0, 2)]
def e1(): int = sum(size(l) for l in lines(distinct(cells)))
def e2(): list[int] = sorted(distinct([size(touching[k]) for k in keys(touching)]))
def e3(): bool = ["C"] in touching["A"] and size(subsets(cells)) == 16
""")
    comp = pipeline.compile_spec(p)
    game = pipeline.instantiate(comp, 2)
    for name in ("e1", "e2", "e3"):
        body = comp.program.defs[name].body
        folded, symbolic = Z3Eval(comp.program, game), Z3Eval(comp.program, game, fold=False)
        symbolic.obligations = []
        a, b = folded.ev(body, {}), symbolic.ev(body, {})
        s = z3.Solver()
        s.add(*symbolic.obligations)
        s.add(z3.Not(eq(a, b)))
        assert s.check() == z3.unsat, name


# ---------------------------------------------------------------- soundness, generally
_POOLS = {   # measure: (statements that lower it, statements that may not)
    "n": (["n = n - 1", "if n > 2 { n = n - 2 } else { n = n - 1 }", "if n > 1 { for q in players { n = n - 1 } } else { n = n - 1 }"],
          ["if size(b) > 0 { draw c from b  n = n - c }", "n = n + 0", "if size(s) > 1 { n = n - 1 }",
           "got[me] = got[me] + 1"]),
    "size(b)": (["draw c from b", "deal 1 from b to h", "deal 2 from b to h"],
                ["if size(b) > 0 { draw c from b }", "b = b + bag([1])", "deal 0 from b to h"]),
    "4 - size(s)": (["s = s + {n}  n = n + 1"],
                    ["s = s + {1}", "s = s + {n}", "s = s - {1}", "s = without(s, [2])", "s = distinct(to_list(s))"]),
    "size(h)": (["h = remove(h, h[0])", "h = without(h, [h[0]])"],
                ["if size(h) > 0 { h = remove(h, h[0]) }", "h = without(h, [7])",
                 "h = if size(h) > 1 then without(h, [h[0]]) else h", "deal 1 from b to h"]),
    "n - sum(got[q] for q in players)": (["got[me] = got[me] + 1"], ["got[me] = got[me] + 0", "n = n - 1"]),
}
_GUARDS = {"n": " when n > 0", "size(b)": " when size(b) > 0", "4 - size(s)": " when size(s) < 4",
           "size(h)": " when size(h) > 0", "n - sum(got[q] for q in players)": " when n > sum(got[q] for q in players)"}


def _random_spec(rng) -> str:
    k = lambda: str(rng.randint(-1, 3))  # noqa: E731
    measure = rng.choice(sorted(_POOLS))
    good, risky = _POOLS[measure]
    actions = []
    for i in range(rng.randint(1, 2)):
        body = [rng.choice(good)]
        if rng.random() < 0.4:
            body.insert(rng.randint(0, len(body)), rng.choice(risky))
        guard = _GUARDS[measure] if rng.random() < 0.85 else rng.choice(list(_GUARDS.values()) + [""])
        actions.append(f"  action a{i}(){guard} {{ {'  '.join(body)}  end phase }}")
    ending = rng.choice(["", "ending e immediately when n <= 0 => tie",
                         "ending e immediately when size(b) == 0 => tie",
                         "ending e immediately when size(s) >= 4 => tie"])
    setup = rng.choice(["", "setup { draw v from b  n = n + v }", "setup { deal 2 from b to h }",
                        "setup { for q in players { if size(b) > 0 { draw v from b  got[q] = v } } }"])
    return f"""
game rnd {{ players: 2..2 }}
state {{ n: int = {rng.randint(0, 4)}  s: set[int] = distinct([{k()}])  b: bag[int] = bag([{k()}, {k()}, -2])
        h: list[int] = [{k()}]  player got: int = 0 }}
{setup}
flow {{ round {{ turns in seats: p }} }}
phase p {{
{chr(10).join(actions)}
}}
{ending}
property ends terminates by {measure} per action
"""


@pytest.mark.parametrize("batch", range(4))
def test_every_proved_bound_holds_in_play(tmp_path, batch):
    """Random small games: whenever the abstraction proves termination with
    a bound, no random play is longer than the bound (nor sees the measure
    fail). Any unsound shortcut of the abstraction shows here."""
    import random
    from atoll.compiler.runtime import ModelError
    rng = random.Random(1000 + batch)
    proved = 0
    for i in range(15):
        text = _random_spec(rng)
        p = tmp_path / f"r{i}.atoll"
        p.write_text(text)
        comp = pipeline.compile_spec(p)
        game = pipeline.instantiate(comp, 2)
        out = check_measure(comp.program, game, comp.program.properties["ends"], 5000)
        if out[0] != "proved":
            continue
        proved += 1
        bound = int(out[1]["bound"].split("at most ")[1].split(" ")[0])
        for seed in range(12):
            st = game.new_initial_state(seed=seed)
            play = random.Random(seed)
            steps = 0
            while not st.is_terminal():
                legal = st.legal_actions()
                if not legal:
                    break
                try:
                    st.apply_action(play.choice(legal))
                except ModelError:
                    break
                steps += 1
                assert steps <= bound, f"{steps} actions, bound {bound}:\n{text}"
    assert proved >= 1   # the batch exercises the proofs too


def test_a_guarded_lookup_needs_its_key_only_where_it_runs(tmp_path):
    text = PARTIAL + """
property guarded theorem forall k: str in ["A", "Z"]: if k in keys(m) then m[k] >= 1 else true
property short_circuit theorem forall k: str in ["A", "Z"]: not (k in keys(m)) or m[k] >= 1
property filtered theorem forall k: str in ["A", "Z"]: sum(m[j] for j in [k] if j in keys(m)) <= 2
"""
    for name in ("guarded", "short_circuit", "filtered"):
        r = verdict(tmp_path, text, name)
        assert r.verdict == V.PROVED, (name, r.detail)


# ---------------------------------------------------------------- 4. lines over a symbolic set
def test_lines_of_a_chosen_subset_are_the_maximal_groups_present(tmp_path):
    """Two cells of a row of three are a line: z3 used to need all three."""
    text = """
game lines { players: 2..2 }
const cells: list[Pos] = [pos(0, 0), pos(1, 0), pos(2, 0)]
state { n: int = 0 }
flow { round { turns in seats: p } }
phase p { action go() { end phase } }
property full_lines theorem forall s: set[Pos] in subsets(cells): all(size(l) == 3 for l in lines(s))
property at_most_one theorem forall s: set[Pos] in subsets(cells): size(lines(s)) <= 1
"""
    r = verdict(tmp_path, text, "full_lines")
    assert r.verdict == V.VIOLATED
    s = r.counterexample["inputs"]["s"]
    assert s.count("(") == 2, s   # two of the three cells: a line of two
    assert verdict(tmp_path, text, "at_most_one").verdict == V.PROVED


def test_a_simultaneous_stage_enters_for_everyone_before_any_ending_check(tmp_path):
    """Its `on enter` runs for every player, then the players choose, with no
    check of the endings between: the first action may start where one holds."""
    text = """
game sim { players: 2..2 }
state { z: int = 3 visible nobody }
flow { round { simultaneous in seats: p } }
phase p {
  on enter { z = 0 }
  action go() { if z == 0 { z = 5 } else { z = z - 1 }  end phase }
}
ending zero immediately when z == 0 => tie
property ends terminates by z per action
"""
    out = measure_outcome(tmp_path, text, "ends")
    assert out[0] == "fails" and out[1] == "go", out
    assert out[2]["measure before"] == "0"
