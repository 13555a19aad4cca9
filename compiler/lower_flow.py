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

The `on enter` of such a phase often asks the same `can`s first (`stuck =
not can(place) and not can(sail)`), on a state that differs from the one
the `done when` sees only in what the `on enter` then writes. Where the
`can(a)` reads none of the slots the `on enter` writes (``enter_shares``,
by ``Frame.reads`` where `x and false` depends on nothing: the instance's
options decide it), the module gets ``phenterm_<phase>(S, me, X, M, K)``:
the `on enter` with that `can` answered by ``a``'s listing, kept in ``M``
(``K`` is ``FlowEngine._kept_can``, which falls back to the plain `can`
should the listing fail), and the generated flow hands the same ``M`` to
``phdonem``. The listing kept is then the one the `done when` would make.

The turn flow itself is lowered too. The end of a stage returns
``flstage_<i>_<j+1>`` (the next stage begins: its players, then its first
phase entered as below) or ``flround_<i>`` (the endings `after_round`, the
round count, the next round chosen by its condition). For each position of
the flow (phase ``k`` of stage ``j`` of round ``i``) the module gets ``flend_<i>_<j>_<k>(G,
st, S, ctl, X)``: that phase has just ended, and the function does what the
interpreter (``FlowEngine._next_phase`` then ``_settle``) does from there,
written out for that position up to the next decision: the next phase of
the turn, or the endings `after_turn` and the next player's first phase;
entering a phase runs its `on enter` and `auto` (none is called where the
phase has neither), the endings `immediately`, then the end of an `auto`
phase (the next position's function) or the phase's `done when`. The
engine calls it where an action ends its phase (``FlowEngine._act``).

It hands over to the interpreter wherever the written-out way would need
more than the usual steps, at the very point the interpreter would be:
after an `on enter`/`auto` that finishes the game, signals `end phase`/`end
turn` or makes an ending hold, or whose endings test fails
(``FlowEngine._after_enter``, which words errors as ever); at a `repeat
when` that holds; at a stage that names no players or an around stage whose
`until` holds at its start (``_next_stage`` goes on);
and everywhere in a simultaneous stage. The settings of ``G._where`` are
those the interpreter makes (an error or a `win` names the same step).
Sound because each step runs the same generated rule functions in the
same order on the same S and ctl; where a phase has no `on enter` and no
`auto`, entering it changes nothing, so the endings `immediately` (a test
of S alone) are not tested again: they were tested on this very S last
(after the action's effect, or after the previous `on enter`/`auto`) and
none held. Where the phase ends at once (an `auto` phase, a `done when`
that holds), the function returns the next position's function, and the
engine calls it (``FlowEngine._flow``): a million steps without a decision
stop the game as in the interpreter. ``tests/test_generated_flow.py`` plays
every spec both ways.

Nothing else of the lowering changes: ``FlowLowerer`` is the ``Lowerer``
with these functions added at the end of the module.
"""
from __future__ import annotations

from typing import Optional

from atoll.compiler import names as N
from atoll.compiler.lower import Lowerer
from atoll.compiler.lower_listing import listing_functions
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

    _enter_memo: Optional[dict] = None    # while a phenterm is lowered: action name -> its index

    def call(self, e: A.Call) -> str:
        ref = self.p.refs.get(id(e), ("?",))
        if self._memo_actions is not None and ref[0] == "can" and ref[1] in self._memo_actions:
            k = self._memo_actions[ref[1]]
            return f"((M[{k}] if {k} in M else M.setdefault({k}, {N.action('choices', ref[1])}(S, me))) != [])"
        if self._enter_memo is not None and ref[0] == "can" and ref[1] in self._enter_memo:
            k = self._enter_memo[ref[1]]
            return f"K(M, {k}, {N.action('choices', ref[1])}, {N.can(ref[1])}, S, me)"
        return super().call(e)

    def enter_shares(self, ph) -> list:
        """The own actions whose `can` the `on enter` of ``ph`` may answer
        from their listing, kept for the `done when` that follows (which asks
        `can` of them too): those whose `can` reads no slot that the `on
        enter` writes (the listing made at the `can` is then the listing on
        the state the `done when` sees)."""
        if ph.auto or not ph.enter or not asks_own_can(self.p, ph):
            return []
        own = {a.name for a in ph.actions}

        def asked(tree):
            return {self.p.refs[id(n)][1] for n in A.walk(tree)
                    if isinstance(n, A.Call) and self.p.refs.get(id(n), ("?",))[0] == "can"
                    and self.p.refs[id(n)][1] in own}
        written = self.frame.written(ph.enter, ph.name)
        out = []
        for n in A.walk(ph.enter):
            if isinstance(n, A.Call) and self.p.refs.get(id(n), ("?",))[0] == "can":
                name = self.p.refs[id(n)][1]
                if name in own and name in asked(ph.done) and name not in out \
                        and not (self._value_reads(n) & written):
                    out.append(name)
        return out

    def _kept_actions(self, ph) -> set:
        """The own actions of ``ph`` whose choices its `done when` may keep (see lower_listing)."""
        if not asks_own_can(self.p, ph):
            return set()
        own = {a.name for a in ph.actions}
        return {self.p.refs[id(n)][1] for n in A.walk(ph.done)
                if isinstance(n, A.Call) and self.p.refs.get(id(n), ("?",))[0] == "can"
                and self.p.refs[id(n)][1] in own}

    def _value_reads(self, e) -> set:
        """The slots whose values the value of ``e`` depends on (``Frame.reads``,
        where `x and false` and `x or true`, with ``x`` unable to fail,
        depend on nothing: the instance's options decide them)."""
        self.frame.value_reads = True
        try:
            return self.frame.reads(e, {})
        finally:
            self.frame.value_reads = False

    def lower(self) -> str:
        text = super().lower()
        index, n = {}, 0
        for ph in self.p.phases.values():   # the actions' indices, as the game numbers them
            for a in ph.actions:
                index[a.name] = n
                n += 1
        helpers = len(self.helpers)
        self.lines = []
        self._enterm = set()   # the phases with a phenterm
        for ph in self.p.phases.values():
            if not asks_own_can(self.p, ph):
                continue
            self.current_phase = ph.name
            self._memo_actions = {a.name: index[a.name] for a in ph.actions}
            try:
                self.function(N.phase("donem", ph.name), "S, me, M", self.ex(ph.done))
            finally:
                self._memo_actions = None
            shares = self.enter_shares(ph) if self.frame.statics else []
            if shares:   # the `on enter`, answering those `can`s from listings kept in M
                self._enter_memo = {name: index[name] for name in shares}
                try:
                    self.open_def(N.phase("enterm", ph.name), "S, me, X, M, K")
                    for v in ph.vars:
                        self.emit(f"S[{self.layout.slots[('phase', ph.name, v.name)]}] = {self.ex(v.init)}", 1)
                    self.block(ph.enter, 1)
                    self.emit("", 0)
                    self._enterm.add(ph.name)
                finally:
                    self._enter_memo = None
        self.current_phase = None
        if self.frame.statics:   # a game's module (see flow_steps)
            listing_functions(self, index, self._kept_actions)
            self.flow_steps()
        self.lines.extend(self.helpers[helpers:])
        return text + "\n".join(self.lines) + ("\n" if self.lines else "")

    # ------------------------------------------------------------ the generated flow
    def flow_steps(self) -> None:
        """``flend_<i>_<j>_<k>(G, st, S, ctl, X)`` for every position of the
        flow: phase ``k`` of stage ``j`` of round ``i`` has just ended (what
        ``FlowEngine._next_phase`` then ``_settle`` do), written out up to
        the next decision (see the module's text). In a simultaneous stage
        it hands over to the interpreter at once. Only in the module of a
        game (``statics`` given: ``pipeline.instantiate``): the general
        module, which ``compile_spec`` compiles to report Python's limits
        and no game plays, is left without them (a game built from a module
        without them runs the interpreter's flow)."""
        p = self.p
        if not p.flow:
            return
        times = {}
        for en in p.endings.values():
            times.setdefault(en.time, []).append(en.name)
        # what the engine's _check_endings leaves in G._where when none holds
        self._flow_last_where = {t: repr(f"ending `{ns[-1]}`") for t, ns in times.items()}
        for i, rd in enumerate(p.flow.rounds):
            for j, st in enumerate(rd.stages):
                for k in range(len(st.phases)):
                    self.flow_end(i, j, st, k)
                self.flow_stage(i, j, st)
            self.flow_round(i)

    def flow_end(self, i: int, j: int, st, k: int) -> None:
        E = self.emit
        self.open_def(N.flow_end(i, j, k), "G, st, S, ctl, X")
        last = self._flow_last_where
        if st.kind == "simultaneous":   # the players' parts interleave: the interpreter
            E("G._next_phase(st, X)", 1)
            E("G._settle(st, X)", 1)
            self.emit("", 0)
            return
        if k + 1 < len(st.phases):   # the next phase of the turn, for the same player
            E(f"ctl[3] = {k + 1}", 1)
            self.flow_enter(i, j, st, k + 1)
            self.emit("", 0)
            return
        if "after_turn" in last:   # the end of the turn (FlowEngine._end_turn)
            E(f"ctl[3] = {k + 1}   # (as _next_phase leaves it, should an ending hold)", 1)
            E("try:", 1)
            E(f"e = {N.endings_at('after_turn')}(S)", 2)
            E("except G._Error:", 1)
            E("e = 0   # _check_endings words the error", 2)
            E("if e >= 0 and G._check_endings(st, X, 'after_turn'):", 1)
            E("return", 2)
            E(f"G._where = {last['after_turn']}", 1)
        E("ctl[3] = 0", 1)
        E("ctl[6] = False", 1)
        if st.kind == "around":   # the turn passes to the next player (FlowEngine._pass_turn)
            if st.keeper is None:
                E("ctl[2] += 1", 1)
            else:
                slot = self.layout.slots[("state", st.keeper)]
                E("players = ctl[4]", 1)
                # FlowEngine._keeper_seat, where `v` holds a seat of the stage (its
                # first try: the player `v` names); anything else asks it
                E(f"v = S[{slot}]", 1)
                E("if v.__class__ is G._Int and v in players and 0 <= v < NP:", 1)
                E("k = (players.index(v) + 1) % len(players)", 2)
                E("else:", 1)
                E(f"k = (G._keeper_seat(st, {slot}, players) + 1) % len(players)", 2)
                E("ctl[2] += (k - ctl[2]) % len(players) or len(players)", 1)
                E(f"S[{slot}] = players[k]", 1)
            if st.until is not None:
                E("G._where = 'the condition that ends a stage of the flow'", 1)
                E(f"if {N.until_fn(i, j)}(S):   # the stage is over", 1)
                E("ctl[5] = True", 2)
                E(f"return {self.after_stage(i, j)}", 2)
        else:
            E("ctl[2] += 1", 1)
            E("if ctl[2] >= len(ctl[4]):   # the stage is over", 1)
            E("ctl[5] = True", 2)
            E(f"return {self.after_stage(i, j)}", 2)
        self.flow_enter(i, j, st, 0)
        self.emit("", 0)

    def after_stage(self, i: int, j: int) -> str:
        """The step after stage ``j`` of round ``i``: the next stage's, or the end of the round."""
        return N.flow_stage(i, j + 1) if j + 1 < len(self.p.flow.rounds[i].stages) else N.flow_round(i)

    def flow_stage(self, i: int, j: int, st) -> None:
        """``flstage_<i>_<j>``: stage ``j`` of round ``i`` begins (an
        iteration of ``FlowEngine._next_stage``), up to its first decision.
        A stage with no players, an around stage whose `until` already holds
        and a simultaneous stage go on in the interpreter."""
        E = self.emit
        self.open_def(N.flow_stage(i, j), "G, st, S, ctl, X")
        if st.kind == "simultaneous":
            E(f"ctl[1] = {j - 1}", 1)
            E("G._next_stage(st, X)", 1)
            E("G._settle(st, X)", 1)
            self.emit("", 0)
            return
        E(f"ctl[1] = {j}", 1)
        E(f"players = G._stage_players({N.stage_fn(i, j)}(S))", 1)
        E("if not players:   # the interpreter goes on to the next stage", 1)
        E("G._next_stage(st, X)", 2)
        E("G._settle(st, X)", 2)
        E("return", 2)
        E("ctl[2] = 0", 1)
        E("ctl[3] = 0", 1)
        E("ctl[4] = players", 1)
        E("ctl[5] = True", 1)
        E("ctl[6] = False", 1)
        if st.kind == "around":
            E(f"if not G._start_around(st, G.rounds[{i}][{j}]):   # skipped: the interpreter goes on", 1)
            E("G._next_stage(st, X)", 2)
            E("G._settle(st, X)", 2)
            E("return", 2)
        self.flow_enter(i, j, st, 0)
        self.emit("", 0)

    def flow_round(self, i: int) -> None:
        """``flround_<i>``: round ``i`` is over (``FlowEngine._next_stage``
        past its last stage, then ``_begin_round``): the endings
        `after_round`, the round count, the next round's first stage."""
        E = self.emit
        last = self._flow_last_where
        self.open_def(N.flow_round(i), "G, st, S, ctl, X")
        E(f"ctl[1] = {len(self.p.flow.rounds[i].stages)}   # (as the interpreter leaves it, should an ending hold)", 1)
        if "after_round" in last:
            E("try:", 1)
            E(f"e = {N.endings_at('after_round')}(S)", 2)
            E("except G._Error:", 1)
            E("e = 0   # _check_endings words the error", 2)
            E("if e >= 0 and G._check_endings(st, X, 'after_round'):", 1)
            E("return", 2)
            E(f"G._where = {last['after_round']}", 1)
        E("S[0] += 1", 1)
        for r in range(len(self.p.flow.rounds)):
            E(f"if {N.round_fn(r)}(S):", 1)
            E(f"ctl[0] = {r}", 2)
            E(f"return {N.flow_stage(r, 0)}", 2)
        E("G._no_round()", 1)
        self.emit("", 0)

    def flow_enter(self, i: int, j: int, st, k: int) -> None:
        """Enter phase ``k`` of the stage for ``me`` and go on as ``_settle``
        does: its `on enter` and `auto`, the endings `immediately`, then the
        end of the phase (an `auto` phase) or its `done when`."""
        E = self.emit
        ph = self.p.phases[st.phases[k]]
        name = ph.name
        last = self._flow_last_where
        enters = bool(ph.vars or ph.enter)
        start = len(self.lines)
        if enters or ph.auto or ph.done is not None:
            E("me = ctl[4][ctl[2] % len(ctl[4])]", 1)
        E("ctl[5] = False", 1)
        E(f"G._where = {repr(f'entering phase `{name}`')}", 1)
        kept = name in self._enterm
        if kept:   # its `can`s answered from listings kept in M for the `done when`
            E("M = {}", 1)
            E(f"{N.phase('enterm', name)}(S, me, X, M, G._kept_can)", 1)
        elif enters:
            E(f"{N.phase('enter', name)}(S, me, X)", 1)
        if ph.auto:
            E(f"G._where = {repr(f'phase `{name}`')}", 1)
            E(f"{N.phase('auto', name)}(S, me, X)", 1)
        if enters or ph.auto:
            # a `win`, an `end phase`/`end turn`, an ending that holds or an
            # error: the interpreter goes on from here (FlowEngine._after_enter)
            E("if X.outcome is not None or X.end is not None:", 1)
            E(f"G._after_enter(st, X, {repr(name)}, me, {bool(ph.auto)})", 2)
            E("return", 2)
            if "immediately" in last:
                E("try:", 1)
                E(f"e = {N.endings_at('immediately')}(S)", 2)
                E("except G._Error:", 1)
                E("e = 0", 2)
                E("if e >= 0:", 1)
                E(f"G._after_enter(st, X, {repr(name)}, me, {bool(ph.auto)})", 2)
                E("return", 2)
        # Nothing entered: S is the state whose endings `immediately` were
        # tested last (none holds), so they are not tested again.
        if "immediately" in last:
            E(f"G._where = {last['immediately']}", 1)
        if ph.auto:   # an automatic phase ends once it has run
            E(f"return {N.flow_end(i, j, k)}", 1)
            self._one_where(start)
            return
        E(f"G._where = {repr(f'the end condition of phase `{name}`')}", 1)
        if ph.done is None:   # the player decides
            self._one_where(start)
            return
        if asks_own_can(self.p, ph):
            if not kept:
                E("M = {}", 1)
            E("try:", 1)
            E(f"over = {N.phase('donem', name)}(S, me, M)", 2)
            E("except G._Error:   # the plain test raises or answers (see FlowEngine._settle)", 1)
            E("M = None", 2)
            E(f"over = {N.phase('done', name)}(S, me)", 2)
        else:
            E("M = None", 1)
            E(f"over = {N.phase('done', name)}(S, me)", 1)
        E("if over:", 1)
        if ph.repeat is not None:
            E(f"if {N.phase('repeat', name)}(S, me):", 2)
            E("ctl[5] = True", 3)
            E("G._settle(st, X)", 3)
            E("return", 3)
        E(f"return {N.flow_end(i, j, k)}", 2)
        E("if M:", 1)
        E("st._memo = (S, ctl, M)", 2)
        self._one_where(start)

    def _one_where(self, start: int) -> None:
        """Of two stores into ``G._where`` in a row only the second counts
        (nothing between them runs): drop the first."""
        out = self.lines[:start]
        for line in self.lines[start:]:
            if out and line.lstrip().startswith("G._where = ") and out[-1].lstrip().startswith("G._where = ") \
                    and len(line) - len(line.lstrip()) == len(out[-1]) - len(out[-1].lstrip()):
                out[-1] = line
            else:
                out.append(line)
        self.lines[:] = out


def lower(prog, statics: Optional[dict] = None):
    """As ``lower.lower``: the module of ``prog`` (and its layout), with the
    memoising `done when` tests added."""
    lw = FlowLowerer(prog, statics)
    return lw.lower(), lw.layout
