"""The listing tests each `when` and the `ensures` look-ahead once per value
of the choices it reads (compiler/lower_actions.py, ``ensured_loops`` and
``choice_loops``), and tests the `when`s of one loop that cannot fail
cheapest first. Neither may change which choices are legal, in which order,
or which error a rule that fails raises."""
import random
import re

import pytest

import atoll
from atoll.compiler import names as N
from atoll.compiler import runtime
from helpers import ROOT
from test_lowering_frame import Plain

HOISTING = ROOT / "tests" / "good" / "hoisting.atoll"


def _function(source: str, name: str) -> str:
    return source.split(f"def {name}(")[1].split("\ndef ")[0]


def _plain_listing(game, st, plain) -> list:
    """The legal actions by the plain meaning: every choice the domains and
    `when`s allow, whose effect run on a copy meets the `ensures`."""
    me = st.current_player()
    out = []
    with plain:
        for ai in game.phases[st.phase()].actions:
            spec = game.actions[ai]
            for params in game._fn[ai][0](st.S, me):
                if not spec.ensures or plain.ok(spec, st.S, me, params):
                    out.append((spec.name, params))
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_the_listing_agrees_with_the_plain_meaning(players):
    game = atoll.load(HOISTING, players=players)
    plain = Plain(game)
    refused = compared = 0
    for seed in range(25):
        st = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            expected = _plain_listing(game, st, plain)
            assert [(a.kind, a.params) for a in legal] == expected, st.to_json()
            lay = game.action_by_name["lay"]
            refused += sum(1 for p in game._fn[lay.index][0](st.S, st.current_player())
                           if (lay.name, p) not in expected) if st.phase() == "play" else 0
            compared += 1
            st.apply_action(legal[rng.randrange(len(legal))])
    assert compared > 200 and refused > 0   # the look-ahead did refuse some placements


def test_a_look_ahead_that_reads_the_space_is_asked_once_per_space():
    game = atoll.load(HOISTING, players=2)
    src = _function(game.source, N.action("choices", "lay"))
    # the domain of `at` filtered once, before the loop over the cards; the card not passed
    assert f"{N.action('post', 'lay')}(S, me, None, {N.local('at')})" in src
    assert src.index(N.action("post", "lay")) < src.index(f"for {N.local('c')} in")
    calls = []
    post = game.ns[N.action("post", "lay")]
    game.ns[N.action("post", "lay")] = lambda *a: calls.append(a[3]) or post(*a)
    st = game.new_initial_state(seed=0)
    S = list(st.S)
    S[game.layout.slots[("state", "pile")]] = (1,)   # the pile not empty: the pre-test fails
    S[game.layout.slots[("state", "hand")]] = ((1, 2, 3), (4, 5, 1))
    calls.clear()   # (the setup's `done when` asked can(lay))
    game.ns[N.action("choices", "lay")](S, 0)
    assert sorted(calls) == list(range(6))   # six spaces, three cards: six look-aheads, not 18


def test_whens_that_cannot_fail_cheapest_first_and_a_map_read_at_its_key():
    game = atoll.load(HOISTING, players=2)
    src = _function(game.source, N.action("choices", "claim"))
    holder = game.layout.slots[("state", "holder")]
    # `holder[m] != me` (m drawn from keys(holder): the read cannot fail) before the count
    # (the count written out as a loop in the listing: see test_lines; the listing walks
    # the entries of holder, so that holder[m] is the entry's value: see _entry_walk)
    assert re.search(rf"for {N.local('m')}, (_iv\d+) in S\[{holder}\]\.items\(\):\n\s*if not \(\1 != me\)", src)
    assert re.search(r"_iv\d+ != me", src).start() < re.search(r"_n\d+ = 0", src).start()
    gen = _function(game.source, N.action("gen", "claim"))   # the plain walk, sorted
    assert gen.index(f"S[{holder}][{N.local('m')}] != me") < re.search(r"_n\d+ = 0", gen).start()
    # the reason given for an illegal choice keeps the spec's order
    why = _function(game.source, N.action("why", "claim"))
    assert why.index("len([1 for") < why.index(f"S[{holder}][{N.local('m')}] != me")


SPEC = """
game order { title: "Order" players: 2..2 }
state {
  table: map[int, int] = {1: 10} visible all
  player hand: list[int] = [1, 2, 3] visible all
  n: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
ACTIONS
  action stop() { n = n + 1  end phase }
}
ending over after_turn when n > 5 => tie
"""


def _start(tmp_path, actions: str):
    path = tmp_path / "order.atoll"
    path.write_text(SPEC.replace("ACTIONS", actions))
    return atoll.load(path, players=2).new_initial_state(seed=0)


def test_a_when_that_can_fail_keeps_its_place(tmp_path):
    # The count is false for every card, so the map read (which fails at k = 2)
    # is never reached; tested first it would fail.
    st = _start(tmp_path, """
  action pick(k: int in [1, 2])
    when count(x for x in hand[me] if x > 100 + k) > 0
    when table[k] > 0
  { end phase }
""")
    assert [a.kind for a in st.legal_actions()] == ["stop"]


def test_a_look_ahead_is_not_asked_where_a_when_before_it_fails(tmp_path):
    # The look-ahead reads only k, and fails at k = 2; the `when` before it,
    # which reads both choices, can fail too, so the look-ahead is asked in
    # its place (once per k, the first time it is reached), not before the
    # loops: where the `when` fails first, its error is the one raised.
    st = _start(tmp_path, """
  action pick(c: int in hand[me], k: int in [1, 2])
    when table[10 * k + c] > 0
    ensures table[k] > 0 or n > 100
  { n = n + 1  end phase }
""")
    with pytest.raises(runtime.ModelError, match="pick.*KeyError: 11"):
        st.legal_actions()
    src = st.game.source
    listing = _function(src, N.action("choices", "pick"))
    assert listing.index("> 0") < listing.index(N.action("post", "pick"))   # the when, then the look-ahead


@pytest.mark.parametrize("cards,fails", [("hand[me]", True), ("[x for x in hand[me] if x > 100]", False)])
def test_a_look_ahead_that_can_fail_fails_as_before(tmp_path, cards, fails):
    # The look-ahead reads only k and fails at k = 2: asked once per k, the
    # first time in the same place as before, so the same error; and not at
    # all when there is no card (asked before the loops, it would fail).
    st = _start(tmp_path, """
  action pick(c: int in CARDS, k: int in [1, 2])
    ensures table[k] > 0 or n > 100
  { n = n + 1  end phase }
""".replace("CARDS", cards))
    if fails:
        with pytest.raises(runtime.ModelError, match="pick.*KeyError: 2"):
            st.legal_actions()
    else:
        assert [a.kind for a in st.legal_actions()] == ["stop"]
    listing = _function(st.game.source, N.action("choices", "pick"))
    assert ".get((" in listing   # the answers kept per k


KEPT = """
game kept { title: "Kept" players: 2..2 }
state {
  table: map[int, int] = {1: 9, 2: 9, 3: 9, 4: 9, 5: 9, 6: 9} visible all
  n: int = 0 visible all
}
def mine(p: Player): int = count(k for k in keys(table) if table[k] == p)
  "The spaces a player holds."
flow { round { turns in seats: go } }
phase go {
  action take(k: int in keys(table))
    when mine(me) < 2
    when table[k] == 9
  { table = table with {k: me}  n = n + 1  end phase }
  action wait() { n = n + 1  end phase }
}
ending over after_turn when n > 7 => tie
"""


def test_a_def_of_players_is_kept_for_the_values_it_read(tmp_path):
    # mine(me) is asked by every listing; its answer is kept per player with
    # the map it read, and computed again once the map is another one.
    path = tmp_path / "kept.atoll"
    path.write_text(KEPT)
    game = atoll.load(path, players=2)
    assert f"{N.def_memo_fn('mine')}(S, me)" in _function(game.source, N.action("choices", "take"))
    st = game.new_initial_state(seed=0)
    table = game.layout.slots[("state", "table")]
    counts = []
    for _ in range(8):
        me = st.current_player()
        held = sum(1 for v in st.S[table].values() if v == me)
        counts.append(held)
        kinds = {a.kind for a in st.legal_actions()}
        assert ("take" in kinds) == (held < 2)
        st.apply_action(next(a for a in st.legal_actions() if a.kind == "take") if "take" in kinds
                        else st.legal_actions()[0])
    assert counts == [0, 0, 1, 1, 2, 2, 2, 2]


COMPREHENSIONS = """
game comprehensions { title: "Comprehensions" players: 2..2 }
state {
  table: map[int, int] = {4: 1, 3: 2, 2: 3, 1: 4} visible all
  parity: map[int, int] = {:} visible all
  doubled: map[int, int] = {:} visible all
  n: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
  action fold()
  {
    parity = {k % 2: table[k] for k in keys(table)}
    doubled = {k: 2 * table[k] for k in table}
    n = n + 1
    end phase
  }
}
ending over after_turn when n > 0 => tie
"""


def test_a_map_built_key_by_key_is_built_in_any_order_only_when_each_key_comes_once(tmp_path):
    path = tmp_path / "comprehensions.atoll"
    path.write_text(COMPREHENSIONS)
    game = atoll.load(path, players=2)
    effect = _function(game.source, N.action("effect", "fold"))
    table = game.layout.slots[("state", "table")]
    # each key once: no sorting (the entries walked with their values, see item_plan)
    assert re.search(rf"for {N.local('k')}, _iv\d+ in S\[{table}\]\.items\(\)", effect)
    assert "sorted(" in effect                            # k % 2 repeats: the keys in order
    st = game.new_initial_state(seed=0)
    st.apply_action(st.legal_actions()[0])
    # keys in order 1, 2, 3, 4: the last of each parity wins
    assert st.S[game.layout.slots[("state", "parity")]] == {1: 2, 0: 1}
    assert st.S[game.layout.slots[("state", "doubled")]] == {1: 8, 2: 6, 3: 4, 4: 2}
