"""Exact probabilities and expectations: `probability(...)` and `expectation(...)`.

Two forms, both computed exactly with fractions, never sampled:

* **Over chance outcomes**: ``probability(E for r in D if C) == n/d``. Each
  ``for`` is a draw: every item of its collection equally likely (an item
  that appears k times is k times as likely, as with `roll` and `draw`); a
  later draw may depend on the earlier ones; a filter keeps the draws that
  satisfy it, so the result is the probability of E *given* the filters. The
  draws are enumerated (equal values grouped, so four dice are 126
  outcomes, not 1,296), at most ``MAX_OUTCOMES`` of them.
* **Over play**: ``probability(E by a(), b() * 2) == n/d``. From the start of
  the game (setup chance included), the player to move plays the actions
  named, in order; every chance outcome on the way is followed with its
  exact probability. A line of play stops when the actions are all played,
  when the game ends, when another player is to move, or when the next
  action named is not legal; E is read in the position where it stopped,
  with ``me`` the player who played. Positions that coincide are merged; at
  most ``MAX_POSITIONS`` are expanded.

The verdict compares the exact value with the stated one: PROVED or
VIOLATED (showing the computed value), or UNKNOWN when the computation
cannot finish (a limit, the time, a rule or the event that cannot be
evaluated); a cut computation never gives a verdict either way.
"""
from __future__ import annotations

import operator
import time
from collections import Counter
from fractions import Fraction

from atoll.compiler import names as N
from atoll.compiler.runtime import IllegalAction, ModelError
from atoll.grammar import ast as A
from atoll.verify import verdicts as V

MAX_OUTCOMES = 1_000_000    # combinations of draws evaluated
MAX_POSITIONS = 200_000     # positions expanded along the actions named

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


class _Cut(Exception):
    """The computation stopped before its end: no verdict."""


def show(q: Fraction) -> str:
    """``13/162 (0.0802)``: exact, then as a decimal."""
    if q.denominator == 1:
        return str(q.numerator)
    return f"{q.numerator}/{q.denominator} (≈ {float(q):.6g})"


def check_chance(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """(method, verdict, detail, counterexample) of a probability or expectation."""
    stated = Fraction(pr.value.num, pr.value.den)
    deadline = time.perf_counter() + timeout_ms / 1000
    method = "exact enumeration"
    try:
        if pr.fors:
            value, detail = _over_outcomes(prog, game, pr, deadline)
        else:
            value, detail = _over_play(prog, game, pr, deadline)
            method = "exact enumeration of play"
    except _Cut as e:
        return method, V.UNKNOWN, {"reason": str(e)}, None
    what = "probability" if pr.kind == "probability" else "expected value"
    detail = {**detail, what: show(value)}
    if _OPS[pr.compare](value, stated):
        return method, V.PROVED, detail, None
    cex = {"computed": show(value), "stated": f"{pr.compare} {show(stated)}",
           "why": f"the {what} is {show(value)}, so `{pr.compare} {pr.value.num}"
                  f"{'' if pr.value.den == 1 else '/' + str(pr.value.den)}` is false"}
    return method, V.VIOLATED, detail, cex


# ---------------------------------------------------------------- over draws

def _lam(prog, game, names, e):
    from atoll.compiler.lower import Lowerer
    params = ", ".join(names)
    ns = dict(game.ns)
    ns.update(S=None, me=None)
    return eval(compile(f"lambda {params}: {Lowerer(prog).ex(e)}", "<atoll probability>", "eval"), ns)


def _targets(f: A.CompFor) -> list:
    return [N.local(n) for n in f.names] if f.names else [N.local(f.var)]


def _over_outcomes(prog, game, pr, deadline):
    from atoll.compiler.consts import Budget
    stages, bound = [], []
    for f in pr.fors:
        dom = _lam(prog, game, bound, f.iter)
        tuple_target = bool(f.names)
        bound = bound + _targets(f)
        stages.append((dom, tuple_target, [_lam(prog, game, bound, c) for c in f.conds]))
    body = _lam(prog, game, bound, pr.body)
    want_bool = pr.kind == "probability"
    acc = {"mass": Fraction(0), "sum": Fraction(0), "outcomes": 0}

    def walk(i: int, env: list, weight: Fraction) -> None:
        if i == len(stages):
            acc["outcomes"] += 1
            if acc["outcomes"] > MAX_OUTCOMES:
                raise _Cut(f"more than {MAX_OUTCOMES:,} combinations of draws: too many to enumerate")
            if acc["outcomes"] % 4096 == 0 and time.perf_counter() > deadline:
                raise _Cut("the time limit was reached before every outcome was weighed")
            v = body(*env)
            acc["mass"] += weight
            acc["sum"] += (weight if v else 0) if want_bool else weight * v
            return
        dom_fn, tuple_target, conds = stages[i]
        items = list(dom_fn(*env))
        if not items:
            raise _Cut(f"`{_name(pr.fors[i])}` is drawn from an empty collection: that draw cannot happen")
        groups = Counter(items)
        total = len(items)
        for item in sorted(groups, key=repr):
            here = env + (list(item) if tuple_target else [item])
            if all(c(*here) for c in conds):
                walk(i + 1, here, weight * Fraction(groups[item], total))

    try:
        with Budget(steps=50_000_000):
            walk(0, [], Fraction(1))
    except _Cut:
        raise
    except Exception as e:   # a partial operation, the evaluation budget
        raise _Cut(f"the draws or the event cannot be evaluated ({type(e).__name__}: {e})") from None
    if acc["mass"] == 0:
        raise _Cut("no combination of draws satisfies the filters: the probability is not defined")
    detail = {"outcomes": acc["outcomes"], "draws": len(stages)}
    if acc["mass"] != 1:
        detail["given"] = f"the filters keep {show(acc['mass'])} of the draws"
    return acc["sum"] / acc["mass"], detail


def _name(f: A.CompFor) -> str:
    return f.var or "(" + ", ".join(f.names) + ")"


# ---------------------------------------------------------------- over play

def _steps(prog, game, pr) -> list:
    out = []
    for st in pr.script:
        values = tuple(_lam(prog, game, [], a)() for a in st.args)
        out.extend([(st.name, values)] * st.times)
    return out


def _label(step) -> str:
    name, values = step
    return f"{name}({', '.join(map(str, values))})"


def _over_play(prog, game, pr, deadline):
    from atoll.verify.explore import state_key
    steps = _steps(prog, game, pr)
    fn = game.ns[N.prop(pr.name)]
    want_bool = pr.kind == "probability"
    level = {}
    start = game.new_initial_state(seed=0, chance="explicit")
    level[(state_key(game, start), 0, None)] = [start, Fraction(1), 0, None]
    stops: Counter = Counter()
    total = Fraction(0)
    expanded = chance_nodes = 0
    ended = Counter()
    while level:
        nxt: dict = {}

        def add(st, p, i, me):
            k = (state_key(game, st), i, me)
            if k in nxt:
                nxt[k][1] += p
            else:
                nxt[k] = [st, p, i, me]

        for st, p, i, me in level.values():
            expanded += 1
            if expanded > MAX_POSITIONS:
                raise _Cut(f"more than {MAX_POSITIONS:,} positions along the actions named: too many to "
                           "enumerate (a setup that shuffles a deck branches into every order)")
            if expanded % 256 == 0 and time.perf_counter() > deadline:
                raise _Cut("the time limit was reached before every line of play was weighed")
            why = None
            try:
                if st.is_terminal():
                    why = "the game ended"
                    ended[st.ending()] += 1
                elif st.is_chance_node():
                    chance_nodes += 1
                    for a, q in st.chance_fractions():
                        c = st.clone()
                        c.apply_action(a)
                        add(c, p * q, i, me)
                    continue
                elif st.choosing is not None:   # a player's choice inside an effect: not chance
                    raise _Cut(f"play reached a choice inside an effect (player {st.choosing[0]} chooses "
                               f"`{st.choosing[3]}`), and a probability weighs chance only: it cannot "
                               "say what the player chooses")
                else:
                    who = st.current_player()
                    me = who if me is None else me
                    if i == len(steps):
                        why = "the actions named were all played"
                    elif who != me:
                        why = "another player was to move"
                    else:
                        name, values = steps[i]
                        act = next((a for a in st.legal_actions()
                                    if a.kind == name and tuple(a.params) == values), None)
                        if act is None:
                            why = f"`{_label(steps[i])}` was not legal"
                        else:
                            c = st.clone()
                            c.apply_action(act)
                            add(c, p, i + 1, me)
                            continue
            except (ModelError, IllegalAction) as e:
                raise _Cut(f"the rules failed along the actions named: {e}") from None
            try:
                v = fn(st.S, me)
            except Exception as e:
                raise _Cut(f"the property cannot be evaluated where play stopped ({why}; "
                           f"{type(e).__name__}: {e}):\n{st}") from None
            stops[why] += p
            total += (p if v else 0) if want_bool else p * v
        level = nxt
    detail = {"positions": expanded, "chance events": chance_nodes, "actions": len(steps),
              "stopped": {why: show(q) for why, q in sorted(stops.items())}}
    return total, detail
