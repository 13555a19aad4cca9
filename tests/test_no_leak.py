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
