"""How the generated module stays within Python's limits: a part of the
Lowerer (``lower.Lowerer`` inherits it).

Python refuses an expression nested 200 brackets deep, and its compiler and
the lowering itself recurse on nesting. The parser bounds the spec's nesting
(``limits.MAX_NESTING``), but one level of the spec can become a few
brackets of Python, and an inlined def adds its body's depth to the place
that calls it. So:

* ``shallow``/``hoist``: an expression whose text nests deeper than
  ``HOIST_DEPTH`` brackets becomes a call of a helper function ``_hN`` of the
  module that returns it; the call passes the local variables the text reads;
* ``inline_height``: a def is inlined only when the defs its inlining would
  inline in turn go at most ``MAX_INLINE`` deep.
"""
from __future__ import annotations

import ast
import itertools
import re

from atoll.compiler import pyparse
from atoll.grammar import ast as A

# Brackets an expression's text may nest before it is moved into a helper
# function (Python refuses 200; its compiler recurses on the rest).
HOIST_DEPTH = 40
# A def is inlined only when the defs it would inline in turn go at most
# this deep (the lowering recurses through inlined bodies).
MAX_INLINE = 6
_BRACKETS = re.compile(r"[()\[\]{}]")


class PythonLimits:
    """The methods of the Lowerer that keep within Python's limits."""

    def def_calls(self) -> dict:
        """Per def, the defs its body calls (by name), found once."""
        if self._def_calls is None:
            self._def_calls = {n: {self.p.refs[id(x)][1] for x in A.walk(d.body) if isinstance(x, A.Call)
                                   and self.p.refs.get(id(x), ("?",))[0] == "def"}
                               for n, d in self.p.defs.items()}
        return self._def_calls

    def inline_height(self, name: str) -> int:
        """1 + the height of the deepest def that ``name``'s body calls (a
        def that calls itself, directly or not, counts for 0 where it recurs).
        Found for every def at once, without recursion."""
        if self._heights is None:
            calls = self.def_calls()
            heights: dict[str, int] = {}
            for root in calls:
                todo, on_path = [(root, iter(sorted(calls[root])))], {root}
                while todo:
                    node, it = todo[-1]
                    nxt = next((c for c in it if c not in heights and c not in on_path), None)
                    if nxt is not None:
                        on_path.add(nxt)
                        todo.append((nxt, iter(sorted(calls[nxt]))))
                        continue
                    heights[node] = 1 + max((heights.get(c, 0) for c in calls[node]), default=0)
                    on_path.discard(node)
                    todo.pop()
            self._heights = heights
        return self._heights[name]

    def shallow(self, text: str) -> str:
        """``text``, or a call of a helper returning it when it nests deeper
        than HOIST_DEPTH brackets."""
        if len(text) <= 2 * HOIST_DEPTH or _opening(text) <= HOIST_DEPTH or _nesting(text) <= HOIST_DEPTH:
            return text
        return self.hoist(text)

    def hoist(self, text: str) -> str:
        """Move an expression into a helper function of the module; the call
        passes the local variables it reads (the state, the player, the
        parameters and loop variables in scope, temporaries)."""
        free = sorted(n for n in _free_names(pyparse.parse(text, mode="eval").body)
                      if n in ("S", "me", "X") or n.startswith("l_")
                      or (n.startswith("_") and n not in self.defined))
        name = self.define(self.fresh("h"))
        args = ", ".join(free)
        self.helpers.append(f"def {name}({args}):")
        self.helpers.append(f"    return {text}")
        self.helpers.append("")
        return f"{name}({args})"


def _opening(text: str) -> int:
    """The opening brackets of ``text``, those inside strings too: no fewer
    than the depth they nest (counted at C speed, before ``_nesting``)."""
    return text.count("(") + text.count("[") + text.count("{")


_BRACKET_STEP = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _nesting(text: str) -> int:
    """How deep the brackets of generated Python text nest (string literals,
    as ``repr`` writes them, skipped)."""
    if "'" not in text and '"' not in text:   # the common case: brackets only
        return max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, _BRACKETS.findall(text))), default=0)
    depth = top = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            depth += 1
            top = max(top, depth)
        elif c in ")]}":
            depth -= 1
        elif c in "'\"":
            i += 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        i += 1
    return top


def _free_names(node, bound: frozenset = frozenset()) -> set[str]:
    """The names an expression reads that it does not bind itself (a
    comprehension binds its targets; its first iterable is read outside)."""
    out: set[str] = set()
    if isinstance(node, ast.Name):
        if node.id not in bound:
            out.add(node.id)
        return out
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        inner = set(bound)
        for i, g in enumerate(node.generators):
            out |= _free_names(g.iter, frozenset(bound if i == 0 else inner))
            inner |= {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
            for c in g.ifs:
                out |= _free_names(c, frozenset(inner))
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            out |= _free_names(part, frozenset(inner))
        return out
    if isinstance(node, ast.Lambda):   # (a `let`): its parameters are bound in its body
        params = frozenset(a.arg for a in node.args.args)
        return _free_names(node.body, bound | params)
    for child in ast.iter_child_nodes(node):
        out |= _free_names(child, bound)
    return out
