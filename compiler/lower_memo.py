"""Defs whose answers are kept: a part of the Lowerer (``lower.Lowerer``
inherits it and provides ``emit``, ``open_def``, ``frame``, ``layout`` and
``memo_slots``)."""
from __future__ import annotations

from atoll.compiler import names as N
from atoll.grammar import ast as A


class DefMemo:
    """``memo_function`` of the Lowerer (see there)."""

    def memo_function(self, d: A.DefDecl, text: list) -> None:
        """For a def of players (or of nothing) that walks a collection of the
        state (``text``: its lowered function, with what is known folded in),
        ``dm_<def>``: its answer per player kept with the values it read (the
        state's slots, by identity: a value of the state is never changed in
        place, so the same object is the same value), and given again while
        they are the same. Called where the def is used, except where some
        slots are read from locals (``overrides``)."""
        if not any(" for " in line for line in text[1:]):
            return
        if not all(q.type.name == "Player" and not q.type.args for q in d.params):
            return
        if self._calls_itself(d.name):
            return
        reads = self.frame.reads(d.body, {})
        if not reads or not all(r in self.layout.slots for r in reads):
            return
        slots = sorted(self.layout.slots[r] for r in reads)
        params = [N.local(q.name) for q in d.params]
        key = f"({''.join(p + ', ' for p in params)})"
        self.open_def(N.def_memo_fn(d.name), "S" + "".join(f", {p}" for p in params) + ", _m={}")
        self.emit(f"_e = _m.get({key})", 1)   # (the slots' values, then the answer)
        same = " and ".join(f"_e[{k}] is S[{i}]" for k, i in enumerate(slots))
        self.emit(f"if _e is not None and {same}:", 1)
        self.emit(f"return _e[{len(slots)}]", 2)
        self.emit(f"_r = {N.def_fn(d.name)}(S{''.join(', ' + p for p in params)})", 1)
        self.emit(f"_m[{key}] = ({''.join(f'S[{i}], ' for i in slots)}_r)", 1)
        self.emit("return _r", 1)
        self.emit("", 0)
        self.memo_slots[d.name] = slots
