"""The state abstraction under the termination checks.

A state is abstracted value by value: ints, bools, enums and records stay
z3 values; a collection is either exact (a ``Coll``/``SMap`` of guarded
items, as the z3 meaning of expressions builds it: the values of the game
before setup, and what setup makes of them) or a ``Size``, known only by
its number of items (every state an action may start from).

Every rule here errs on one side only: an abstract step allows at least
every concrete behaviour (it may allow more). So:

* an operation on sizes gives the exact size when it is known (`+` on lists
  and bags, `remove`, `deal`) and bounds otherwise (a set union has between
  the larger side and the sum of both; `without` at most as many as before);
* what cannot be followed is *havocked*: the variable assigned gets any
  value of its type (an `if` condition that cannot be read takes both ways);
  what cannot even be havocked (a `for` loop over a collection known only by
  its size) raises ``Unsupported``, and the checker then has no argument;
* what a statement needs in order to run (a `draw` needs a pile that is not
  empty) is assumed only on the path that runs it: every constraint made
  inside a branch is guarded by the branch's condition, and every size stays
  at least 0, so a branch not taken can never rule out a state.

A step that fails at run time (a draw from an empty pile, `remove` of an
item that is not there) is an error of the model, which play reports; the
abstraction describes the steps that complete.
"""
from __future__ import annotations

import z3

from atoll.compiler import types as T
from atoll.compiler.check import Checker
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.verify.z3sem import TRUE, Coll, SMap, Unsupported, Z3Eval, count, ite, simp

MAX_UNROLL = 64        # a `for` over a known collection is unrolled up to this many items
MAX_EXACT_DRAW = 400   # a draw from a known pile keeps its items exactly up to this many


class Size:
    """A collection known only by its number of items (a z3 Int, never
    negative). Anything else asked of it has no meaning here."""
    __slots__ = ("n",)

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        raise Unsupported("comparing collections known only by their size")

    __hash__ = object.__hash__

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unsupported("the items of a collection known only by its size")

    def __repr__(self):
        return f"Size({self.n})"

    def _no(self, *args):
        raise Unsupported("an operation on a collection known only by its size")

    __lt__ = __le__ = __gt__ = __ge__ = __add__ = __radd__ = __sub__ = __rsub__ = _no
    __mul__ = __rmul__ = __neg__ = __bool__ = __iter__ = __len__ = __getitem__ = __contains__ = _no


def fresh_size(stem: str, cons: list, lo=None, hi=None) -> Size:
    """A size between ``lo`` and ``hi``: callers give bounds with lo <= hi
    whenever every size is >= 0, so the constraint never rules a state out."""
    k = z3.FreshInt(stem)
    cons.append(k >= 0)
    if lo is not None:
        cons.append(k >= lo)
    if hi is not None:
        cons.append(k <= hi)
    return Size(k)


def size_of(v):
    if isinstance(v, Size):
        return v.n
    if isinstance(v, Coll):
        return count(v.items)
    if isinstance(v, SMap):
        return count([(k, c) for k, _, c in v.entries])
    raise Unsupported("the size of a value that is not a collection")


def zmax(a, b):
    return z3.If(a >= b, a, b)


def less_one(n):
    return z3.If(n >= 1, n - 1, 0)


def choose(c, a, b):
    """If-then-else over abstract values (sizes, exact collections, scalars)."""
    if a is b:
        return a
    sc = simp(c)
    if z3.is_true(sc):
        return a
    if z3.is_false(sc):
        return b
    if isinstance(a, list):
        return [choose(c, x, y) for x, y in zip(a, b)]
    if isinstance(a, Size) or isinstance(b, Size):
        return Size(z3.If(c, size_of(a), size_of(b)))
    if isinstance(a, Coll) and isinstance(b, Coll) and len(a.items) == len(b.items) and \
            all(x is y for (x, _), (y, _) in zip(a.items, b.items)):
        return Coll(a.kind, [(x, z3.If(c, g, h)) for (x, g), (_, h) in zip(a.items, b.items)])
    return ite(c, a, b)


class AbstractEval(Z3Eval):
    """The z3 meaning of expressions over an abstract state."""

    def __init__(self, prog, game, state: dict, me, cons: list, in_effect: bool = False):
        super().__init__(prog, game)
        self.state = state
        self.me = me
        self.cons = cons
        # In an effect, an item read from a list known by its size is any value
        # (reading past the end is a model error: nothing is applied).
        self.in_effect = in_effect
        # Evaluating an expression that runs whole (no branch of it skipped): an
        # operation in it that would fail at run time may be assumed to succeed.
        self.assume_defined = False

    def ite(self, c, a, b):
        return choose(c, a, b)

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
                return pick(self.ev(e.obj, env), self.ev(e.key, env))
            if self.in_effect and isinstance(t, tuple) and t[0] == "list" and \
                    isinstance(self.ev(e.obj, env), Size):
                # an item of a list known by its size: any value of the item's type
                # (reading past its end is a model error: the step does not happen)
                return self.fresh(self.t(e), "item")
        return super().ev(e, env)

    def stdlib(self, name, e, args):
        if any(isinstance(a, Size) for a in args):
            return self.size_function(name, e, args)
        return super().stdlib(name, e, args)

    def size_function(self, name, e, args):
        c = self.cons
        n = size_of(args[0])
        if name == "size":
            return n
        if name in ("sorted", "to_list", "bag", "keys", "values", "swap"):
            return Size(n)
        if name == "remove":   # one item fewer (when it is there; otherwise the step fails)
            if self.assume_defined:
                c.append(n >= 1)
                return Size(n - 1)
            return Size(less_one(n))
        if name == "distinct":
            return fresh_size(name, c, lo=z3.If(n >= 1, 1, 0), hi=n)
        if name == "without":
            return fresh_size(name, c, hi=n)
        if name == "without_keys":
            return fresh_size(name, c, lo=zmax(n - size_of(args[1]), 0), hi=n)
        if name == "count_of":
            k = z3.FreshInt("count_of")
            c += [k >= 0, k <= n]
            return k
        if name == "get":   # any value of the map's value type
            return self.fresh(self.t(e), "get")
        raise Unsupported(f"`{name}` of a collection known only by its size")

    def binop(self, e, env):
        a, b = self.ev(e.left, env), self.ev(e.right, env)
        if not (isinstance(a, Size) or isinstance(b, Size)):
            return self.binop_values(e, a, b)
        op = e.op
        if op in ("==", "!="):   # equal collections have equal sizes; beyond that, unknown
            same = z3.And(size_of(a) == size_of(b), z3.FreshBool("same"))
            return same if op == "==" else z3.Not(same)
        if op in ("in", "notin"):
            there = z3.FreshBool("member")
            if isinstance(b, Size):
                self.cons.append(z3.Implies(b.n == 0, z3.Not(there)))
            return there if op == "in" else z3.Not(there)
        t = self.t(e)
        kind = t[0] if isinstance(t, tuple) else None
        na, nb = size_of(a), size_of(b)
        if op == "+" and kind in ("list", "bag"):
            return Size(na + nb)
        if op == "+" and kind == "set":   # items of both may coincide
            return fresh_size("union", self.cons, lo=zmax(na, nb), hi=na + nb)
        if op == "-" and kind in ("set", "bag") and a is b:   # the very same collection: nothing left
            return Size(z3.IntVal(0))
        if op == "-" and kind in ("set", "bag"):
            return fresh_size("minus", self.cons, lo=zmax(na - nb, 0), hi=na)
        raise Unsupported(f"`{op}` on a collection known only by its size")

    def rows(self, fors, env):
        for f in fors:
            if isinstance(self.ev(f.iter, env), Size):
                raise Unsupported("iterating over a collection known only by its size")
        return super().rows(fors, env)


def pick(per: list, p):
    """Player ``p``'s entry of a per-player value (a list by seat)."""
    out = per[-1]
    for i in range(len(per) - 2, -1, -1):
        out = choose(p == i, per[i], out)
    return out


class Abstraction:
    """Runs effects (statements) over abstract states."""

    def __init__(self, prog, game):
        self.p = prog
        self.game = game
        self.checker = Checker(prog, Reporter())
        self.phase = None   # the phase whose variables effects may assign

    # ------------------------------------------------------------ states
    def initial(self, cons: list) -> dict:
        """Any state: every variable free within its type (sizes >= 0)."""
        st = {}
        for v in self.p.state.values():
            t = self.checker.resolve(v.type)
            if v.scope == "player":
                st[("state", v.name)] = [self.fresh(t, f"{v.name}[{p}]", cons)
                                         for p in range(self.game.num_players)]
            else:
                st[("state", v.name)] = self.fresh(t, v.name, cons)
        self._phase_vars(st, cons)
        return st

    def before_setup(self, cons: list) -> dict:
        """The state as the game is created: every variable at its initial
        value (fixed by the constants), exact; phase variables free."""
        ev = Z3Eval(self.p, self.game)
        st = {}
        for v in self.p.state.values():
            t = self.checker.resolve(v.type)
            value = ev.lift(t, self.game.ns[f"init_{v.name}"]())
            st[("state", v.name)] = [value] * self.game.num_players if v.scope == "player" else value
        self._phase_vars(st, cons)
        return st

    def _phase_vars(self, st, cons):
        for ph in self.p.phases.values():
            for v in ph.vars:
                st[("phase", ph.name, v.name)] = self.fresh(self.checker.resolve(v.type),
                                                          f"{ph.name}.{v.name}", cons)

    def fresh(self, t, name, cons):
        if T.is_collection(t):
            return fresh_size(name, cons)
        ev = Z3Eval(self.p, self.game)
        v = ev.fresh(t, name)
        cons.append(ev.domain(t, v))
        return v

    def eval(self, st, me, cons, in_effect: bool = False, whole=None) -> AbstractEval:
        """The evaluator over ``st``; ``whole``: an expression of an effect that
        runs whole whenever it runs (see ``unconditional``)."""
        ev = AbstractEval(self.p, self.game, st, me, cons, in_effect)
        ev.assume_defined = in_effect and whole is not None and unconditional(self.p, whole)
        return ev

    # ------------------------------------------------------------ effects
    def run(self, stmts, st: dict, me, env: dict, cons: list, ended):
        """Run ``stmts``; returns the state after them and whether the game
        has ended (a z3 Bool). ``cons`` receives what the run needs."""
        for s in stmts:
            ev = self.eval(st, me, cons, in_effect=True)
            if isinstance(s, A.Assign):
                try:
                    value = self.eval(st, me, cons, in_effect=True, whole=s.value).ev(s.value, env)
                except Unsupported:   # an effect the abstraction cannot follow: any value
                    value = self.fresh(self.p.types.get(id(s.target), T.UNKNOWN), f"{s.target.name}!havoc", cons)
                self.assign(s.target, value, st, me, env, cons)
            elif isinstance(s, A.Let):
                try:
                    value = self.eval(st, me, cons, in_effect=True, whole=s.value).ev(s.value, env)
                except Unsupported:
                    value = self.fresh(self.p.types.get(id(s.value), T.UNKNOWN), f"{s.name}!havoc", cons)
                env = {**env, **ev.bind(s, value)}
            elif isinstance(s, A.If):
                try:
                    c = ev.ev(s.cond, env)
                except Unsupported:
                    c = z3.FreshBool("cond")
                st, ended = self.branch(c, s.then, s.else_, st, me, env, cons, ended)
            elif isinstance(s, A.For):
                st, ended = self.loop(s, ev, st, me, env, cons, ended)
            elif isinstance(s, A.Draw):
                env = {**env, s.name: self.draw(s, st, me, env, cons)}
            elif isinstance(s, A.Roll):   # any item of its type: a sound over-approximation
                t = T.element(self.p.types.get(id(s.source), T.UNKNOWN))
                env = {**env, s.name: self.fresh(t, f"{s.name}!rolled", cons)}
            elif isinstance(s, A.Deal):
                self.deal(s, ev.ev(s.count, env), st, me, env, cons)
            elif isinstance(s, (A.Win, A.Tie)):
                ended = z3.BoolVal(True)
            elif isinstance(s, A.CallStmt):   # the body, its parameters bound to the arguments' values
                args = {}
                for q, a in zip(s.params, s.args):
                    try:
                        args[q] = ev.ev(a, env)
                    except Unsupported:
                        args[q] = self.fresh(self.p.types.get(id(a), T.UNKNOWN), f"{q}!havoc", cons)
                st, ended = self.run(s.body, st, me, args, cons, ended)
            elif isinstance(s, A.Choose):   # any value of its type: a sound over-approximation
                env = {**env, s.name: self.fresh(self.p.types.get(id(s), T.UNKNOWN), f"{s.name}!chosen", cons)}
            elif not isinstance(s, A.End):  # pragma: no cover
                raise Unsupported(f"the statement {type(s).__name__}")
        return st, ended

    def branch(self, c, then, else_, st, me, env, cons, ended):
        """Both ways of a condition; each way's constraints hold only when it is taken."""
        c1, c2 = [], []
        st1, e1 = self.run(then, dict(st), me, env, c1, ended)
        st2, e2 = self.run(else_, dict(st), me, env, c2, ended)
        if c1:
            cons.append(z3.Implies(c, z3.And(c1)))
        if c2:
            cons.append(z3.Implies(z3.Not(c), z3.And(c2)))
        return {k: choose(c, st1[k], st2[k]) for k in st}, choose(c, e1, e2)

    def loop(self, s: A.For, ev, st, me, env, cons, ended):
        """A `for` over a collection known item by item, unrolled (an item
        whose presence is symbolic runs the body under that condition). Over
        a collection known only by its size, the loop may run any number of
        times: every variable its body may write gets any value of its type
        (and the game may have ended, if the body can end it)."""
        try:
            over = ev.ev(s.iter, env)
        except Unsupported:
            over = None
        if over is None or isinstance(over, Size):
            return self.havoc(s.body, st, cons), (z3.Or(ended, z3.FreshBool("ended_in_loop"))
                                                  if _can_end(s.body) else ended)
        rows = ev.rows([A.CompFor(s.var, s.iter, names=s.names)], env)
        if len(rows) > MAX_UNROLL:
            raise Unsupported(f"a `for` loop over more than {MAX_UNROLL} items")
        for row_env, guard in rows:
            st, ended = self.branch(guard, s.body, (), st, me, row_env, cons, ended)
        return st, ended

    def havoc(self, body, st: dict, cons: list) -> dict:
        """``st`` with every variable that ``body`` may write set to any value of its type."""
        st = dict(st)
        for lv in _written(body):
            k = self.key(lv, st)
            old = st[k]
            t = self._type_of(k)
            if isinstance(old, list):
                st[k] = [self.fresh(t, f"{lv.name}[{i}]!loop", cons) for i in range(len(old))]
            else:
                st[k] = self.fresh(t, f"{lv.name}!loop", cons)
        return st

    def _type_of(self, k):
        if k[0] == "state":
            return self.checker.resolve(self.p.state[k[1]].type)
        return self.checker.resolve(self.p.phase_var(k[1], k[2]).type)

    def draw(self, s: A.Draw, st, me, env, cons):
        """Take one item from the pile; the item drawn is returned."""
        src = self.read(s.source, st, me, env, cons)
        elem_t = T.element(self.p.types.get(id(s.source)))
        if isinstance(src, Coll) and len(src.items) <= MAX_EXACT_DRAW:
            if not src.items:
                cons.append(z3.BoolVal(False))   # drawing from an empty pile fails: no such run
                return self.fresh(elem_t, s.name, [])
            sel = z3.FreshInt("drawn")
            cons.append(z3.Or([z3.And(sel == i, c) for i, (_, c) in enumerate(src.items)]))
            item = src.items[-1][0]
            for i in range(len(src.items) - 2, -1, -1):
                item = choose(sel == i, src.items[i][0], item)
            rest = Coll(src.kind, [(v, z3.And(c, sel != i)) for i, (v, c) in enumerate(src.items)])
            self.assign(s.source, rest, st, me, env, cons)
            return item
        n = size_of(src)
        cons.append(n >= 1)   # only on the path that draws (see branch)
        self.assign(s.source, Size(less_one(n)), st, me, env, cons)
        return self.fresh(elem_t, s.name, cons)

    def deal(self, s: A.Deal, k, st, me, env, cons):
        """Move ``k`` items (fewer when the pile runs out) from the pile to the
        destination. Known item by item when both are and ``k`` is a small
        number; otherwise by sizes."""
        src = self.read(s.source, st, me, env, cons)
        kk = simp(k)
        dest_t = self.p.types.get(id(s.dest))
        if isinstance(src, Coll) and z3.is_int_value(kk) and 0 <= kk.as_long() <= 32 and \
                isinstance(dest_t, tuple) and dest_t[0] == "list" and \
                isinstance(self.read(s.dest, st, me, env, cons), Coll) and len(src.items) <= MAX_EXACT_DRAW:
            for _ in range(kk.as_long()):
                src = self.read(s.source, st, me, env, cons)
                more = count(src.items) >= 1
                sel = z3.FreshInt("dealt")
                cons.append(z3.Implies(more, z3.Or([z3.And(sel == i, c) for i, (_, c) in enumerate(src.items)]
                                                   + [z3.BoolVal(False)])))
                item = src.items[-1][0] if src.items else None
                for i in range(len(src.items) - 2, -1, -1):
                    item = choose(sel == i, src.items[i][0], item)
                rest = Coll(src.kind, [(v, z3.And(c, z3.Or(z3.Not(more), sel != i)))
                                       for i, (v, c) in enumerate(src.items)])
                self.assign(s.source, rest, st, me, env, cons)
                if item is not None:
                    dst = self.read(s.dest, st, me, env, cons)
                    self.assign(s.dest, Coll(dst.kind, dst.items + [(item, more)]), st, me, env, cons)
            return
        n = size_of(src)
        moved = z3.If(k <= 0, 0, z3.If(k <= n, k, n))
        self.assign(s.source, Size(n - moved), st, me, env, cons)
        dst = self.read(s.dest, st, me, env, cons)
        self.assign(s.dest, Size(size_of(dst) + moved), st, me, env, cons)

    # ------------------------------------------------------------ places
    def key(self, lv: A.LValue, st):
        """The variable an assignment names: the phase's own first (as the checker reads it)."""
        k = ("phase", self.phase, lv.name)
        if k in st:
            return k
        if ("state", lv.name) in st:
            return ("state", lv.name)
        raise Unsupported(f"assignment to `{lv.name}`")

    def read(self, lv: A.LValue, st, me, env, cons):
        v = st[self.key(lv, st)]
        ev = self.eval(st, me, cons, in_effect=True)
        idx = list(lv.indices)
        if isinstance(v, list):
            v = pick(v, ev.ev(idx.pop(0), env))
        if idx:
            raise Unsupported("reading inside a collection")
        if not isinstance(v, (Size, Coll, SMap)):
            raise Unsupported(f"`{lv.name}` is not a collection")
        return v

    def assign(self, lv: A.LValue, value, st, me, env, cons):
        k = self.key(lv, st)
        ev = self.eval(st, me, cons, in_effect=True)
        idx = list(lv.indices)
        old = st[k]
        if isinstance(old, list):   # per player: the seat first
            p = ev.ev(idx.pop(0), env)
            new = [self.put(x, idx, value, ev, env, cons, lv.name) for x in old] if idx else [value] * len(old)
            st[k] = [choose(p == i, y, x) for i, (x, y) in enumerate(zip(old, new))]
            return
        st[k] = self.put(old, idx, value, ev, env, cons, lv.name) if idx else value

    def put(self, old, idx, value, ev, env, cons, name):
        """``old`` with the entry at ``idx`` set to ``value``: one entry more or
        the same number (exact for a map known entry by entry)."""
        if isinstance(old, SMap) and len(idx) == 1:
            return ev.make_map(old.entries + [(ev.ev(idx[0], env), value, TRUE)])
        if isinstance(old, (Size, Coll, SMap)):
            n = size_of(old)
            return fresh_size(f"{name}!put", cons, lo=n, hi=n + 1)
        raise Unsupported(f"assignment inside `{name}`")



def _written(body) -> list:
    """The variables (as lvalues) that statements may write, inner blocks included."""
    out = []
    for n in A.walk(tuple(body)):
        if isinstance(n, A.Assign):
            out.append(n.target)
        elif isinstance(n, A.Draw):
            out.append(n.source)
        elif isinstance(n, A.Deal):
            out += [n.source, n.dest]
    return out


def _can_end(body) -> bool:
    return any(isinstance(n, (A.Win, A.Tie)) for n in A.walk(tuple(body)))


def unconditional(prog, e, seen=None) -> bool:
    """Does evaluating ``e`` evaluate every part of it (no `if`, `and`, `or`,
    `match`, `cases` or filter that may skip one, in it or in a function it
    calls)? Only then may a partial operation in it be assumed to succeed."""
    seen = set() if seen is None else seen
    for n in A.walk(e):
        if isinstance(n, (A.IfExpr, A.Match, A.Cases)):
            return False
        if isinstance(n, A.BinOp) and n.op in ("and", "or"):
            return False
        if isinstance(n, A.CompFor) and n.conds:
            return False
        if isinstance(n, A.Call) and n.func in prog.defs and n.func not in seen:
            seen.add(n.func)
            if not unconditional(prog, prog.defs[n.func].body, seen):
                return False
    return True
