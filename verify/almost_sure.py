"""Termination with probability 1: `terminates with probability 1`.

A game with dice need not end (a player may bust for ever), yet end with
probability 1 whatever the players choose. Over the whole reachable graph
(every decision and every chance outcome, from the start), this is decided
exactly:

* A state is *won* when the game has ended there; a chance state is won when
  one of its outcomes leads to a won state; a state where players choose is
  won when every choice leads to a won state (and there is a choice: a
  state with none is stuck, and a stuck game has not ended). The least set
  closed under these rules is computed backwards from the ended states; a
  state's rank is the number of actions (chance included) within which,
  whatever the players choose, some outcomes of positive probability end
  the game.
* If every reachable state is won, then from every state, under every way
  of choosing, the game ends within the largest rank with a probability at
  least the smallest product of those outcomes' probabilities; it cannot
  avoid that for ever, so it ends with probability 1: PROVED.
* A reachable state that is not won is one from which the players can keep
  the game going for ever, whatever chance does (the rules above, read the
  other way round, give them a way). Reaching it has positive probability,
  so the game does not end with probability 1 under that way of choosing:
  VIOLATED, with the shortest path there.
* A search that did not meet every reachable state within its budget
  proves nothing either way: UNKNOWN.

The expected length of a game (actions, chance included) under uniformly
random choices is estimated by simulation, with a 95% confidence interval.
"""
from __future__ import annotations

import math
import random
import statistics
from typing import Optional

from atoll.compiler.runtime import ModelError
from atoll.verify import verdicts as V

MAX_STATES = 20_000   # the reachable states a search may meet
GAMES = 200           # games simulated for the expected length
CAP = 10_000          # actions after which a simulated game is cut


def _ranks(g) -> dict:
    """The won states of the graph ``g`` with their rank (see above)."""
    preds: dict = {}
    waiting: dict = {}
    rank: dict = {}
    todo = []
    for k in g.order:
        st = g.state[k]
        if st.is_terminal():
            rank[k] = 0
            todo.append(k)
            continue
        out = g.edges.get(k, [])
        children = {ck for ck, _ in out}
        for ck in children:
            preds.setdefault(ck, []).append(k)
        waiting[k] = 1 if st.is_chance_node() else len(children)
    while todo:
        nxt = []
        for k in todo:
            for p in preds.get(k, ()):
                if p in rank:
                    continue
                waiting[p] -= 1
                if waiting[p] == 0:
                    st = g.state[p]
                    # a chance state is won by its first won outcome; a choice by its last
                    rank[p] = rank[k] + 1 if st.is_chance_node() else \
                        1 + max(rank[ck] for ck, _ in g.edges[p])
                    nxt.append(p)
        todo = nxt
    return rank


def _path(g, k) -> list:
    out = []
    while g.parent[k] is not None:
        k, aid = g.parent[k]
        out.append(aid)
    return out[::-1]


def expected_length(game, games: int, seed: int) -> dict:
    """Mean actions per game (chance included) under uniform random choices."""
    rng = random.Random(seed)
    lengths, cut = [], 0
    for i in range(games):
        st = game.new_initial_state(seed=seed + i, chance="explicit")
        n = 0
        while not st.is_terminal() and n < CAP:
            if st.is_chance_node():
                a = st.sample_chance()
            else:
                legal = st.legal_actions()
                if not legal:
                    break
                a = legal[rng.randrange(len(legal))]
            st.apply_action(a)
            n += 1
        if not st.is_terminal():
            cut += 1
            continue
        lengths.append(n)
    out = {"games": games, "ended": len(lengths), "cut": cut}
    if lengths:
        mean = statistics.fmean(lengths)
        half = 1.96 * statistics.stdev(lengths) / math.sqrt(len(lengths)) if len(lengths) > 1 else 0.0
        out["mean"] = round(mean, 2)
        out["ci95"] = [round(mean - half, 2), round(mean + half, 2)]
    return out


def check_almost_sure(game, pr, games: int, seed: int, spec_path: str, max_states: Optional[int] = None):
    """(method, verdict, detail, counterexample); the search meets at most
    ``max_states`` states (default ``MAX_STATES``)."""
    max_states = MAX_STATES if max_states is None else max_states
    from atoll.verify.explore import explore, graph
    from atoll.verify.play import _search_evidence
    from atoll.verify.runs import PlayCheck, Run, pytest_snippet

    start = game.new_initial_state(seed=0, chance="explicit")
    name = ("almost surely", max_states)
    ex = explore(game, lambda st: None, max_states, start=start, name=name)   # builds the graph, and counts
    g = graph(game, start, max_states, name)   # the same graph, kept for this game
    search = _search_evidence(ex, "the start")
    detail = {"method": "exhaustive search", "evidence": {"search": search}}
    try:
        detail["expected length"] = expected_length(game, max(0, min(games, GAMES)), seed) if games else None
    except ModelError as e:
        detail["expected length"] = {"error": f"model error: {e}"}
    if g.outcome == "error":
        detail["reason"] = f"the search met a model error: {g.error[1]}"
        return "exhaustive search", V.UNKNOWN, detail, None
    if g.outcome != "exhausted":
        detail["reason"] = (f"the search met more than {max_states:,} states; ending with probability 1 "
                            "is decided over every reachable state")
        return "exhaustive search", V.UNKNOWN, detail, None
    rank = _ranks(g)
    lost = [k for k in g.order if k not in rank]   # breadth first: the nearest first
    stuck = [k for k in lost if not g.edges.get(k)]
    for k in (stuck or lost)[:1]:   # a stuck state says most; else the nearest that can avoid the end
            problem = ("from here the players can keep the game going for ever, whatever chance does"
                       if g.edges.get(k) else "the game is stuck here: no move, and it has not ended")
            run = Run(problem, _path(g, k), 0, 0, "violation", chance="explicit")
            run.steps = len(run.actions)
            chk = PlayCheck(game, pr)
            cex = {"seed": 0, "chance": "explicit", "problem": problem,
                   "steps": chk.trace(run), "position": chk.position,
                   "pytest": pytest_snippet(spec_path, game.num_players, game.options, run, pr.name)}
            detail["reason"] = f"{len(g.order) - len(rank):,} of {len(g.order):,} reachable states can avoid the end"
            return "exhaustive search", V.VIOLATED, detail, cex
    worst = max(rank.values(), default=0)
    detail["reason"] = (f"all {len(g.order):,} reachable states searched: from each, whatever the players "
                        f"choose, chance outcomes of positive probability end the game within "
                        f"{V.actions(worst)}")
    detail["within"] = worst
    el = detail.get("expected length") or {}
    if "mean" in el:
        detail["reason"] += (f"; under random choices a game lasts {el['mean']} actions on average (95% "
                             f"interval {el['ci95'][0]} to {el['ci95'][1]}, {el['ended']} games)")
    return "exhaustive search", V.PROVED, detail, None
