"""Exhaustive search of the reachable states, chance outcomes included.

Breadth first by the number of actions taken, with explicit chance: a chance
outcome is not a step, so the states reached by k actions include every way
the dice, draws and deals may fall on the way. When level k is complete,
every play of at most k actions is covered. When the whole reachable graph
fits in the budget, the search is exhaustive: an invariant or deadlock
freedom that holds everywhere is PROVED, and termination is PROVED when the
graph has no cycle. Otherwise the verdict falls to play, and the depth
completed is reported.

The search may start from the game's start (setup chance included) or from
a given state, for instance one after a sampled setup, when the setup alone
has more outcomes than the budget (a shuffled deck).

Only states where the rules are at rest are checked: those where a player
is to move and final ones. A chance node is the state before the action
(or the setup) whose draw waits for its outcome, not a position of the
game, so no property is evaluated there; a measure per action is compared
between the state where the action was chosen and the state after every
draw it made.

The graph does not depend on the property: it is built once per game and
start (:func:`graph`, kept while the game lives) and each property is
checked over it in the order the search met the states, which gives the
same answer as checking while searching.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Callable, Optional

from atoll.compiler.runtime import ModelError


@dataclass
class Exploration:
    outcome: str               # "violated", "exhausted", "bounded"
    depth: int                 # every play of at most `depth` actions is covered (-1: not even
                               # the start positions, the setup's chance being too wide)
    states: int                # distinct states searched (chance nodes included)
    path: list                 # action ids (chance outcomes included) to a violation
    problem: Optional[str] = None
    acyclic: Optional[bool] = None
    met: int = 0               # distinct states met (searched, or found and left for later)
    decisions: int = 0         # distinct states searched where a player is to move
    chance: int = 0            # distinct chance nodes searched
    final: int = 0             # distinct final states searched
    stuck: int = 0             # states where a player is to move but has no legal action
    endings: dict = field(default_factory=dict)   # ending name -> distinct final states
    sampled: bool = False      # chance events followed a sample of their outcomes: no proof


def _freeze(v):
    if isinstance(v, dict):
        return ("map",) + tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, list):
        return ("list",) + tuple(_freeze(x) for x in v)
    return v


def _slot(v):
    """A hashable stand-in for one value: itself when it is hashable (tuples,
    frozensets, scalars), else frozen (maps, lists and what holds them)."""
    if v.__class__ is dict:
        try:   # a map of hashable values: its items, in no order
            items = frozenset(v.items())
        except TypeError:
            return _freeze(v)
        return ("map", items)
    try:
        hash(v)
    except TypeError:
        return _freeze(v)
    return v


def _slot_hash(v) -> int:
    """``hash(_slot(v))``, without making the stand-in of a hashable value.
    A list is never hashable: its stand-in ``_freeze(v)`` is
    ``("list",) + tuple(_freeze(x) for x in v)``, and ``_freeze`` gives back
    an equal value of the same hash for any hashable ``x`` (it changes only
    maps and lists, which are not hashable, and tuples that hold them), so
    when ``("list", *v)`` can be hashed, it has the stand-in's hash (without
    first raising and catching a TypeError for the list itself)."""
    cls = v.__class__
    if cls is list:
        try:
            return hash(("list", *v))
        except TypeError:   # a list that holds lists or maps
            return hash(_freeze(v))
    if cls is not dict:
        try:
            return hash(v)
        except TypeError:
            return hash(_freeze(v))
    return hash(_slot(v))


def _slot_kept(v, memo: dict):
    """``_slot(v)``, kept in ``memo`` by the value's identity (a state shares
    most of its values with the state before it: an effect puts a new value
    only in the slots it writes). The memo holds the value, so that its id
    is not given to another object while the memo lives."""
    cls = v.__class__
    if cls is int or cls is bool or v is None or cls is str:
        return v
    m = memo.get(id(v))
    if m is not None and m[0] is v:
        return m[1]
    out = _slot(v)
    memo[id(v)] = (v, out)
    return out


def state_key(game, st, memo: Optional[dict] = None):
    """What makes two states the same position: everything but the history,
    the random stream and, when no rule reads it, the round number.
    ``memo``: a dict kept over states of one game or search, to reuse the
    hashable stand-ins of the values they share (see ``_slot_kept``)."""
    values = st.S if game.info.get("reads_round", True) else st.S[1:]
    if memo is not None:
        slots = tuple([_slot_kept(v, memo) for v in values])
    else:
        slots = tuple(_slot(v) for v in values)
    return (slots,) + _control(st)


def _control(st) -> tuple:
    """The part of a state's key that is not its values: the flow, the
    outcome, a chance event or a choice awaited."""
    pending = None if st.pending is None else (st.pending[0], _freeze(st.pending[1]),
                                               _freeze(st.pending[2]))
    ctl = st.ctl
    if ctl[4] and ctl[2] >= len(ctl[4]):   # a `turns round` stage counts its turns: the lap does not matter
        ctl = ctl[:2] + [ctl[2] % len(ctl[4])] + ctl[3:]
    # a choice inside an effect awaited (the state's values are those before the
    # effect): who chooses what, in which action, after which choices and outcomes
    choice = None if st.choosing is None and not st.chosen else (
        None if st.choosing is None else
        (st.choosing[0], st.choosing[3], _freeze(st.choosing[1]), _action_key(st.choosing[4]),
         _freeze(st.choosing[5])), _freeze(st.chosen))
    return (_flow(ctl), st.outcome, pending, choice)


def _flow(ctl) -> tuple:
    """``_freeze(tuple(ctl))``: the very same tuple when the flow holds only
    numbers, flags and tuples of numbers (as it does), which freezing leaves
    as they are; frozen otherwise."""
    for x in ctl:
        c = x.__class__
        if c is int or c is bool or x is None:
            continue
        if c is tuple:
            for y in x:
                if y.__class__ is not int:
                    return _freeze(tuple(ctl))
            continue
        return _freeze(tuple(ctl))
    return tuple(ctl)


# ---------------------------------------------------------------- the positions of a game, hashed

def position_hash(game, st) -> int:
    """A hash of ``state_key(game, st)`` for the "distinct states" that
    play counts: two states have the same one exactly when they have the
    same key (up to a collision of 64-bit hashes, as for the hash of the
    key itself). It is made of each value's own hash, so that
    :class:`PositionHasher` can make it over a game hashing only the values
    that changed."""
    first = 0 if game.info.get("reads_round", True) else 1
    return hash((tuple([_slot_hash(v) for v in st.S[first:]]),) + _control(st))


class PositionHasher:
    """``position_hash`` of the states of one game, one after the other:
    the hash of a value is kept while its slot holds the very same object
    (an effect never changes a value in place: it puts a new value in the
    slots it writes, see ``verify.reads``), so only the values that changed
    are hashed again. Any state may be given (one not following the last is
    told by identity, slot by slot); ``changed``, when the caller knows
    them, the slots (as bits, ``verify.reads.changed``) whose value is not
    the same object as in the state given before."""
    __slots__ = ("first", "vals", "hs")

    def __init__(self, game):
        self.first = 0 if game.info.get("reads_round", True) else 1
        self.vals: Optional[list] = None   # the values last hashed (a copy of that S)
        self.hs: list = []                 # their hashes

    def __call__(self, st, changed: Optional[int] = None) -> int:
        S = st.S
        vals, hs, first = self.vals, self.hs, self.first
        if vals is None or len(vals) != len(S) or changed is not None and changed < 0:
            hs = self.hs = [_slot_hash(v) for v in S]
        elif changed is None:   # by identity, slot by slot
            i = 0
            for v, w in zip(S, vals):
                if v is not w:
                    hs[i] = _slot_hash(v)
                i += 1
        else:
            while changed:
                low = changed & -changed
                i = low.bit_length() - 1
                v = S[i]
                c = v.__class__
                if c is int or c is str or c is bool or v is None:   # (``_slot_hash``, inline)
                    hs[i] = hash(v)
                elif c is list:
                    try:
                        hs[i] = hash(("list", *v))
                    except TypeError:
                        hs[i] = _slot_hash(v)
                else:
                    hs[i] = _slot_hash(v)
                changed ^= low
        self.vals = list(S)
        if st.pending is None and st.choosing is None and not st.chosen:
            # ``_control(st)`` with no chance event nor choice awaited is (the flow,
            # the outcome, None, None), the flow being ``_freeze(tuple(ctl))``
            # (the lap of a `turns round` stage left out), which has the hash of
            # ``tuple(ctl)`` itself when that can be hashed (freezing changes only
            # lists and maps, which cannot): the same hash, without freezing
            flow = tuple(st.ctl)
            order = flow[4]
            if order and flow[2] >= len(order):
                flow = flow[:2] + (flow[2] % len(order),) + flow[3:]
            try:
                return hash((tuple(hs[first:]), flow, st.outcome, None, None))
            except TypeError:   # a list or a map in the flow: frozen, below
                pass
        return hash((tuple(hs[first:]),) + _control(st))


def _action_key(action):
    """The action tuple of a pending choice: (action index, parameters[, player]);
    None for a choice asked while the game starts (the flow's first steps)."""
    if action is None:
        return None
    return (action[0].index, _freeze(action[1])) + tuple(action[2:])


# ---------------------------------------------------------------- the graph

@dataclass
class Graph:
    """The states a breadth-first search met within its budget."""
    order: list                # keys of the searched states, in the order searched
    state: dict                # key -> state (searched or only met)
    level: dict                # key -> actions from the start
    parent: dict               # key -> (parent key, action id) or None
    edges: dict                # key -> [(child key, action id)], for searched states
    anchor: dict               # chance node -> the state where its action was chosen
    outcome: str               # "exhausted", "bounded", or "error"
    error: Optional[tuple] = None   # (key, problem, extra action ids): the model failed there
    stop_level: int = 0        # the level being searched when the budget ran out
    cycle: object = False      # a cycle (state key, action ids round it), None, or False: not looked for
    sampled: bool = False      # some chance event followed only a sample of its outcomes

    def find_cycle(self):
        if self.cycle is False:
            self.cycle = _find_cycle(self.edges)
        return self.cycle


_GRAPHS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def graph(game, start, max_states: int, name=None, chance_k: Optional[int] = None) -> Graph:
    """The graph from ``start`` within ``max_states`` states; with a
    ``name``, kept for this game, so that each property reuses it. With
    ``chance_k``, a chance event with more outcomes follows only ``chance_k``
    of them, drawn by their probabilities (seeded): the graph is then a
    sample, which finds violations but proves nothing."""
    if name is not None:
        kept = _GRAPHS.setdefault(game, {})
        g = kept.get((name, max_states, chance_k))
        if g is None:
            g = kept[(name, max_states, chance_k)] = _build(game, start, max_states, chance_k)
        return g
    return _build(game, start, max_states, chance_k)


def _sampled_outcomes(st, k: int, rng) -> list:
    """At most ``k`` distinct outcomes of a chance node, drawn by their probabilities."""
    outcomes = st.chance_outcomes()
    if len(outcomes) <= k:
        return [a for a, _ in outcomes]
    picked = {}
    for a in rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes], k=4 * k):
        picked.setdefault(a.id, a)
        if len(picked) == k:
            break
    return list(picked.values())


class _Key(tuple):
    """A state's key (``state_key``) that keeps its hash: the graph's dicts
    are looked up by key again and again (building it, then by every
    property checked over it), and a tuple hashes all it holds each time.
    Equal to the very tuple it was made from, with the same hash."""

    def __new__(cls, key: tuple):
        self = tuple.__new__(cls, key)
        self._h = tuple.__hash__(self)
        return self

    def __hash__(self):
        return self._h


def _build(game, start, max_states: int, chance_k: Optional[int] = None) -> Graph:
    import random
    rng = random.Random(0)
    memo: dict = {}
    k0 = _Key(state_key(game, start, memo))
    g = Graph([], {k0: start}, {k0: 0}, {k0: None}, {}, {}, "exhausted")
    level = [k0]
    depth = 0
    while level:
        nxt = []
        i = 0
        while i < len(level):       # the level grows while chance nodes resolve within it
            k = level[i]
            i += 1
            st = g.state[k]
            g.order.append(k)
            if st.is_terminal():
                continue
            chance = st.is_chance_node()
            out = g.edges.setdefault(k, [])
            try:
                actions = st.legal_actions()
            except ModelError as e:
                g.outcome, g.error = "error", (k, f"model error: {e}", ())
                return g
            before = g.anchor.get(k) if chance else st
            if chance and chance_k is not None and len(actions) > chance_k:
                actions = _sampled_outcomes(st, chance_k, rng)
                g.sampled = True
            for a in actions:
                c = st.clone()
                try:
                    c.apply_action(a)
                except ModelError as e:
                    g.outcome, g.error = "error", (k, f"model error: {e}", (a.id,))
                    return g
                ck = _Key(state_key(game, c, memo))
                out.append((ck, a.id))
                if c.is_chance_node() and before is not None:
                    g.anchor.setdefault(ck, before)
                if ck not in g.parent:
                    g.parent[ck] = (k, a.id)
                    g.state[ck] = c
                    g.level[ck] = depth if chance else depth + 1
                    (level if chance else nxt).append(ck)
                    if len(g.parent) > max_states:
                        g.outcome, g.stop_level = "bounded", depth
                        return g
        level = nxt
        depth += 1
    g.stop_level = depth
    return g


# ---------------------------------------------------------------- checking

def explore(game, check: Callable, max_states: int = 4000,
            edge_check: Optional[Callable] = None, start=None, prefix: tuple = (),
            name=None, chance_k: Optional[int] = None) -> Exploration:
    """``check(state)`` returns a problem text or None for each state at
    rest; ``edge_check(before, after)`` the same for each action, ``before``
    being the state where it was chosen and ``after`` the next state at rest
    (every chance outcome between them resolved).

    ``start``: an explicit-chance state to search from (default: the game's
    start); ``prefix``: the action ids that lead to it, put before the path
    of a violation; ``name``: the graph's name, to keep it for the game."""
    if start is None:
        start = game.new_initial_state(seed=0, chance="explicit")
        name = name or "start"
    g = graph(game, start, max_states, name, chance_k)
    ex = Exploration("bounded", -1, 0, [], met=len(g.parent))
    ex.sampled = g.sampled

    def path(k, extra=()):
        return list(prefix) + _path(g.parent, k) + list(extra)

    def found(k, problem, extra=()):
        ex.outcome, ex.problem, ex.path = "violated", problem, path(k, extra)
        return ex

    for k in g.order:
        ex.states += 1
        st = g.state[k]
        chance = st.is_chance_node()
        if chance:
            ex.chance += 1
        else:
            if st.is_terminal():
                ex.final += 1
                ex.endings[st.ending()] = ex.endings.get(st.ending(), 0) + 1
            else:
                ex.decisions += 1
                if not g.edges.get(k) and (g.error is None or g.error[0] != k):
                    ex.stuck += 1
            try:
                problem = check(st)
            except ModelError as e:
                problem = f"model error: {e}"
            if problem:
                return found(k, problem)
        if edge_check is not None:
            before = g.anchor.get(k) if chance else st
            if before is not None:
                for ck, aid in g.edges.get(k, ()):
                    after = g.state[ck]
                    if after.is_chance_node():
                        continue
                    problem = edge_check(before, after)
                    if problem:
                        return found(k, problem, [aid])
        if g.error is not None and g.error[0] == k:
            return found(k, g.error[1], g.error[2])
    if g.outcome == "bounded":
        ex.depth = g.stop_level - 1
        loop = g.find_cycle()
        if loop is not None:   # a cycle among the states met is a real one
            ex.acyclic = False
            ex.problem = "the game can go round in a cycle of states for ever"
            ex.path = path(loop[0], loop[1])
        return ex
    ex.outcome, ex.depth = "exhausted", g.stop_level - 1
    loop = g.find_cycle()
    if g.sampled:   # a sample of the chance outcomes: neither complete nor free of cycles
        ex.outcome = "sampled"
        if loop is None:
            return ex
    if loop is None:
        ex.acyclic = True
        return ex
    ex.acyclic = False
    ex.path = path(loop[0], loop[1])
    ex.problem = "the game can go round in a cycle of states for ever"
    return ex


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
    color: dict = {}
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
