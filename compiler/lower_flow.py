"""Lowering of the turn flow's hot test: a phase's `done when` that keeps
what it learns about the phase's own actions.

A phase's `done when` often asks `can(a)` of the phase's own actions
(`done when ... or not (can(place) or can(sail))`), and when it does not
hold, the very next thing play does is list the legal actions of that phase,
on the same state for the same player: the same choices again. So for each
phase whose `done when` asks `can` of one of its own actions, the module gets
``phdonem_<phase>(S, me, M)``: the same test, where `can(a)` is answered by
the list of ``a``'s legal choices (``achoices_<a>``, the loops that `can`
runs without stopping at the first), computed once and kept in ``M`` under
the action's index. The flow engine keeps ``M`` with the state when the test
is false (the player decides there), and the listing takes the kept lists
instead of computing them again (``compiler/flow_engine.py``,
``compiler/playout.py``).

Sound because `can(a)` holds exactly when ``achoices_<a>`` lists a choice
(both run the domains, `when`s and `ensures` of ``a`` on the same state for
the same player). The two may differ only in an error: `can` stops at the
first legal choice, the list goes on. So the engine runs ``phdonem`` first
and, should it raise, the plain ``phdone_<phase>``, which then raises the
error play always raised, or answers.

Nothing else of the lowering changes: ``FlowLowerer`` is the ``Lowerer``
with these functions added at the end of the module.
"""
from __future__ import annotations

from typing import Optional

from atoll.compiler import names as N
from atoll.compiler.lower import Lowerer
from atoll.grammar import ast as A


def asks_own_can(prog, ph) -> bool:
    """Whether the `done when` of phase ``ph`` asks `can` of one of its own actions."""
    if ph.done is None:
        return False
    own = {a.name for a in ph.actions}
    return any(isinstance(n, A.Call) and prog.refs.get(id(n), ("?",))[0] == "can"
               and prog.refs[id(n)][1] in own for n in A.walk(ph.done))


class FlowLowerer(Lowerer):
    """The Lowerer, with the memoising `done when` tests of the phases."""

    _memo_actions: Optional[dict] = None   # while a phdonem is lowered: action name -> its index

    def call(self, e: A.Call) -> str:
        ref = self.p.refs.get(id(e), ("?",))
        if self._memo_actions is not None and ref[0] == "can" and ref[1] in self._memo_actions:
            k = self._memo_actions[ref[1]]
            return f"((M[{k}] if {k} in M else M.setdefault({k}, {N.action('choices', ref[1])}(S, me))) != [])"
        return super().call(e)

    def lower(self) -> str:
        text = super().lower()
        index, n = {}, 0
        for ph in self.p.phases.values():   # the actions' indices, as the game numbers them
            for a in ph.actions:
                index[a.name] = n
                n += 1
        helpers = len(self.helpers)
        self.lines = []
        for ph in self.p.phases.values():
            if not asks_own_can(self.p, ph):
                continue
            self.current_phase = ph.name
            self._memo_actions = {a.name: index[a.name] for a in ph.actions}
            try:
                self.function(N.phase("donem", ph.name), "S, me, M", self.ex(ph.done))
            finally:
                self._memo_actions = None
        self.current_phase = None
        self.lines.extend(self.helpers[helpers:])
        return text + "\n".join(self.lines) + ("\n" if self.lines else "")


def lower(prog, statics: Optional[dict] = None):
    """As ``lower.lower``: the module of ``prog`` (and its layout), with the
    memoising `done when` tests added."""
    lw = FlowLowerer(prog, statics)
    return lw.lower(), lw.layout
