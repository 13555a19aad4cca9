"""Evaluating what is fixed before a game starts (options, constants,
requirements, teams): in the order of their dependencies, within a budget.

* ``const_order``: the constants in an order where each comes after those it
  reads, directly or through the functions it calls (found from the checked
  references, without running anything), or the cycle that makes one
  impossible;
* ``Budget``: while it is active, every line the evaluation runs and every
  call it makes costs a step; past ``limits.EVAL_STEPS`` steps, or when a
  function returns an integer longer than ``limits.MAX_INT_DIGITS`` digits,
  the evaluation stops with ``OverBudget``. (A loop inside one standard
  function that builds a collection is bounded by ``limits.MAX_ITEMS``.)
"""
from __future__ import annotations

import sys
from typing import Optional

from atoll.compiler import limits
from atoll.compiler.symbols import Program
from atoll.grammar import ast as A


class OverBudget(Exception):
    """The evaluation took too many steps or built too large a number."""


def _reads(prog: Program, node) -> tuple[set, set]:
    """The constants and the defs that ``node`` names."""
    consts, defs = set(), set()
    for n in A.walk(node):
        ref = prog.refs.get(id(n))
        if ref is None:
            continue
        if isinstance(n, A.Name) and ref[0] == "const":
            consts.add(ref[1])
        elif isinstance(n, A.Call) and ref[0] == "def":
            defs.add(ref[1])
    return consts, defs


def const_order(prog: Program) -> tuple[list[str], Optional[list[str]]]:
    """(the constants in an order of evaluation, None), or ([], a cycle as
    the list of constants along it, the first repeated at the end)."""
    def_direct = {name: _reads(prog, d.body) for name, d in prog.defs.items()}
    def_closure: dict[str, set] = {}

    def consts_through(defs: set) -> set:
        out, seen, todo = set(), set(), list(defs)
        while todo:
            d = todo.pop()
            if d in seen or d not in def_direct:
                continue
            seen.add(d)
            if d in def_closure:
                out |= def_closure[d]
                continue
            consts, calls = def_direct[d]
            out |= consts
            todo.extend(calls)
        return out

    for name in def_direct:
        def_closure[name] = consts_through({name})
    deps = {}
    for name, k in prog.consts.items():
        consts, defs = _reads(prog, k.value)
        deps[name] = sorted((consts | consts_through(defs)) & set(prog.consts))
    order, state = [], {}   # state: 1 on the path, 2 done
    for root in prog.consts:
        if state.get(root) == 2:
            continue
        path, todo = [root], [iter(deps[root])]
        state[root] = 1
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                done = path.pop()
                todo.pop()
                state[done] = 2
                order.append(done)
            elif state.get(nxt) == 1:
                return [], path[path.index(nxt):] + [nxt]
            elif state.get(nxt) != 2:
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(deps[nxt]))
    return order, None


def too_large(value) -> bool:
    """``value`` holds an integer longer than the limit (looked for without recursion)."""
    todo = [value]
    while todo:
        v = todo.pop()
        if type(v) is int:
            if v.bit_length() > limits.MAX_INT_BITS:
                return True
        elif isinstance(v, (tuple, list, frozenset, set)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
    return False


class Budget:
    """Counts the steps of the Python code run inside ``with Budget(): ...``
    (a trace function; the one active before is put back after)."""

    def __init__(self, steps: Optional[int] = None):
        self.steps = limits.EVAL_STEPS if steps is None else steps
        self.left = self.steps

    def __enter__(self) -> "Budget":
        self._old = sys.gettrace()
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc) -> None:
        sys.settrace(self._old)

    def _spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            sys.settrace(None)
            raise OverBudget(f"it took more than {self.steps:,} steps")

    def _call(self, frame, event, arg):
        self._spend()
        return self._line

    def _line(self, frame, event, arg):
        if event == "line":
            self._spend()
        elif event == "return" and type(arg) is int and arg.bit_length() > limits.MAX_INT_BITS:
            sys.settrace(None)
            raise OverBudget(f"it built a number of more than {limits.MAX_INT_DIGITS} digits")
        return self._line
