"""The worked examples of a spec, played on the model.

An ``example`` declaration sets the game up (``with 4 players, seed 3,
option = value``), gives a position over the state after setup (``given
player 0 in play { ... }``; without it, the game starts from its setup with
that seed), plays actions (``play build(...)``) and states what must then be
true (``expect ...``). Each step runs on the game as ``atoll.load`` builds
it: the position through ``Game.state_from`` (every value checked as a
saved game's), each action found among the legal actions of the state and
applied as play applies it, each expression evaluated by the code the
rules run. The example PASSES when every step does as written; it FAILS at
the first step that does not, and the failure says which step (its number
and line), what was expected and what the model did.

An action expected to be illegal names the rule that refuses it: the first
rule of the action, in the order the action states them (the choices of its
parameters, then its `when`s, then its `ensures`), that the action breaks,
as the model's refusal names it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

from atoll.compiler import pipeline
from atoll.compiler.check_examples import option_value, refusal_index
from atoll.compiler.runtime import Action, _DryRun
from atoll.compiler.values import sort_values
from atoll.diagnostics import SpecError
from atoll.grammar import ast as A
from atoll.verify import verdicts as V

_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "in", "notin")


@dataclass
class Step:
    """One step of an example as it was run."""
    number: int
    line: int
    text: str                  # the step's source (its first line)
    kind: str                  # given, play or expect
    player: Optional[int] = None
    action: str = ""           # the action played, in the game's notation
    action_name: str = ""
    move: object = None        # the Action played (for the docs)
    node: object = None        # the example's step (an ExAction, ExGiven or ExExpect)
    value: object = None       # what an expectation's value came to (the winners, scores, player)


@dataclass
class ExampleRun:
    name: str
    players: int
    options: dict
    seed: int
    game: object = None
    start: object = None       # the position before the first action
    end: object = None         # the state after the last step run
    steps: list = field(default_factory=list)
    total: int = 0             # the steps the example has
    failure: Optional[dict] = None

    @property
    def ok(self) -> bool:
        return self.failure is None


class _Fail(Exception):
    def __init__(self, expected: str, actual: str):
        super().__init__(f"expected {expected}; {actual}")
        self.expected, self.actual = expected, actual


def settings(prog, ex: A.ExampleDecl) -> tuple[int, dict, int]:
    """(players, options, seed) of an example: the fewest players, the
    default options and seed 0 unless it says otherwise."""
    players, options, seed = prog.player_range[0], {}, 0
    for s in ex.settings:
        if s.kind == "players":
            players = s.value
        elif s.kind == "seed":
            seed = s.value
        else:
            options[s.word] = option_value(s.value, prog.members)
    return players, options, seed


def applies(prog, ex: A.ExampleDecl) -> bool:
    """Whether the game can be played as the example says: a variant
    inherits its base game's examples, and leaves out those for a player
    count it does not have (in the spec that declares it, such an example is
    an error, A0601)."""
    lo, hi = prog.player_range
    return lo <= settings(prog, ex)[0] <= hi


def _steps(ex: A.ExampleDecl) -> list:
    """The steps, one per action played: (kind, node)."""
    out = []
    for s in ex.steps:
        if isinstance(s, A.ExPlay):
            out += [("play", a) for a in s.actions]
        else:
            out.append(("given" if isinstance(s, A.ExGiven) else "expect", s))
    return out


def _exprs(ex: A.ExampleDecl) -> list:
    """Every expression of the example that is evaluated."""
    out = []

    def action(a):
        out.extend(a.args)
        out.extend(n.value for n in a.named)
        if a.by is not None:
            out.append(a.by)
    for s in ex.steps:
        if isinstance(s, A.ExGiven):
            if s.player is not None:
                out.append(s.player)
            for v in s.values:
                out.extend(v.indices)
                out.append(v.value)
        elif isinstance(s, A.ExPlay):
            for a in s.actions:
                action(a)
        else:
            if s.value is not None:
                out.append(s.value)
                if s.kind == "true" and isinstance(s.value, A.BinOp) and s.value.op in _COMPARISONS:
                    out += [s.value.left, s.value.right]
            if s.action is not None:
                action(s.action)
    return out


class _Evaluator:
    """Evaluates the example's expressions with the code the rules run
    (lowered as the rules are; state variables read from the given state)."""

    def __init__(self, prog, game, exprs):
        from atoll.compiler.lower import Lowerer
        lw = Lowerer(prog)
        lw.current_phase = None
        self.code = {id(e): compile(lw.ex(e), "<example>", "eval") for e in exprs}
        self.scope = dict(game.ns)
        if lw.helpers:
            exec(pipeline._compile("\n".join(lw.helpers) + "\n", prog), self.scope)
        self.prog, self.game = prog, game

    def __call__(self, e, S):
        self.scope["S"] = S
        try:
            return eval(self.code[id(e)], self.scope)
        except RecursionError:
            raise _Fail(f"`{self.src(e)}` to have a value", "it recurses without end") from None
        except Exception as err:
            raise _Fail(f"`{self.src(e)}` to have a value",
                        f"evaluating it failed: {pipeline._describe(err)}") from None

    def src(self, node) -> str:
        return source(self.prog, node.span)

    def text(self, e, v) -> str:
        """A value in the game's notation (as labels and the terminal show it)."""
        t = self.prog.types.get(id(e), "?")
        try:
            return self.game.codec.text(t, v)
        except Exception:
            return _plain(v)


def source(prog, span, limit: int = 160) -> str:
    """The text of a node on one line (a value written over several lines
    joined), cut at ``limit`` characters."""
    lines = prog.sources.get(span.file, "").splitlines()
    if not 1 <= span.line <= len(lines):
        return "?"
    if span.line == span.end_line:
        text = lines[span.line - 1][span.column - 1:span.end_column - 1]
    else:
        parts = [lines[span.line - 1][span.column - 1:]] + lines[span.line:span.end_line - 1]
        parts.append(lines[span.end_line - 1][:span.end_column - 1])
        text = " ".join(" ".join(parts).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _plain(v) -> str:
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_plain(x) for x in v) + "]"
    if isinstance(v, frozenset):
        return "{" + ", ".join(_plain(x) for x in sort_values(v)) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_plain(k)}: {_plain(v[k])}" for k in sort_values(v)) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    return str(v)


# ---------------------------------------------------------------- one example

def run_example(comp, ex: A.ExampleDecl, games: Optional[dict] = None) -> ExampleRun:
    """Play an example; the run says where it failed, if it did. ``games``:
    the games already built, by (players, options), to share between examples."""
    prog = comp.program
    players, options, seed = settings(prog, ex)
    run = ExampleRun(ex.name, players, options, seed)
    steps = _steps(ex)
    run.total = len(steps)
    key = (players, tuple(sorted(options.items(), key=repr)))
    try:
        game = games[key] if games is not None and key in games else \
            pipeline.instantiate(comp, players, options)
        if games is not None:
            games[key] = game
    except SpecError as e:
        run.failure = {"step": 0, "line": ex.span.line, "text": f"example {ex.name}",
                       "expected": f"a game of {players} players with options {options or 'the defaults'}",
                       "actual": "it cannot be set up: " + "; ".join(d.message for d in e.diagnostics)}
        return run
    run.game = game
    ev = _Evaluator(prog, game, _exprs(ex))
    state = None
    for number, (kind, node) in enumerate(steps, 1):
        text = ev.src(node) if kind != "given" else "given " + (
            f"player {ev.src(node.player)} " if node.player is not None else "") + (
            f"in {node.phase} " if node.phase else "") + "{ ... }"
        step = Step(number, node.span.line, f"play {text}" if kind == "play" else text, kind, node=node)
        run.steps.append(step)
        try:
            if kind == "given":
                state = _position(game, ev, node, seed)
            else:
                if state is None:
                    state = game.new_initial_state(seed=seed)
                if run.start is None:
                    run.start = state.clone()
                if kind == "play":
                    _play(game, ev, state, node, step, prog)
                else:
                    if _waiting(state):   # the effect is not done: nothing of it has happened yet
                        raise _Fail(text, _waiting(state))
                    _expect(game, ev, state, node, prog, step)
        except _Fail as f:
            run.failure = {"step": number, "line": step.line, "text": step.text,
                           "expected": f.expected, "actual": f.actual}
            break
    if run.failure is None and _waiting(state):
        run.failure = {"step": len(steps), "line": ex.span.line, "text": f"example {ex.name}",
                       "expected": "every effect played to its end", "actual": _waiting(state)}
    if state is None and run.failure is None:
        state = game.new_initial_state(seed=seed)
    if run.start is None and state is not None:
        run.start = state.clone()
    run.end = state
    return run


def _position(game, ev, g: A.ExGiven, seed: int):
    layout = game.layout
    base = game.new_initial_state(seed=seed)
    S = list(base.S)
    given = {}
    for v in g.values:
        slot = layout.slots[("phase", v.phase, v.name) if v.phase else ("state", v.name)]
        keys = [ev(i, S) for i in v.indices]
        value = ev(v.value, S)
        if keys:
            try:
                value = pipeline._set_in(S[slot], keys, value)
            except Exception as e:
                raise _Fail(f"`{ev.src(v)}` to set a value of the position",
                            f"it cannot: {pipeline._describe(e)}") from None
        elif isinstance(game.slot_types[slot], tuple) and game.slot_types[slot][0] == "player":
            value = tuple(value)
        S[slot] = value
        try:
            given[layout.names[slot]] = game.codec.to_json(game.slot_types[slot], value)
        except Exception as e:
            raise _Fail(f"`{ev.src(v)}` to be a value of `{layout.names[slot]}`",
                        f"it is not: {pipeline._describe(e)}") from None
    player = None if g.player is None else ev(g.player, S)
    try:
        return game.state_from(given, seed=seed, player=player, phase=g.phase)
    except ValueError as e:   # BadPosition
        raise _Fail("a position the game can be in", f"it cannot: {e}") from None


def _params(game, ev, a: A.ExAction, S) -> tuple:
    spec = game.action_by_name[a.name]
    given = dict(zip([n for n, _ in spec.params], [ev(e, S) for e in a.args]))
    given.update({n.name: ev(n.value, S) for n in a.named})
    return tuple(given[n] for n, _ in spec.params)


def _label(game, kind: str, params: tuple) -> str:
    try:
        return game._label(kind, params)
    except Exception:
        return f"{kind}({', '.join(_plain(p) for p in params)})"


def _over(state) -> str:
    return f"the game is over (ending `{state.ending()}`)"


def _waiting(state) -> Optional[str]:
    """Why the next step cannot come yet: an effect waits for a choice."""
    if state is None or state.choosing is None:
        return None
    return (f"the effect waits for player {state.choosing[0]} to choose `{state.choosing[3]}`: "
            f"give it with `choose {state.choosing[3]} = VALUE` after the action")


def _choose(game, ev, state, a: A.ExAction, step: Step) -> None:
    value = ev(a.args[0], state.S)
    label = f"choose {a.name} = {_plain(value)}"
    step.action, step.action_name = label, a.name
    want = f"`{label}`" + ("" if a.by is None else f" by player {ev(a.by, state.S)}")
    if state.choosing is None:
        raise _Fail(want, "no choice is awaited now" + (f" (player {state.current_player()} is to act, in "
                                                        f"phase `{state.phase()}`)" if not state.is_terminal()
                                                        else ""))
    who, name = state.choosing[0], state.choosing[3]
    if name != a.name:
        raise _Fail(want, f"player {who} is choosing `{name}`, not `{a.name}`")
    if a.by is not None and ev(a.by, state.S) != who:
        raise _Fail(want, f"player {who} chooses `{name}`, not player {ev(a.by, state.S)}")
    legal = [x for x in state.legal_actions() if x.params == (value,)]
    if not legal:
        raise _Fail(want, f"{_plain(value)} is not among the choices "
                          f"{_plain([x.params[0] for x in state.legal_actions()])}")
    step.player, step.move = legal[0].player, legal[0]
    try:
        state.apply_action(legal[0])
    except Exception as e:
        raise _Fail(f"`{label}` to be made", f"making it failed: {e}") from None


def _play(game, ev, state, a: A.ExAction, step: Step, prog) -> None:
    if a.choice:
        return _choose(game, ev, state, a, step)
    if _waiting(state):
        raise _Fail(f"`{ev.src(a)}` to be played", _waiting(state))
    params = _params(game, ev, a, state.S)
    label = _label(game, a.name, params)
    step.action, step.action_name = label, a.name
    want = f"`{label}` to be legal" if a.by is None else None
    if a.by is not None:
        who = ev(a.by, state.S)
        want = f"`{label}` to be legal for player {who}"
    if state.is_terminal():
        raise _Fail(want, _over(state))
    legal = [x for x in state.legal_actions() if x.kind == a.name and x.params == params
             and (a.by is None or x.player == who)]
    if not legal and a.by is not None and who not in {x.player for x in state.legal_actions()}:
        raise _Fail(want, f"player {who} does not decide now (player {state.current_player()} is to act, "
                          f"in phase `{state.phase()}`)")
    if not legal:
        raise _Fail(want, "it is refused: " + _refused_text(game, state, a.name, params))
    step.player, step.move = legal[0].player, legal[0]
    try:
        state.apply_action(legal[0])
    except Exception as e:   # an error of the rules (a ModelError) surfaced by this action
        raise _Fail(f"`{label}` to be played", f"playing it failed: {e}") from None


def _refusal(game, state, kind: str, params: tuple):
    """Why the model refuses an action: ("phase", None), ("choice", i),
    ("when", i), ("ensures", i), or None when it is legal."""
    spec = game.action_by_name[kind]
    if spec.phase != state.phase():
        return ("phase", None)
    me = state.current_player()
    _, why, eff, ens = game._fn[spec.index]
    k = why(state.S, me, *params)
    if k >= 0:
        return ("choice", k) if k < len(spec.params) else ("when", k - len(spec.params))
    S2 = list(state.S)
    eff(S2, me, _DryRun(), *params)
    j = ens(S2, me, *params)
    return ("ensures", j) if j >= 0 else None


def _refused_text(game, state, kind: str, params: tuple) -> str:
    try:
        return game._explain(state, Action(kind, params, None, state.current_player(), None, game))
    except Exception as e:   # pragma: no cover - the explanation itself failed
        return f"(no explanation: {pipeline._describe(e)})"


def _rule_text(spec, why) -> str:
    kind, i = why
    if kind == "phase":
        return f"the phase (it is an action of phase `{spec.phase}`)"
    if kind == "choice":
        return f"the choices of `{spec.params[i][0]}` (`{spec.clauses[i][0]}`)"
    if kind == "when":
        return f"`when {spec.clauses[len(spec.params) + i][0]}`"
    return f"`ensures {spec.ensures[i][0]}`"


def _expect(game, ev, state, e: A.ExExpect, prog, step: Optional[Step] = None) -> None:
    S = state.S
    step = step or Step(0, 0, "", "expect")
    if e.kind in ("win", "score", "player"):
        step.value = ev(e.value, S)
    if e.kind == "true":
        if ev(e.value, S) is True:
            return
        raise _Fail(f"`{ev.src(e.value)}`", _why_false(ev, e.value, S))
    if e.kind in ("legal", "illegal"):
        return _expect_legality(game, ev, state, e, prog, step)
    if e.kind == "player":
        who = ev(e.value, S)
        want = f"player {who} to act" + (f" in phase `{e.name}`" if e.name else "")
        if state.is_terminal():
            raise _Fail(want, _over(state))
        now, phase = state.current_player(), state.phase()
        if now != who or (e.name and phase != e.name):
            raise _Fail(want, f"player {now} is to act, in phase `{phase}`")
        return
    if e.kind == "score":
        want = [int(x) for x in ev(e.value, S)]
        got = state.scores()
        if got != want:
            raise _Fail(f"the scores {_plain(want)}", f"they are {_plain(got)}")
        return
    # win, tie, ending: the game is over
    want = {"win": lambda: f"the game over, won by {_plain(sorted(ev(e.value, S)))}",
            "tie": lambda: "the game over with nobody winning",
            "ending": lambda: f"the game over by ending `{e.name}`"}[e.kind]()
    if not state.is_terminal():
        raise _Fail(want, f"the game is not over (player {state.current_player()} is to act, in phase "
                          f"`{state.phase()}`)")
    ending, winners = state.ending(), sorted(state.winners())
    got = f"it ended by `{ending}`, " + (f"won by {_plain(winners)}" if winners else "nobody winning")
    if (e.kind == "win" and winners != sorted(ev(e.value, S))) or (e.kind == "tie" and winners) \
            or (e.kind == "ending" and ending != e.name):
        raise _Fail(want, got)


def _expect_legality(game, ev, state, e: A.ExExpect, prog, step: Step) -> None:
    a = e.action
    params = _params(game, ev, a, state.S)
    label = _label(game, a.name, params)
    who = None if a.by is None else ev(a.by, state.S)
    step.action, step.action_name = label, a.name
    step.move = Action(a.name, params, None, state.current_player() if who is None else who, None, game)
    if state.is_terminal():
        raise _Fail(f"`{label}` to be {e.kind}" if e.kind == "legal" else
                    f"`{label}` to be refused", _over(state))
    legal = any(x.kind == a.name and x.params == params and (who is None or x.player == who)
                for x in state.legal_actions())
    if not legal and who is not None and who not in {x.player for x in state.legal_actions()}:
        raise _Fail(f"`{label}` to be {e.kind} for player {who}",
                    f"player {who} does not decide now (player {state.current_player()} is to act)")
    if e.kind == "legal":
        if not legal:
            raise _Fail(f"`{label}` to be legal", "it is refused: " + _refused_text(game, state, a.name, params))
        return
    spec = game.action_by_name[a.name]
    decl = prog.actions[a.name][1]
    r = e.refusal
    named = ("phase", None) if r.kind == "phase" else (r.kind, refusal_index(decl, r))
    want = f"`{label}` to be refused by {_rule_text(spec, named)}"
    if legal:
        raise _Fail(want, "it is legal")
    try:
        why = _refusal(game, state, a.name, params)
    except Exception as err:
        raise _Fail(want, f"testing its rules failed: {pipeline._describe(err)}") from None
    if why is None:   # legal by its rules, yet not listed (another player's decision)
        raise _Fail(want, "its rules allow it, but it is not among the legal actions "
                          f"(player {state.current_player()} is to act)")
    if why != named:
        raise _Fail(want, f"it is refused by {_rule_text(spec, why)}")


def _why_false(ev, e, S) -> str:
    """What the model found, for an expectation that is false: the value of
    each side of a comparison that is not written out."""
    if isinstance(e, A.BinOp) and e.op in _COMPARISONS:
        parts = [f"`{ev.src(side)}` is {ev.text(side, ev(side, S))}" for side in (e.left, e.right)
                 if not _written_out(side)]
        if parts:
            return "it is false: " + ", ".join(parts)
    return "it is false"


def _written_out(e) -> bool:
    """A literal, whose value the expectation shows already."""
    if isinstance(e, (A.IntLit, A.BoolLit, A.StrLit)):
        return True
    if isinstance(e, A.Neg):
        return _written_out(e.operand)
    if isinstance(e, (A.ListLit, A.SetLit, A.TupleLit)):
        return all(_written_out(x) for x in e.items)
    if isinstance(e, A.MapLit):
        return all(_written_out(x) for x in e.keys + e.values)
    return False


# ---------------------------------------------------------------- verdicts

def result_of(run: ExampleRun, ex: A.ExampleDecl, seconds: float, axes=()) -> V.Result:
    if run.ok:
        verdict = V.PASSED
        detail = {"steps": run.total}
    else:
        f = run.failure
        verdict = V.FAILED
        where = f"step {f['step']} of {run.total}, line {f['line']}" if f["step"] else f"line {f['line']}"
        detail = {"steps": run.total, "failed step": f,
                  "reason": f"{where}: expected {f['expected']}; {f['actual']}"}
    opts = ", ".join(f"{k}={v}" for k, v in run.options.items())
    detail["evidence"] = {"example": f"the example's {run.total} step{'s' * (run.total != 1)} played on the "
                                     f"model ({run.players} players, seed {run.seed}"
                                     + (f", {opts}" if opts else "") + ")"}
    options = dict(run.game.options) if run.game is not None else dict(run.options)
    return V.Result(ex.name, "example", "example", run.players, options, verdict, "passes", seconds,
                    detail, None, ex.notes.cites, tuple(axes), None, ex.notes.summary)


def run_examples(comp, only=None) -> list[V.Result]:
    """Every example of a compiled spec (or those named in ``only``), each with its verdict."""
    out, games = [], {}
    for ex in comp.program.examples.values():
        if (only and ex.name not in only) or not applies(comp.program, ex):
            continue
        t0 = time.perf_counter()
        run = run_example(comp, ex, games)
        out.append(result_of(run, ex, time.perf_counter() - t0, tuple(run.options)))
    return out
