from pathlib import Path

from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.grammar.parse import parse

ROOT = Path(__file__).resolve().parent.parent


def test_masterislands_parses():
    r = Reporter()
    text = (ROOT / "spec" / "masterislands.atoll").read_text()
    spec = parse(text, "masterislands.atoll", r)
    assert r.items == []
    kinds = {type(i).__name__ for i in spec.items}
    assert {"GameDecl", "FlowDecl", "PhaseDecl", "EndingDecl"} <= kinds


def test_syntax_errors_are_all_reported_with_positions():
    text = "const a: int = 1 +\nconst b: int = 2\nenum E { x, y\nconst c: int = 3 =\n"
    r = Reporter()
    assert parse(text, "t.atoll", r) is None
    assert [d.code for d in r.items] == ["A0001", "A0001", "A0001"]
    assert [d.span.line for d in r.items] == [2, 4, 4]


def test_equality_ignores_spans():
    r = Reporter()
    a = parse("const a: int = 1 + 2", "a.atoll", r)
    b = parse("\n\n   const a: int = 1 + 2", "b.atoll", r)
    assert a.items == b.items
    assert a.items[0].span != b.items[0].span
    assert A.to_data(a.items[0])["node"] == "ConstDecl"
