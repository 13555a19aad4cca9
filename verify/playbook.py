"""Games played once for every property of a configuration.

Checking properties by play (:mod:`atoll.verify.play`) plays, for each
property, the same uniformly random games: game ``i`` is `atoll simulate`'s
game of seed ``seed + i``, whatever the property. Which move is taken never
depends on the property; the property only decides when its game stops (at
its first violation). So each game is played once, and every property
watches each state of it (:func:`play_together`), stopping where its own game
would have stopped. Each property gets exactly the :class:`Run` that
:meth:`PlayCheck.play` gives alone (a test compares them).

The games hypothesis steers are shared too, for the properties whose
steered games follow the uniform policy: hypothesis asks for the same games
of each of them as long as none of them fails and their games are equally
long (the only feedback it gets is the game's length). One joint search
plays each game once for all of them; should any game differ between them
(a property fails, or its game stops elsewhere), the joint search is
dropped and each property searches alone, as before.

The searches (:func:`atoll.verify.play._search`) are made once per property
and kept here, so that the play check of a property does not search again.
"""
from __future__ import annotations

import random
import time
import weakref
from array import array
from typing import Optional

from atoll.compiler.runtime import ModelError
from atoll.verify.reads import changed as changed_slots
from atoll.compiler.playout import Moves, move_kind
from atoll.verify.explore import PositionHasher
from atoll.verify.runs import PlayCheck, PropertyError, Run, move_id

# The kinds checked by play whose uniform games can be shared. A measure per
# action is left out: z3 usually proves it, and then it is never played.
# `no_leak` compares the ways of each secret choice in every state its games
# meet, counting them (and drawing the sampled ways) as it goes: it is shared
# with one check kept for its search and all its games (``Book.check_of``),
# so that it meets the same states in the same order as alone.
SHARED_KINDS = ("invariant", "action_invariant", "deadlock_free", "reachable", "terminates",
                "no_leak")


def shares(pr) -> bool:
    return pr.kind in SHARED_KINDS and not (pr.kind == "terminates" and pr.step == "action")


def wanted(pr) -> tuple:
    return ("violation",) if pr.kind == "reachable" else ("violation", "error")


# ---------------------------------------------------------------- one game, many watchers

class _Watch:
    """One property's view of a shared game: the checks :meth:`PlayCheck._play`
    makes, state by state."""
    __slots__ = ("chk", "run", "terminates", "cap", "last_key", "last_measure", "skip", "dirty",
                 "action", "fn", "holds_if", "stuck")

    def __init__(self, chk: PlayCheck, run: Run):
        self.chk, self.run = chk, run
        self.terminates = chk.pr.kind == "terminates"
        self.cap = 0
        self.last_key = self.last_measure = None
        # the slots its check reads, as bits: a state where none of them changed
        # gives the same answer as the one before (``verify.reads``); None: always check
        self.skip = chk.reads if chk.pr.kind in ("invariant", "reachable") else None
        self.dirty = 0   # for a measure: the slots changed since it was last evaluated
        # an action invariant: the index of the action it is about (else None)
        self.action = chk.game.action_by_name[chk.pr.action].index \
            if chk.pr.kind == "action_invariant" else None
        # a property about one state, as play_together evaluates it first: its
        # function on S, and the truth value that means nothing to report
        # (an invariant true, a goal not reached)
        self.fn = chk.fn if self.skip is not None else None
        self.holds_if = chk.pr.kind == "invariant"
        self.stuck = chk.pr.kind == "deadlock_free"

    def start(self, state) -> Optional[str]:
        chk = self.chk
        self.cap = self.run.cap = chk.cap_for(state)
        problem = chk.check(state)
        if self.terminates:
            self.last_key, self.last_measure = chk.step_key(state, 0), chk.measure(state)
            if self.last_measure < 0:
                problem = f"the measure is negative ({self.last_measure}) at the start"
        return problem

    def after(self, state, steps: int, by_kind=None, changed: int = -1) -> Optional[str]:
        chk = self.chk
        if by_kind is not None and chk.pr.kind == "action_invariant":
            if state.is_terminal() or state.is_chance_node():
                return None
            return chk.bad_action(state, by_kind())
        if not self.terminates:
            return chk.check(state)
        self.dirty |= changed
        key = chk.step_key(state, steps)
        if key != self.last_key and not state.is_terminal():
            reads = chk.reads
            if reads is None or self.dirty & reads:
                m = chk.measure(state)
                self.dirty = 0
            else:   # none of the slots it reads changed since it was evaluated: the same value
                m = self.last_measure
            last, self.last_key, self.last_measure = self.last_measure, key, m
            if m < 0:
                return f"the measure fell below zero ({m})"
            if m >= last:
                return (f"the measure did not decrease over "
                        f"{'an' if chk.pr.step == 'action' else 'a'} {chk.pr.step}: {last} then {m}")
        return None


def _lean_kinds(state, kept: Optional[dict] = None):
    """At a node where one player decides, {action index: (start, end)} of
    the moves of each action in the lean listing (``state.legal_moves()``,
    kept in the state for the next move), with that listing; None
    elsewhere, or when the listing fails (the long way then meets the same
    error, for each property in turn, as before). ``kept``: a dict over the
    states of one game, where the grouping made for a listing's ``ends`` is
    kept (it is a function of ``ends`` alone, and a game meets the same
    few shapes of listing again and again)."""
    if state.is_chance_node():
        return None
    try:
        L = state.legal_moves()
    except ModelError:
        return None
    if L.__class__ is not Moves:
        return None
    if kept is None:
        return _kinds(L.ends), L
    key = tuple(L.ends)
    out = kept.get(key, kept)
    if out is kept:
        out = kept[key] = _kinds(key)
    return (None if out is None else (out, L))


def _kinds(ends) -> Optional[dict]:
    out, prev = {}, 0
    for end, ai in ends:
        if end > prev:
            if ai in out:   # an action listed twice in one phase: the long way
                return None
            out[ai] = (prev, end)
        prev = end
    return out


def play_together(game, checks: list, seed: int, choices=(), deadline: Optional[float] = None,
                  record: bool = True) -> list:
    """The runs ``check.play(seed, choices, "uniform")`` would give for each
    of ``checks`` (with ``record_states`` = ``record`` and this deadline),
    from one game played once."""
    runs = [Run(None, [], 0, seed) for _ in checks]
    actions, picks = [], []
    hashes: list = []
    hasher = PositionHasher(game)   # each state's hash, only the values that changed hashed again
    since = [None]   # the slots changed since the state last hashed (None: told by identity)
    random_choices = 0
    steps = 0
    state = None

    def position_hash():
        while len(hashes) <= steps:
            hashes.append(hasher(state, since[0]))
            since[0] = 0

    shared_states: dict = {}
    cut_lists: dict = {}   # (steps, choices) -> the actions and choices of the runs that stop there
    g_id, g_actions = game._action_id, game.actions
    hashed_at = -1   # the step whose state the hasher has just hashed (its copy of S: ``hasher.vals``)
    kinds_kept: dict = {}   # a listing's ends -> its moves grouped by action (``_lean_kinds``)

    def finish(w: _Watch, outcome: str, problem=None, cut=None, failed=None):
        run = w.run
        # the runs that stop at the same point share their lists of actions and
        # choices (nothing changes a played run's lists: a replay makes its own)
        kept = cut_lists.get((steps, len(picks)))
        if kept is None:
            kept = cut_lists[(steps, len(picks))] = (actions[:steps], picks[:len(picks)])
        run.actions, run.choices = kept
        run.random_choices = random_choices
        run.steps = steps
        if outcome == "error":
            run.violation, run.outcome, run.failed = problem, "error", failed
            return
        if record:
            position_hash()
            if steps not in shared_states:
                # 8 bytes a position (a hash is a signed 64-bit int), not an int object each
                shared_states[steps] = array("q", set(hashes[:steps + 1]))
            run.states = shared_states[steps]
        if outcome == "violation":
            run.violation, run.outcome = problem, "violation"
        elif outcome == "ending":
            run.ending = state.ending()
        else:
            run.cut = cut
            if cut != "deadlock":
                run.outcome = "cut"

    watches = [_Watch(c, r) for c, r in zip(checks, runs)]
    try:
        state = game.new_initial_state(seed=seed)
    except ModelError as e:
        for w in watches:
            finish(w, "error", f"model error: {e}")
        return runs
    rng = random.Random(seed)

    def watching(w: _Watch, look, *args) -> bool:
        """Whether ``w`` goes on after ``look(*args)`` checked the state (else its run is finished)."""
        try:
            problem = look(*args)
        except PropertyError as e:
            finish(w, "error", str(e))
            return False
        except ModelError as e:
            finish(w, "error", f"model error: {e}")
            return False
        if problem is not None:
            finish(w, "violation", problem)
        elif state.is_terminal():
            finish(w, "ending")
        else:
            return True
        return False

    active = [w for w in watches if watching(w, w.start, state)]
    cap = min((w.cap for w in active), default=0)   # the first cap any of them meets
    # The watchers in three groups, for the states where the game goes on: a
    # property about one state with its read slots (``quiet``, all their slots
    # together in ``reads``: when none of them changed, none of them is looked
    # at), an action invariant (``by_action``: looked at only when its action
    # has moves), any other (looked at in every state).
    quiet, by_action, others, reads = [], {}, [], 0
    # the watchers of ``quiet`` that read one of the slots changed, by the
    # changed slots (a game changes the same few sets of slots again and again)
    reading: dict = {}

    def group(ws):
        nonlocal quiet, by_action, others, reads, reading
        quiet, by_action, others, reads, reading = [], {}, [], 0, {}
        for w in ws:
            if w.skip is not None:
                quiet.append(w)
                reads |= w.skip
            elif w.action is not None:
                by_action.setdefault(w.action, []).append(w)
            else:
                others.append(w)
    group(active)
    while active:
        if record and len(hashes) <= steps:   # (``position_hash``, inline)
            hashes.append(hasher(state, since[0]))
            since[0] = 0
            hashed_at = steps
        if steps >= cap:
            still = []
            for w in active:
                if steps >= w.cap:
                    finish(w, "cut", cut="cap")
                else:
                    still.append(w)
            active = still
            if not active:
                break
            cap = min(w.cap for w in active)
            group(active)
        if deadline is not None and steps % 64 == 63 and time.perf_counter() > deadline:
            for w in active:
                finish(w, "cut", cut="time")
            break
        try:
            legal = state.legal_moves()   # the lean path: no Action objects unless a check asks
        except ModelError as e:
            for w in active:
                finish(w, "error", f"model error: {e}")
            break
        if not legal:
            for w in active:
                if w.chk.pr.kind != "deadlock_free":
                    finish(w, "cut", cut="deadlock")
                    continue
                try:
                    problem = w.chk.check(state)
                except PropertyError as e:
                    finish(w, "error", str(e))
                    continue
                if problem is not None:
                    finish(w, "violation", problem)
                else:
                    finish(w, "cut", cut="deadlock")
            break
        if steps < len(choices):
            i = choices[steps] % len(legal)
        else:
            i = rng.randrange(len(legal))
            random_choices += 1
        aid = g_id(g_actions[move_kind(legal, i)], legal[i]) if legal.__class__ is Moves \
            else move_id(state, legal, i)   # (``move_id``, inline)
        picks.append(i)
        # (a copy: the changed slots are told by identity; the hasher's copy of
        # this very state, when it has just hashed it)
        before = hasher.vals if hashed_at == steps else list(state.S)
        try:
            state.apply_move(i)
        except ModelError as e:   # the state is as it was: its actions are the same
            failed = str(state.legal_actions()[i])
            for w in active:
                finish(w, "error", f"model error: {e}", failed=failed)
            break
        actions.append(aid)
        steps += 1
        changed = changed_slots(before, state.S)
        if since[0] is not None:
            since[0] = -1 if changed < 0 else since[0] | changed
        grouped = None

        def by_kind():   # the legal actions by kind, once per state for every action invariant
            nonlocal grouped
            if grouped is None:
                grouped = {}
                for x in state.legal_actions():
                    grouped.setdefault(x.kind, []).append(x)
            return grouped
        done = []   # the watchers whose run is finished
        if state.is_terminal():   # every watcher looks at the last state
            look = active
        else:
            look = []
            if changed & reads:   # (else none of them read a slot that changed: each still holds)
                S = state.S
                ws = reading.get(changed)
                if ws is None:
                    ws = reading[changed] = [w for w in quiet if changed & w.skip]
                for w in ws:
                    # The property's own function first: the long way (``after``:
                    # ``check``, ``value``) evaluates that function on the same S
                    # and reports nothing exactly when its truth is ``holds_if``
                    # (the game goes on here). Any other answer, or an error, is
                    # left to the long way, which evaluates it again (a function
                    # of S alone: the same answer) and words it.
                    try:
                        if (not w.fn(S)) is not w.holds_if:
                            continue
                    except Exception:
                        pass
                    look.append(w)
            if by_action:
                lean = _lean_kinds(state, kinds_kept)
                if lean is None:   # not a node where one player decides: the long way
                    for ws in by_action.values():
                        look += ws
                else:
                    # An action invariant at a node where one player decides:
                    # only the moves of its action are checked (``bad_action``
                    # checks those alone), over the lean listing, which the
                    # next move then uses. No such move: nothing to break it.
                    at, L = lean
                    for ai, where in at.items():   # (the actions with moves here: few)
                        ws = by_action.get(ai)
                        if ws is not None:
                            for w in ws:
                                try:   # nothing to report: as ``watching`` (the game goes on)
                                    if w.chk.bad_move(state, L, *where) is None:
                                        continue
                                except Exception:   # (the same error again, below)
                                    pass
                                if not watching(w, w.chk.bad_move, state, L, *where):
                                    done.append(w)
            for w in others:
                if w.stuck:
                    # Deadlock freedom where the game goes on holds exactly when
                    # the state has a legal move (``check``): the listing is made
                    # once and kept in the state for the next move. No move, or
                    # an error: the long way.
                    try:
                        if state.legal_moves():
                            continue
                    except ModelError:
                        pass
                look.append(w)
        done += [w for w in look if not watching(w, w.after, state, steps, by_kind, changed)]
        if done:
            active = [w for w in active if w not in done]
            group(active)
    return runs


# ---------------------------------------------------------------- the book of a configuration

class Book:
    """The play-based properties of one configuration (one game), their
    searches, and their uniform and steered games, each played once."""

    def __init__(self, game, props: list, games: int, seed: int, spec_path: str):
        self.game, self.games, self.seed, self.spec_path = game, games, seed, spec_path
        self.props = {pr.name: pr for pr in props if shares(pr)}
        self.searched: dict = {}     # name -> (found, evidence)
        self.uniform: Optional[dict] = None   # name -> [Run], in seed order
        self.steered: Optional[dict] = None   # name -> [Run], or None: search alone
        self.checks: dict = {}       # name -> its PlayCheck, for its search and all its games

    def check_of(self, name: str) -> PlayCheck:
        """The one check of this property over its search and its games
        (the same for each: a `no_leak` check counts the secret choices it
        compared, and draws its sampled ways, over all of them in turn, as
        the property checked alone does)."""
        c = self.checks.get(name)
        if c is None:
            c = self.checks[name] = PlayCheck(self.game, self.props[name])
        return c

    def search(self, name: str):
        """The search's (found, evidence) for this property, made once."""
        from atoll.verify.play import MAX_STATES, _search
        if name not in self.searched:
            pr = self.props[name]
            evidence: dict = {}
            try:
                found = _search(self.check_of(name), self.game, pr, self.spec_path,
                                MAX_STATES, evidence)
            except Exception as e:   # raised for this property only, when it asks
                self.searched[name] = e
            else:
                self.searched[name] = (found, evidence)
        kept = self.searched[name]
        if isinstance(kept, Exception):
            raise kept
        return kept[0], _copy(kept[1])

    def _players(self) -> list:
        """The properties that play: those their search did not decide."""
        out = []
        for n in self.props:
            try:
                if self.search(n)[0] is None:
                    out.append(n)
            except Exception:   # that property's own check reports it
                continue
        return out

    def uniform_runs(self, name: str, play_seconds: float) -> list:
        if self.uniform is None:
            names = self._players()
            checks = []
            for n in names:
                c = self.check_of(n)
                c.record_states = True
                checks.append(c)
            deadline = time.perf_counter() + play_seconds * max(1, len(names))
            self.uniform = {n: [] for n in names}
            for i in range(self.games):
                if i and time.perf_counter() > deadline:
                    break
                for n, r in zip(names, play_together(self.game, checks, self.seed + i,
                                                     deadline=deadline)):
                    self.uniform[n].append(r)
        return self.uniform[name]

    def steered_runs(self, name: str, play_seconds: float):
        """The steered games of this property from the joint search, or
        None: it searches alone."""
        if self.steered is None:
            self.steered = self._joint(play_seconds)
        return self.steered.get(name)

    def _joint(self, play_seconds: float) -> dict:
        from hypothesis import HealthCheck, Phase, find, settings, target
        from hypothesis.errors import NoSuchExample, Unsatisfiable
        from atoll.verify.play import GAME, STEERED_SHARE
        names = [n for n, runs in self.uniform.items()
                 if self.props[n].kind != "terminates"
                 and not any(r.outcome in wanted(self.props[n]) for r in runs)]
        if not names:
            return {}
        checks = []
        for n in names:
            c = self.check_of(n)
            c.record_states = True
            checks.append(c)
        # what the `no_leak` checks have counted so far: should the joint search be
        # dropped, each property searches alone, as if these games were never played
        saved = [(c.leaks, c.leaks.save()) for c in checks if c.leaks is not None]
        deadline = time.perf_counter() + play_seconds * len(names)
        played = {n: [] for n in names}
        diverged = [False]

        def bad(example):
            if time.perf_counter() > deadline:
                return False
            runs = play_together(self.game, checks, example[0], example[1], deadline=deadline)
            for n, r in zip(names, runs):
                played[n].append(r)
            if len({r.steps for r in runs}) > 1 or any(
                    r.outcome in wanted(self.props[n]) for n, r in zip(names, runs)):
                diverged[0] = True   # hypothesis would now ask each property for other games
                return True
            target(float(runs[0].steps), label="game length")
            return False
        try:
            find(GAME, bad, settings=settings(
                max_examples=max(1, self.games // STEERED_SHARE), database=None, deadline=None,
                suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.target]),
                random=random.Random(self.seed))
        except (NoSuchExample, Unsatisfiable):
            pass
        if diverged[0]:
            for leaks, kept in saved:
                leaks.restore(kept)
            return {}
        return played


def _copy(evidence: dict) -> dict:
    import copy
    return copy.deepcopy(evidence)


_BOOKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def plan(game, props: list, games: int, seed: int, spec_path: str) -> None:
    """The play-based properties about to be checked in this game: their
    games are played once, when the first of them asks."""
    _BOOKS[game] = Book(game, props, games, seed, str(spec_path))


def book(game, pr, games: int, seed: int) -> Optional[Book]:
    """The book that holds this property's games, if one was planned for
    the same budget."""
    b = _BOOKS.get(game)
    if b is None or pr.name not in b.props or b.props[pr.name] is not pr or \
            (b.games, b.seed) != (games, seed):
        return None
    return b


def forget(game) -> None:
    _BOOKS.pop(game, None)
