"""The toolchain's own parses of Python text take turns between threads
(``compiler/pyparse.py``): CPython 3.11's AST constructor keeps a depth
counter that threads share, and two parses at once can fail with a
``SystemError`` (python/cpython#106905) -- seen once in the Dask test, whose
worker compiles a game in each of two threads."""
from __future__ import annotations

import ast
import re
import threading
import time
from pathlib import Path

from atoll.compiler import pyparse

ROOT = Path(__file__).resolve().parent.parent


def test_two_threads_never_parse_at_once(monkeypatch):
    inside, overlaps, real = [], [], ast.parse

    def slow_parse(text, mode="exec"):
        inside.append(1)
        if len(inside) > 1:
            overlaps.append(len(inside))
        time.sleep(0.02)   # long enough for the other thread to come in, were it let
        inside.pop()
        return real(text, mode=mode)

    monkeypatch.setattr(pyparse, "_ast_parse", slow_parse)
    trees = []
    threads = [threading.Thread(target=lambda: [trees.append(pyparse.parse("x = 1")) for _ in range(5)])
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(trees) == 15 and overlaps == []
    assert pyparse.parse("a + b", mode="eval").body.op.__class__ is ast.Add


def test_the_toolchain_parses_python_only_through_the_lock():
    direct = re.compile(r"\b(ast|_py)\.parse\(")
    found = [f"{p.relative_to(ROOT)}:{i}" for d in ("atoll", "compiler", "verify") for p in (ROOT / d).rglob("*.py")
             if p.name != "pyparse.py"
             for i, line in enumerate(p.read_text().splitlines(), 1) if direct.search(line)]
    assert found == []
