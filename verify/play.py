"""Checks by play: invariants, deadlock freedom, termination measures and
reachability, over games driven by hypothesis.

Each example hypothesis draws is one game: a seed for chance and a list of
choices (the i-th decision takes legal action ``choice % len(legal)``); once
the list runs out a seeded policy continues, steered, for termination,
towards keeping the measure high (long games). When a game violates the
property, hypothesis shrinks it to a short sequence, which is replayed into
a readable trace: each step's action, the rule and its citation, what changed.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from hypothesis import HealthCheck, Phase, find, settings, target
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from atoll.compiler import names as N
from atoll.compiler.runtime import IllegalAction, ModelError
from atoll.grammar import ast as A
from atoll.verify import verdicts as V

GAME = st.tuples(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**16 - 1), max_size=400))


@dataclass
class Run:
    violation: Optional[str]
    actions: list          # action ids, in order
    steps: int
    seed: int
    outcome: str = "ok"    # ok, violation (or reached), error (the model or the property failed)
    chance: str = "auto"   # how the actions replay: "explicit" when they include chance outcomes
    failed: Optional[str] = None   # the action whose evaluation failed


class PlayCheck:
    def __init__(self, game, pr: A.PropertyDecl, max_steps: int = 2000):
        self.game = game
        self.pr = pr
        self.max_steps = max_steps
        self.fn = game.ns.get(N.prop(pr.name))
        self.longest = 0
        self.bound = None

    # ------------------------------------------------------------ one game
    def measure(self, state) -> int:
        return self.value(state)

    def value(self, state):
        try:
            return self.fn(state.S)
        except Exception as e:   # a property that cannot be evaluated here
            raise _PropertyError(f"the property cannot be evaluated in this state "
                                 f"({type(e).__name__}: {e})") from None

    def step_key(self, state):
        if self.pr.step == "action":
            return len(state.history)
        if self.pr.step == "round":
            return state.S[0]
        return (state.S[0], state.ctl[0], state.ctl[1], state.ctl[2])

    def check(self, state) -> Optional[str]:
        kind = self.pr.kind
        if kind == "invariant" and not self.value(state):
            return "the invariant is false in this state"
        if kind == "deadlock_free" and not state.is_terminal() and not state.legal_actions():
            return f"no legal action in phase `{state.phase()}` for player {state.current_player()}"
        if kind == "reachable" and self.value(state):
            return "reached"
        return None

    def play(self, seed: int, choices: list, stop_at: Optional[int] = None) -> Run:
        actions: list = []
        try:
            return self._play(seed, choices, stop_at, actions)
        except (ModelError, _PropertyError) as e:
            failed = None
            if isinstance(e, ModelError) and getattr(self, "_last", None) is not None:
                failed = self._last
            text = str(e) if isinstance(e, _PropertyError) else f"model error: {e}"
            return Run(text, list(actions), len(actions), seed, "error", failed=failed)

    def _play(self, seed: int, choices: list, stop_at: Optional[int], actions: list) -> Run:
        g = self.game
        self._last = None
        state = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        steps = 0
        kind = self.pr.kind
        last_key, last_measure = None, None
        problem = self.check(state)
        if kind == "terminates":
            last_key, last_measure = self.step_key(state), self.measure(state)
            if last_measure < 0:
                problem = f"the measure is negative ({last_measure}) at the start"
        while problem is None and not state.is_terminal():
            if stop_at is not None and steps >= stop_at:
                break
            if steps >= self.max_steps:
                problem = (f"the game did not end within {self.max_steps} actions"
                           if kind == "terminates" else None)
                break
            legal = state.legal_actions()
            if not legal:
                if kind == "deadlock_free":
                    problem = self.check(state)
                break
            if steps < len(choices):
                a = legal[choices[steps] % len(legal)]
            elif kind == "terminates" and rng.random() < 0.5:
                a = self.steer(state, legal, rng)
            else:
                # Past the drawn choices the first legal action is taken, so that
                # shrinking the list of choices shortens the game it describes.
                a = legal[0]
            self._last = str(a)
            state.apply_action(a)
            self._last = None
            actions.append(a.id)
            steps += 1
            if kind == "terminates":
                key = self.step_key(state)
                if key != last_key and not state.is_terminal():
                    m = self.measure(state)
                    if m < 0:
                        problem = f"the measure fell below zero ({m})"
                    elif m >= last_measure:
                        problem = (f"the measure did not decrease over {'an' if self.pr.step == 'action' else 'a'} {self.pr.step}: "
                                   f"{last_measure} then {m}")
                    last_key, last_measure = key, m
            else:
                problem = self.check(state)
        self.longest = max(self.longest, steps)
        return Run(problem, actions, steps, seed, "violation" if problem else "ok")

    def steer(self, state, legal, rng):
        """Prefer the action after which the measure stays highest."""
        best, best_m = [], None
        for a in legal:
            c = state.clone()
            self._last = str(a)
            c.apply_action(a)
            self._last = None
            m = self.measure(c) + (10**6 if not c.is_terminal() else 0)
            if best_m is None or m > best_m:
                best, best_m = [a], m
            elif m == best_m:
                best.append(a)
        return best[rng.randrange(len(best))]

    # ------------------------------------------------------------ the search
    def search(self, games: int, seed: int):
        found = {}

        wanted = ("violation",) if self.pr.kind == "reachable" else ("violation", "error")

        def bad(example):
            s, choices = example
            run = self.play(s, choices)
            target(float(run.steps), label="game length")
            if run.outcome == "error":
                found.setdefault("error", run)
            return run.outcome in wanted

        try:
            ex = find(GAME, bad, settings=settings(
                max_examples=games, database=None, deadline=None,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.generate, Phase.target, Phase.shrink]),
                random=random.Random(seed))
        except (NoSuchExample, Unsatisfiable):
            self.first_error = found.get("error")
            return None
        s, choices = ex
        return self.play(s, choices)

    def trace(self, run: Run) -> list:
        """The run replayed step by step, with what each action changed."""
        g = self.game
        state = g.new_initial_state(seed=run.seed, chance=run.chance)
        out = []
        for i, aid in enumerate(run.actions):
            before = list(state.S)
            player = state.current_player()
            action = next(a for a in state.legal_actions() if a.id == aid)
            spec = g.action_by_name.get(action.kind)
            try:
                state.apply_action(action)
            except ModelError as e:   # the step that fails is the last one shown
                out.append({"step": i + 1, "player": player, "action": str(action), "id": aid,
                            "rule": action.kind, "cites": list(spec.cites) if spec else [],
                            "changes": {"(failed)": f"model error: {e}"}})
                return out
            changes = {}
            for j, name in enumerate(g.layout.names):
                if j and before[j] != state.S[j] and state.S[j] is not None:
                    changes[name] = change_text(g.codec, g.slot_types[j], before[j], state.S[j])
            out.append({"step": i + 1, "player": player, "action": str(action), "id": aid,
                        "rule": action.kind, "cites": list(spec.cites) if spec else [],
                        "changes": changes})
        if run.failed:
            out.append({"step": len(out) + 1, "player": state.current_player(), "action": run.failed,
                        "id": None, "rule": run.failed.split("(")[0], "cites": [],
                        "changes": {"(failed)": run.violation}})
        return out


def change_text(codec, t, old, new) -> str:
    """What changed in one state variable, short enough to read in a trace."""
    if old is None:
        return codec.text(t, new)
    kind = t[0] if isinstance(t, tuple) else t
    if kind == "player":
        return "; ".join(f"player {p}: {change_text(codec, t[1], o, n)}"
                         for p, (o, n) in enumerate(zip(old, new)) if o != n)
    if kind == "map":
        parts = [f"+{codec.text(t[1], k)}: {codec.text(t[2], v)}" for k, v in new.items()
                 if k not in old or old[k] != v]
        parts += [f"-{codec.text(t[1], k)}" for k in old if k not in new]
        return f"{len(new)} entries ({', '.join(parts)})"
    if kind in ("list", "bag", "set"):
        full = codec.text(t, new)
        if len(full) <= 100:
            return full
        gone, came = list(old), []
        for x in new:
            if x in gone:
                gone.remove(x)
            else:
                came.append(x)
        parts = [f"+{codec.text(t[1], x)}" for x in came] + [f"-{codec.text(t[1], x)}" for x in gone]
        return f"{len(new)} items ({', '.join(parts)})"
    return codec.text(t, new)


def pytest_snippet(spec_path: str, players: int, options: dict, run: Run, prop: str) -> str:
    chance = ', chance="explicit"' if run.chance == "explicit" else ""
    return (f"def test_{prop}_regression():\n"
            f"    import atoll\n"
            f"    game = atoll.load({spec_path!r}, players={players}, options={options!r})\n"
            f"    state = game.new_initial_state(seed={run.seed}{chance})\n"
            f"    for action_id in {run.actions!r}:\n"
            f"        state.apply_action(action_id)\n"
            f"    # here `{prop}` fails: {run.violation}\n")


class _PropertyError(Exception):
    pass


def check_by_play(game, pr: A.PropertyDecl, games: int, seed: int, spec_path: str,
                  max_states: int = 3000):
    chk = PlayCheck(game, pr)
    chk.first_error = None
    found = _exhaustive(chk, game, pr, spec_path, max_states)
    if found[0] is not None:
        return found
    depth_note, depth = found[1], found[2]
    if games <= 0:   # bounded search only
        if pr.kind == "reachable":
            return V.UNKNOWN, {"method": "exhaustive search", "reason": f"not reached; {depth_note}"}, None
        if pr.kind == "terminates":
            return V.UNKNOWN, {"method": "exhaustive search", "reason": "a bounded search cannot "
                               f"show that every play ends ({depth_note})"}, None
        return V.holds_up_to(depth), {"method": "exhaustive search", "exhaustive": depth_note}, None
    verdict, detail, cex = _by_play(chk, game, pr, games, seed, spec_path)
    if depth_note:
        detail["exhaustive"] = depth_note
    return verdict, detail, cex


def _exhaustive(chk, game, pr, spec_path, max_states):
    """Breadth-first search of every play (chance included) within a budget."""
    from atoll.verify.explore import explore

    def state_check(st):
        try:
            if pr.kind == "terminates":
                m = chk.measure(st)
                return f"the measure is negative ({m})" if m < 0 and not st.is_terminal() else None
            return chk.check(st)
        except _PropertyError as e:
            return str(e)

    def edge_check(parent, child):   # a measure per action must fall on every move
        if pr.kind != "terminates" or pr.step != "action" or child.is_terminal() \
                or parent.is_chance_node():
            return None
        try:
            a, b = chk.measure(parent), chk.measure(child)
        except _PropertyError as e:
            return str(e)
        return None if b < a else f"the measure did not decrease over an action: {a} then {b}"

    ex = explore(game, state_check, max_states, edge_check)
    base = {"method": "exhaustive search", "states": ex.states,
            "search": "breadth first over every action and chance outcome"}
    if ex.outcome == "violated" or (ex.outcome == "exhausted" and pr.kind == "terminates"
                                    and not ex.acyclic):
        run = Run(ex.problem, ex.path, len(ex.path), 0, "violation", chance="explicit")
        shortest = ex.outcome == "violated"   # a cycle is found depth first: not the shortest
        if pr.kind == "reachable":
            return V.WITNESS_FOUND, {**base, "trace": chk.trace(run), "seed": 0,
                                     "shortest": shortest}, None
        return V.VIOLATED, {**base, "shortest": shortest}, {
            "seed": 0, "chance": "explicit", "problem": ex.problem, "steps": chk.trace(run),
            "pytest": pytest_snippet(spec_path, game.num_players, game.options, run, pr.name)}
    if ex.outcome == "exhausted":
        if pr.kind == "reachable":
            return V.NO_WITNESS, {**base, "reason": f"no reachable state satisfies it "
                                                    f"(all {ex.states} states searched)"}, None
        what = "and no cycle" if pr.kind == "terminates" else "and it holds in each"
        return V.PROVED, {**base, "reason": f"all {ex.states} reachable states searched {what}"}, None
    return None, f"every play of at most {ex.depth - 1} steps (chance included) checked", ex.depth - 1


def _by_play(chk, game, pr, games, seed, spec_path):
    if pr.kind == "terminates":
        start = game.new_initial_state(seed=seed)
        chk.bound = chk.measure(start)
    run = chk.search(games, seed)
    detail = {"games": games, "seed": seed, "longest_game": chk.longest}
    if pr.kind == "terminates" and chk.bound is not None:
        detail["bound"] = (f"the measure starts at {chk.bound}: at most {chk.bound + 1} "
                           f"{pr.step}s if it always decreases")
    if pr.kind == "reachable":
        if run is None:
            err = chk.first_error
            if err is not None:
                return V.UNKNOWN, {**detail, "reason": f"not reached in {games} games; play failed: "
                                                       f"{err.violation}"}, {
                    "seed": err.seed, "problem": err.violation, "steps": chk.trace(err),
                    "pytest": pytest_snippet(spec_path, game.num_players, game.options, err, pr.name)}
            return V.UNKNOWN, {**detail, "reason": f"not reached in {games} games"}, None
        return V.WITNESS_FOUND, {**detail, "trace": chk.trace(run), "seed": run.seed}, None
    if run is None:
        return V.no_violation_in(games), detail, None
    cex = {"seed": run.seed, "problem": run.violation, "steps": chk.trace(run),
           "pytest": pytest_snippet(spec_path, game.num_players, game.options, run, pr.name)}
    return V.VIOLATED, detail, cex
