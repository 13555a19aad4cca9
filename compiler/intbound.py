"""Which state slots the run-time bound on ints must watch after an action.

Every int of a state stays within ``values.INT_BOUND``. The result of the
setup is tested in full; after that, an action's result is tested only in
the slots where an int past the bound can appear, which keeps the test cheap
enough for playouts. An int past the bound can only come from arithmetic
(``+``, ``-``, ``*``, ``sum``), from a literal, constant or option past the
bound, or from a value built from one of these (a record, a list, a map
key). Every other value a rule stores is a copy of values the state, the
constants or the data files already hold, which are within the bound.

``watched_slots`` follows the values through the rules: an expression is
*computed* when it holds such an int; a local, a parameter of an action (its
domain), a loop variable or a parameter of a definition (at each call) is
computed when what it is bound to is; a slot is watched when some rule
stores a computed value in it (or uses one as a key or an index of the
store). The answer can only err on the side of watching more: what it does
not know (a name it cannot follow, an aggregate or a function of the
standard library it has not classified) counts as computed.
"""
from __future__ import annotations

from typing import Optional

from atoll.compiler.values import INT_BOUND
from atoll.grammar import ast as A

#: Functions of the standard library whose result is made of (parts of)
#: their arguments, or of ints no larger than theirs (``abs``, ``range``),
#: or of neighbouring positions (``orth`` and ``around`` refuse a position
#: whose neighbours would be past the bound): computed only if an argument is.
SELECTING = frozenset({
    "keys", "values", "get", "remove", "swap", "without", "without_keys", "sorted", "to_list",
    "distinct", "bag", "subsets", "lines", "collinear_subsets", "collinear_subsets_summing", "reach",
    "components", "abs", "min2", "max2", "pos", "range", "between", "orth", "around", "seats_from"})
#: Functions whose result holds no int that can grow: truth values, sizes, seats.
BOUNDED = frozenset({"size", "count_of", "connected", "planar", "span_covered"})
#: Aggregates: ``sum`` computes; ``min``/``max`` select; ``count`` is a size.
AGG_SELECTING = frozenset({"min", "max"})
AGG_BOUNDED = frozenset({"count", "all", "any"})


class _Flow:
    def __init__(self, prog, out_of_bound: set):
        self.p = prog
        self.out_of_bound = out_of_bound      # constants and options whose value is past the bound
        self.memo: dict = {}
        self.records: set = set()             # record types built with a computed int

    def expr(self, e, env: dict) -> bool:
        """Whether ``e`` may hold a computed int."""
        p = self.p
        if isinstance(e, A.IntLit):
            return not -INT_BOUND < e.value < INT_BOUND
        if isinstance(e, (A.BoolLit, A.StrLit, A.Not)):
            return False
        if isinstance(e, A.Name):
            ref = p.refs.get(id(e))
            if ref is None:
                return True
            if ref[0] == "local":
                return env.get(ref[1], True)
            if ref[0] in ("const", "option"):
                return ref[1] in self.out_of_bound
            return ref[0] not in ("state", "phase", "data", "member", "builtin", "me")
        if isinstance(e, A.BinOp):
            if e.op in ("+", "-", "*"):
                if not isinstance(p.types.get(id(e)), tuple):    # ints (or a type not known)
                    return True
                return self.expr(e.left, env) or self.expr(e.right, env)   # collections
            if e.op in ("/", "%"):      # no larger than what they divide
                return self.expr(e.left, env) or self.expr(e.right, env)
            return False                 # comparisons, logic, membership: truth values
        if isinstance(e, A.Neg):
            return self.expr(e.operand, env)
        if isinstance(e, (A.FieldAccess, A.Index)):
            return self.expr(e.obj, env)
        if isinstance(e, A.IfExpr):
            return self.expr(e.then, env) or self.expr(e.else_, env)
        if isinstance(e, A.Match):
            return any(self.expr(a.value, env) for a in e.arms)
        if isinstance(e, A.Cases):
            return any(self.expr(a.value, env) for a in e.arms)
        if isinstance(e, (A.ListLit, A.SetLit)):
            return any(self.expr(x, env) for x in e.items)
        if isinstance(e, A.MapLit):
            return any(self.expr(x, env) for x in e.keys + e.values)
        if isinstance(e, A.EmptyOf):
            return False
        if isinstance(e, A.With):   # made of its parts (a record's keys are field names)
            keys = e.keys if self.p.types.get(id(e), ("?",))[0] == "map" else ()
            parts = [self.expr(x, env) for x in (e.obj,) + keys + e.values]
            if any(parts):
                self.records |= _records_shallow(self.p.types.get(id(e)))
            return any(parts)
        if isinstance(e, A.Comprehension):
            inner = self.fors(e.fors, env)
            return self.expr(e.elem, inner) or (e.key is not None and self.expr(e.key, inner))
        if isinstance(e, A.Aggregate):
            if e.func in AGG_BOUNDED:
                return False
            if e.func in AGG_SELECTING:
                return self.expr(e.elem, self.fors(e.fors, env))
            return True                  # sum, and any aggregate not classified here
        if isinstance(e, A.Call):
            return self.call(e, env)
        if isinstance(e, A.TupleLit):
            return any(self.expr(x, env) for x in e.items)
        if isinstance(e, A.LetExpr):
            inner = dict(env)
            for b in e.bindings:
                inner.update(dict.fromkeys(A.bound_names(b), self.expr(b.value, inner)))
            return self.expr(e.body, inner)
        return True

    def fors(self, fors, env: dict) -> dict:
        inner = dict(env)
        for f in fors:
            inner.update(dict.fromkeys(A.bound_names(f), self.expr(f.iter, inner)))
        return inner

    def call(self, e: A.Call, env: dict) -> bool:
        computed = self._call(e, env)
        if computed:     # the records it returns may hold the computed int
            ref = self.p.refs.get(id(e))
            if ref is not None and ref[0] == "record":
                self.records.add(ref[1])
            else:
                self.records |= _records_shallow(self.p.types.get(id(e)))
        return computed

    def _call(self, e: A.Call, env: dict) -> bool:
        ref = self.p.refs.get(id(e))
        args = [self.expr(a, env) for a in e.args] + [self.expr(n.value, env) for n in e.named]
        if ref is None:
            return True
        if ref[0] in ("can", "team_of"):
            return False
        if ref[0] == "record":
            return any(args)
        if ref[0] == "stdlib":
            if ref[1] in BOUNDED:
                return False
            if ref[1] in SELECTING:
                return any(args)
            return True                  # orth, around, and functions not classified here
        if ref[0] == "def":
            d = self.p.defs.get(ref[1])
            if d is None or len(d.params) != len(e.args) or e.named:
                return True
            key = (ref[1], tuple(args))
            if key not in self.memo:
                self.memo[key] = True    # a definition that calls itself: assume the worst
                self.memo[key] = self.expr(d.body, {q.name: a for q, a in zip(d.params, args)})
            return self.memo[key]
        return True

    def stmts(self, ss, env: dict, phase: Optional[str], out: set) -> None:
        for s in ss:
            if isinstance(s, A.Assign):
                if self.expr(s.value, env) or any(self.expr(i, env) for i in s.target.indices):
                    out.add(self.slot_name(s.target.name, phase))
            elif isinstance(s, A.Let):
                env.update(dict.fromkeys(A.bound_names(s), self.expr(s.value, env)))
            elif isinstance(s, A.If):
                self.stmts(s.then, dict(env), phase, out)
                self.stmts(s.else_, dict(env), phase, out)
            elif isinstance(s, A.For):
                inner = dict(env)
                inner.update(dict.fromkeys(A.bound_names(s), self.expr(s.iter, env)))
                self.stmts(s.body, inner, phase, out)
            elif isinstance(s, A.Draw):
                env[s.name] = False      # an item of a bag of the state
            elif isinstance(s, A.CallStmt):   # the body, its parameters bound to the arguments
                self.stmts(s.body, {q: self.expr(a, env) for q, a in zip(s.params, s.args)}, phase, out)
            elif isinstance(s, A.Choose):     # an item of its domain
                env[s.name] = self.expr(s.domain, env)
            elif isinstance(s, A.Deal):
                if any(self.expr(i, env) for i in s.source.indices + s.dest.indices):
                    out.add(self.slot_name(s.dest.name, phase))
            elif not isinstance(s, (A.End, A.Win, A.Tie)):
                out.add(None)            # a statement not classified here: watch everything

    def slot_name(self, name: str, phase: Optional[str]) -> str:
        if name in self.p.state or phase is None:
            return name
        return f"{phase}.{name}"


def _records_shallow(t) -> set:
    """The record types a value of type ``t`` is made of (not those inside
    their fields)."""
    if isinstance(t, tuple):
        if t[0] == "record":
            return {t[1]}
        return set().union(*(_records_shallow(x) for x in t[1:]))
    return set()


def _records_deep(t, codec, out: set) -> set:
    if isinstance(t, tuple):
        if t[0] == "record":
            if t[1] not in out:
                out.add(t[1])
                for _, ft in codec.records.get(t[1], ()):
                    _records_deep(ft, codec, out)
        else:
            for x in t[1:]:
                _records_deep(x, codec, out)
    return out


def watched_slots(prog, checker, ns: dict, codec, names: list) -> tuple[frozenset, frozenset]:
    """What to test after an action: the indices of the slots (of ``names``,
    the layout) where a rule may store a computed int, and the record types
    whose fields may hold one (the fields of other records are copies)."""
    out_of_bound = set()
    for table in (prog.consts, prog.options):
        for k in table.values():
            ok = codec.bounded(checker.resolve(k.type))
            v = ns.get(f"k_{k.name}")
            if ok is not None and v is not None and not ok(v):
                out_of_bound.add(k.name)
    flow = _Flow(prog, out_of_bound)
    for table in (prog.consts, prog.options):
        for k in table.values():
            if k.name in out_of_bound:
                _records_deep(checker.resolve(k.type), codec, flow.records)
    stored: set = set()
    for ph in prog.phases.values():
        for v in ph.vars:                 # set again each time the phase is entered
            if flow.expr(v.init, {}):
                stored.add(f"{ph.name}.{v.name}")
        flow.stmts(ph.enter, {}, ph.name, stored)
        flow.stmts(ph.auto, {}, ph.name, stored)
        for a in ph.actions:
            env: dict = {}
            for q in a.params:
                env[q.name] = flow.expr(q.domain, env)
            flow.stmts(a.body, env, ph.name, stored)
    if None in stored:
        return frozenset(range(1, len(names))), frozenset(codec.records)
    return frozenset(i for i, n in enumerate(names) if n in stored), frozenset(flow.records)


# ------------------------------------------------------------------ at run time

class _Found(BaseException):
    """Stops the second run at the step that made an int too large."""


def locate(game, st, S0, ctl0, outcome0, action, forced, slot: int) -> tuple[str, int]:
    """The step of a transaction that made an int too large, and the slot:
    the transaction runs again on a copy, every int tested after each step.
    (The first run tests only its result, which is what keeps playouts
    fast; this one runs only on the way to an error.)"""
    if getattr(game, "_locating", False):
        raise _Found()
    probe = st.clone()
    probe.S, probe.ctl, probe.outcome = list(S0), list(ctl0), outcome0
    before = [list(S0)]
    found: list = []
    plain = type(game)._after_effects

    def tested(s, X):
        for i, ok in game._int_slots:
            v = s.S[i]
            if v is not None and v is not before[0][i] and not ok(v):
                found.append((game._where, i))
                raise _Found()
        before[0] = list(s.S)
        return plain(game, s, X)

    # every step through _after_effects: the interpreter's flow, not the
    # generated one (compiler/lower_flow.py), which plays the same steps
    flend, game._flend = game._flend, None
    game._after_effects, game._locating = tested, True
    try:
        game._transact(probe, action, None if forced is None else list(forced))
    except _Found:
        pass
    except Exception:    # pragma: no cover - the first run got this far
        pass
    finally:
        del game._after_effects
        game._locating = False
        game._flend = flend
    if found:
        return found[0]
    spec = action[0]      # pragma: no cover - each step is tested above
    return f"action `{spec.name}` or an automatic step after it", slot
