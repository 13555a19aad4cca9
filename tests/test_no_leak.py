"""`no_leak`: a secret (simultaneous) choice shows in no other player's
observation nor in the actions open to them, compared over every way the
choice can be made (issue 13, item 3). The property kind knows no game: it
is tried here on a small sealed-bid game, honest and with two kinds of
leak, and on a game with nothing secret to compare."""
import pytest

from atoll.compiler import pipeline
from atoll.verify import verdicts as V
from atoll.verify.play import check_by_play
from helpers import ROOT

BIDS = (ROOT / "tests" / "good" / "sealed_bids.atoll").read_text()
SECRET = "\nproperty bids_secret no_leak\n"


def verdict(tmp_path, text, players=2, games=20):
    path = tmp_path / "g.atoll"
    path.write_text(text)
    comp = pipeline.compile_spec(str(path))
    game = pipeline.instantiate(comp, players, {})
    pr = comp.program.properties["bids_secret"]
    return check_by_play(game, pr, games, 0, str(path))


def test_an_honest_secret_choice_is_proved_over_every_way_of_making_it(tmp_path):
    v, detail, cex = verdict(tmp_path, BIDS + SECRET)
    assert v == V.PROVED and cex is None
    assert "every way of each was compared" in detail["secret choices"]


STATE, EFFECT = "  player bid: int = 0 visible owner", "    bid[me] = n\n"


# The checker refuses a public variable written in a simultaneous stage
# (A0107); what it lets through is a hidden value's size, which every player
# sees: a face-down pile of the chooser's as tall as the bid, or a common
# face-down pile the bid adds to.
@pytest.mark.parametrize("var, write, seen", [
    ("  player tokens: list[int] = [] visible owner\n", "    tokens[me] = [1 for k in range(n)]\n", "`tokens`"),
    ("  pot: bag[int] = bag([]) visible nobody\n", "    pot = pot + bag([k for k in range(n)])\n", "`pot`"),
])
def test_a_leak_is_a_counterexample(tmp_path, var, write, seen):
    assert STATE in BIDS and EFFECT in BIDS
    text = BIDS.replace(STATE, var + STATE).replace(EFFECT, EFFECT + write)
    v, detail, cex = verdict(tmp_path, text + SECRET, players=3)
    assert v == V.VIOLATED, detail
    assert "secret choice shows to player" in cex["problem"] and seen in cex["problem"]
    assert "bid_tokens(n=1)" in cex["problem"]


def test_nothing_secret_to_compare_is_unknown(tmp_path):
    text = BIDS.replace("simultaneous in players: bidding", "turns in players: bidding")
    v, detail, _ = verdict(tmp_path, text + SECRET)
    assert v == V.UNKNOWN and "nothing to compare" in detail["reason"]


def _ends(game, games=4, seed=0):
    """States at the end of each way of playing a waiting player's part, at
    the simultaneous nodes of a few random games."""
    import random
    from atoll.verify.secrets import LeakCheck
    leaks, rng, out = LeakCheck(game), random.Random(seed), []
    for s in range(games):
        st = game.new_initial_state(seed=s)
        for _ in range(300):
            if st.is_terminal():
                break
            legal = st.legal_actions()
            if not legal:
                break
            if not st.is_chance_node() and st.is_simultaneous_node():
                for p in sorted({a.player for a in legal}):
                    first = [a for a in legal if a.player == p]
                    ways = leaks._all_ways(st, p, first) or [leaks._walk(st, p, first, "random")
                                                            for _ in range(3)]
                    out.append((p, [end for _, end in ways]))
            st.apply_action(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("spec, players", [("spec/la_isla.atoll", 3), ("spec/isle_of_skye.atoll", 3),
                                           ("tests/good/sealed_bids.atoll", 3)])
def test_the_views_made_together_tell_states_apart_as_each_alone(spec, players):
    """``LeakCheck._views`` (every viewer's view of a state in one pass)
    tells two states apart for a viewer exactly when ``_view`` does."""
    from atoll.verify.secrets import LeakCheck
    game = pipeline.instantiate(pipeline.compile_spec(str(ROOT / spec)), players, {})
    leaks = LeakCheck(game)
    pairs = same = 0
    groups = _ends(game)
    for k, (p, ends) in enumerate(groups):
        viewers = [v for v in range(players) if v != p]
        for a in ends[:6]:
            va = leaks._views(a, viewers)
            for b in ends[:6] + groups[k - 1][1][:2]:   # the ways of one node, and of another
                vb = leaks._views(b, viewers)
                for v in viewers:
                    alone = leaks._view(a, v) == leaks._view(b, v)
                    assert (va[v] == vb[v]) == alone
                    pairs += 1
                    same += alone
    assert pairs > 50 and 0 < same < pairs   # states alike and states apart were both met


@pytest.mark.parametrize("spec, players", [("spec/la_isla.atoll", 3), ("spec/isle_of_skye.atoll", 3),
                                           ("tests/good/sealed_bids.atoll", 3)])
def test_the_viewers_told_apart_by_the_slots_that_changed_are_those_the_views_tell(spec, players):
    """``LeakCheck._apart`` (only the slots whose objects differ compared)
    names exactly the viewers whose ``_view`` differs, for the ways of one
    node (which share most objects) and for states of two nodes."""
    from atoll.verify.secrets import LeakCheck
    game = pipeline.instantiate(pipeline.compile_spec(str(ROOT / spec)), players, {})
    leaks = LeakCheck(game)
    pairs = apart = shared = 0
    groups = _ends(game)
    for k, (p, ends) in enumerate(groups):
        viewers = [v for v in range(players) if v != p]
        for a in ends[:6]:
            acts = leaks._acts(a)
            for b in ends[:6] + groups[k - 1][1][:2]:   # the ways of one node, and of another
                got = leaks._apart(a, acts, b, viewers)
                want = {v for v in viewers if leaks._view(a, v) != leaks._view(b, v)}
                assert got == want
                pairs += 1
                apart += bool(want)
                shared += any(x is y for x, y in zip(a.S[1:], b.S[1:]))
    assert pairs > 50 and 0 < apart < pairs and shared   # alike and apart, objects shared, were all met


def test_a_value_of_each_players_own_missing_in_one_state_tells_it_apart(tmp_path):
    """Two values of the players' own, one missing (None) in each state and
    the other alike: the views differ, with ``_views`` as with ``_view``."""
    from atoll.verify.secrets import LeakCheck
    text = BIDS.replace(STATE, STATE + "\n  player other: int = 0 visible owner")
    path = tmp_path / "g.atoll"
    path.write_text(text)
    game = pipeline.instantiate(pipeline.compile_spec(str(path)), 2, {})
    a = game.new_initial_state(seed=0)
    i, j = game.layout.names.index("bid"), game.layout.names.index("other")
    b = a.clone()
    a.S[i], a.S[j] = None, [2, 2]
    b.S[i], b.S[j] = [2, 2], None
    leaks = LeakCheck(game)
    assert leaks._view(a, 1) != leaks._view(b, 1)
    assert leaks._views(a, [1])[1] != leaks._views(b, [1])[1]
    assert leaks._apart(a, leaks._acts(a), b, [1]) == {1}
    # a viewer's own value is shown to it, another's is not
    c, d = game.new_initial_state(seed=0), game.new_initial_state(seed=0)
    c.S[i], d.S[i] = [1, 2], [1, 3]
    for v, apart in ((1, True), (0, False)):
        assert (leaks._view(c, v) != leaks._view(d, v)) == apart
        assert (leaks._views(c, [v])[v] != leaks._views(d, [v])[v]) == apart
        assert (leaks._apart(c, leaks._acts(c), d, [v]) == {v}) == apart


def test_a_way_lists_the_first_ways_actions_exactly_when_the_listing_reads_nothing_else():
    """``LeakCheck._same_listing``: the ways of one secret choice change only
    the chooser's own values, so each other player still lists what it
    listed after the first way (and ``_acts`` agrees); change a value a
    waiting player's listing reads (its own hand) and the listing is made."""
    from atoll.verify.secrets import LeakCheck
    game = pipeline.instantiate(pipeline.compile_spec(str(ROOT / "spec/la_isla.atoll")), 3, {})
    leaks = LeakCheck(game)
    told = 0
    for p, ends in _ends(game, games=2):
        a = ends[0]
        for b in ends[1:4]:
            if leaks._same_listing(a, b):
                assert leaks._acts(a) == leaks._acts(b)
                told += 1
    assert told > 10
    hand = game.layout.names.index("hand")
    met = set()
    for p, ends in _ends(game, games=1):
        a = ends[0]
        waiting = a.ctl[4][a.ctl[2]:]
        if min(len(waiting), 2) in met:
            continue
        met.add(min(len(waiting), 2))   # several players still to choose, or one
        b = a.clone()
        b.S[hand] = list(a.S[hand])   # another list, every element the same object
        b._legal = None   # (a clone keeps its position's listing: listed again here)
        assert leaks._same_listing(a, b) and leaks._acts(a) == leaks._acts(b)
        for q in waiting:   # a waiting player's own hand changed: its actions may differ
            c = a.clone()
            c.S[hand] = list(a.S[hand])
            c.S[hand][q] = type(a.S[hand][q])()   # no card left
            c._legal = None
            assert not leaks._same_listing(a, c)
            assert leaks._acts(a).get(q) != leaks._acts(c).get(q)
    assert met == {1, 2}
