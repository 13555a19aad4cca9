"""Exhaustive search of the reachable states, chance outcomes included.

Breadth first from the start, with explicit chance, so that every play of
at most k steps is covered when depth k is complete. When the whole
reachable graph fits in the budget, the search is exhaustive: an invariant
or deadlock freedom that holds everywhere is PROVED, and termination is
PROVED when the graph has no cycle. Otherwise the verdict falls to play,
and the depth completed is reported (HOLDS UP TO k where nothing else ran).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from atoll.compiler.runtime import ModelError


@dataclass
class Exploration:
    outcome: str               # "violated", "exhausted", "bounded"
    depth: int                 # depths 0..depth-1 complete (all of them when exhausted)
    states: int
    path: list                 # action ids from the start, for a violation
    problem: Optional[str] = None
    acyclic: Optional[bool] = None


def _freeze(v):
    if isinstance(v, dict):
        return ("map",) + tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, list):
        return ("list",) + tuple(_freeze(x) for x in v)
    return v


def _key(game, st):
    """What makes two states the same position: everything but the history,
    the random stream and, when no rule reads it, the round number."""
    values = st.S if game.info.get("reads_round", True) else st.S[1:]
    pending = None if st.pending is None else (st.pending[0], _freeze(st.pending[1]),
                                               _freeze(st.pending[2]))
    return (_freeze(tuple(values)), _freeze(tuple(st.ctl)), st.outcome, pending)


def explore(game, check: Callable, max_states: int = 4000,
            edge_check: Optional[Callable] = None) -> Exploration:
    """``check(state)`` returns a problem text or None for each state;
    ``edge_check(parent, child)`` the same for each move."""
    start = game.new_initial_state(seed=0, chance="explicit")
    k0 = _key(game, start)
    parent = {k0: None}
    edges: dict[str, list[str]] = {}
    frontier = [(k0, start)]
    depth = 0
    while frontier:
        for k, st in frontier:
            try:
                problem = check(st)
            except ModelError as e:
                problem = f"model error: {e}"
            if problem:
                return Exploration("violated", depth, len(parent), _path(parent, k), problem)
        nxt = []
        for k, st in frontier:
            if st.is_terminal():
                continue
            out = edges.setdefault(k, [])   # (child, action id)
            try:
                actions = st.legal_actions()
            except ModelError as e:
                return Exploration("violated", depth, len(parent), _path(parent, k), f"model error: {e}")
            for a in actions:
                c = st.clone()
                try:
                    c.apply_action(a)
                except ModelError as e:
                    return Exploration("violated", depth, len(parent), _path(parent, k) + [a.id],
                                       f"model error: {e}")
                if edge_check is not None:
                    problem = edge_check(st, c)
                    if problem:
                        return Exploration("violated", depth + 1, len(parent),
                                           _path(parent, k) + [a.id], problem)
                ck = _key(game, c)
                out.append((ck, a.id))
                if ck not in parent:
                    parent[ck] = (k, a.id)
                    nxt.append((ck, c))
                    if len(parent) > max_states:
                        return Exploration("bounded", depth + 1, len(parent), [])
        frontier = nxt
        depth += 1
    cycle = _find_cycle(edges)
    if cycle is None:
        return Exploration("exhausted", depth, len(parent), [], acyclic=True)
    node, loop = cycle
    return Exploration("exhausted", depth, len(parent), _path(parent, node) + loop, acyclic=False,
                       problem="the game can go round in a cycle of states for ever")


def _path(parent, k) -> list:
    out = []
    while parent[k] is not None:
        k, aid = parent[k]
        out.append(aid)
    return out[::-1]


def _find_cycle(edges: dict):
    """A cycle of the explored graph, as (a state on it, the action ids once
    round it), or None (iterative depth-first search)."""
    WHITE, GREY, BLACK = 0, 1, 2
    color: dict[str, int] = {}
    for root in edges:
        if color.get(root, WHITE) != WHITE:
            continue
        stack = [(root, None, iter(edges.get(root, ())))]
        color[root] = GREY
        while stack:
            node, _, it = stack[-1]
            for nxt, aid in it:
                c = color.get(nxt, WHITE)
                if c == GREY:
                    nodes = [s[0] for s in stack]
                    i = nodes.index(nxt)
                    loop = [s[1] for s in stack[i + 1:]] + [aid]
                    return nxt, loop
                if c == WHITE:
                    color[nxt] = GREY
                    stack.append((nxt, aid, iter(edges.get(nxt, ()))))
                    break
            else:
                color[node] = BLACK
                stack.pop()
    return None
