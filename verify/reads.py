"""Which slots of the state a property's compiled function reads.

A property about one state (an invariant, a reachability goal, a measure)
runs as a function of the state's values ``S`` (``prop_NAME(S)`` in the
game's generated module). An effect never changes a value in place: it puts
a new value in the slot it writes (the transaction keeps the old list), so a
slot holding the very same object as before holds the same value. When none
of the slots a property reads has changed between two states, its function
gives the same answer in both, and play need not evaluate it again.

The slots are found in the code that actually runs: the generated module's
source, parsed with ``ast``, from the property's function through every
function of the module it passes ``S`` to. Any use of ``S`` other than
``S[k]`` with a literal ``k`` or passing it on to a function of the module
(an alias, a slice, a name that does not resolve to the function parsed)
makes the answer None: the property may read anything, and it is evaluated
in every state.
"""
from __future__ import annotations

import ast
import weakref
from itertools import compress
from operator import is_not
from typing import Optional

from atoll.compiler import pyparse

_KEPT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def slots_read(game, fn_name: str) -> Optional[frozenset]:
    """The indices of ``S`` that ``game.ns[fn_name](S, ...)`` may read (its
    first argument), or None when that cannot be told."""
    kept = _KEPT.get(game)
    if kept is None:
        kept = _KEPT[game] = {"defs": _defs(getattr(game, "source", None))}
    if fn_name not in kept:
        kept[fn_name] = _reads(game, kept["defs"], fn_name)
    return kept[fn_name]


def mask(indices) -> Optional[int]:
    """The indices as bits of an int (None stays None)."""
    if indices is None:
        return None
    out = 0
    for i in indices:
        out |= 1 << i
    return out


_BITS = [1 << i for i in range(64)]


def changed(before: list, after: list) -> int:
    """The slots whose value is not the same object in ``after``, as bits
    (the bit of each slot where ``is not`` holds, summed: the loop runs in C)."""
    n = len(after)
    if len(before) != n:
        return -1   # every bit
    bits = _BITS if n <= len(_BITS) else [1 << i for i in range(n)]
    return sum(compress(bits, map(is_not, before, after)))


def _defs(source) -> dict:
    if not isinstance(source, str):
        return {}
    try:
        tree = pyparse.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _runs(game, defs: dict, name: str) -> bool:
    """The function the module's namespace calls by ``name`` is the one parsed."""
    fn = game.ns.get(name)
    code = getattr(fn, "__code__", None)
    d = defs.get(name)
    return code is not None and d is not None and code.co_name == name and \
        code.co_firstlineno == d.lineno and not d.decorator_list


def _reads(game, defs: dict, fn_name: str) -> Optional[frozenset]:
    out: set = set()
    todo, seen = [(fn_name, 0)], set()
    while todo:
        name, pos = todo.pop()
        if (name, pos) in seen:
            continue
        seen.add((name, pos))
        if not _runs(game, defs, name):
            return None
        found = _direct(defs[name], pos, defs)
        if found is None:
            return None
        slots, calls = found
        out |= slots
        todo.extend(calls)
    return frozenset(out)


def _direct(fdef: ast.FunctionDef, pos: int, defs: dict):
    """(the literal indices read from parameter ``pos``, the (function,
    position) pairs it is passed to), or None: some other use."""
    args = fdef.args
    params = list(args.posonlyargs) + list(args.args)
    if pos >= len(params):
        return None
    pname = params[pos].arg
    parents = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    slots, calls = set(), []
    for node in ast.walk(fdef):
        if isinstance(node, ast.arg) and node.arg == pname and node is not params[pos]:
            return None   # a nested function's parameter of the same name
        if not (isinstance(node, ast.Name) and node.id == pname):
            continue
        up = parents.get(node)
        if isinstance(up, ast.Subscript) and up.value is node and isinstance(up.ctx, ast.Load) \
                and isinstance(up.slice, ast.Constant) and type(up.slice.value) is int \
                and up.slice.value >= 0:
            slots.add(up.slice.value)
            continue
        if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in defs \
                and not up.keywords:
            at = [i for i, a in enumerate(up.args) if a is node]
            if at and not any(isinstance(a, ast.Starred) for a in up.args[:at[0] + 1]):
                calls.append((up.func.id, at[0]))
                continue
        return None
    return slots, calls
