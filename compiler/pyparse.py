"""Python's ``ast.parse``, one thread at a time.

CPython 3.11 keeps the depth counter of its AST constructor in state that
every thread of the interpreter shares; two threads parsing at once (a game
compiled in each of a Dask worker's threads, say) can leave it unbalanced,
and ``ast.parse`` then fails with ``SystemError: AST constructor recursion
depth mismatch`` although the text is fine (python/cpython#106905). The
compiler and the verifier parse generated text only through ``parse``, which
holds a lock of the process for the call: the parses are short, so the
threads lose next to nothing by taking turns.
"""
from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()
_ast_parse = ast.parse   # (a test puts a slow parse here)


def parse(text: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(text, mode=mode)``, never alongside another thread's."""
    with _LOCK:
        return _ast_parse(text, mode=mode)
