"""compiler/pycode: a generated module compiled one function at a time (the
code of a function text compiled before used again) gives the code object
that compiling the whole module gives: every code object equal (bytecode,
constants, names, first line, line and column table), the same file names,
for every spec of the repository that compiles, general and specialised;
and whatever it does not expect goes to ``compile`` whole."""
from __future__ import annotations

from pathlib import Path
from types import CodeType

import pytest

import atoll
from atoll.compiler import pipeline, pycode
from atoll.diagnostics import SpecError

ROOT = Path(__file__).resolve().parent.parent


def _specs():
    out = []
    for p in sorted([*ROOT.glob("spec/**/*.atoll"), *ROOT.glob("tests/good/**/*.atoll"),
                     *ROOT.glob("tests/golden/**/*.atoll"), *ROOT.glob("examples/**/*.atoll")]):
        try:
            out.append((p, atoll.compile_spec(p, allow=[ROOT / "spec", ROOT / "tests", ROOT / "examples"])))
        except SpecError:
            pass
    return out


def _same(a: CodeType, b: CodeType, where=""):
    """Equal as Python compares code, and the same file names and positions
    all the way down."""
    assert a == b, where
    assert a.co_filename == b.co_filename, where
    assert list(a.co_positions()) == list(b.co_positions()), where
    assert a.co_qualname == b.co_qualname, where
    inner_a = [c for c in a.co_consts if isinstance(c, CodeType)]
    inner_b = [c for c in b.co_consts if isinstance(c, CodeType)]
    assert len(inner_a) == len(inner_b), where
    for x, y in zip(inner_a, inner_b):
        _same(x, y, f"{where}/{x.co_name}")


def test_by_function_is_the_whole_compile():
    specs = _specs()
    assert len(specs) >= 20
    took = 0
    for path, comp in specs:
        try:
            pipeline.instantiate(comp)   # the module for one game, its values folded in
        except SpecError:   # a game that needs options to be played
            pass
        sources = [src for src, _ in comp._code.values()]
        for source in sources:
            name = f"<atoll:{str(path)!r}>"
            whole = compile(source, name, "exec")
            pycode._KEPT.clear()
            parts = pycode._by_function(pycode._plan(source), name)   # every function compiled alone
            assert parts is not None, path   # every generated module can take the way by function
            took += 1
            _same(parts, whole, str(path))
            pycode._KEPT.clear()
            _same(pycode.compile_module(source, name), whole, str(path))   # whole, its functions kept
            assert len(pycode._KEPT) == source.count("\ndef ")
            moved = "# moved\n\n" + source
            _same(pycode.compile_module(moved, name + "2"), compile(moved, name + "2", "exec"), str(path))
    assert took >= 2 * len(specs) - 5


def test_the_text_of_a_function_is_compiled_once(monkeypatch):
    pycode._KEPT.clear()
    source = "# a comment\n\ndef f(S):\n    return S + 1\n\ndef g(S, l_x):\n    if l_x:\n        return (\n            f(S))\n    return 0\n"
    first = pycode.compile_module(source, "<a>")   # nothing kept: compiled whole, its functions kept
    assert len(pycode._KEPT) == 2
    calls = []
    real = compile
    monkeypatch.setattr(pycode, "compile", lambda *a, **k: calls.append(a[0]) or real(*a, **k), raising=False)
    moved = "# another\n\n\n" + source.replace("# a comment\n", "")
    second = pycode.compile_module(moved, "<b>")
    assert len(calls) == 1 and calls[0].lstrip().startswith("def f(S):\n    (")   # the skeleton only
    _same(second, real(moved, "<b>", "exec"))
    _same(first, real(source, "<a>", "exec"))
    ns: dict = {}
    exec(second, ns)
    assert ns["g"](1, True) == 2 and ns["g"](1, False) == 0


@pytest.mark.parametrize("source", [
    "x = 1\ndef f(S):\n    return x\n",                       # a statement at the top
    "def f(S):\n    return 1\nx = 2\n",                       # one after a function
    "def f(S):\n    return 1  # a comment\n",                  # a comment where the body ends
    "def f(S,\n      l_x):\n    return l_x\n",                # a header over two lines
    "@staticmethod\ndef f(S):\n    return 1\n",               # a decorator
    "def f(S): return 1\n",                                   # a body on the header's line
])
def test_what_it_does_not_expect_is_compiled_whole(source):
    assert pycode._plan(source) is None
    _same(pycode.compile_module(source, "<c>"), compile(source, "<c>", "exec"))


def test_a_refused_module_is_reported_as_before():
    source = "def f(S):\n    return (\n"
    with pytest.raises(SyntaxError) as whole:
        compile(source, "<d>", "exec")
    with pytest.raises(SyntaxError) as parts:
        pycode.compile_module(source, "<d>")
    assert (parts.value.msg, parts.value.lineno, parts.value.filename) == \
        (whole.value.msg, whole.value.lineno, whole.value.filename)
