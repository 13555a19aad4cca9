"""One game played for a property: the checks made in every state, the
choices (given, uniformly random, or steered), the shrinking of a failing
game, and the replay of a run as a readable trace.

A game is described by a seed and a list of choices: the i-th decision
takes legal action ``choices[i] % len(legal)``. Past the list, a policy
decides: ``"uniform"`` draws uniformly among the legal actions from
``random.Random(seed)``, as `atoll simulate` does (with no choices given,
the game is exactly simulate's game of that seed); ``"steer"`` (for a
measure) prefers, half of the time, the action after which the measure
stays highest; ``"first"`` takes the first legal action (for shrinking).
Chance is resolved by the state's seeded stream, by its probabilities.
"""
from __future__ import annotations

import random
import time
from array import array
from dataclasses import dataclass, field
from typing import Optional

from atoll.compiler import names as N
from atoll.compiler.playout import Moves, move_kind
from atoll.compiler.runtime import ModelError
from atoll.render import label, move_label, view_types
from atoll.verify.explore import PositionHasher
from atoll.verify.reads import changed as changed_slots, mask, slots_read
from atoll.grammar import ast as A


class PropertyError(Exception):
    """The property cannot be evaluated in a state."""


@dataclass
class Run:
    violation: Optional[str]
    actions: list          # action ids, in order
    steps: int
    seed: int
    outcome: str = "ok"    # ok, violation (or reached), error, cut (stopped before the end)
    chance: str = "auto"   # how the actions replay: "explicit" when they include chance outcomes
    failed: Optional[str] = None   # the action whose evaluation failed
    choices: list = field(default_factory=list)   # the index taken at each decision
    random_choices: int = 0        # decisions taken by the uniform policy
    ending: Optional[str] = None   # the ending reached, for a game that ended
    cut: Optional[str] = None      # why an unfinished game stopped: "cap", "time", "deadlock"
    states: tuple = ()             # hashes of the positions met (an array of 64-bit ints once played)
    cap: int = 0                   # the most actions this game could be played for


class PlayCheck:
    """The checks of one property over played games."""

    def __init__(self, game, pr: A.PropertyDecl, max_steps: int = 10_000):
        self.game = game
        self.pr = pr
        self.max_steps = max_steps
        self.fn = game.ns.get(N.prop(pr.name))
        self.deadline: Optional[float] = None   # perf_counter time past which games are cut
        self.record_states = False
        self.position = ""     # the position the last trace ended in, as text
        self.leaks = None
        # the slots of S the property's function reads, as bits (verify.reads), or None
        self.reads = _reads_mask(game, pr) if self.fn is not None else None
        if pr.kind == "no_leak":   # compares the ways a secret choice can be made
            from atoll.verify.secrets import LeakCheck
            self.leaks = LeakCheck(game)

    # ------------------------------------------------------------ checks
    def measure(self, state) -> int:
        return self.value(state)

    def value(self, state):
        try:
            return self.fn(state.S)
        except Exception as e:   # a property that cannot be evaluated here
            raise PropertyError(f"the property cannot be evaluated in this state "
                                f"({type(e).__name__}: {e})") from None

    def bad_action(self, state, by_kind: Optional[dict] = None) -> Optional[str]:
        """The first legal action of the property's kind (every one is
        listed) that breaks it, in words with its rule's citation; or None.
        ``by_kind``: the state's legal actions grouped by kind, when the
        caller has them (several such properties watch one game)."""
        if state.is_terminal() or state.is_chance_node():
            return None
        spec = self.game.action_by_name[self.pr.action]
        for a in state.legal_actions() if by_kind is None else by_kind.get(self.pr.action, ()):
            if a.kind != self.pr.action:
                continue
            try:
                ok = self.fn(state.S, a.player, *a.params)
            except Exception as e:
                raise PropertyError(f"the property cannot be evaluated for the legal "
                                    f"`{move_label(self.game, a)}` ({type(e).__name__}: {e})") from None
            if not ok:
                cite = f" (rulebook: {'; '.join(spec.cites)})" if spec.cites else ""
                return (f"player {a.player} may play `{move_label(self.game, a)}`, which breaks it: "
                        f"the rule that allows it is action `{spec.name}` of phase `{spec.phase}`{cite}")
        return None

    def bad_move(self, state, L, start: int, end: int) -> Optional[str]:
        """``bad_action`` at a node where one player decides, over the lean
        listing ``L`` (``state.legal_moves()``, a ``Moves``) whose moves
        ``L[start:end]`` are all of the property's kind: the same function
        on the same arguments (the player to move, each move's parameters),
        in the same order. At the first move that fails or cannot be
        evaluated, ``bad_action`` words it: it evaluates the same moves in
        the same order, so it stops at the same one, for the same reason."""
        S, fn, ctl = state.S, self.fn, state.ctl
        me = ctl[4][ctl[2] % len(ctl[4])]
        for j in range(start, end):
            try:
                if fn(S, me, *L[j]):
                    continue
            except Exception:
                pass
            return self.bad_action(state)
        return None

    def step_key(self, state, steps: int):
        if self.pr.step == "action":
            return steps
        if self.pr.step == "round":
            return state.S[0]
        return (state.S[0], state.ctl[0], state.ctl[1], state.ctl[2])

    def check(self, state) -> Optional[str]:
        kind = self.pr.kind
        if kind == "invariant" and not self.value(state):
            return "the invariant is false in this state"
        if kind == "action_invariant":
            return self.bad_action(state)
        if kind == "deadlock_free" and not state.is_terminal() and not state.legal_moves():
            return f"no legal action in phase `{state.phase()}` for player {state.current_player()}"
        if kind == "reachable" and self.value(state):
            return "reached"
        if kind == "no_leak":
            return self.leaks.check(state)
        return None

    def cap_for(self, state) -> int:
        """The most actions a game is played for: the fixed cap, or, for a
        measure per action that starts at m, m + 2 (the measure cannot fall
        that often without turning negative, which is a violation), so that
        the cap never cuts a game the measure bounds."""
        if self.pr.kind == "terminates" and self.pr.step == "action":
            try:
                return max(self.max_steps, self.measure(state) + 2)
            except PropertyError:
                return self.max_steps
        return self.max_steps

    # ------------------------------------------------------------ one game
    def play(self, seed: int, choices=(), policy: str = "uniform",
             stop_at: Optional[int] = None) -> Run:
        run = Run(None, [], 0, seed)
        try:
            self._play(seed, list(choices), policy, stop_at, run)
        except (ModelError, PropertyError) as e:
            run.violation = str(e) if isinstance(e, PropertyError) else f"model error: {e}"
            run.outcome, run.cut, run.ending = "error", None, None
            if isinstance(e, ModelError):
                run.failed = None if self._last is None else _label_of(*self._last)
        run.steps = len(run.actions)
        return run

    def _play(self, seed: int, choices: list, policy: str, stop_at: Optional[int], run: Run) -> None:
        g = self.game
        self._last = None
        state = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        kind = self.pr.kind
        terminates = kind == "terminates"
        seen = set() if self.record_states else None
        hasher = PositionHasher(g) if seen is not None else None   # only the values that changed hashed again
        cap = run.cap = self.cap_for(state)
        deadline = self.deadline
        last_key, last_measure = None, None
        reads = self.reads if kind in ("invariant", "reachable", "terminates") else None
        dirty = 0   # the slots changed since the property was last evaluated
        problem = self.check(state)
        if terminates:
            last_key, last_measure = self.step_key(state, 0), self.measure(state)
            if last_measure < 0:
                problem = f"the measure is negative ({last_measure}) at the start"
        steps = 0
        while problem is None and not state.is_terminal():
            if seen is not None:
                seen.add(hasher(state))
            if stop_at is not None and steps >= stop_at:
                run.cut = "cap"
                break
            if steps >= cap:
                run.cut = "cap"
                break
            if deadline is not None and steps % 64 == 63 and time.perf_counter() > deadline:
                run.cut = "time"
                break
            legal = state.legal_moves()   # the lean path: no Action objects unless a check asks
            if not legal:
                if kind == "deadlock_free":
                    problem = self.check(state)
                else:
                    run.cut = "deadlock"
                break
            if steps < len(choices):
                i = choices[steps] % len(legal)
            elif policy == "first":
                i = 0
            elif policy == "steer" and rng.random() < 0.5:
                i = self.steer(state, legal, rng)
            else:
                i = rng.randrange(len(legal))
                run.random_choices += 1
            aid = move_id(state, legal, i)
            run.choices.append(i)
            self._last = (state, i)   # its label is written only if it fails
            before = list(state.S) if reads is not None else None
            state.apply_move(i)
            self._last = None
            run.actions.append(aid)
            steps += 1
            if reads is not None:
                dirty |= changed_slots(before, state.S)
            if terminates:
                key = self.step_key(state, steps)
                if key != last_key and not state.is_terminal():
                    if reads is None or dirty & reads:
                        m = self.measure(state)
                        dirty = 0
                    else:   # none of the slots it reads changed since: the same value
                        m = last_measure
                    if m < 0:
                        problem = f"the measure fell below zero ({m})"
                    elif m >= last_measure:
                        problem = (f"the measure did not decrease over "
                                   f"{'an' if self.pr.step == 'action' else 'a'} {self.pr.step}: "
                                   f"{last_measure} then {m}")
                    last_key, last_measure = key, m
            elif reads is not None and not (dirty & reads) and not state.is_terminal():
                pass   # it read nothing that changed: the same answer as before (no problem)
            else:
                problem = self.check(state)
                dirty = 0
        if seen is not None:
            seen.add(hasher(state))
            run.states = array("q", seen)   # 8 bytes a position, not an int object each
        if problem is not None:
            run.violation, run.outcome, run.cut = problem, "violation", None
        elif state.is_terminal():
            run.ending = state.ending()
        elif run.cut != "deadlock":   # a deadlock is an end of play, for deadlock_free to judge
            run.outcome = "cut"

    def steer(self, state, legal, rng) -> int:
        """The index of a move of ``legal`` (``state.legal_moves()``) after
        which the measure stays highest: each move tried on a clone (which
        keeps the listing, so the move is applied without listing again)."""
        best, best_m = [], None
        for i in range(len(legal)):
            c = state.clone()
            self._last = (c, i)
            c.apply_move(i)
            self._last = None
            m = self.measure(c) + (10**6 if not c.is_terminal() else 0)
            if best_m is None or m > best_m:
                best, best_m = [i], m
            elif m == best_m:
                best.append(i)
        return best[rng.randrange(len(best))]

    # ------------------------------------------------------------ shrinking
    def shrink(self, run: Run, wanted: tuple, budget_s: float = 3.0, max_tries: int = 400) -> Run:
        """A shorter game that fails in the same way (its outcome in
        ``wanted``): the choices are cut in chunks, then lowered, each
        candidate replayed with the first legal action past its list. The
        result replays exactly (every decision is in its list)."""
        best = run
        stop = time.perf_counter() + budget_s
        tries = 0
        saved, self.deadline = self.deadline, None

        def attempt(choices):
            nonlocal best, tries
            tries += 1
            r = self.play(best.seed, choices, "first", stop_at=len(best.choices) + 1)
            if r.outcome in wanted and (len(r.choices), r.choices) < (len(best.choices), best.choices):
                best = r
                return True
            return False

        def spent():
            return tries >= max_tries or time.perf_counter() > stop
        try:
            progress = True
            while progress and not spent():
                size = len(best.choices)
                for i in range(size):   # a prefix, then the first legal action each time
                    if spent() or attempt(best.choices[:i]):
                        break
                chunk = max(1, len(best.choices) // 2)
                while chunk >= 1 and not spent():   # leave out a run of choices
                    i = 0
                    while i < len(best.choices) and not spent():
                        if not attempt(best.choices[:i] + best.choices[i + chunk:]):
                            i += chunk
                    chunk //= 2
                i = 0
                while i < len(best.choices) and not spent():   # lower each choice
                    c = best.choices[i]
                    for lower in sorted({0, c // 2, c - 1}):
                        if lower < c and attempt(best.choices[:i] + [lower] + best.choices[i + 1:]):
                            break
                    i += 1
                progress = len(best.choices) < size
        finally:
            self.deadline = saved
        return best

    # ------------------------------------------------------------ traces
    def trace(self, run: Run) -> list:
        """The run replayed step by step, with what each action changed."""
        g = self.game
        state = g.new_initial_state(seed=run.seed, chance=run.chance)
        view = view_types(g)
        out = []
        for i, aid in enumerate(run.actions):
            before = list(state.S)
            player = state.current_player()
            action = next(a for a in state.legal_actions() if a.id == aid)
            # in the game's one notation (atoll.render: a card is `yellow 3`)
            text = state.chance_kind() + " " + label(g.codec, state.pending[3], action.params[0]) \
                if action.kind == "chance" and state.pending is not None else move_label(g, action)
            spec = g.action_by_name.get(action.kind)
            try:
                state.apply_action(action)
            except ModelError as e:   # the step that fails is the last one shown
                out.append({"step": i + 1, "player": player, "action": text, "id": aid,
                            "rule": action.kind, "cites": list(spec.cites) if spec else [],
                            "changes": {"(failed)": f"model error: {e}"}})
                return out
            changes = {}
            for j, name in enumerate(g.layout.names):
                if j and before[j] != state.S[j] and state.S[j] is not None:
                    changes[name] = change_text(g.codec, view[name], before[j], state.S[j])
            out.append({"step": i + 1, "player": player, "action": text, "id": aid,
                        "rule": action.kind, "cites": list(spec.cites) if spec else [],
                        "changes": changes,
                        "events": state.events(show=lambda t, v: label(g.codec, t, v))})
        if run.failed:
            out.append({"step": len(out) + 1, "player": state.current_player(), "action": run.failed,
                        "id": None, "rule": run.failed.split("(")[0], "cites": [],
                        "changes": {"(failed)": run.violation}})
        self.position = _describe(state)
        return out


def _label_of(state, i: int) -> str:
    """The label of move ``i`` of ``state`` (whose move failed: a failed
    move leaves the state as it was, so its legal actions are the same)."""
    return str(state.legal_actions()[i])


def _reads_mask(game, pr) -> Optional[int]:
    """The slots a property about one state reads (an invariant, a goal, a
    measure), as bits; None for any other kind, or when they cannot be told."""
    if pr.kind not in ("invariant", "reachable", "terminates"):
        return None
    return mask(slots_read(game, N.prop(pr.name)))


def _describe(st) -> str:
    """The position a trace ends in, as text (shown with every counterexample)."""
    try:
        return str(st)
    except Exception as e:   # a view that cannot be drawn must not hide the counterexample
        return f"(the position cannot be shown: {type(e).__name__}: {e})"


def move_id(state, moves, i: int) -> int:
    """The id of move ``i`` of ``moves`` (``state.legal_moves()``): the id of
    the action ``legal_actions()[i]``, without making the Action."""
    if moves.__class__ is Moves:
        g = state.game
        return g._action_id(g.actions[move_kind(moves, i)], moves[i])
    return moves[i].id


def change_text(codec, t, old, new) -> str:
    """What changed in one state variable, short enough to read in a trace,
    in the game's one notation (atoll.render.label)."""
    if old is None:
        return label(codec, t, new)
    kind = t[0] if isinstance(t, tuple) else t
    if kind == "player":
        return "; ".join(f"player {p}: {change_text(codec, t[1], o, n)}"
                         for p, (o, n) in enumerate(zip(old, new)) if o != n)
    if kind == "map":
        parts = [f"+{label(codec, t[1], k)}: {label(codec, t[2], v)}" for k, v in new.items()
                 if k not in old or old[k] != v]
        parts += [f"-{label(codec, t[1], k)}" for k in old if k not in new]
        return f"{len(new)} entries ({', '.join(parts)})"
    if kind in ("list", "bag", "set"):
        full = label(codec, t, new)
        if len(full) <= 100:
            return full
        gone, came = list(old), []
        for x in new:
            if x in gone:
                gone.remove(x)
            else:
                came.append(x)
        parts = [f"+{label(codec, t[1], x)}" for x in came] + [f"-{label(codec, t[1], x)}" for x in gone]
        return f"{len(new)} items ({', '.join(parts)})"
    return label(codec, t, new)


def pytest_snippet(spec_path: str, players: int, options: dict, run: Run, prop: str,
                   labels=None) -> str:
    """A regression test replaying ``run``; ``labels`` (one per action, as
    the trace writes them) are put beside the ids as comments."""
    chance = ', chance="explicit"' if run.chance == "explicit" else ""
    if labels and len(labels) >= len(run.actions):
        # a label is spec text: escaped, so it cannot end the comment's line
        ids = "[\n" + "".join(f"            {a!r},  # {_comment(t)}\n"
                              for a, t in zip(run.actions, labels)) + "        ]"
    else:
        ids = repr(run.actions)
    return (f"def test_{prop}_regression():\n"
            f"    import atoll\n"
            f"    game = atoll.load({spec_path!r}, players={players}, options={options!r})\n"
            f"    state = game.new_initial_state(seed={run.seed}{chance})\n"
            f"    for action_id in {ids}:\n"
            f"        state.apply_action(action_id)\n"
            f"    # here `{prop}` fails: {_comment(str(run.violation))}\n")


def _comment(text: str) -> str:
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
