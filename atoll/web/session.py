"""One game played in the browser (no web framework here).

A person plays one seat against random agents, or every seat in turn
(hot-seat, ``seat=None``). Chance is resolved by the seed, the agents'
choices by a random generator seeded with it, so a game is repeatable.
Undo goes back to before the person's last move (with the agents' moves
after it), redo forward again; loading a save can be undone too. The view
of the game is plain JSON for the page: the position drawn by the docs'
code (``atoll.docgen.figures``), the values the viewer may see
(``atoll.render``), the legal moves grouped by rule, the move log with what
each move changed, and the end. Why and why not are the terminal's
(``atoll.terminal``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from atoll import render, terminal
from atoll.compiler import types as T
from atoll.compiler.runtime import CHANCE, SIMULTANEOUS, IllegalAction, ModelError
from atoll.compiler.savegame import CorruptState
from atoll.compiler.values import sort_values

AGENT_STEPS = 20_000    # the agents' moves in a row before the page gets control back
LOG_KEPT = 2_000        # log entries kept (the oldest are dropped)


class Refused(ValueError):
    """A request the game cannot carry out; the message says why."""


@dataclass
class Snapshot:
    state: object
    rng: tuple
    log: list
    problem: str


class Play:
    def __init__(self, doc, game, seed: int = 0, seat: Optional[int] = 0):
        if seat is not None and not 0 <= seat < game.num_players:
            raise Refused(f"seat must be 0..{game.num_players - 1}, or all (hot-seat)")
        self.doc, self.game, self.seed, self.seat = doc, game, seed, seat
        self.st = game.new_initial_state(seed=seed)
        self.rng = random.Random(seed)
        self.log: list = []
        self.past: list = []
        self.future: list = []
        self.problem = ""
        self._nodes = _node_keys(doc)
        self.advance()

    # ------------------------------------------------------------ whose move
    def deciding(self) -> Optional[int]:
        """The person's seat that must choose now, or None (agents or chance
        to move, or the game over)."""
        st = self.st
        if st.is_terminal():
            return None
        cp = st.current_player()
        if cp == CHANCE:
            return None
        if cp == SIMULTANEOUS:
            if self.seat is not None:
                return self.seat if st.legal_actions(self.seat) else None
            return next((p for p in range(self.game.num_players) if st.legal_actions(p)), None)
        return cp if self.seat is None or cp == self.seat else None

    def mine(self) -> list:
        p = self.deciding()
        if p is None:
            return []
        st = self.st
        return st.legal_actions(p) if st.current_player() == SIMULTANEOUS else st.legal_actions()

    def viewer(self) -> int:
        if self.seat is not None:
            return self.seat
        p = self.deciding()
        if p is not None:
            return p
        for e in reversed(self.log):
            if e["player"] >= 0:
                return e["player"]
        return 0

    # ------------------------------------------------------------ playing
    def advance(self) -> None:
        """The agents (and chance) move until the person must choose."""
        for _ in range(AGENT_STEPS):
            st = self.st
            if st.is_terminal() or self.problem:
                return
            legal = st.legal_actions()
            if not legal:
                self.problem = "no legal action: the rules are stuck here (a deadlock)"
                return
            if self.deciding() is not None:
                return
            a = legal[self.rng.randrange(len(legal))]
            try:
                self._apply(a, agent=True)
            except ModelError as e:
                self.problem = f"model error: {e}"
                return
        self.problem = f"the other players made {AGENT_STEPS} moves in a row without your turn coming"

    def _apply(self, a, agent: bool = False) -> None:
        g, st = self.game, self.st
        sim = st.current_player() == SIMULTANEOUS or g._sim_stage(st)
        secret = sim and (self.seat is None or a.player != self.seat)
        looker = self.seat if self.seat is not None else max(a.player, 0)
        before = render.snapshot(g, st, looker)
        text = render.action_text(g, st, a)
        spec = g.action_by_name.get(a.kind)
        st.apply_action(a)
        entry = {"n": len(self.log) + 1, "player": a.player,
                 "who": "chance" if a.player == CHANCE or a.kind == "chance" else
                 ("you" if a.player == self.seat else f"player {a.player}"),
                 "text": "(a secret choice)" if secret else text,
                 "rule": "" if secret or spec is None else spec.name,
                 "cites": [] if secret or spec is None else list(spec.cites or g.phases[spec.phase].cites),
                 # the move's events (a roll, a branch described in words), then what it changed
                 "changes": ([] if secret else ["» " + ev for ev in st.events(
                     viewer=looker, actor=a.player, show=lambda t, v: render.label(g.codec, t, v))])
                 + render.changes(g, before, render.snapshot(g, st, looker)),
                 "agent": agent}
        self.log.append(entry)
        del self.log[:-LOG_KEPT]

    def _snap(self) -> Snapshot:
        return Snapshot(self.st.clone(), self.rng.getstate(), list(self.log), self.problem)

    def _restore(self, s: Snapshot) -> None:
        self.st, self.log, self.problem = s.state.clone(), list(s.log), s.problem
        self.rng.setstate(s.rng)

    def move(self, index) -> None:
        """Play move ``index`` of the list the view gives."""
        mine = self.mine()
        if self.st.is_terminal():
            raise Refused("the game is over: no move is legal")
        if not mine:
            raise Refused("it is not your move")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(mine):
            raise Refused(f"no move {index!r}: the moves are numbered 0 to {len(mine) - 1}")
        snap = self._snap()
        try:
            self._apply(mine[index])
        except (ModelError, IllegalAction) as e:
            self._restore(snap)
            raise Refused(f"the move cannot be played: {e}") from None
        self.past.append(snap)
        self.future.clear()
        self.advance()

    def move_id(self, aid) -> None:
        """Play the legal move whose action id is ``aid``."""
        mine = self.mine()
        if not isinstance(aid, int) or isinstance(aid, bool):
            raise Refused(f"an action id is an integer, not {aid!r}")
        k = next((i for i, a in enumerate(mine) if a.id == aid), None)
        if k is None:
            try:
                why = self.game._explain(self.st, aid)
            except Exception as e:   # the explanation itself cannot be made
                why = str(e)
            raise Refused(f"action id {aid} is not one of your legal moves: {why}")
        self.move(k)

    def undo(self) -> None:
        if not self.past:
            raise Refused("nothing to undo")
        self.future.append(self._snap())
        self._restore(self.past.pop())

    def redo(self) -> None:
        if not self.future:
            raise Refused("nothing to redo")
        self.past.append(self._snap())
        self._restore(self.future.pop())

    def save(self) -> str:
        try:
            return self.st.to_json()
        except ModelError as e:
            raise Refused(str(e)) from None

    def load(self, text) -> None:
        """Load a save of this game (players and options); a corrupt one is
        refused with the reason and the game is unchanged."""
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise Refused("cannot load: the save is not UTF-8 text") from None
        try:
            st = self.game.state_from_json(text)
        except (CorruptState, ValueError, RecursionError) as e:
            raise Refused(f"cannot load: {e}") from None
        self.past.append(self._snap())
        self.future.clear()
        self.st, self.problem = st, ""
        self.log.append({"n": len(self.log) + 1, "player": -3, "who": "", "agent": False,
                         "text": f"loaded a saved game ({len(st.history)} actions in)",
                         "rule": "", "cites": [], "changes": []})
        self.advance()

    # ------------------------------------------------------------ why and why not
    def why(self, index) -> str:
        mine = self.mine()
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(mine):
            raise Refused(f"no move {index!r}: the moves are numbered 0 to {len(mine) - 1}"
                          if mine else "you have no move now")
        return terminal.why(self.game, self.st, mine[index])

    def why_not(self, text) -> str:
        if not isinstance(text, str) or not text.strip():
            raise Refused("name the move: its rule and its values, e.g. "
                          + (f"{self.game.actions[0].name}(...)" if self.game.actions else "NAME(...)"))
        if len(text) > 2000:
            raise Refused("that move is longer than 2000 characters")
        if self.st.is_terminal():
            return "not allowed: the game is over"
        return terminal.why_not(self.game, self.st, text, self.mine())

    # ------------------------------------------------------------ the view
    def view(self) -> dict:
        from atoll.docgen import figures
        g, st = self.game, self.st
        me = self.viewer()
        mine = self.mine()
        pictures = []
        for key, svg, shown, graph in figures.position_svgs(self.doc, g, st, me, "the position",
                                                            hits=True):
            pictures.append({"key": key, "svg": svg,
                             "caption": ", ".join(shown) + (f" on the graph {graph}" if graph else "")})
        groups: dict = {}
        for i, a in enumerate(mine):
            spec = g.action_by_name[a.kind]
            grp = groups.get(a.kind)
            if grp is None:
                grp = groups[a.kind] = {
                    "rule": spec.name, "summary": spec.summary, "phase": spec.phase,
                    "cites": list(spec.cites or g.phases[spec.phase].cites), "moves": []}
            grp["moves"].append({"index": i, "id": str(a.id), "label": render.action_text(g, st, a),
                                 "marks": self._marks(a)})
        out = {"title": g.title, "players": g.num_players, "options": g.options, "seed": self.seed,
               "seat": self.seat, "viewer": me, "deciding": self.deciding(),
               "headline": _headline(g, st, me, self.seat), "round": st.round,
               "phase": st.phase(), "terminal": st.is_terminal(), "pictures": pictures,
               "state": _state(g, st, me), "groups": list(groups.values()),
               "log": self.log, "can_undo": bool(self.past), "can_redo": bool(self.future),
               "problem": self.problem, "end": None,
               "rules": [{"name": a.name, "params": [[n, terminal._type_name(t)] for n, t in a.params],
                          "summary": a.summary} for a in g.actions]}
        if st.is_terminal():
            e = terminal.ending_info(g, st)
            e["text"] = terminal.ending_text(g, st, self.seat)
            e["winners_text"] = terminal.winners_text(e["winners"], self.seat)
            out["end"] = e
        return out

    def _marks(self, a) -> list:
        """The board positions and graph nodes a move names, as the
        pictures' targets name them (``pos:X,Y``, ``node:KEY``)."""
        spec = self.game.action_by_name[a.kind]
        out: list = []
        for (_, t), v in zip(spec.params, a.params):
            out += _value_marks(self.game.codec, t, v, self._nodes)
        return list(dict.fromkeys(out))


def _value_marks(codec, t, v, nodes: set) -> list:
    from atoll.docgen.figures import _hkey
    if t == T.POS:
        return [f"pos:{v[0]},{v[1]}"]
    if isinstance(t, tuple) and t[0] in ("list", "set", "bag") and t[1] == T.POS:
        return [f"pos:{q[0]},{q[1]}" for q in (sort_values(v) if t[0] == "set" else v)]
    if not nodes:
        return []
    j = codec.to_json(t, v)
    key = str(_hkey(j))
    if key in nodes:
        return [f"node:{key}"]
    if isinstance(j, list) and j and all(str(_hkey(x)) in nodes for x in j):
        return [f"node:{_hkey(x)}" for x in j]
    return []


def _node_keys(doc) -> set:
    """The nodes of the graphs a position is drawn on."""
    from atoll.docgen import figures
    out: set = set()
    for g in figures.graphs(doc):
        if any(figures.owner_vars(doc, g)):
            out |= {str(n) for n in g["nodes"]}
    return out


def _headline(game, st, me: int, seat: Optional[int]) -> str:
    if st.is_terminal():
        return f"game over after round {st.round}"
    cp = st.current_player()
    if cp == SIMULTANEOUS:
        who = "players choosing at once"
    elif cp == CHANCE:
        who = "chance to resolve"
    elif seat is None:
        who = f"player {cp} to play (hot-seat)"
    else:
        who = "your turn" if cp == seat else f"player {cp} to play"
    you = "" if seat is None else f" (you are player {seat})"
    return f"round {st.round}, phase {st.phase()}: {who}{you}"


def _state(game, st, me: int) -> dict:
    """The values ``me`` may see, in the parts of the terminal's view."""
    codec = game.codec
    parts = render.view_parts(game, st, me)
    shared, owned = [], []
    for name, kind, t, v in parts["rest"]:
        if kind == "value" and isinstance(t, tuple) and t[0] == "map" and t[2] == "Player":
            owned.append({"name": name, "owners": [{"player": p, "keys": keys}
                                                   for p, keys in render.owners_text(game, t, v)]})
        elif kind == "value" and isinstance(t, tuple) and t[0] == "map":
            shared.append({"name": name, "text": "; ".join(
                f"{render.label(codec, t[1], k)}: {render.label(codec, t[2], v[k])}"
                for k in sort_values(v)) or "-"})
        else:
            shared.append({"name": name, "text": render.value_text(game, kind, t, v)})
    for name, (t, v) in parts["grids"].items():
        shared.append({"name": name, "text": f"{len(v)} cells (drawn above)"})
    columns = [name for name, _, _ in parts["players"]]
    rows = []
    for p in range(game.num_players):
        cells = []
        for name, t, v in parts["players"]:
            k, _, x = v[p]
            cells.append(render.value_text(game, k, t, x))
        rows.append({"player": p, "you": p == me, "cells": cells})
    return {"shared": shared, "owned": owned, "columns": columns, "rows": rows,
            "flags": render.flags_set(parts)}
