"""Python's ``compile`` of a generated module, one top-level function at a
time, with the code of a function whose text was compiled before in this
process used again.

A variant's module repeats most of its base game's functions word for word,
and a game's specialised modules (one per configuration, see ``Frame``)
repeat every function the folded values do not reach; compiling those again
was a large part of a first compile of a game and its variants.

How: the module (only ``def`` statements at the top, and comment lines) is
cut at each top-level ``def``. A module most of whose function texts were
seen before is put together: each function's code is taken from ``_KEPT``
(keyed by the exact text) or compiled alone, then moved to its place: its
file name and first line (a code object's lines are counted from its first
line, nested code objects likewise). The module's own code, which makes and
binds each function, is compiled from a skeleton of the same lines where
each function's body is an expression that ends where the real body ends
(line and column: the module's code records where each ``def`` statement
ends); its function constants are then replaced by the real ones, in order.
Any other module is compiled whole, as before, and its functions kept.

Sound: a top-level function's code does not depend on the text around it
(its names are locals or globals either way), so the code compiled alone,
moved to its line and file, is what compiling the whole module gives
(``tests/test_pycode.py`` compares the two, code object for code object,
for every spec of the repository). Anything this does not expect (another
statement at the top, a decorator, a header over several lines, a comment
at the end of a body, Python refusing a piece) takes the whole module to
``compile`` as before, which also reports a refused module as before.
"""
from __future__ import annotations

from types import CodeType

# the functions compiled in this process: their text -> (the function's code,
# the line (from 0) it was compiled at); emptied when full
_KEPT: dict = {}
_KEPT_MAX = 20_000


def compile_module(source: str, filename: str) -> CodeType:
    """``compile(source, filename, "exec")``, reusing the code of functions
    compiled before (see the module's doc).

    Compiling a module one function at a time costs about as much as
    compiling it whole (each ``compile`` has its own start-up), so a module
    most of whose functions are new is compiled whole, and its functions
    are kept from there; one most of whose functions were compiled before
    (a variant after its base game) is put together from them."""
    plan = _plan(source)
    if plan is not None and 2 * sum(1 for _, text in plan[1] if text in _KEPT) >= len(plan[1]):
        try:
            code = _by_function(plan, filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            code = None
        if code is not None:
            return code
    code = compile(source, filename, "exec")   # a module Python refuses raises here, as before
    if plan is not None:
        made = [c for c in code.co_consts if isinstance(c, CodeType)]
        if len(made) == len(plan[1]) and all(c.co_name == _name(text) for c, (_, text) in zip(made, plan[1])):
            for c, (s, text) in zip(made, plan[1]):
                _keep(text, (c, s))
    return code


def _name(text: str) -> str:
    return text[4:text.index("(")] if "(" in text else ""


def _keep(text: str, entry) -> None:
    if len(_KEPT) >= _KEPT_MAX:
        _KEPT.clear()
    _KEPT[text] = entry


def _plan(source: str):
    """The module cut at its functions: (the skeleton's lines, [(first line
    of a function from 0, its text)]), or None for a module this does not
    expect."""
    lines = source.split("\n")
    starts = [i for i, t in enumerate(lines) if t.startswith("def ")]
    if not starts:
        return None
    for t in lines[:starts[0]]:
        if t and not t.startswith("#"):
            return None
    skeleton = [""] * len(lines)
    pieces = []
    for n, s in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        end = stop - 1
        while end > s and not lines[end].strip():
            end -= 1
        head = lines[s]
        if end == s or not head.endswith(":") or "#" in lines[end]:
            return None
        for t in lines[s + 1:end + 1]:
            if t and not t[0].isspace():   # another statement at the top (or a header over lines)
                return None
        width = len(lines[end].rstrip().encode())   # the module's code records the end in bytes
        skeleton[s] = head
        if end == s + 1:
            if width < 6:
                return None
            skeleton[s + 1] = "    (" + " " * (width - 6) + ")"
        else:
            if width < 1:
                return None
            skeleton[s + 1] = "    ("
            skeleton[end] = " " * (width - 1) + ")"
        pieces.append((s, "\n".join(lines[s:end + 1])))
    return skeleton, pieces


def _by_function(plan, filename: str):
    """The module put together from its functions, each kept or compiled
    alone (and kept)."""
    skeleton, pieces = plan
    module = compile("\n".join(skeleton), filename, "exec")
    made = [c for c in module.co_consts if isinstance(c, CodeType)]
    if len(made) != len(pieces):
        return None
    real = {}
    for (s, text), stub in zip(pieces, made):
        entry = _KEPT.get(text)
        if entry is None:
            alone = compile(text, "<atoll>", "exec")
            fn = [c for c in alone.co_consts if isinstance(c, CodeType)]
            if len(fn) != 1:
                return None
            entry = (fn[0], 0)
            _keep(text, entry)
        code, line = entry
        if code.co_name != stub.co_name:
            return None
        real[id(stub)] = _placed(code, filename, s - line)
    return module.replace(co_consts=tuple(real.get(id(c), c) if isinstance(c, CodeType) else c
                                          for c in module.co_consts))


def _placed(code: CodeType, filename: str, shift: int) -> CodeType:
    """``code`` moved ``shift`` lines down (or up), into ``filename``."""
    consts = code.co_consts
    if any(isinstance(c, CodeType) for c in consts):
        consts = tuple(_placed(c, filename, shift) if isinstance(c, CodeType) else c for c in consts)
    return code.replace(co_filename=filename, co_firstlineno=code.co_firstlineno + shift, co_consts=consts)
