"""`let` in expressions and tuples: the grammar (how far a `let` reaches,
membership in a binding's value), scoping (hiding, no capture when a def is
inlined), the limits, tuples in play (state, choices, data, a bag drawn at
random, saved games) and the verifier on the small spec that uses them."""
import hashlib
import json
import random
import re

import pytest

import atoll
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.grammar.parse import parse
from helpers import ROOT

TUPLES = ROOT / "tests" / "good" / "tuples.atoll"


def body_of(text: str):
    r = Reporter()
    spec = parse(f"def f(x: int): int = {text}\n", "t.atoll", r)
    assert not r.items, [str(d) for d in r.items]
    return spec.items[0].body


def compile_def(tmp_path, body: str, result: str = "int", extra: str = ""):
    path = tmp_path / "g.atoll"
    path.write_text(f'game g {{ title: "G" players: 2..2 }}\n{extra}\n'
                    f"def f(x: int, xs: list[int]): {result} = {body}\n"
                    "flow { round { turns in seats: p } }\nphase p { action go() { end phase } }\n")
    comp = atoll.compile_spec(path)
    game = atoll.compiler.pipeline.instantiate(comp, 2)
    return lambda x, xs=(): game.ns["d_f"](None, x, tuple(xs))


# ---------------------------------------------------------------- grammar

def test_a_let_reaches_as_far_right_as_it_can():
    e = body_of("let a = x in a + 1 == 2")
    assert isinstance(e, A.LetExpr) and isinstance(e.body, A.BinOp) and e.body.op == "=="
    e = body_of("if x > 0 then let a = x in a * 2 else 0")   # the `else` ends the body
    assert isinstance(e, A.IfExpr) and isinstance(e.then, A.LetExpr)


def test_bindings_and_destructuring_parse_in_order():
    e = body_of("let a = x, (b, c) = (a, 2), d = b in d")
    assert [A.bound_names(b) for b in e.bindings] == [("a",), ("b", "c"), ("d",)]
    assert isinstance(e.bindings[1].value, A.TupleLit)
    assert isinstance(body_of("(x)"), A.Name)               # brackets, not a tuple
    assert len(body_of("(x, (x, 1), 3)").items) == 3


def test_the_in_after_a_value_starts_the_body():
    # membership inside a binding's value needs brackets; unbracketed, the
    # first `in` after the value starts the body
    e = body_of("let b = x in xs in b")
    assert isinstance(e.bindings[0].value, A.Name) and e.body.op == "in"
    e = body_of("let b = (x in xs) in b")
    assert isinstance(e.bindings[0].value, A.BinOp) and e.bindings[0].value.op == "in"
    e = body_of("let b = x, c = (if x in xs then 1 else 2) in b")
    assert isinstance(e.bindings[1].value, A.IfExpr)


# ---------------------------------------------------------------- meaning

def test_a_let_hides_a_name_only_in_its_body(tmp_path):
    f = compile_def(tmp_path, "(let x = x * 10, y = x + 1 in y) + x")
    assert [f(v) for v in range(-2, 3)] == [(v * 10 + 1) + v for v in range(-2, 3)]


def test_an_inlined_def_does_not_capture_the_callers_names(tmp_path):
    # `h`'s let binds `y`, the name of the caller's loop variable passed to it
    f = compile_def(tmp_path, "sum(h(y) for y in xs)", extra="def h(x: int): int = let y = x + 1 in y * x")
    for xs in ([], [1], [2, -3, 5]):
        assert f(0, xs) == sum((y + 1) * y for y in xs)


def test_a_binding_is_evaluated_even_when_the_body_does_not_read_it(tmp_path):
    f = compile_def(tmp_path, "let z = {1: 2}[x] in 7")
    assert f(1) == 7
    with pytest.raises(KeyError):   # (the model reports it as an evaluation error)
        f(5)


def test_tuples_compare_sort_and_key_maps(tmp_path):
    f = compile_def(tmp_path, "[q for (p, q) in sorted({(v % 3, v) for v in xs})]", "list[int]")
    xs = [5, -1, 4, 3, 7]
    assert f(0, xs) == tuple(v for _, v in sorted({(v % 3, v) for v in xs}))
    g = compile_def(tmp_path, "get({(x, 1): 10, (1, x): 20}, (1, 1), 0) + (if (x, true) == (1, true) then 1 else 0)")
    assert [g(v) for v in (0, 1, 2)] == [0, 21, 0]


def test_many_bindings_are_within_the_nesting_limit_or_refused(tmp_path):
    def let_chain(n):
        return "let " + ", ".join(["v0 = x"] + [f"v{i} = v{i - 1} + 1" for i in range(1, n)]) + f" in v{n - 1}"
    assert compile_def(tmp_path, let_chain(90))(5) == 5 + 89
    with pytest.raises(atoll.SpecError) as e:
        compile_def(tmp_path, let_chain(150))
    assert [d.code for d in e.value.diagnostics] == ["A0005"]


# ---------------------------------------------------------------- tuples in play

def _play_to_chance(game, seed):
    s = game.new_initial_state(seed=seed, chance="explicit")
    rng = random.Random(seed)
    while not s.is_terminal():
        if s.is_chance_node():
            return s
        s.apply_action(rng.choice(s.legal_actions()))
    return None


def test_tuples_in_state_choices_and_chance_survive_a_save():
    game = atoll.load(TUPLES, players=2)
    s = next(s for s in (_play_to_chance(game, k) for k in range(20)) if s is not None)
    assert s.pending is not None and s.pending[3] == ("tuple", "int", "str")   # a bag of tuples is drawn from
    text = s.to_json()
    again = game.state_from_json(text)
    assert again.S == s.S and again.to_json() == text
    d = json.loads(text)
    assert d["pending"]["type"] == ["tuple", "int", "str"]
    moves = game.new_initial_state(0).legal_actions()
    assert [a.params[0] for a in moves] == [(1, 0), (0, 1), (1, 1)]   # the data file's tuples
    assert len({a.id for a in moves}) == 3 and str(moves[0]) == "move(m=(1, 0))"


@pytest.mark.parametrize("mutate, field", [
    (lambda d, i: d["values"][i].__setitem__(0, [1, 2, 3]), r"values\.at\[0\]"),
    (lambda d, i: d["values"][i].__setitem__(0, {"x": 1, "y": 2}), r"values\.at\[0\]"),
    (lambda d, i: d["values"][i].__setitem__(1, [1, "2"]), r"values\.at\[1\]\[1\]"),
], ids=["three items", "an object", "an item of the wrong type"])
def test_a_corrupt_tuple_in_a_save_is_named(mutate, field):
    game = atoll.load(TUPLES, players=2)
    d = json.loads(game.new_initial_state(0).to_json())
    mutate(d, game.layout.names.index("at"))
    body = {k: v for k, v in d.items() if k != "checksum"}
    d["checksum"] = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
    with pytest.raises(atoll.CorruptState) as e:
        game.state_from_json(json.dumps(d))
    assert re.match(field, e.value.field), e.value.field


def test_a_data_file_with_a_wrong_tuple_is_refused(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "tuple_moves.json").write_text('{"moves": [[1, 0], [0, 1, 2]]}')
    (tmp_path / "g.atoll").write_text(TUPLES.read_text())
    with pytest.raises(atoll.SpecError) as e:
        atoll.load(tmp_path / "g.atoll", players=2)
    assert [d.code for d in e.value.diagnostics] == ["A0301"]
    assert "moves[1]" in str(e.value)


def test_the_tuple_spec_verifies_as_it_expects(capsys):
    from atoll.cli import main
    assert main(["verify", str(TUPLES)]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 verdicts as expected" in out and "PROVED" in out


def test_the_rulebook_shows_destructuring():
    from atoll.docgen import rulebook
    doc = rulebook.load(TUPLES)
    spec = next(f for f in doc.files.values() if any(isinstance(i, A.PhaseDecl) for i in f.items))
    action = next(i for i in spec.items if isinstance(i, A.PhaseDecl)).actions[0]
    text = "\n".join(rulebook.stmt_lines(doc, action.body))
    assert "Let :atoll:`(q, earned)` be" in text and "For each :atoll:`(k, w)` in" in text, text


def test_a_deep_let_is_hoisted_with_the_names_it_reads(tmp_path):
    # 45 nested lets, then a let whose body nests 45 deep: the Python text is
    # moved into helpers, which must receive the let names they read
    body, want = "x", lambda v: v
    for i in range(45):
        if i % 2:
            body, want = f"let v{i} = {body} in v{i} + 1", (lambda w: lambda v: w(v) + 1)(want)
        else:
            body = f"(let v{i} = x + {i} in {body} + v{i} - v{i})"
    f = compile_def(tmp_path, body)
    assert [f(v) for v in (-3, 0, 5)] == [want(v) for v in (-3, 0, 5)]
    body = "v"
    for i in range(45):
        body = f"(if v > {i} then {body} + 1 else {i})"

    def nested(x):
        v = r = 2 * x
        for i in range(45):
            r = r + 1 if v > i else i
        return r
    f = compile_def(tmp_path, f"let v = x * 2 in {body}")
    assert [f(x) for x in (-1, 3, 30)] == [nested(x) for x in (-1, 3, 30)]
    source = atoll.compile_spec(tmp_path / "g.atoll").source
    assert re.search(r"^def _h\d+\(.*l_v\b", source, re.M), "no helper receives the let name"


def test_the_observation_encoder_takes_tuples_item_by_item():
    from atoll.encoding import ObservationEncoder
    game = atoll.load(TUPLES, players=2)
    enc = ObservationEncoder(game)
    assert enc.width(("tuple", "int", "bool")) == 2
    assert enc.width(("tuple", "int", ("tuple", "bool", "int"))) == 3
    s = game.new_initial_state(0)
    s.apply_action(s.legal_actions()[0])
    assert len(enc.encode(s.observation(0))) == enc.size


def test_an_int_past_the_bound_inside_a_tuple_is_caught(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text('game g { title: "G" players: 2..2 }\n'
                    'state { t: tuple[int, str] = (1, "a")  m: map[tuple[int, int], int] = {:} }\n'
                    "flow { round { turns in seats: p } }\n"
                    "phase p { action grow() { let (n, s) = t\n"
                    "  m = {(n, 0): 1}\n  t = (n * 1000000, s)\n  end phase } }\n")
    s = atoll.load(path, players=2).new_initial_state(0)
    with pytest.raises(atoll.ModelError, match="bound"):
        for _ in range(5):
            s.apply_action(s.legal_actions()[0])
    assert s.S[1][0] < 10 ** 18
