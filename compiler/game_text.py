"""How ``Game`` explains itself: why an action is not legal, what a
player may see of a state, and a state in words. A part of ``Game``
(``compiler/runtime.py``), which inherits it; it knows no game."""
from __future__ import annotations

from typing import TYPE_CHECKING

from atoll.compiler import types as T
from atoll.compiler.transaction import _DryRun

if TYPE_CHECKING:   # pragma: no cover
    from atoll.compiler.runtime import State


def _cite(cites) -> str:
    return f" (rulebook: {'; '.join(cites)})" if cites else ""


def _hidden(t, v):
    if T.is_collection(t):
        return {"hidden": True, "size": len(v)}
    return {"hidden": True}


class GameText:
    """The methods of ``Game`` that explain and show (see the module's text)."""

    def _explain(self, st: State, action) -> str:
        if self._sim_point(st):
            waiting = ", ".join(str(p) for p in st.ctl[4][st.ctl[2]:])
            return (f"players {waiting} are choosing simultaneously in phase `{self._phase_name(st)}`: "
                    f"the action must be one of legal_actions() (each names its player)")
        me = st.current_player()
        phase = self._phase_name(st)
        ph = self.phases[phase]
        from atoll.compiler.runtime import Action
        if not isinstance(action, Action):
            legal = ", ".join(str(a) for a in st.legal_actions()[:6])
            return (f"no legal action has id {action} now (player {me}, phase `{phase}`"
                    f"{_cite(ph.cites)}); legal actions include: {legal or 'none'}")
        spec = self.action_by_name.get(action.kind)
        if spec is None:
            return f"`{action.kind}` is not an action of this game"
        if spec.phase != phase:
            return (f"`{spec.name}` is an action of phase `{spec.phase}`, and the game is in "
                    f"phase `{phase}`{_cite(ph.cites)}")
        _, why, eff, ens = self._fn[spec.index]
        k = why(st.S, me, *action.params)
        if k >= 0:
            clause, summary = spec.clauses[k]
            if k < len(spec.params):
                pname = spec.params[k][0]
                return (f"`{spec.name}`: {pname}={self.codec.text(spec.params[k][1], action.params[k])} "
                        f"is not among its choices `{clause}`{_cite(spec.cites)}")
            why_text = f" ({summary})" if summary else ""
            return (f"`{spec.name}`: its condition `{clause}` does not hold{why_text}"
                    f"{_cite(spec.cites)}")
        S2 = list(st.S)
        eff(S2, me, _DryRun(), *action.params)
        j = ens(S2, me, *action.params)
        if j >= 0:
            src, summary = spec.ensures[j]
            why_text = f" ({summary})" if summary else ""
            return (f"`{spec.name}`: afterwards `{src}` would not hold{why_text}"
                    f"{_cite(spec.cites)}")
        return f"`{action}` is not legal now"   # pragma: no cover

    # ------------------------------------------------------------ observation and text
    def _observation(self, st: State, player: int) -> dict:
        if not 0 <= player < self.num_players:
            raise ValueError(f"player must be 0..{self.num_players - 1}")
        values = {}
        for i, name in enumerate(self.layout.names):
            if i == 0:
                continue
            v = st.S[i]
            if v is None:
                continue
            values[name] = self._slot_view(i, v, player)
        return {"player": player, "round": st.S[0],
                "current_player": st.current_player(),
                "phase": st.phase(), "state": values,
                "terminal": st.is_terminal(), "winners": list(st.winners())}

    def _slot_view(self, i: int, v, player: int):
        """What ``player`` sees of value ``v`` of slot ``i`` (not None), as JSON.
        It depends on ``player`` only for a slot seen by its owner."""
        t = self.slot_types[i]
        scope, vis = self.visibility[i]
        if vis == "all":
            return self.codec.to_json(t, v)
        if vis == "owner":
            et = t[1]
            return [self.codec.to_json(et, x) if p == player else _hidden(et, x) for p, x in enumerate(v)]
        return _hidden(t, v) if scope != "player" else [_hidden(t[1], x) for x in v]

    def describe(self, st: State) -> str:
        lines = [f"{self.title}, round {st.S[0]}"]
        if st.outcome is not None:
            w = st.outcome[1]
            lines.append(f"game over ({st.outcome[0]}): " +
                         (f"won by {', '.join(f'player {p}' for p in w)}" if w else "nobody wins"))
        elif st.pending is not None:
            lines.append("waiting for chance")
        elif st.choosing is not None:
            lines.append(f"player {st.choosing[0]} to choose {st.choosing[3]}, phase {st.phase()}")
        else:
            lines.append(f"player {st.current_player()} to play, phase {st.phase()}")
        for i, name in enumerate(self.layout.names[1:], start=1):
            v, t = st.S[i], self.slot_types[i]
            if v is None:
                continue
            if self.visibility[i][1] == "nobody" and T.is_collection(t):   # a face-down pile: its size
                lines.append(f"  {name} = {len(v)} item{'s' * (len(v) != 1)}, face down")
            else:
                lines.append(f"  {name} = {self.codec.text(t, v)}")
        return "\n".join(lines)
