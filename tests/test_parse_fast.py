"""The fast parse (grammar/lalr.py) against lark's way (``parse._parse_lark``):
the same AST, node for node and span for span, for every spec of the
repository and for generated and mutated programs; what it leaves to lark's
way (errors, limits, long chains) gives the same diagnostics as before; and
the tables it keeps on disk are read only when they are the user's own."""
from __future__ import annotations

import dataclasses
import json
import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from atoll.compiler import limits
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.grammar import lalr, tables
from atoll.grammar import parse as P
from atoll.grammar.build import AstBuilder

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").rglob("*.atoll")) + sorted((ROOT / "tests" / "good").glob("*.atoll"))


def dump(node):
    """Everything of an AST, spans and node classes included (equality
    ignores spans; this does not)."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple((f.name, dump(getattr(node, f.name)))
                                              for f in dataclasses.fields(node))
    if isinstance(node, (tuple, list)):
        return (type(node).__name__,) + tuple(dump(x) for x in node)
    if isinstance(node, dict):
        return ("dict",) + tuple((repr(k), dump(v)) for k, v in node.items())
    return (type(node).__name__, repr(node))


def diagnostics(rep: Reporter) -> list:
    return [(d.code, d.message, d.span and (d.span.file, d.span.line, d.span.column,
                                             d.span.end_line, d.span.end_column), d.hint)
            for d in rep.items]


def both(text: str, file: str = "t.atoll"):
    """(parse's AST and diagnostics, lark's way's AST and diagnostics)."""
    fast_rep, slow_rep = Reporter(), Reporter()
    fast = P.parse(text, file, fast_rep)
    slow = P._parse_lark(text, file, slow_rep)
    return (dump(fast), diagnostics(fast_rep)), (dump(slow), diagnostics(slow_rep))


def test_the_grammar_runs_on_the_fast_parser():
    assert lalr.grammar() is not None, "the grammar uses a lark feature lalr.py does not mirror"


@pytest.mark.parametrize("path", SPECS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_spec_parses_fast_to_what_lark_builds(path):
    text = path.read_text(encoding="utf-8")
    items = lalr.parse(text, AstBuilder(str(path)))   # Fallback here: the fast parser gave up
    rep = Reporter()
    slow = P._parse_lark(text, str(path), rep)
    assert not rep.items
    assert dump(A.Spec(str(path), items)) == dump(slow)


def test_spans_follow_the_text_the_rule_matched():
    """A rule's span runs over everything it matched (brackets of a `?rule`
    included for its parent, not for the bracketed node itself)."""
    text = 'const x: int = f((1 + 2), y) * 3\n'
    spec = P.parse(text, "t.atoll", Reporter())
    e = spec.items[0].value
    assert (e.span.line, e.span.column, e.span.end_line, e.span.end_column) == (1, 16, 1, 33)
    call = e.left
    assert (call.span.column, call.span.end_column) == (16, 29)
    inner = call.args[0]   # `1 + 2`: its own span, without the brackets
    assert (inner.span.column, inner.span.end_column) == (19, 24)


# ---------------------------------------------------------------- what lark's way still does

def _nested(n: int) -> str:
    return "const x: bool = " + "not " * n + "true\n"


GIVE_UP = {
    "syntax error": 'game g {\n  title: "G"\n',
    "two broken declarations": "const a: int = 1 +\nconst b: int = (2\nconst c: int = 3\n",
    "unexpected character": "const x: int = 1 & 2\n",
    "long number": "const x: int = " + "9" * (limits.MAX_INT_DIGITS + 1) + "\n",
    "deep nesting": _nested(limits.MAX_NESTING + 5),
    "deep brackets": "const x: int = " + "-(" * 120 + "1" + ")" * 120 + "\n",
    "loops": "setup { " + "for i in [1] { " * (limits.MAX_LOOPS + 1) + "}" * (limits.MAX_LOOPS + 1) + " }\n",
    "choices": "phase p { action a(" + ", ".join(f"x{i}: int in [1]" for i in range(limits.MAX_LOOPS + 1))
               + ") { end phase } }\n",
    "long chain": "const x: int = " + " + ".join(str(i) for i in range(40)) + "\n",
    "long chain of and": "const x: bool = " + " and ".join(["true"] * 20) + "\n",
    "long chain through brackets": "const x: int = " + " * ".join(f"({i} * {i})" for i in range(12)) + "\n",
    "not a type": "const x: list[int] = list[1]()\n",
}


@pytest.mark.parametrize("name", GIVE_UP)
def test_what_the_fast_parser_leaves_to_lark_is_answered_as_before(name):
    text = GIVE_UP[name]
    with pytest.raises(lalr.Fallback):
        lalr.parse(text, AstBuilder("t.atoll"))
    fast, slow = both(text)
    assert fast == slow


KEEP = {
    "chain at the limit": "const x: int = " + " + ".join(str(i) for i in range(16)) + "\n",
    "chains broken by another operator": "const x: int = " + " - ".join(
        "(" + " + ".join(["1"] * 15) + ")" for _ in range(3)) + "\n",
    "division chain": "const x: int = " + " / ".join(["2"] * 30) + "\n",
    "typed empty": "const x: list[map[str, int]] = list[map[str, int]]()\n",
    "type index misplaced": "const x: int = m[1, 2]\n",
    "let chain": "const x: int = let a = 1, b = 2 in let c = a in c + b\n",
    "windows lines and tabs": 'const x: int = 1\r\n\tconst y: str = "\u00e9\\n"\r\n# end',
    "empty file": "",
    "comments only": "# a\n  # b",
}


@pytest.mark.parametrize("name", KEEP)
def test_near_the_limits_the_fast_parser_keeps_lark_results(name):
    text = KEEP[name]
    lalr.parse(text, AstBuilder("t.atoll"))   # no Fallback
    fast, slow = both(text)
    assert fast == slow


def test_the_nesting_limit_is_counted_as_lark_way_counts_it():
    """The fast parser gives up exactly where the limit is passed."""
    for n in range(limits.MAX_NESTING - 6, limits.MAX_NESTING + 3):
        rep = Reporter()
        P._parse_lark(_nested(n), "t.atoll", rep)
        try:
            lalr.parse(_nested(n), AstBuilder("t.atoll"))
            gave_up = False
        except lalr.Fallback:
            gave_up = True
        assert gave_up == any(d.code == "A0005" for d in rep.items), n


# ---------------------------------------------------------------- generated and mutated programs

def _vocabulary() -> dict:
    out = {t.name: st.just(f" {t.pattern.value} ") for t in P._parser().terminals
           if t.pattern.type == "str"}
    out.update(
        NAME=st.sampled_from(["x", "y", "n", "Card", "me", "players", "sum", "list", "map"]).map(
            lambda s: f" {s} "),
        INT=st.sampled_from(["0", "1", "10"]).map(lambda s: f" {s} "),
        STRING=st.sampled_from(['"a"', '""', '"q\\"uote\\n"']).map(lambda s: f" {s} "),
        CMP_OP=st.sampled_from(["==", "<=", ">"]).map(lambda s: f" {s} "),
        MUL_OP=st.sampled_from(["*", "/", "%"]).map(lambda s: f" {s} "),
        WS=st.sampled_from([" ", "\n", "\t", "\n\n  "]),
        COMMENT=st.just(" # a comment\n"),
    )
    return out


PROGRAMS = from_lark(P._parser(), start="start", explicit=_vocabulary())


@settings(max_examples=15, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(program=PROGRAMS)
def test_generated_programs_parse_alike(program):
    fast, slow = both(program)
    assert fast == slow, program


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z][A-Za-z0-9_]*|[0-9]+|\S')


def test_mutated_specs_parse_alike():
    """Random edits of a real spec (many break it): the same AST, or the same
    diagnostics, both ways."""
    text = (ROOT / "tests" / "good" / "harbour_dice.atoll").read_text(encoding="utf-8")
    toks = list(_TOKEN.finditer(text))
    rng = random.Random(15)
    for _ in range(15):
        out = text
        for m in sorted(rng.sample(toks, 3), key=lambda m: -m.start()):
            kind = rng.randrange(3)
            repl = "" if kind == 0 else (m.group() + " " + m.group()) if kind == 1 else \
                rng.choice(["(", ")", "{", "+", "in", "let", "1", "x", "\n"])
            out = out[:m.start()] + repl + out[m.end():]
        fast, slow = both(out)
        assert fast == slow


# ---------------------------------------------------------------- the tables on disk

@pytest.fixture(scope="module")
def table_data():
    data = tables.extract(P._parser())
    data["key"] = tables.cache_key(tables.grammar_text())
    return data


def test_the_tables_on_disk_are_the_tables(tmp_path, table_data):
    folder = tmp_path / "cache"
    tables._write(folder, table_data["key"], table_data)
    assert (os.stat(folder).st_mode & 0o777) == 0o700
    assert tables._read(folder, table_data["key"]) == json.loads(json.dumps(table_data))
    assert tables._read(folder, "0" * 64) is None   # another grammar's key: not there


def test_tables_others_may_write_are_not_read(tmp_path, table_data):
    folder = tmp_path / "cache"
    key = table_data["key"]
    tables._write(folder, key, table_data)
    path = folder / f"tables-{key}.json"
    path.chmod(0o664)
    assert tables._read(folder, key) is None
    path.chmod(0o600)
    folder.chmod(0o777)
    assert tables._read(folder, key) is None
    folder.chmod(0o700)
    assert tables._read(folder, key) is not None
    real = folder / "real.json"
    path.rename(real)
    path.symlink_to(real)
    assert tables._read(folder, key) is None


@pytest.mark.parametrize("damage", ["not json", "truncated", "wrong format", "wrong key",
                                    "a state out of range", "a rule out of shape"])
def test_damaged_tables_are_ignored(tmp_path, table_data, damage):
    key = table_data["key"]
    data = json.loads(json.dumps(table_data))
    text = json.dumps(data)
    if damage == "not json":
        text = "\x00\x01 not json"
    elif damage == "truncated":
        text = text[:len(text) // 2]
    elif damage == "wrong format":
        text = json.dumps({**data, "format": tables.FORMAT + 1})
    elif damage == "wrong key":
        text = json.dumps({**data, "key": "0" * 64})
    elif damage == "a state out of range":
        data["states"][0][next(iter(data["states"][0]))] = len(data["states"])
        text = json.dumps(data)
    else:
        data["rules"][0][4] = [[99, 0, 0]]
        text = json.dumps(data)
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    (folder / f"tables-{key}.json").write_text(text)
    os.chmod(folder / f"tables-{key}.json", 0o600)
    assert tables._read(folder, key) is None


def test_no_cache_folder_when_told(monkeypatch):
    monkeypatch.setenv("ATOLL_CACHE_DIR", "")
    assert tables.cache_dir() is None
    monkeypatch.setenv("ATOLL_CACHE_DIR", "/some/where")
    assert tables.cache_dir() == Path("/some/where")


# ---------------------------------------------------------------- the nodes' constructors

def test_the_nodes_quick_constructors_keep_the_dataclass_contract():
    import inspect
    classes = [c for c in vars(A).values() if isinstance(c, type) and dataclasses.is_dataclass(c)
               and c.__module__ == A.__name__]
    assert len(classes) > 80
    for cls in classes:
        params = list(inspect.signature(cls).parameters.values())
        assert [p.name for p in params] == [f.name for f in dataclasses.fields(cls)], cls
        for p, f in zip(params, dataclasses.fields(cls)):
            if f.default is not dataclasses.MISSING:
                assert p.default is f.default, (cls, f.name)
    a, b = A.PhaseDecl("p", (), ()), A.PhaseDecl("p", (), ())
    assert a == b and a.done_notes == A.Notes() and a.done_notes is not b.done_notes   # a factory each
    assert a.span is A.NO_SPAN and a.enter == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.name = "q"
    assert dataclasses.replace(a, name="q").name == "q"
    with pytest.raises(TypeError):
        A.Span("f", 1, 2)   # the fields without a default are required


def test_tables_are_built_once_then_read(tmp_path, monkeypatch, table_data):
    monkeypatch.setenv("ATOLL_CACHE_DIR", str(tmp_path / "cache"))
    tables.tables.cache_clear()
    try:
        built = tables.tables()
        assert built == table_data
        files = list((tmp_path / "cache").glob("tables-*.json"))
        assert [f.name for f in files] == [f"tables-{table_data['key']}.json"]
        tables.tables.cache_clear()

        def not_again(lk):
            raise AssertionError("built again")
        monkeypatch.setattr(tables, "extract", not_again)   # (tables() would give None)
        assert tables.tables() == json.loads(json.dumps(table_data))   # read back
    finally:
        tables.tables.cache_clear()


def _lark_tokens(text: str):
    """lark's basic lexer on ``text`` (ignored terminals left out), or None
    where it stops at a character no terminal matches."""
    from lark.exceptions import UnexpectedCharacters
    try:
        toks = list(tables.lark_parser().lex(text))
    except UnexpectedCharacters:
        return None
    return [(t.type, str(t), (t.line, t.column, t.end_line, t.end_column), t.start_pos) for t in toks]


def _fast_tokens(text: str):
    try:
        types, values, extents, offsets = lalr.lex(lalr.grammar(), text)
    except lalr.Fallback as e:
        return "long" if "number" in str(e) else None
    return list(zip(types, values, extents, offsets))


_PIECES = ["game", "phase", "x", "x_1", "Ab9", "_", "12", "007", '"s"', '"a\\"b"', '"\\n"', '"', "#c", "# x\n",
           " ", "  ", "\t", "\n", "\n\n", "==", "!=", "<=", ">=", "<", ">", "=", "=>", "..", ".", "*", "/", "%",
           "+", "-", ":", ",", "{", "}", "(", ")", "[", "]", "@", "\r", "é", "1x", "x1", "and", "or", "not"]


def test_the_lexer_reads_what_larks_lexer_reads():
    """``lalr.lex`` (one pattern of every terminal, tried in lark's order)
    gives lark's basic lexer's tokens, kinds, texts and positions, on every
    spec of the repository and on random runs of pieces of the language,
    odd characters included (where both stop)."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(ROOT.rglob("*.atoll"))]
    rng = random.Random(15)
    texts += ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 60))) for _ in range(3000)]
    stopped = 0
    for text in texts:
        want = _lark_tokens(text)
        got = _fast_tokens(text)
        if want is None:
            assert got is None, text
            stopped += 1
        elif got == "long":   # a number past the limit: left to lark's way
            assert any(t[0] == "INT" and len(t[1]) > limits.MAX_INT_DIGITS for t in want)
        else:
            assert got == want, text
    assert stopped > 100
