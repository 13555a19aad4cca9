"""The lowering's shortcuts for `ensures` must not change which choices are
legal. The generated ``a_<action>_ok`` decides some `ensures` before the
effect, drops the stores that nothing after them reads, and asks `can` of
variants specialised to the values the effect leaves known. On every
position of random games, it must agree with the plain meaning: run the
effect on a copy, then evaluate the `ensures` there (with `can` evaluated
the same plain way)."""
import random

import pytest

import atoll
from atoll.compiler import names as N
from atoll.compiler import pipeline, runtime
from helpers import MASTERISLANDS, ROOT

LOOKAHEAD = ROOT / "tests" / "good" / "lookahead.atoll"
GUARDED = ROOT / "spec" / "variants" / "masterislands_guarded.atoll"


class Plain:
    """`ensures` and `can` evaluated by running effects on copies."""

    def __init__(self, game):
        self.game = game
        self.ns = game.ns

    def ok(self, spec, S, me, params) -> bool:
        _, _, effect, ensures = self.game._fn[spec.index]
        S2 = list(S)
        effect(S2, me, runtime._DryRun(), *params)
        return ensures(S2, me, *params) < 0

    def can(self, spec):
        gen = self.game._fn[spec.index][0]

        def can(S, me):
            return any(not spec.ensures or self.ok(spec, S, me, p) for p in gen(S, me))
        return can

    def __enter__(self):
        self.saved = {N.can(a.name): self.ns[N.can(a.name)] for a in self.game.actions}
        for a in self.game.actions:
            self.ns[N.can(a.name)] = self.can(a)
        return self

    def __exit__(self, *exc):
        self.ns.update(self.saved)


def outcome(fn):
    try:
        return bool(fn())
    except Exception as e:   # the same failure either way
        return type(e).__name__


def compare_on_random_games(game, seeds, max_steps=150) -> int:
    plain = Plain(game)
    compared = 0
    for seed in seeds:
        st = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(max_steps):
            if st.is_terminal():
                break
            me = st.current_player()
            for ai in game.phases[st.phase()].actions:
                spec = game.actions[ai]
                ok = game._ok[ai]
                if ok is None:
                    continue
                for params in game._fn[ai][0](st.S, me):
                    fast = outcome(lambda: ok(st.S, me, *params))
                    with plain:
                        slow = outcome(lambda: plain.ok(spec, st.S, me, params))
                    assert fast == slow, (spec.name, params, st.to_json())
                    compared += 1
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
    return compared


@pytest.mark.parametrize("players,options", [(2, {}), (3, {"strict": False}), (3, {})])
def test_lookahead_ok_agrees_with_running_the_effect(players, options):
    game = atoll.load(LOOKAHEAD, players=players, options=options)
    assert compare_on_random_games(game, range(12)) > 100


@pytest.mark.parametrize("spec,players,options", [
    (MASTERISLANDS, 2, {}),
    (MASTERISLANDS, 4, {"mode": "cooperative", "discovery_stuck": "partial"}),
    (MASTERISLANDS, 3, {"mode": "corsair"}),
    (GUARDED, 3, {}),
])
def test_masterislands_ok_agrees_with_running_the_effect(spec, players, options):
    game = atoll.load(spec, players=players, options=options)
    assert compare_on_random_games(game, range(3), max_steps=120) > 300


FAILING = """
game failing { title: "Failing" players: 2..2 }
state {
  table: map[int, int] = {1: 10} visible all
  got: int = 0 visible all
  flag: bool = false visible all
}
flow { round { turns in seats: go } }
phase go {
  action peek(k: int in [1, 2])
    ensures flag
  {
    got = table[k]
    flag = true
    end phase
  }
}
ending over after_turn when flag => tie
"""


def test_a_store_that_can_fail_is_kept_and_a_dead_one_dropped(tmp_path):
    path = tmp_path / "failing.atoll"
    path.write_text(FAILING)
    comp = atoll.compile_spec(path)
    ok_src = comp.source.split(f"def {N.action('post', 'peek')}")[1].split("\ndef ")[0]
    got, flag = comp.layout.slots[("state", "got")], comp.layout.slots[("state", "flag")]
    # `flag = true` is read by the `ensures` as the constant it leaves; `got = table[k]`
    # is read by nothing, but fails for k = 2, as the effect would.
    assert f"S[{flag}] =" not in ok_src and f"S[{got}] =" in ok_src
    game = pipeline.instantiate(comp, 2)
    with pytest.raises(runtime.ModelError, match="peek.*KeyError"):
        game.new_initial_state(seed=0).legal_actions()


ENDINGS = """
game endings { title: "Endings" players: 2..2 }
state {
  table: map[int, int] = {0: 0, 1: 10} visible all
  n: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
  action step(k: int in [1, 2]) {
    n = k
    end phase
  }
}
ending first immediately when n > 5 => tie
ending second immediately when table[n] > 0 => tie
ending third after_turn when n == 1 => win [0]
"""


def test_the_endings_of_one_timing_are_tested_together_and_a_failing_one_is_named(tmp_path):
    path = tmp_path / "endings.atoll"
    path.write_text(ENDINGS)
    game = atoll.load(path, players=2)
    st = game.new_initial_state(seed=0)
    with pytest.raises(runtime.ModelError, match="ending `second`.*KeyError"):
        st.apply_action(next(a for a in st.legal_actions() if a.params == (2,)))
    st.apply_action(next(a for a in st.legal_actions() if a.params == (1,)))   # table[1] > 0
    assert st.ending() == "second"


ORDER = """
game order { title: "Order" players: 2..2 }
state {
  cells: set[Pos] = {pos(-2, -2), pos(-2, -1)} visible all
  table: map[Pos, int] = {pos(-2, -2): 1} visible all
}
flow { round { turns in seats: go } }
phase go {
  ok: bool = false
  done when not can(pick)
  action pick(c: Pos in cells)
    ensures ok
  {
    ok = table[c] > 0
    end phase
  }
}
ending over after_turn when true => tie
"""


def test_can_keeps_the_order_of_choices_when_a_test_can_fail(tmp_path):
    # can(pick) must try pos(-2, -2) (sorted first; the set itself yields
    # pos(-2, -1) first, whose test fails with a KeyError) and stop there.
    path = tmp_path / "order.atoll"
    path.write_text(ORDER)
    game = atoll.load(path, players=2)
    assert list(frozenset({(-2, -2), (-2, -1)}))[0] == (-2, -1)
    st = game.new_initial_state(seed=0)   # evaluates `done`, hence can(pick)
    with pytest.raises(runtime.ModelError, match="pick.*KeyError"):
        st.legal_actions()   # lists every choice: the second one fails


HALFWAY = """
game halfway { title: "Halfway" players: 2..2 }
state {
  table: map[int, int] = {1: 10} visible all
  n: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
  action step(k: int in [1, 2]) {
    n = n + 1
    n = table[k]
    end phase
  }
}
ending over after_turn when n >= 10 => tie
"""


def test_an_action_that_fails_halfway_changes_nothing(tmp_path):
    path = tmp_path / "halfway.atoll"
    path.write_text(HALFWAY)
    st = atoll.load(path, players=2).new_initial_state(seed=0)
    before = st.to_json()
    with pytest.raises(runtime.ModelError, match="step.*KeyError"):
        st.apply_action(next(a for a in st.legal_actions() if a.params == (2,)))
    assert st.to_json() == before and st.current_player() == 0
    st.apply_action(next(a for a in st.legal_actions() if a.params == (1,)))
    assert st.is_terminal()


POSTSUB = """
game postsub { title: "Post" players: 2..3 }
state {
  total: int = 0 visible all
  player gain: int = 0 visible all
  tally: map[int, int] = {:} visible all
  moves: int = 0 visible all
  tired: bool = false visible all
}
flow { round { turns in seats: play } }
phase play {
  action add(k: int in [1, 2, 3])
    when moves < 40
    ensures tired or total % 4 != 0 or gain[me] % 3 == 1 or ((k + 1) in tally and tally[k + 1] > moves - 6)
      or (k in tally and tally[k] % 2 == 0) or total + gain[me] > 70
  {
    total = total + k
    gain[me] = gain[me] + k
    tally[k] = moves
    moves = moves + 1
    end phase
  }
  action wait() {
    moves = moves + 1
    tired = not tired
    end phase
  }
}
ending over after_turn when moves >= 40 => rank p by gain[p] else tie
"""


def test_an_ensures_read_after_the_effect_without_a_copy_agrees(tmp_path):
    # Every disjunct reads what the effect writes (a whole value, the acting
    # player's entry, a map at the key written and at another): the lowering
    # tests them on locals (no copy of the state), and must agree with the
    # plain meaning, both ways, on every choice of random games.
    path = tmp_path / "postsub.atoll"
    path.write_text(POSTSUB)
    comp = atoll.compile_spec(path)
    post = comp.source.split(f"def {N.action('post', 'add')}")[1].split("\ndef ")[0]
    assert "S[:]" not in post and "return True" in post, post
    for players in (2, 3):
        game = atoll.load(path, players=players)
        seen = []
        fn = game.ns[N.action("post", "add")]

        def counted(*a, _f=fn):
            r = _f(*a)
            seen.append(bool(r))
            return r
        game.ns[N.action("post", "add")] = counted
        assert compare_on_random_games(game, range(6), max_steps=90) > 200
        assert True in seen and False in seen, "the test must reach both answers after the effect"


def test_a_refusal_by_an_ensures_that_reads_a_choice_is_explained(tmp_path):
    # The `ensures` of `add` reads its choice `k`: the reason an `add(k)` is
    # refused is computed with k (it used to fail with a NameError).
    from atoll.compiler.runtime import Action
    from atoll.verify.examples import _refusal
    path = tmp_path / "postsub.atoll"
    path.write_text(POSTSUB)
    game = atoll.load(path, players=2)
    st = game.new_initial_state(seed=0)
    refused = 0
    for _ in range(60):
        if st.is_terminal():
            break
        me = st.current_player()
        legal = st.legal_actions()
        kinds = {(a.kind, a.params) for a in legal}
        for k in (1, 2, 3):
            if ("add", (k,)) not in kinds and st.S[4] < 40:
                assert _refusal(game, st, "add", (k,)) == ("ensures", 0)
                before = st.to_json()
                with pytest.raises(atoll.IllegalAction, match=r"`add`: afterwards .* would not hold"):
                    st.apply_action(Action("add", (k,), None, me, None, game))
                assert st.to_json() == before
                refused += 1
        st.apply_action(legal[(len(st.to_json()) + refused) % len(legal)])
    assert refused > 0


def test_two_ensures_each_with_a_shortcut_agree(tmp_path):
    # Two `ensures`, each with a disjunct decided before the effect: the
    # pre-test joins them, and the rest is tested on a copy.
    text = POSTSUB.replace("      or (k in tally and tally[k] % 2 == 0) or total + gain[me] > 70\n",
                           "      or (k in tally and tally[k] % 2 == 0) or total + gain[me] > 70\n"
                           "    ensures tired or moves % 3 != 1 or k != 2\n")
    assert text != POSTSUB
    path = tmp_path / "two.atoll"
    path.write_text(text)
    for players in (2, 3):
        game = atoll.load(path, players=players)
        assert compare_on_random_games(game, range(6), max_steps=90) > 200
