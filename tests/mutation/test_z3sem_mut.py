"""verify/z3sem.py in detail: witnesses and counterexamples that z3 finds
for records, tuples, enums, bags and ints, read back into values (each
checked against what it must be), and claims over domains too large to
enumerate, decided by z3 itself."""
import pytest

from atoll.verify import verdicts as V
from atoll.verify.runner import run

SPEC = """
game g { players: 2..2 }
enum Colour { red, green, blue }
record Rec { k: int, c: Colour }
state { x: int = 0 }
flow { round { turns in seats: p } }
phase p { action go() { end phase } }
property w_rec witness exists r: Rec in [Rec(1, red), Rec(2, blue), Rec(3, green)]: r.k >= 2 and r.c != green show 5
property w_tuple witness exists t: tuple[int, Colour] in [(1, red), (4, blue)]: t[0] > 2 show 3
property w_enum witness exists c: Colour in [red, green, blue]: c != red show 5
property w_int witness exists m: int in between(0, 9): m * m == 49
property w_pair witness exists a: int in between(1, 5), b: int in between(1, 5): a + b == 7 and a < b show 3
property w_bag witness exists b: bag[int] in [bag([2, 1, 2]), bag([3])]: size(b) == 3
property w_none witness exists a: int in between(1, 5): a > 5
property t_rec theorem forall r: Rec in [Rec(1, red), Rec(2, blue)]: r.k < 2
property t_big theorem forall a: int in between(0, 400), b: int in between(0, 400): a + b >= a and a * b >= 0
property t_big_false theorem forall a: int in between(0, 400), b: int in between(2, 400): a * b != 391
property t_lte theorem forall a: int in between(0, 400), b: int in between(0, 400): a <= b or b < a
property t_orth theorem forall x: int in between(0, 400), y: int in between(0, 400): size([q for q in orth(pos(x, y)) if q.x == x - 1]) == 1 and size([q for q in orth(pos(x, y)) if q.x == x + 1]) == 1
property t_bag theorem forall a: int in between(0, 400), b: int in between(0, 400): size(bag([a, b, a])) == 3 and count_of(bag([a, b, a]), a) >= 2
property t_without theorem forall a: int in between(0, 400), b: int in between(0, 400): size(without_keys({1: a, 2: b}, [1])) == 1 and get(without_keys({1: a, 2: b}, [1]), 2, 0) == b
property t_lt theorem forall a: int in between(0, 400), b: int in between(0, 400): a < b or b < a
"""


@pytest.fixture
def results(tmp_path):
    """The verdicts of the properties a test names (each test runs its own:
    a mutation tester runs only the tests that reach the mutated code)."""
    p = tmp_path / "g.atoll"
    p.write_text(SPEC)

    def verdicts(*names):
        return {r.property: r for r in run(str(p), only=names, games=5)}
    return verdicts


def witnesses(r):
    assert r.verdict == V.WITNESS_FOUND, (r.verdict, r.detail)
    return sorted(tuple(sorted(w.items())) for w in r.detail["witnesses"])


def test_witnesses_read_back_as_values(results):
    results = results("w_rec", "w_tuple", "w_enum", "w_int", "w_pair", "w_bag", "w_none")
    assert witnesses(results["w_rec"]) == [(("r", "2 blue"),)]
    assert witnesses(results["w_tuple"]) == [(("t", "(4, blue)"),)]
    assert witnesses(results["w_enum"]) == [(("c", "blue"),), (("c", "green"),)]
    assert witnesses(results["w_int"]) == [(("m", "7"),)]
    assert witnesses(results["w_pair"]) == [(("a", "2"), ("b", "5")), (("a", "3"), ("b", "4"))]
    assert witnesses(results["w_bag"]) == [(("b", "[1, 2, 2]"),)]   # a bag shows sorted
    assert results["w_none"].verdict == V.NO_WITNESS


def test_a_false_claim_shows_its_input(results):
    results = results("t_rec")
    r = results["t_rec"]
    assert r.verdict == V.VIOLATED and r.counterexample["inputs"] == {"r": "2 blue"}


def test_claims_over_large_domains_are_decided_by_z3(results):
    results = results("t_big", "t_lte", "t_big_false", "t_lt")
    assert results["t_big"].verdict == V.PROVED and "enumerated" not in results["t_big"].detail
    assert results["t_lte"].verdict == V.PROVED
    bad = results["t_big_false"]
    assert bad.verdict == V.VIOLATED, bad.detail
    a, b = (int(bad.counterexample["inputs"][k]) for k in ("a", "b"))
    assert a * b == 391 and 0 <= a <= 400 and 2 <= b <= 400
    lt = results["t_lt"]
    assert lt.verdict == V.VIOLATED
    assert lt.counterexample["inputs"]["a"] == lt.counterexample["inputs"]["b"]


@pytest.mark.parametrize("name", ["t_orth", "t_bag", "t_without"])
def test_collection_functions_keep_their_meaning_in_z3(results, name):
    r = results(name)[name]
    assert r.verdict == V.PROVED and "enumerated" not in r.detail, (r.verdict, r.detail)
