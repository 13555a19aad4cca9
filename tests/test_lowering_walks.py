"""Loops over a map's entries, membership tests, counts in a `when`,
listings walked unsorted and parts of the `when`s evaluated once
(compiler/lower.py ``item_plan`` and ``meets``, compiler/lower_actions.py
``test_lines``, ``choice_loops(listing=True)``, ``_entry_walk`` and
``_hoist_invariants``).

Each rule is checked twice: the generated code takes the new way, and the
game plays exactly as the same spec lowered without the rule (the plain
way): the same legal moves in the same order at every step, the same state
after every move, the same errors."""
import random
import re

import pytest

import atoll
from atoll.compiler import names as N
from atoll.compiler import pipeline
from atoll.compiler.lower import Lowerer
from atoll.compiler.playout import apply_move, legal_moves
from helpers import ROOT

WALKS = ROOT / "tests" / "good" / "map_walks.atoll"


def _function(source: str, name: str) -> str:
    return source.split(f"def {name}(")[1].split("\ndef ")[0]


def _plain_test_lines(self, cond, stop, depth):
    self.emit(f"if not {self.ex(cond)}:", depth)
    self.emit(stop, depth + 1)


PLAIN = {   # each rule switched off
    "items": ("item_plan", lambda self, e, order_matters=False: self.item_vals),
    "meets": ("meets", lambda self, e: None),
    "count": ("test_lines", _plain_test_lines),
    "unsorted": ("_unsorted_first", lambda self, a: False),
    "entries": ("_entry_walk", lambda self, a, i, walk, by_level: None),
    "hoist": ("_hoist_invariants", lambda self, conds, depth: {}),
    "bag": ("bag_literal", lambda self, e: None),
    "empty": ("_empty_source", lambda self, dom, stop, depth: None),
}


def _compile(path, monkeypatch=None, off=()):
    """The spec compiled with the rules in ``off`` switched off."""
    with pytest.MonkeyPatch.context() as mp:
        for rule in off:
            name, fn = PLAIN[rule]
            mp.setattr(Lowerer, name, fn)
        comp = atoll.compile_spec(path)
        games = {n: pipeline.instantiate(comp, n) for n in (2, 3)}   # lowered here, per player count
    return comp, games


def _lockstep(new, plain, seeds, max_steps=400) -> int:
    """Play both games with the same random choices; every step's moves and
    state must agree. Returns the moves compared. Nothing in this spec
    fails, so the new game's listings never need the plain way (``agen_``,
    their fallback on an error, which would hide a broken rule): it raises."""
    def no_fallback(S, me):
        raise AssertionError("a listing fell back on the plain way")
    for a in new.actions:
        new.ns[N.action("gen", a.name)] = no_fallback
    compared = 0
    for seed in seeds:
        a, b = new.new_initial_state(seed=seed), plain.new_initial_state(seed=seed)
        rng = random.Random(seed)
        for _ in range(max_steps):
            assert a.S == b.S and a.outcome == b.outcome, f"seed {seed}: the states part"
            if a.outcome is not None:
                break
            la, lb = list(legal_moves(new, a)), list(legal_moves(plain, b))
            assert la == lb, f"seed {seed}: the moves differ"
            if not la:
                break
            i = rng.randrange(len(la))
            apply_move(new, a, i)
            apply_move(plain, b, i)
            compared += 1
    return compared


@pytest.mark.parametrize("rule", sorted(PLAIN))
def test_each_rule_plays_as_the_plain_way(rule):
    _, new = _compile(WALKS)
    _, plain = _compile(WALKS, off=[rule])
    assert new[2].source != plain[2].source   # the rule changes the generated code of this spec
    for n in (2, 3):
        assert _lockstep(new[n], plain[n], range(25)) > 300


def test_all_rules_together_play_as_the_plain_way():
    _, new = _compile(WALKS)
    _, plain = _compile(WALKS, off=list(PLAIN))
    for n in (2, 3):
        assert _lockstep(new[n], plain[n], range(25, 50)) > 300


def test_the_generated_code_takes_the_new_ways():
    comp, games = _compile(WALKS)
    g = games[2]
    src = g.source
    holder = g.layout.slots[("state", "holder")]
    # a count and a map comprehension over keys(holder) reading holder[l]: the entries walked
    links = _function(src, N.def_fn("links_of"))
    assert re.search(rf"for {N.local('l')}, (_iv\d+) in S\[{holder}\]\.items\(\) if \(\1 == ", links)
    assert f"S[{holder}][" not in links
    kept = _function(src, N.def_fn("kept"))
    assert re.search(rf"\{{{N.local('l')}: (_iv\d+) for {N.local('l')}, \1 in S\[{holder}\]\.items\(\)", kept)
    # any(n in lost for n in l): one call, none when `lost` is empty
    assert f"(f_meets({N.local('l')}, {N.local('lost')}) if {N.local('lost')} else False)" in kept
    # all(m not in claimed for m in hand[me]): the negation of one call
    claim = _function(src, N.action("effect", "claim"))
    assert "(not (f_meets(" in claim
    # the counts of the `when`s: loops of the listing, with a fresh name for the
    # count's own `c` (the choice `c` is not overwritten)
    take = _function(src, N.action("choices", "take"))
    assert "len([1 for" not in take
    m = re.search(r"(_n\d+) = 0\n\s*for (_c\d+) in (_h\d+):\n\s*if \(\2 in l_l\):\n\s*\1 \+= 1", take)
    assert m, take
    # the first choice, drawn from keys(holder), walked unsorted; the choices sorted after
    assert f"in S[{holder}].items():" in take
    assert "sorted(" not in take and "_out.sort(key=" in take
    assert f"return list({N.action('gen', 'take')}(S, me))" in take
    claims = _function(src, N.action("choices", "claim"))
    assert f"for {N.local('n')} in S[{g.layout.slots[('state', 'claimed')]}]:" in claims
    # the choice drawn from keys(holder), read at it by a `when`: the entries walked
    assert re.search(rf"for {N.local('l')}, (_iv\d+) in S\[{holder}\]\.items\(\):\n\s*if not \(\1 != me\)", take)
    # hand[me], read inside the loops by the count: once, before them
    hand = g.layout.slots[("state", "hand")]
    h = re.search(rf"(_h\d+) = S\[{hand}\]\[me\]\n", take)
    assert h and h.group(1) == m.group(3)
    # bag([c]) and bag([]): the literals, no call
    drop = _function(src, N.action("effect", "drop"))
    assert f"f_bag(f_bag(S[{g.layout.slots[('state', 'discards')]}] + ({N.local('c')}, )) + ())" in drop
    # swap's domain, a comprehension over claimed: not built when claimed is empty
    claimed = g.layout.slots[("state", "claimed")]
    swap = _function(src, N.action("choices", "swap"))
    assert f"if not S[{claimed}]:\n        return _out\n" in swap
    # the plain generator (agen_) keeps the sorted walk
    assert f"in sorted(S[{holder}])" in _function(src, N.action("gen", "take"))


def test_meets_with_a_lost_number_and_counts_at_the_boundary():
    """States set by hand where `lost` is not empty and a count is exactly at
    its bound: each rule's function gives the plain way's answer."""
    _, new = _compile(WALKS)
    _, plain = _compile(WALKS, off=list(PLAIN))
    g, p = new[2], plain[2]
    st = g.new_initial_state(seed=3)
    S = list(st.S)
    hand = g.layout.slots[("state", "hand")]
    holder = g.layout.slots[("state", "holder")]
    for lost in ((), (2,), (1, 6), (4, 9)):
        for me in (0, 1):
            assert g.ns[N.def_fn("kept")](S, lost, me) == p.ns[N.def_fn("kept")](S, lost, me)
    for h in ((1, 2, 3), (2, 2, 6), (5, 5, 5), (1,), ()):
        S[hand] = (h, h)
        for name in ("take", "claim", "drop"):
            for me in (0, 1):
                assert g.ns[N.action("choices", name)](S, me) == p.ns[N.action("choices", name)](S, me)
    assert g.ns[N.def_fn("links_of")](S, 0) == 3 and S[holder]


FAILING = """
game failing { title: "Failing" players: 2..2 }
state {
  marks: set[int] = {9, 3} visible all
  n: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
  action pick(m: int in marks)
    when [1, 2, 3][m] > 0
  {
    n = n + 1
    end phase
  }
  action pass() { end phase }
}
ending over after_round when n > 3 => tie
"""


def test_a_listing_walked_unsorted_fails_as_the_plain_way(tmp_path):
    """The set {9, 3} is walked 9 first (its hash order) but sorted 3 first:
    the `when` fails for both; the error must name 3, as the plain listing's."""
    path = tmp_path / "failing.atoll"
    path.write_text(FAILING)
    game = atoll.load(path, players=2)
    src = _function(game.source, N.action("choices", "pick"))
    assert "try:" in src and "sorted(" not in src
    assert list(frozenset({9, 3})) == [9, 3]   # (the premise: the walk meets 9 first)
    st = game.new_initial_state(seed=0)
    with pytest.raises(atoll.ModelError, match=r"index 3 is outside"):
        legal_moves(game, st)
    with pytest.raises(atoll.ModelError, match=r"index 3 is outside"):
        st.legal_actions()
