"""The lean playout path: legal moves as plain tuples, applied without
``Action`` objects, labels or ids (computed only when asked for).

A *move* is what ``State.legal_moves()`` lists: at a node where one player
decides (no chance event, no choice inside an effect, no simultaneous
stage waiting), the tuple ``(action index, params)``; at any other node,
the ``Action`` that ``legal_actions()`` lists there. ``State.apply_move``
takes one of the moves of the state's own listing, in the same order as
``legal_actions()`` (so that a seeded random player plays the same game
either way), and does what ``apply_action`` does with the matching action:
the same state, the same history (ids computed when ``history`` is read),
the same errors.

``play_random(game, seed)`` is the random playout that ``atoll simulate``,
the verifier's play and the benchmarks run.
"""
from __future__ import annotations

import random

from atoll.compiler import runtime as R


class Moves(list):
    """A state's legal moves at a node where one player decides: the
    parameter tuples of its legal actions, in the order of
    ``legal_actions()``; ``ends`` gives, for each action of the phase in
    turn, (the index past its last move, the action's index)."""
    __slots__ = ("ends",)


def legal_moves(g, st) -> list:
    """The legal moves of ``st`` (cached in ``st._legal`` until it changes)."""
    L = st._legal
    if L is not None:
        return L
    if st.outcome is None and st.pending is None and st.choosing is None \
            and not (g._any_sim and g._sim_point(st)):
        L = st._legal = _list(g, st)
        return L
    return st.legal_actions()


def kept_choices(st):
    """The legal choices by action index that the last `done when` test
    listed on the state's present S and ctl (see compiler/lower_flow.py), or None."""
    m = st._memo
    return m[2] if m is not None and m[0] is st.S and m[1] is st.ctl else None


def _list(g, st) -> Moves:
    """The moves of ``st``: each action's listing in turn (its kept choices
    where the `done when` test listed them). The usual case runs without the
    bookkeeping that only an error needs; should a listing fail or the moves
    be too many, the listing runs again step by step (``_list_steps``: the
    listings change nothing, so it meets the same error), which words it."""
    ctl, S = st.ctl, st.S
    me = ctl[4][ctl[2] % len(ctl[4])]
    m = st._memo
    name = g.rounds[ctl[0]][ctl[1]][1][ctl[3]]
    memo = m[2] if m is not None and m[0] is S and m[1] is ctl else ()
    listing = g._phase_list[name]
    if listing is not None:   # the walk below, generated (compiler/lower_listing.py)
        try:
            out = listing(S, me, memo, Moves)
            if len(out) <= R.MAX_LEGAL:
                return out
        except Exception:
            pass
        return _list_steps(g, st)
    out = Moves()
    ends = out.ends = []
    listing = g._move_listing[name]
    most = R.MAX_LEGAL
    try:
        for _, choices, ai in listing:
            out += memo[ai] if ai in memo else choices(S, me)
            n = len(out)
            if n > most:
                break
            ends.append((n, ai))
        else:
            return out
    except Exception:
        pass
    return _list_steps(g, st)


def _list_steps(g, st) -> Moves:
    ctl, S = st.ctl, st.S
    me = ctl[4][ctl[2] % len(ctl[4])]
    out = Moves()
    ends = out.ends = []
    m = st._memo
    memo = m[2] if m is not None and m[0] is S and m[1] is ctl else None
    try:
        for where, choices, ai in g._move_listing[g.rounds[ctl[0]][ctl[1]][1][ctl[3]]]:
            g._where = where
            if memo is not None and ai in memo:
                out += memo[ai]
            else:
                out += choices(S, me)
            if len(out) > R.MAX_LEGAL:
                raise R.ModelError(f"evaluating {where}: more than {R.MAX_LEGAL:,} legal actions in one "
                                 "state (a limit of the model: narrow the parameters' domains)")
            ends.append((len(out), ai))
    except RecursionError:
        raise R.ModelError(f"evaluating {g._where}: the rules call each other without end") from None
    except (R.ModelError, R.IllegalAction):
        raise
    except Exception as e:
        raise R.ModelError(f"evaluating {g._where}: {R._why(e)}") from None
    return out


def move_kind(L: Moves, i: int) -> int:
    """The index of the action of move ``i`` of ``L``."""
    for end, ai in L.ends:
        if i < end:
            return ai
    raise IndexError(i)


def apply_move(g, st, i: int) -> None:
    """Apply move ``i`` of ``legal_moves()``."""
    L = st._legal
    if L is None:
        L = legal_moves(g, st)
    if L.__class__ is not Moves:   # a chance node, a choice or a simultaneous stage: the Actions
        L = st.legal_actions()
        if not (i.__class__ is int and 0 <= i < len(L)):
            raise R.IllegalAction(f"move {i!r} is not one of the {len(L)} legal_moves() of this state")
        g._apply(st, L[i])
        return
    if not (i.__class__ is int and 0 <= i < len(L)):
        raise R.IllegalAction(f"move {i!r} is not one of the {len(L)} legal_moves() of this state")
    params = L[i]
    for end, ai in L.ends:
        if i < end:
            break
    g._act(st, ai, params, [] if st.chance_mode == "explicit" else None)
    if st.pending is not None:
        st.pending = (g._action_id(g.actions[ai], params),) + st.pending[1:]
    st._hist.append((ai, params))


def play_random(g, seed: int, rng=None, max_steps: int = 0):
    """One game by a uniformly random player (``rng``, default
    ``random.Random(seed)``): the same game as choosing uniformly among
    ``legal_actions()``. Returns (state, steps): the state is over, or has
    no legal move (a deadlock), or ``max_steps`` (when positive) were played.

    Where one player decides (chance drawn from the stream, no simultaneous
    stage), the step is written out here: the phase's generated listing
    (``_list``), the random choice, and ``FlowEngine._act`` with the game's
    per-action tables read once per game rather than once per action. It
    is ``_act`` line for line (the same copies, the same ``Transaction``,
    the same ``G._where``, the same tests in the same order, the same
    failure path through ``G._stopped``), so the same game; any other node
    (a listing that fails or lists too many moves, a chance node, a choice
    inside an effect) goes the general way, ``legal_moves``/``apply_move``."""
    st = g.new_initial_state(seed=seed)
    r = random.Random(seed) if rng is None else rng
    # random.Random.randrange(n) for n >= 1 is _randbelow(n) (CPython's random.py:
    # the same numbers from the same stream); any other generator, or a subclass
    # that may give randrange its own numbers, is asked by randrange
    randrange = r._randbelow if type(r) is random.Random else r.randrange
    steps = 0
    hist = st._hist
    rounds = g.rounds
    # the written-out step: one player decides, chance from the stream
    # each position's phase listing (rounds, stages, phases), found as g._phase_list finds it by name
    at = None if g._any_sim or st.chance_mode != "auto" else \
        [[[g._phase_list[name] for name in stage[1]] for stage in rd] for rd in rounds]
    act_steps, imm, flend, int_watch, most = g._act_steps, g._imm_test, g._flend, g._int_watch, R.MAX_LEGAL
    Transaction, X = R.Transaction, None
    million = range(1_000_000)
    while st.outcome is None:
        L = st._legal
        if L is None and at is not None and st.pending is None and st.choosing is None:
            ctl0, S0 = st.ctl, st.S
            listing = at[ctl0[0]][ctl0[1]][ctl0[3]]
            if listing is not None:
                me = ctl0[4][ctl0[2] % len(ctl0[4])]
                m = st._memo
                try:
                    L = listing(S0, me, m[2] if m is not None and m[0] is S0 and m[1] is ctl0 else (), Moves)
                    if len(L) > most:
                        L = None   # legal_moves below lists again and words it
                except Exception:
                    L = None
                if L is not None:
                    st._legal = L
                    n = len(L)
                    if not n:
                        break
                    i = randrange(n)
                    params = L[i]
                    for end, ai in L.ends:
                        if i < end:
                            break
                    # FlowEngine._act(st, ai, params, None), written out (keep the two alike)
                    S = st.S = S0.copy()
                    ctl = st.ctl = ctl0.copy()
                    rng_ = st.rng
                    # one Transaction for the game, made fresh for each action: an
                    # auto-chance transaction (no outcomes given, no choices made)
                    # writes only the fields set here, and nothing keeps it after
                    # its action (the state keeps its list of events, a new one each
                    # time; a choice inside an effect copies it, see choices.py)
                    if X is None:
                        X = Transaction(rng_[0], rng_[1], None)
                    else:
                        X.seed = rng_[0]
                        X.counter = rng_[1]
                        X.end = X.outcome = X.last = None
                        X.events = []
                    effect, where, done, repeat, where_done, donem = act_steps[ai]
                    flow = False
                    try:
                        ctl[6] = True
                        g._where = where
                        effect(S, me, X, *params)
                        ends = -1
                        if imm is not None:
                            try:
                                ends = imm(S)
                            except Exception:   # _check_endings words the error
                                ends = 0
                        if X.end == "phase" and X.outcome is None and ends < 0 and not ctl[5] \
                                and flend is not None:
                            X.end = None
                            flow = True
                        elif X.outcome is not None or X.end is not None or ends >= 0 or ctl[5]:
                            if not g._after_effects(st, X, imm is not None and ends < 0):
                                g._settle(st, X)
                        else:   # the first step of _settle, in the phase of the action
                            g._where = where_done
                            M = None
                            if donem is None:
                                over = done(S, me)
                            else:
                                M = {}
                                try:
                                    over = donem(S, me, M)
                                except Exception:   # the plain test raises or answers (see _settle)
                                    M = None
                                    over = done(S, me)
                            if over:
                                if repeat(S, me):
                                    ctl[5] = True
                                    g._settle(st, X)
                                elif flend is not None:   # the generated flow from here
                                    flow = True
                                else:
                                    g._next_phase(st, X)
                                    g._settle(st, X)
                            elif M:
                                st._memo = (S, ctl, M)
                        if flow:   # FlowEngine._flow, written out
                            step = flend[ctl[0]][ctl[1]][ctl[3]]
                            for _ in million:
                                step = step(g, st, S, ctl, X)
                                if step is None:
                                    break
                            else:
                                raise R.ModelError("the flow ran a million automatic steps without a decision")
                        for w, ok in int_watch:   # as _transact
                            v = S[w]
                            if v is not S0[w] and v is not None and not ok(v, S0[w]):
                                g._past_bound(st, S0, ctl0, None, (g.actions[ai], params), None)
                    except BaseException as e:
                        st.S, st.ctl, st.outcome = S0, ctl0, None
                        g._stopped(st, e, (g.actions[ai], params), None, None, X)
                    else:
                        rng_[1] = X.counter
                        st.pending = None
                        st.choosing = None
                        if st.chosen:
                            st.chosen = []
                        st._legal = None
                        st._events = X.events
                    hist.append((ai, params))   # (no chance waits: chance is drawn from the stream)
                    steps += 1
                    if steps == max_steps:
                        break
                    continue
        if L is None:
            L = legal_moves(g, st)
        n = len(L)
        if not n:
            break
        i = randrange(n)
        apply_move(g, st, i)
        steps += 1
        if steps == max_steps:
            break
    return st, steps
