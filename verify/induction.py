"""Invariants proved by induction, with z3 over the state abstraction.

An invariant ``I`` holds in every reachable state if

* **base**: it holds once setup is done, whatever setup draws; and
* **step**: every step of the game (each action, with its parameters from
  their domains and its `when` guards; each phase's entry, phase variables
  reset and `on enter`; each `auto` block), applied to *any* state of the
  declared types in which ``I`` holds (and in which the game goes on, where
  the engine has just checked its endings), gives a state where ``I`` holds.

Both are asked of z3 over ``verify.abstraction``: a collection is known there
by its size only, unless setup built it from constants, and every abstract
step allows at least every concrete one. So "unsat" for every step is an
argument for every reachable state (sound), while a step that z3 can satisfy
is only a *counterexample to induction*: a state of the right types where
the step breaks ``I``, which may be unreachable. The verdict then comes from
search and play, and says both.

``assuming A, B`` strengthens the step: the invariants named (and those they
assume, transitively) are assumed too, and each of them must pass its own
base and step under the same assumptions; then their conjunction is
inductive and each of them holds (the verdict names them).

The flow's own changes between steps (the round counter, the keeper of whose
turn it is in a `turns round ... from v` stage) have no step here: an
invariant that reads them gets no argument.
"""
from __future__ import annotations

import weakref

import z3

from atoll.compiler.frame import Frame
from atoll.grammar import ast as A
from atoll.verify.abstraction import Abstraction, Size, size_of
from atoll.verify.termination import _choice, _label, _steps, endings_checked_before, flow_written
from atoll.verify.z3sem import Coll, SMap, Unsupported


def closure(prog, pr: A.PropertyDecl) -> list:
    """The property and every invariant it assumes, transitively, in order."""
    out, todo = [], [pr]
    while todo:
        p = todo.pop(0)
        if any(q.name == p.name for q in out):
            continue
        out.append(p)
        todo.extend(prog.properties[n] for n in p.assuming if n in prog.properties)
    return out


def _holds(ab, st, me, cons, p):
    if any(isinstance(n, A.Call) and n.func == "remove" for n in A.walk(p.body)):
        # over a size, `remove` reads as "one fewer, or 0": a state where it fails (and the
        # property cannot be evaluated) would pass unseen
        raise Unsupported(f"`{p.name}` uses `remove`, which can fail: no induction argument")
    v = ab.eval(st, me, cons).ev(p.body, {})
    if not z3.is_bool(v):
        raise Unsupported("an invariant's body must be a condition")
    return v


def _reads(prog, props) -> list:
    """The state and phase variables the invariants read, for a counterexample."""
    out = []
    for p in props:
        for slot in sorted(Frame(prog).reads(p.body, {}), key=str):
            if slot not in out and slot[0] in ("state", "phase"):
                out.append(slot)
    return out


def _show(m, v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_show(m, x) for x in v) + "]"
    if isinstance(v, Size):
        return f"{m.eval(v.n, model_completion=True)} items"
    if isinstance(v, z3.ExprRef):
        return str(m.eval(v, model_completion=True))
    try:
        return f"{m.eval(size_of(v), model_completion=True)} items"
    except Exception:
        return "(not shown)"


def _values(m, st, slots) -> dict:
    out = {}
    for slot in slots:
        if slot in st:
            name = slot[1] if slot[0] == "state" else f"{slot[1]}.{slot[2]}"
            out[name] = _show(m, st[slot])
    return out


def _solve(cons, goal, timeout_ms):
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*cons, goal)
    r = s.check()
    if r == z3.unknown:
        raise Unsupported(f"z3 gave up ({s.reason_unknown()})")
    return s.model() if r == z3.sat else None


def _forget(v):
    """The same value with its collections known by their size only (an
    abstraction of it: every concrete value it stood for still fits)."""
    if isinstance(v, list):
        return [_forget(x) for x in v]
    if isinstance(v, (Coll, SMap)):
        return Size(size_of(v))
    return v


def base_case(ab, prog, game, props, timeout_ms):
    """None when each invariant holds after setup for every outcome, else
    (name, values). Each invariant is decided on its own, once per game
    (another invariant that assumes it asks the same question): first with
    setup's collections known by their sizes only (a shuffled deck of 48
    cards is too much for z3 item by item, and most invariants count; an
    answer "holds" there holds for every outcome, the sizes being an
    abstraction of the exact values), then, when that cannot decide or shows
    a state that may be spurious, with the collections setup built from
    constants exact (a short try). The exact answer wins when there is one;
    otherwise the sizes' answer stands."""
    for p in props:
        bad = _base_one(ab, prog, game, p, timeout_ms)
        if bad is not None:
            return bad
    return None


_SETUPS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_BASES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _base_one(ab, prog, game, p, timeout_ms):
    kept = _BASES.setdefault(game, {})
    key = (p.name, timeout_ms)
    if key not in kept:
        try:
            kept[key] = _base(ab, prog, game, p, timeout_ms, exact=False)
        except Unsupported as e:
            kept[key] = e
        if kept[key] is not None:   # the sizes could not decide, or found a state: exactly
            try:
                kept[key] = _base(ab, prog, game, p, min(timeout_ms, 5000), exact=True)
            except Unsupported:
                pass
    found = kept[key]
    if isinstance(found, Unsupported):
        raise found
    return found


def _setup(ab, prog, game, exact: bool):
    """The abstract state after setup and what it needs, followed once per
    game (every invariant's base case starts from it)."""
    kept = _SETUPS.setdefault(game, {})
    if exact not in kept:
        try:
            if "before" not in kept:   # the state before setup, made once for both ways
                cons0: list = []
                kept["before"] = (ab.before_setup(cons0), cons0)
            st, cons = dict(kept["before"][0]), list(kept["before"][1])
            if not exact:
                st = {k: _forget(v) for k, v in st.items()}
            me = z3.FreshInt("me")
            cons += [me >= 0, me < game.num_players]
            if prog.setup is not None:
                st, _ = ab.run(prog.setup.body, st, me, {}, cons, z3.BoolVal(False))
            kept[exact] = (st, me, cons)
        except Unsupported as e:
            kept[exact] = e
    found = kept[exact]
    if isinstance(found, Unsupported):
        raise found
    st, me, cons = found
    return dict(st), me, list(cons)


def _base(ab, prog, game, p, timeout_ms, exact: bool):
    st, me, cons = _setup(ab, prog, game, exact)
    m = _solve(cons, z3.Not(_holds(ab, st, me, cons, p)), timeout_ms)
    if m is not None:
        return p.name, _values(m, st, _reads(prog, [p]))
    return None


def step_case(ab, prog, game, props, kind, ph, a, timeout_ms):
    """None when the step keeps every invariant, else a counterexample to induction."""
    ab.phase = ph.name
    cons = []
    st = ab.initial(cons)
    me = z3.Int("me")
    cons += [me >= 0, me < game.num_players]
    for p in props:
        cons.append(_holds(ab, st, me, cons, p))
    if endings_checked_before(prog, kind, ph):   # the game goes on from this state
        for en in prog.endings.values():
            if en.time == "immediately":
                try:
                    cons.append(z3.Not(ab.eval(st, me, cons).ev(en.cond, {})))
                except Unsupported:
                    pass
    env = {}
    if kind == "action":
        for q in a.params:
            env[q.name] = _choice(ab, ab.eval(st, me, cons, in_effect=True), q, env, cons)
        for g in a.guards:
            if g.kind == "when":
                try:
                    cons.append(ab.eval(st, me, cons, in_effect=True, whole=g.cond).ev(g.cond, env))
                except Unsupported:   # a guard not followed: more states, still sound
                    pass
        body = a.body
    elif kind == "enter":
        body = tuple(A.Assign(A.LValue(v.name), v.init) for v in ph.vars) + ph.enter
    else:
        body = ph.auto
    post, _ = ab.run(body, dict(st), me, env, cons, z3.BoolVal(False))
    for p in props:
        m = _solve(cons, z3.Not(_holds(ab, post, me, cons, p)), timeout_ms)
        if m is not None:
            slots = _reads(prog, props)
            return {"step": _label(kind, ph, a), "breaks": p.name,
                    "before": _values(m, st, slots), "after": _values(m, post, slots),
                    "player": str(m.eval(me, model_completion=True))}
    return None


def check_induction(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """("proved", detail), ("not inductive", detail) or ("unknown", reason)."""
    props = closure(prog, pr)
    for p in props:
        if p.kind != "invariant":
            return ("unknown", f"`{p.name}` is assumed, but it is not an invariant")
        kept = flow_written(prog, p)
        if kept:
            return ("unknown", f"`{p.name}` reads `{kept[0]}`, which the flow changes between turns")
    ab = Abstraction(prog, game)
    try:
        bad = base_case(ab, prog, game, props, timeout_ms)
        if bad is not None:
            return ("not inductive", {"step": "setup", "breaks": bad[0], "after": bad[1]})
        steps = []
        for kind, ph, a in _steps(prog):
            cti = step_case(ab, prog, game, props, kind, ph, a, timeout_ms)
            if cti is not None:
                return ("not inductive", cti)
            steps.append(_label(kind, ph, a))
    except Unsupported as e:
        return ("unknown", str(e))
    except z3.Z3Exception as e:
        return ("unknown", f"z3: {e}")
    detail = {"steps": steps, "with": [p.name for p in props[1:]]}
    return ("proved", detail)
