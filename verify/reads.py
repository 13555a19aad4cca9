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


# ---------------------------------------------------------------- a player's own values

def own_reads(game, fn_name: str) -> Optional[tuple]:
    """For a function ``fn(S, me, ...)`` of the generated module: (the
    slots it may read whole, the slots it reads only as ``S[k][me]``: the
    element of the player ``me``), as two frozensets; None when that cannot
    be told. A call that passes ``S`` and ``me`` on as its first two
    arguments is followed the same way; one that passes ``S`` otherwise
    counts every slot that function reads (``slots_read``) as read whole.
    ``me`` must never be bound again in the function (else None)."""
    kept = _KEPT.get(game)
    if kept is None:
        kept = _KEPT[game] = {"defs": _defs(getattr(game, "source", None))}
    key = ("own", fn_name)
    if key not in kept:
        kept[key] = _own(game, kept["defs"], fn_name)
    return kept[key]


def _own(game, defs: dict, fn_name: str) -> Optional[tuple]:
    whole, own = set(), set()
    todo, seen = [fn_name], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if not _runs(game, defs, name):
            return None
        found = _own_direct(defs[name], defs)
        if found is None:
            return None
        w, o, calls, passed = found
        whole |= w
        own |= o
        todo.extend(calls)
        for callee, pos in passed:   # S passed on otherwise: all that function reads, whole
            r = _reads(game, defs, callee) if pos == 0 else None
            if r is None:
                return None
            whole |= r
    return frozenset(whole), frozenset(own - whole)


def _own_direct(fdef: ast.FunctionDef, defs: dict):
    """(slots read whole, slots read as ``S[k][me]``, functions called with
    (S, me, ...), (function, position) pairs S is passed to otherwise), or
    None: some other use of S, or ``me`` bound again."""
    params = list(fdef.args.posonlyargs) + list(fdef.args.args)
    if len(params) < 2:
        return None
    s_name, me_name = params[0].arg, params[1].arg
    parents = {}
    for node in ast.walk(fdef):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    whole, own, calls, passed = set(), set(), [], []
    for node in ast.walk(fdef):
        if isinstance(node, ast.arg) and node.arg in (s_name, me_name) and node not in params[:2]:
            return None   # a nested function's parameter of the same name
        if isinstance(node, ast.Name) and node.id == me_name and not isinstance(node.ctx, ast.Load):
            return None   # `me` bound again: `S[k][me]` may be another player's element
        if isinstance(node, (ast.Global, ast.Nonlocal)) and me_name in node.names:
            return None
        if not (isinstance(node, ast.Name) and node.id == s_name):
            continue
        if not isinstance(node.ctx, ast.Load):
            return None
        up = parents.get(node)
        if isinstance(up, ast.Subscript) and up.value is node and isinstance(up.ctx, ast.Load) \
                and isinstance(up.slice, ast.Constant) and type(up.slice.value) is int \
                and up.slice.value >= 0:
            k = up.slice.value
            top = parents.get(up)
            if isinstance(top, ast.Subscript) and top.value is up and isinstance(top.ctx, ast.Load) \
                    and isinstance(top.slice, ast.Name) and top.slice.id == me_name:
                own.add(k)
            else:
                whole.add(k)
            continue
        if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in defs \
                and not up.keywords:
            at = [i for i, a in enumerate(up.args) if a is node]
            if at and not any(isinstance(a, ast.Starred) for a in up.args[:at[0] + 1]):
                if at[0] == 0 and len(up.args) >= 2 and isinstance(up.args[1], ast.Name) \
                        and up.args[1].id == me_name:
                    calls.append(up.func.id)
                else:
                    passed.append((up.func.id, at[0]))
                continue
        return None
    return whole, own, calls, passed
