"""Termination by z3, for measures declared `per action`.

The state is abstracted: ints, bools and enums stay as z3 values, every
collection becomes its size (a z3 Int >= 0), and the effects of each action
are executed on that abstraction (``remove`` takes one item, ``deal k``
moves ``min(k, size)`` items, ``without_keys`` takes at most as many as it
is given, ...). Whatever the abstraction cannot follow becomes a fresh,
unconstrained value, so the check stays sound: it may fail to prove, never
prove wrongly. A `when` guard the abstraction can read is assumed; one it
cannot read is dropped (more behaviours, still sound).

For each action, z3 looks for an abstract state with measure >= 0 in which
the action, unless it ends the game, leaves the measure not smaller or
negative. Automatic steps (`on enter`, `auto`) must not increase it. All
unsat: PROVED. Otherwise the failing action is named, and the play check
looks for a concrete run.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from atoll.compiler import types as T
from atoll.compiler.check import Checker
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.verify.z3sem import Coll, SMap, Unsupported, Z3Eval, ite, member


@dataclass
class Size:
    """A collection known only by its size."""
    n: object


def _fresh_size(stem: str, lo=None, hi=None, cons=None):
    k = z3.FreshInt(stem)
    cons.append(k >= 0)
    if lo is not None:
        cons.append(k >= lo)
    if hi is not None:
        cons.append(k <= hi)
    return Size(k)


class AbstractEval(Z3Eval):
    """The z3 meaning over an abstract state (collections by size)."""

    def __init__(self, prog, game, state: dict, me, cons: list):
        super().__init__(prog, game)
        self.state = state
        self.me = me
        self.cons = cons

    def name(self, e: A.Name, env: dict):
        ref = self.p.refs[id(e)]
        if ref[0] == "state":
            return self.state[("state", ref[1])]
        if ref[0] == "phase":
            return self.state[("phase", ref[1], ref[2])]
        if ref[0] == "me":
            return self.me
        if ref[0] == "builtin" and ref[1] == "current_round":
            raise Unsupported("the round counter changes between actions, outside any effect")
        return super().name(e, env)

    def ev(self, e, env):
        if isinstance(e, A.FieldAccess):
            ref = self.p.refs.get(id(e))
            if ref is not None and ref[0] == "phase":
                return self.state[ref]
        if isinstance(e, A.Index):
            t = self.t(e.obj)
            if isinstance(t, tuple) and t[0] == "player":
                per = self.ev(e.obj, env)
                p = self.ev(e.key, env)
                out = per[-1]
                for i in range(len(per) - 2, -1, -1):
                    out = _ite(p == i, per[i], out)
                return out
        v = super().ev(e, env)
        return v

    def stdlib(self, name, e, args):
        if any(isinstance(a, Size) for a in args):
            return self.size_function(name, e, args)
        return super().stdlib(name, e, args)

    def size_function(self, name, e, args):
        c = self.cons
        if name == "size":
            return args[0].n
        a = args[0]
        n = a.n if isinstance(a, Size) else _size_of(a)
        if name in ("sorted", "to_list", "bag", "keys", "swap"):
            return Size(n)
        if name == "remove":
            return Size(n - 1)
        if name in ("without", "without_keys", "distinct"):
            other = args[1] if len(args) > 1 else None
            m = other.n if isinstance(other, Size) else (_size_of(other) if other is not None else None)
            return _fresh_size(name, lo=(n - m) if m is not None and name == "without_keys" else None,
                               hi=n, cons=c)
        raise Unsupported(f"`{name}` of a collection known only by its size")

    def binop(self, e, env):
        a, b = self.ev(e.left, env), self.ev(e.right, env)
        if isinstance(a, Size) or isinstance(b, Size):
            if e.op == "+":
                return Size(_size_of(a) + _size_of(b))
            if e.op in ("in", "notin"):
                return z3.FreshBool("member")
            raise Unsupported(f"`{e.op}` on a collection known only by its size")
        return super().binop(e, env)

    def rows(self, fors, env):
        for f in fors:
            it = self.ev(f.iter, env)
            if isinstance(it, Size):
                raise Unsupported("iterating over a collection known only by its size")
        return super().rows(fors, env)


def _size_of(v):
    if isinstance(v, Size):
        return v.n
    if isinstance(v, Coll):
        return z3.Sum([z3.If(c, 1, 0) for _, c in v.items]) if v.items else z3.IntVal(0)
    if isinstance(v, SMap):
        return z3.Sum([z3.If(c, 1, 0) for _, _, c in v.entries]) if v.entries else z3.IntVal(0)
    raise Unsupported("the size of a value that is not a collection")


def _ite(c, a, b):
    if isinstance(a, Size) or isinstance(b, Size):
        return Size(z3.If(c, _size_of(a), _size_of(b)))
    return ite(c, a, b)


class Abstraction:
    def __init__(self, prog, game):
        self.p = prog
        self.game = game
        self.checker = Checker(prog, Reporter())
        self.phase = None   # the phase whose variables effects may assign

    def initial(self, cons: list) -> dict:
        st = {"round": z3.Int("round")}
        cons.append(st["round"] >= 1)
        for v in self.p.state.values():
            t = self.checker.resolve(v.type)
            if v.scope == "player":
                st[("state", v.name)] = [self.fresh(t, f"{v.name}[{p}]", cons)
                                         for p in range(self.game.num_players)]
            else:
                st[("state", v.name)] = self.fresh(t, v.name, cons)
        for ph in self.p.phases.values():
            for v in ph.vars:
                st[("phase", ph.name, v.name)] = self.fresh(self.checker.resolve(v.type),
                                                          f"{ph.name}.{v.name}", cons)
        return st

    def fresh(self, t, name, cons):
        if T.is_collection(t):
            return _fresh_size(name, cons=cons)
        ev = Z3Eval(self.p, self.game)
        v = ev.fresh(t, name)
        cons.append(ev.domain(t, v))
        return v

    # ------------------------------------------------------------ effects
    def run(self, stmts, st: dict, me, env: dict, cons: list, ended):
        ev = AbstractEval(self.p, self.game, st, me, cons)
        for s in stmts:
            if isinstance(s, A.Assign):
                try:
                    value = ev.ev(s.value, env)
                except Unsupported:   # an effect the abstraction cannot follow: any value
                    t = self.p.types.get(id(s.target), T.UNKNOWN)
                    value = self.fresh(t, f"{s.target.name}!havoc", cons)
                self.assign(s.target, value, st, me, env, cons)
            elif isinstance(s, A.Let):
                env = {**env, s.name: ev.ev(s.value, env)}
            elif isinstance(s, A.If):
                try:
                    c = ev.ev(s.cond, env)
                except Unsupported:
                    c = z3.FreshBool("cond")
                st1, st2 = dict(st), dict(st)
                st1, e1 = self.run(s.then, st1, me, env, cons, ended)
                st2, e2 = self.run(s.else_, st2, me, env, cons, ended)
                st = {k: _merge(c, st1[k], st2[k]) for k in st}
                ended = z3.If(c, e1, e2)
                ev = AbstractEval(self.p, self.game, st, me, cons)
            elif isinstance(s, A.Draw):
                src = self.read(s.source, st, me, env, cons)
                cons.append(src.n >= 1)
                self.assign(s.source, Size(src.n - 1), st, me, env, cons)
                elem_t = T.element(self.p.types.get(id(s.source)))
                env = {**env, s.name: Z3Eval(self.p, self.game).fresh(elem_t, s.name)}
            elif isinstance(s, A.Deal):
                k = ev.ev(s.count, env)
                src = self.read(s.source, st, me, env, cons)
                moved = z3.If(k <= 0, 0, z3.If(k <= src.n, k, src.n))
                self.assign(s.source, Size(src.n - moved), st, me, env, cons)
                dst = self.read(s.dest, st, me, env, cons)
                self.assign(s.dest, Size(dst.n + moved), st, me, env, cons)
            elif isinstance(s, (A.Win, A.Tie)):
                ended = z3.BoolVal(True)
            elif isinstance(s, A.End):
                pass
            else:   # For: the abstraction does not follow loops
                raise Unsupported("a `for` loop in an effect")
            ev = AbstractEval(self.p, self.game, st, me, cons)
        return st, ended

    def key(self, lv: A.LValue, st):
        for k in st:
            if isinstance(k, tuple) and k[0] == "state" and k[1] == lv.name:
                return k
        for k in st:
            if isinstance(k, tuple) and k[0] == "phase" and k[2] == lv.name and self.phase == k[1]:
                return k
        raise Unsupported(f"assignment to `{lv.name}`")

    def read(self, lv: A.LValue, st, me, env, cons):
        k = self.key(lv, st)
        v = st[k]
        ev = AbstractEval(self.p, self.game, st, me, cons)
        idx = list(lv.indices)
        if isinstance(v, list):
            p = ev.ev(idx.pop(0), env)
            out = v[-1]
            for i in range(len(v) - 2, -1, -1):
                out = _ite(p == i, v[i], out)
            v = out
        if idx:
            raise Unsupported("reading inside a collection known only by its size")
        if not isinstance(v, Size):
            raise Unsupported(f"`{lv.name}` is not a collection")
        return v

    def assign(self, lv: A.LValue, value, st, me, env, cons):
        k = self.key(lv, st)
        ev = AbstractEval(self.p, self.game, st, me, cons)
        idx = list(lv.indices)
        old = st[k]
        if isinstance(old, list):
            p = ev.ev(idx.pop(0), env)
            if idx:
                value = self.put(old, p, idx, value, ev, env, cons)
                st[k] = value
                return
            st[k] = [_merge(p == i, value, x) for i, x in enumerate(old)]
            return
        if idx:
            if isinstance(old, Size):   # m[k] = v on a map: one entry more, or the same
                st[k] = _fresh_size(lv.name, lo=old.n, hi=old.n + 1, cons=cons)
                return
            raise Unsupported(f"assignment inside `{lv.name}`")
        st[k] = value

    def put(self, per, p, idx, value, ev, env, cons):
        out = []
        for i, x in enumerate(per):
            if isinstance(x, Size):
                grown = _fresh_size("put", lo=x.n, hi=x.n + 1, cons=cons)
                out.append(_merge(p == i, grown, x))
            else:
                raise Unsupported("assignment inside a per-player value")
        return out


def _merge(c, a, b):
    if isinstance(a, list):
        return [_merge(c, x, y) for x, y in zip(a, b)]
    return _ite(c, a, b)


def _steps(prog):
    for ph in prog.phases.values():
        for a in ph.actions:
            yield "action", ph, a
        if ph.enter or ph.vars:
            yield "enter", ph, None
        if ph.auto:
            yield "auto", ph, None


def _label(kind, ph, a) -> str:
    return a.name if a else f"{ph.name} ({kind})"


def step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms, strict: bool):
    """Can this step leave the measure not lower (strict) or higher (not
    strict), or negative? Returns None (it cannot), a z3 model text, or raises
    Unsupported."""
    ab.phase = ph.name
    cons = []
    st = ab.initial(cons)
    me = z3.Int("me")
    cons += [me >= 0, me < game.num_players]
    ev = AbstractEval(prog, game, st, me, cons)
    before = ev.ev(pr.body, {})
    if isinstance(before, Size):
        raise Unsupported("a measure must be an int")
    for en in prog.endings.values():   # a step starts from a state the game goes on from
        if en.time == "immediately":
            try:
                cons.append(z3.Not(AbstractEval(prog, game, st, me, cons).ev(en.cond, {})))
            except Unsupported:
                pass
    env = {}
    if kind == "action":
        for q in a.params:
            t = ab.checker.resolve(q.type)
            env[q.name] = ab.fresh(t, q.name, cons)
            try:   # the choice is one of its domain's items
                dom = AbstractEval(prog, game, st, me, cons).ev(q.domain, env)
                if isinstance(dom, Coll):
                    cons.append(member(dom, env[q.name]))
            except Unsupported:
                pass
        for g in a.guards:
            if g.kind == "when":
                try:
                    cons.append(AbstractEval(prog, game, st, me, cons).ev(g.cond, env))
                except Unsupported:
                    pass
        body = a.body
    elif kind == "enter":
        body = tuple(A.Assign(A.LValue(v.name), v.init) for v in ph.vars) + ph.enter
    else:
        body = ph.auto
    post, ended = ab.run(body, dict(st), me, env, cons, z3.BoolVal(False))
    after = AbstractEval(prog, game, post, me, cons).ev(pr.body, {})
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*cons, before >= 0, z3.Not(ended))
    good = (after < before) if strict else (after <= before)
    s.add(z3.Not(z3.And(good, after >= 0)))
    r = s.check()
    if r == z3.unsat:
        return None
    if r == z3.unknown:
        raise Unsupported(f"z3 gave up ({s.reason_unknown()})")
    m = s.model()
    return {"measure before": str(m.eval(before, model_completion=True)),
            "measure after": str(m.eval(after, model_completion=True)),
            "step": _label(kind, ph, a)}


def check_measure(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """Per action: ("proved", detail), ("fails", step, detail) or ("unknown", reason).
    Every action must lower the measure; automatic steps must not raise it."""
    ab = Abstraction(prog, game)
    checked = []
    for kind, ph, a in _steps(prog):
        try:
            bad = step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms, strict=kind == "action")
        except Unsupported as e:
            return ("unknown", f"{_label(kind, ph, a)}: {e}")
        if bad is not None:
            return ("fails", _label(kind, ph, a), bad)
        checked.append(_label(kind, ph, a))
    return ("proved", {"steps": checked})


def check_turn_measure(prog, game, pr: A.PropertyDecl, timeout_ms: int) -> str:
    """Per turn, a sufficient condition only: no step raises the measure, and
    every stage has an automatic phase, not skippable by `end turn`, that
    surely lowers it. Says what it found, in words, for the report."""
    ab = Abstraction(prog, game)
    lowering = set()
    for kind, ph, a in _steps(prog):
        try:
            if step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms, strict=False) is not None:
                return f"z3: `{_label(kind, ph, a)}` may raise the measure"
            if kind == "auto" and step_effect(ab, prog, game, pr, kind, ph, a, timeout_ms,
                                              strict=True) is None:
                lowering.add(ph.name)
        except Unsupported as e:
            return f"no z3 argument: {_label(kind, ph, a)}: {e}"
    for rd in prog.flow.rounds:
        for stage in rd.stages:
            if not any(p in lowering for p in stage.phases):
                return (f"z3: no step of the stage `{', '.join(stage.phases)}` surely lowers the "
                        f"measure (automatic steps that do: {', '.join(sorted(lowering)) or 'none'})")
            if any(isinstance(x, A.End) and x.what == "turn"
                   for p in stage.phases if p in prog.phases
                   for act in prog.phases[p].actions for x in A.walk(act.body)):
                return "z3: an `end turn` may skip the step that lowers the measure"
    return ("z3: no step raises the measure and every turn runs an automatic step that lowers it "
            f"({', '.join(sorted(lowering))}); that each turn ends is left to search and play")
