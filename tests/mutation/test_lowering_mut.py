"""compiler/lower_actions.py and compiler/lower.py in detail: the shortcuts
the lowering takes for choices, `ensures` and `can`, and some statements,
each on a case that the shipped specs do not reach, checked by what the game
then allows (the legal actions of a position, worked out by hand below).
Written against the mutants that the rest of the suite let survive
(benchmarks/mutation.md).

Each test compiles its own small spec (a tenth of a second each): mutmut
runs, for a mutant, only the tests that reached the mutated function, and a
spec compiled once for the module would be credited to its first test."""
import pytest

import atoll

HEAD = """
game lowerings { title: "Lowerings" players: 2..2 }
state {
  n: int = 0 visible all
  y: int = 0 visible all
  tired: bool = false visible all
  table: map[int, int] = {1: 5} visible all
  total: int = 0 visible all
  player gain: int = 3 visible all
  pile: bag[int] = bag([1]) visible all
  heap: bag[int] = bag([5]) visible all
}
flow { round { turns in seats: go } }
phase go {
"""
TAIL = """
}
ending over after_turn when n > 50 => tie
"""


def start(tmp_path, actions: str, after: str = ""):
    """The first position of the spec with these actions (and properties)."""
    path = tmp_path / "lowerings.atoll"
    path.write_text(HEAD + actions + TAIL + after)
    return atoll.load(path, players=2).new_initial_state(seed=0)


def legal(st, kind):
    return sorted(a.params for a in st.legal_actions() if a.kind == kind)


def play(st, kind):
    st.apply_action(next(a for a in st.legal_actions() if a.kind == kind))


def test_can_walks_the_keys_of_a_map_domain(tmp_path):
    # can(peek) walks the keys of the map {1: 11, 2: 12}: k = 1 passes
    # `k < 2`. (Walked as a comprehension of its values, 11 and 12, no
    # choice would pass, and `look` would be refused.)
    st = start(tmp_path, """
  action peek(k: int in {x: x + 10 for x in [1, 2]})
    when k < 2
  { end phase }
  action look()
    when can(peek)
  { end phase }
""")
    assert legal(st, "peek") == [(1,)]
    assert legal(st, "look") == [()]


def test_an_inlined_can_keeps_the_ensures_of_the_other_action(tmp_path):
    # lead's `ensures tired or can(bump)`: can(bump) must test bump's own
    # `ensures y > 10`, which no choice of bump meets while y = 0 (it is not
    # a mere test that bump has a choice); after grow (y = 9), bump(2) meets it.
    st = start(tmp_path, """
  action bump(j: int in [1, 2])
    ensures y > 10
  {
    y = y + j
    end phase
  }
  action lead(k: int in [1, 2])
    ensures tired or can(bump)
  {
    n = n + k
    end phase
  }
  action grow() {
    y = 9
    end phase
  }
""")
    assert legal(st, "bump") == [] and legal(st, "lead") == []
    play(st, "grow")
    assert legal(st, "bump") == [(2,)]
    assert legal(st, "lead") == [(1,), (2,)]


def test_a_pre_test_that_can_fail_waits_for_the_whens(tmp_path):
    # probe's pre-test `table[0] > 0` fails (no key 0) if evaluated; no
    # choice passes `k > 5`, so it must never be: no error, no probe.
    st = start(tmp_path, """
  action probe(k: int in [1, 2])
    when k > 5
    ensures table[0] > 0 or n > 3
  {
    n = k
    end phase
  }
  action wait() { end phase }
""")
    assert legal(st, "probe") == [] and legal(st, "wait") == [()]


def test_a_map_read_whole_after_a_write_at_a_key(tmp_path):
    # share writes table[k], then reads the whole map (size), and split's
    # `ensures` reads it whole: table = {1: 5} gains a key only for k = 2.
    st = start(tmp_path, """
  action share(k: int in [1, 2])
    ensures tired or total > 1
  {
    table[k] = k
    total = size(table)
    end phase
  }
  action split(k: int in [1, 2])
    ensures tired or size(table) > 1
  {
    table[k] = 7
    end phase
  }
""")
    assert legal(st, "share") == [(2,)]
    assert legal(st, "split") == [(2,)]


COUNT = """
  action count(k: int in [1, 2])
    ensures tired or n > 0
  {
    let d = k - 1
    n = n + d
    end phase
  }
"""


def test_a_let_in_an_effect_tested_without_a_copy(tmp_path):
    # count: `let d = k - 1` then n = n + d; `n > 0` holds after k = 2 only.
    st = start(tmp_path, COUNT)
    assert legal(st, "count") == [(2,)]


def test_a_player_index_from_a_list_of_ints_is_checked(tmp_path):
    # `i in between(-1, 0)` is not a seat: gain[-1] is refused (Python
    # would read the last player's entry).
    st = start(tmp_path, """
  action reach() {
    for i in between(-1, 0) {
      n = n + gain[i]
    }
    end phase
  }
""")
    with pytest.raises(atoll.ModelError, match="reach.*index -1 is outside"):
        play(st, "reach")


def test_a_card_dealt_into_a_bag_keeps_it_a_bag(tmp_path):
    # heap = bag([5]) gets the 1 of the pile: it equals bag([1, 5]) (a bag
    # has no order; left as dealt, it would be the sequence 5, 1).
    st = start(tmp_path, """
  action give() {
    deal 1 from pile to heap
    end phase
  }
  action same()
    when heap == bag([1, 5])
  { end phase }
""")
    assert legal(st, "same") == []
    play(st, "give")
    assert legal(st, "same") == [()]


def test_a_tie_in_an_effect_ends_the_game_with_no_winner(tmp_path):
    st = start(tmp_path, """
  action quit() {
    tie
  }
  action wait() { end phase }
""")
    play(st, "quit")
    assert st.is_terminal() and tuple(st.winners()) == ()
    assert st.returns()[0] == st.returns()[1]


def test_a_typed_empty_list_is_an_empty_list(tmp_path):
    st = start(tmp_path, """
  action clear() {
    n = size(list[int]()) + 7
    end phase
  }
  action seven()
    when n == 7
  { end phase }
""")
    assert legal(st, "seven") == []
    play(st, "clear")
    assert legal(st, "seven") == [()]


def test_an_invariant_of_an_action_reads_its_player_and_choices(tmp_path):
    # count(2) is the legal count at the start, played by player 0:
    # 2 + 0 <= 2 holds, 2 + 0 < 2 does not.
    from atoll.simulation import invariants
    st = start(tmp_path, COUNT, """
property small invariant forall count(k): k + me <= 2
property smaller invariant forall count(k): k + me < 2
""")
    checks = dict(invariants(st.game))
    assert legal(st, "count") == [(2,)] and st.current_player() == 0
    assert checks["small"](st) is True and checks["smaller"](st) is False
