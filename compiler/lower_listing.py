"""The legal moves of a phase in one generated function.

``playout._list`` lists the moves of a state by walking the phase's actions
(``Game._move_listing``): for each, it takes the choices the `done when`
test kept (``phdonem``, see compiler/lower_flow.py) or calls the action's
listing (``achoices_<a>``), adds them to the moves and records where the
action's moves end. For each phase that has actions, a game's module gets
``phlist_<phase>(S, me, memo, Moves)``, that walk written out: the kept
choices looked up only for the actions whose `can` the phase's `done when`
asks (no other is ever kept), and the listing of an action without
parameters and without `ensures` written in place as the test of its
`when`s (``if W1 and W2: moves.append(())``), which is what its
``achoices_<a>`` does (``[()]`` when every `when` holds, tested in the
spec's order, else ``[]``).

Sound because it runs the same listings, or the same tests in the same
order, on the same state, and lists their choices in the same order with
the same ends. Listings change nothing, so should one of them (or a test
written in place) raise, ``_list`` goes back to ``_list_steps``, which
lists step by step as before and meets the same error in the same place;
the limit of moves per state is tested by ``_list`` on the whole list
(more than the limit in all means more than the limit after some action,
where ``_list_steps`` stops with the same error as before).
"""
from __future__ import annotations

from atoll.compiler import names as N


def listing_functions(lw, index: dict, asked) -> None:
    """Emit ``phlist_<phase>`` for every phase with actions (``lw``: the
    FlowLowerer; ``index``: action name -> its index in the game;
    ``asked(ph)``: the names of the phase's own actions whose `can` its
    `done when` asks, whose choices may be kept)."""
    for ph in lw.p.phases.values():
        if not ph.actions:
            continue
        kept = asked(ph)
        lw.current_phase = ph.name
        try:
            lw.open_def(N.phase("list", ph.name), "S, me, memo, Moves")
            lw.emit("_o = Moves()", 1)
            ends = []
            for a in ph.actions:
                k = index[a.name]
                e = f"_e{len(ends)}"
                inline = not a.params and not any(g.kind == "ensures" for g in a.guards)
                if inline:
                    conds = [g.cond for g in a.guards if g.kind == "when"]
                    test = " and ".join(f"({lw.ex(c)})" for c in conds)
                    if test:
                        lw.emit(f"if {test}:", 1)
                        lw.emit("_o.append(())", 2)
                    else:
                        lw.emit("_o.append(())", 1)
                elif a.name in kept:
                    lw.emit(f"_o += memo[{k}] if {k} in memo else {N.action('choices', a.name)}(S, me)", 1)
                else:
                    lw.emit(f"_o += {N.action('choices', a.name)}(S, me)", 1)
                lw.emit(f"{e} = len(_o)", 1)
                ends.append(f"({e}, {k})")
            lw.emit(f"_o.ends = [{', '.join(ends)}]", 1)
            lw.emit("return _o", 1)
            lw.emit("", 0)
        finally:
            lw.current_phase = None
