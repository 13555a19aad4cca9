"""The update form `e with {k: v}` (maps and records) and typed empty
collections `list[T]()`, `set[T]()`, `bag[T]()`, `map[K, V]()`: parsing,
diagnostics, play and verification (the z3 agreement is in
test_z3_agreement.py)."""
from __future__ import annotations

import pytest

import atoll
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.grammar.parse import parse
from atoll.verify import verdicts as V
from atoll.verify.runner import run

from helpers import ROOT

CLAIMS = ROOT / "tests" / "good" / "claims.atoll"

GAME = """game g {{ title: "G" players: 2..2 }}
record Tally {{ spots: int, last: int }}
state {{ x: int = 0 }}
flow {{ round {{ turns in seats: p }} }}
phase p {{ action go() {{ end phase }} }}
{decl}
"""


def _expr(text: str):
    rep = Reporter()
    spec = parse(f"const c: int = {text}", "t.atoll", rep)
    return spec.items[0].value if spec else rep.items


def _diags(decl: str, tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(GAME.format(decl=decl))
    with pytest.raises(atoll.SpecError) as info:
        atoll.compile_spec(path)
    return info.value.diagnostics


# ---------------------------------------------------------------- parsing

def test_with_parses_as_a_postfix_form():
    e = _expr("size(m with {a: 1, b: 2}[a])")
    idx = e.args[0]
    assert isinstance(idx, A.Index) and isinstance(idx.obj, A.With)
    assert [k.name for k in idx.obj.keys] == ["a", "b"]
    assert [v.value for v in idx.obj.values] == [1, 2]


def test_typed_empty_reads_its_type():
    e = _expr("size(map[str, list[map[int, bag[Pos]]]]())").args[0]
    assert isinstance(e, A.EmptyOf)
    assert str(e.type) == "map[str, list[map[int, bag[Pos]]]]"


@pytest.mark.parametrize("text,message,col", [
    ("size(list[1]())", "this is not a type", 26),
    ("size(f(x)[int]())", "this is not a type", 21),
    ("m[1, 2]", "a value is indexed by one key at a time", 16),
])
def test_not_a_type_is_a_syntax_error(text, message, col):
    diags = _expr(text)
    assert [(d.code, d.message, d.span.column) for d in diags] == [("A0001", message, col)]
    assert "]()`" in diags[0].hint


def test_with_is_a_reserved_word():
    assert "with" in atoll.grammar.parse.keywords()


# ---------------------------------------------------------------- checks

@pytest.mark.parametrize("decl,code,line,col,message,hint", [
    ('const m: map[str, int] = {"a": 1} with {2: 3}', "A0103", 6, 41,
     "this map's keys are str, but these keys are int", "`m with {k: v}` sets keys"),
    ('const m: map[str, int] = {"a": 1} with {"b": true}', "A0103", 6, 46,
     "this map's values are int, but these values are bool", "`m with {k: v}` sets keys"),
    ("const t: Tally = Tally(1, 2) with {spot: 3}", "A0105", 6, 36,
     "Tally has no field `spot`", "did you mean `spots`?"),
    ("const t: Tally = Tally(1, 2) with {spots: true}", "A0103", 6, 43,
     "field `spots` of Tally must be int, but this is bool", None),
    ("const t: Tally = Tally(1, 2) with {1: 3}", "A0105", 6, 36,
     "a field of Tally is named by a bare name, not an expression", "fields of Tally: spots, last"),
    ("const n: int = 3 with {1: 2}", "A0103", 6, 16,
     "`with` updates a map or a record, not int", "`r with {field: v}` replaces fields"),
    ("const n: int = size(lst[int]())", "A0103", 6, 21,
     "`lst` is not a collection type", "`list[T]()`"),
    ("const n: int = size(list[Colour]())", "A0101", 6, 26, "unknown type `Colour`", None),
    ("const n: int = size(map[int]())", "A0104", 6, 21, "`map` takes 2 type arguments", "map[T, T]"),
    ("const n: int = size(set[map[int, int]]())", "A0103", 6, 25,
     "the items of a set cannot hold a map", "use a list of records"),
    ("const n: int = size(map[map[int, int], int]())", "A0103", 6, 25,
     "a map's keys cannot hold a map", None),
    ("const n: list[str] = list[int]()", "A0103", 6, 22,
     "the value of `n` must be list[str], but this is list[int]", None),
])
def test_bad_updates_and_empties_are_diagnostics(tmp_path, decl, code, line, col, message, hint):
    diags = _diags(decl, tmp_path)
    assert [(d.code, d.span.line, d.span.column, d.message) for d in diags] == [(code, line, col, message)]
    if hint:
        assert hint in diags[0].hint


def test_with_keeps_the_map_type_and_fills_an_unknown_one(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(GAME.format(decl='const m: map[str, int] = {:} with {"a": 1}\n'
                                      'const n: map[str, list[int]] = {"a": []} with {"b": [2]}'))
    game = atoll.load(path, players=2)
    assert game.ns["k_m"] == {"a": 1} and game.ns["k_n"] == {"a": (), "b": (2,)}


# ---------------------------------------------------------------- play and verification

def test_claims_plays_with_updates_and_empties():
    game = atoll.load(CLAIMS, players=2)
    st = game.new_initial_state(seed=0)
    names = game.layout.names
    holder, tally, marks, doubled = (names.index(n) for n in ("holder", "tally", "marks", "doubled"))
    assert st.S[holder] == {} and st.S[marks] == ((), ()) and st.S[doubled] == frozenset()
    assert [str(a) for a in st.legal_actions()] == [f"take(k={k})" for k in (1, 2, 3, 4)]
    st.apply_action(st.legal_actions()[2])          # player 0 takes 3
    st.apply_action(st.legal_actions()[0])          # player 1 takes 1
    assert st.S[holder] == {3: 0, 1: 1}
    assert st.S[tally] == ((1, 3), (1, 1)) and st.S[marks] == (("spot",), ("spot",))
    assert [str(a) for a in st.legal_actions()] == ["take(k=2)", "take(k=4)"]
    st.apply_action(st.legal_actions()[1])          # player 0 takes 4 right after 3: doubled
    assert st.S[holder] == {3: 0, 1: 1, 4: 0} and st.S[doubled] == frozenset({4})
    assert st.S[tally][0] == (2, 4)


def test_claims_verifies():
    results = run(str(CLAIMS), games=20)
    assert len(results) == 5 and all(r.ok and r.verdict == V.PROVED for r in results), results


def test_a_false_claim_about_with_is_violated(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(GAME.format(decl=(
        "property first_wins theorem forall k: int in between(0, 3):\n"
        "  get({1: 0} with {k: 1, k: 0}, k, 9) == 1 expect violated\n"
        "property field_kept theorem forall k: int in between(0, 3):\n"
        "  (Tally(k, 0) with {last: k}).spots == 0 expect violated\n"
        "property empty_bag theorem forall k: int in between(0, 3):\n"
        "  size(bag[int]() + bag([k])) == 2 expect violated")))
    results = run(str(path), games=5)
    assert [r.verdict for r in results] == [V.VIOLATED] * 3, results
