"""No text from outside reaches the generated Python except through ``repr``
or a mangled identifier.

Hostile text (newlines and the other line breaks Python or an editor may
honour, quotes, triple quotes, backslashes, ``#``, NUL, non-ASCII) is put in
every place a spec can hold free text: the spec's file name and the file name
of the game it extends, the title, string constants, summaries, citations and
assumptions, the values of a data file. Each carries a payload that creates a
sentinel file if it ever runs as code. The generated modules are executed
with the *full* Python builtins, so that the only protection left is the
escaping itself (``SAFE_BUILTINS`` must not be what stops the payload).

Identifiers cannot hold free text (the grammar allows ``[A-Za-z][A-Za-z0-9_]*``);
names that are Python keywords, builtins or look like the generated names
are checked to compile and play as well.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import json
import os
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import atoll
from atoll.compiler import pipeline
from atoll.grammar.parse import keywords

# ---------------------------------------------------------------- hostile text

SENTINEL = "SENTINEL"

_BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
_PIECES = _BREAKS + ["'", '"', "'''", '"""', "\\", "\\n", "#", "{", "}", "(", ")", ";", "\t", " ",
                     "é", "ß", "\u200b", "\ufeff", "𝔘", "x", "pass"]


def _payloads(sentinel: str) -> list[str]:
    code = f"open({sentinel!r}, 'w').close()"
    imp = f"__import__('builtins').open({sentinel!r}, 'w').close()"
    return [code, imp, "\n" + code + "\n", "\r" + code + "\r", "\n" + imp + "\n#",
            "'''\n" + code + "\n'''", '"""\n' + code + '\n"""', "')\n" + code + "\n('",
            '")\n' + code + '\n("', "\\\n" + code, "\u2028" + code, "\x0c\n" + code + "\n"]


def hostile_text():
    """Pieces of text: line breaks, quotes, short random text, and (as numbers)
    the payloads of ``_payloads``, which leave a sentinel file if they run."""
    piece = st.one_of(st.sampled_from(_PIECES), st.sampled_from(range(12)), st.text(max_size=3))
    return st.lists(piece, max_size=8)


def render(parts: list, sentinel: str, allow_nul: bool = True) -> str:
    pay = _payloads(sentinel)
    out = "".join(pay[p] if isinstance(p, int) else p for p in parts)
    return out if allow_nul else out.replace("\x00", "")


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def atoll_string(text: str) -> str:
    """``text`` as an Atoll string literal (escapes: \\", \\\\ and \\n)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def file_name(text: str, suffix: str = ".atoll") -> str:
    """A file name holding ``text`` (no `/` or NUL, at most 255 bytes)."""
    name = text.replace("/", "_").replace("\x00", "_")
    while len((name + suffix).encode("utf-8")) > 250:
        name = name[:-1]
    if name in ("", ".", ".."):
        name = "x" + name
    return name + suffix


# ---------------------------------------------------------------- the spec

def spec_text(t: str) -> str:
    s = atoll_string(t)
    return f"""
game g {{ title: {s} players: 2..2 }}

const s: str = {s}
  {s} cites {s} assumption {s}
data words: list[str] from "words.json" {s}
state {{ x: int = 0  said: list[str] = [] }}

require size(words) > 0 {s}

flow {s} {{ round {{ turns in seats: p }} }}

phase p {s} cites {s} {{
  action say(w: str in words) {s} cites {s}, {s} assumption {s}
    when s == {s} {s}
  {{
    x = x + 1
    said = said + [w, s, {s}]
    end phase
  }}
}}

ending over immediately when x >= 2 {s} => tie
unmodelled talk {s} cites {s}
property short {s} invariant x <= 2
"""


def _check_module(source: str, sentinel: Path):
    """The module compiles, defines functions only, and running it leaves no sentinel."""
    tree = ast.parse(source)
    for node in tree.body:
        assert isinstance(node, ast.FunctionDef), ast.dump(node)[:200]
    compile(source, "<test>", "exec")
    assert not sentinel.exists()


def _play(game, sentinel: Path, expect_text: str):
    assert game.ns["k_s"] == expect_text
    state = game.new_initial_state(0)
    rng = random.Random(0)
    steps = 0
    while not state.is_terminal() and steps < 20:
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    assert state.is_terminal()
    assert not sentinel.exists()


def _full_builtins(monkeypatch):
    """Run generated code with every builtin: escaping alone must keep the text inert."""
    monkeypatch.setattr(pipeline, "SAFE_BUILTINS", dict(vars(builtins)))


@contextlib.contextmanager
def _inside(tmp: Path):
    """Work in ``tmp``: the payloads name the sentinel by a relative path (no `/`,
    so that they fit in a file name)."""
    here = os.getcwd()
    os.chdir(tmp)
    try:
        yield
    finally:
        os.chdir(here)


def _hostile_case(parts_name, parts_text, parts_data, parts_base):
    with tempfile.TemporaryDirectory() as tmp, _inside(Path(tmp)):
        tmp = Path(tmp)
        sentinel = tmp / SENTINEL
        name = render(parts_name, SENTINEL)
        # a spec file is read with universal newlines: a string in it cannot hold a bare \r
        text = _lines(render(parts_text, SENTINEL))
        data = [render(parts_data, SENTINEL), "plain"]
        base_name = file_name(_lines(render(parts_base, SENTINEL)))
        (tmp / "words.json").write_text(json.dumps(data), encoding="utf-8")
        path = tmp / file_name(name)
        path.write_text(spec_text(text), encoding="utf-8")
        # a variant that extends a base game with a hostile file name
        (tmp / base_name).write_text(spec_text(text), encoding="utf-8")
        variant = tmp / file_name(name, ".variant.atoll")
        variant.write_text(f"extends {atoll_string(base_name)}\n"
                           f"const extra: str = {atoll_string(text)} {atoll_string(text)}\n",
                           encoding="utf-8")
        for spec in (path, variant):
            comp = atoll.compile_spec(spec)
            _check_module(comp.source, sentinel)
            game = pipeline.instantiate(comp, 2)
            _check_module(game.source, sentinel)
            _play(game, sentinel, text)
        assert not sentinel.exists()
        assert os.listdir(tmp) and SENTINEL not in os.listdir(tmp)


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=hostile_text(), text=hostile_text(), data=hostile_text(), base=hostile_text())
@example(name=[2], text=[], data=[], base=[])              # a newline, code, a newline in the file name
@example(name=[], text=[], data=[], base=[4])              # ... in the name of the game it extends
@example(name=["\r"], text=[5, 6, 7, 8], data=[9], base=["\u2028", 10])
@example(name=["x"], text=["\x00", "'''", '"""', "\\", 11], data=["\x00"], base=["x"])
def test_hostile_text_never_runs(monkeypatch, name, text, data, base):
    _full_builtins(monkeypatch)
    _hostile_case(name, text, data, base)


def test_the_sentinel_would_be_seen(tmp_path, monkeypatch):
    """The test can fail: code that does reach the module does run, with these builtins."""
    _full_builtins(monkeypatch)
    monkeypatch.chdir(tmp_path)
    sentinel = tmp_path / SENTINEL
    ns = {"__builtins__": pipeline.SAFE_BUILTINS}
    exec(compile("# x\n" + _payloads(SENTINEL)[0] + "\n", "<t>", "exec"), ns)
    assert sentinel.exists()


def test_a_file_name_with_a_newline_stays_a_comment(tmp_path, monkeypatch):
    """The regression of issue 10 §1.1: the header once embedded the path as is."""
    _full_builtins(monkeypatch)
    monkeypatch.chdir(tmp_path)
    sentinel = tmp_path / SENTINEL
    (tmp_path / "words.json").write_text('["a"]')
    path = tmp_path / ("g\n" + f"open({SENTINEL!r}, 'w').close()\n#.atoll")
    path.write_text(spec_text("t"))
    comp = atoll.compile_spec(path)
    pipeline.instantiate(comp, 2)
    assert not sentinel.exists()
    header = comp.source.splitlines()[0]
    assert header.startswith("# Generated by atoll from ") and repr(str(path)) in header


def test_string_escapes_round_trip(tmp_path):
    """`\\\\n` in a spec string is a backslash and an `n`, not a newline."""
    for text in ["a\\nb", "\\", "\\\\n", 'q"\\"', "\\\n", "line\nbreak"]:
        (tmp_path / "words.json").write_text('["a"]')
        path = tmp_path / "g.atoll"
        path.write_text(spec_text(text))
        game = atoll.load(path, players=2)
        assert game.ns["k_s"] == text, (text, game.ns["k_s"])


# ---------------------------------------------------------------- identifiers

_RESERVED = set(keywords())
_TRICKY = ["S", "me", "X", "None", "True", "import", "lambda", "def", "open", "eval", "exec",
           "sorted", "sum", "f_at", "k_x", "l_x", "c_x", "d_x", "DRY", "NP", "PLAYERS", "SEATS",
           "TEAM_OF", "setup", "teams", "score", "round_0", "stage_0_0", "endings_immediately",
           "req_0", "init_x", "a_go_gen", "ph_p_enter", "can_go_1", "go_1", "x__y", "y_", "Z9",
           "class", "async", "await", "yield", "nonlocal", "global", "print", "__import__"[2:]]


def _identifier():
    pattern = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True)
    return st.one_of(st.sampled_from(_TRICKY), pattern).filter(lambda n: n not in _RESERVED)


def ident_spec(n: list[str]) -> str:
    """A spec whose every name comes from ``n`` (distinct, none reserved)."""
    (game, enum, m1, m2, const, var, phase, act, param, fn, fparam, ending, prop, opt, let, comp,
     rec, fld) = n
    return f"""
game {game} {{ title: "T" players: 2..2 }}
enum {enum} {{ {m1}, {m2} }}
record {rec} {{ {fld}: int }}
option {opt}: {enum} = {m1}
const {const}: int = sum({comp} for {comp} in [1, 2] if {opt} == {m1})
def {fn}({fparam}: int): int = {fparam} + {const} + {rec}({fld}: 1).{fld}
state {{ {var}: int = 0 }}
flow {{ round {{ turns in seats: {phase} }} }}
phase {phase} {{
  action {act}({param}: int in [1, 2])
    when {var} + {param} <= 5
  {{
    let {let} = {fn}({param})
    {var} = {var} + {param} + {let} - {let}
    end phase
  }}
}}
ending {ending} immediately when {var} >= 4 => tie
property {prop} invariant {var} <= 6
"""


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.lists(_identifier(), min_size=18, max_size=18, unique_by=str.lower))
def test_any_identifier_compiles_and_plays(names):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.atoll"
        path.write_text(ident_spec(names))
        comp = atoll.compile_spec(path)
        tree = ast.parse(comp.source)
        defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert len(defs) == len(set(defs)), sorted(d for d in defs if defs.count(d) > 1)
        game = pipeline.instantiate(comp, 2)
        state = game.new_initial_state(0)
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
        assert state.S[game.layout.names.index(names[5])] >= 4


def test_non_ascii_identifiers_are_refused_with_a_diagnostic(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(ident_spec(["g", "E", "a", "b", "café", "v", "p", "go", "n", "f", "y", "over",
                                "pr", "o", "t", "i", "R", "fl"]))
    with pytest.raises(atoll.SpecError) as info:
        atoll.compile_spec(path)
    assert [d.code for d in info.value.diagnostics][0] == "A0002"
