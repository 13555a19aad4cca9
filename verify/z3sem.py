"""The z3 meaning of the expression language.

``Z3Eval`` gives every pure expression a symbolic value, the second meaning
beside the Python one of the lowering (a hypothesis test checks that the two
agree). Integers are z3 Ints (unbounded: no silent overflow).

Symbolic values, by type:

* int, Player: a z3 Int; bool: a z3 Bool; str: a z3 String; enum: a z3 Int,
  the member's index;
* record (and Pos): a Python tuple of the fields' symbolic values; a tuple:
  a Python tuple of its items' symbolic values (fixed arity; equality and
  order item by item, as records);
* list, set, bag: a ``Coll``, a finite sequence of *guarded* items
  ``(value, condition)``: the collection holds the items whose condition is
  true, in order. Shapes are finite and known; contents and membership may be
  symbolic. Sets never hold two equal present items.
* map: an ``SMap`` of guarded ``(key, value, condition)`` entries, keys distinct;
* maybe: an ``Opt(has, val)``, a z3 Bool and the symbolic value it holds
  when true (an option type made of a flag and a value, as records are made
  of their fields); comparisons with a plain value are lifted.

What has no z3 meaning here (the game state, ``remove`` and ``swap``
on lists with symbolic membership, ...) raises ``Unsupported`` with the
reason; the verifier then says UNKNOWN, never "proved".
"""
from __future__ import annotations

import time
from itertools import combinations
from typing import Optional

import z3

from atoll.compiler import names as N
from atoll.compiler import stdlib
from atoll.compiler import types as T
from atoll.compiler.symbols import Program
from atoll.compiler.values import sort_values
from atoll.grammar import ast as A
from atoll.verify import fold
from atoll.verify import z3tiles


from atoll.verify.z3values import (  # noqa: F401 - shared with the rest of the z3 layer
    MAX_ITEMS, Unsupported, TRUE, FALSE, Coll, SMap, Opt, simp, is_true, eq, literal, SYMBOLIC,
    less, member, ite, dedupe, positions, count, floor_div, floor_mod)


#: Seconds that building the z3 meaning of one property may take.
BUILD_SECONDS = 60


class Z3Eval:
    """Evaluates expressions of a checked program for one instantiated game
    (whose constants, options and data are concrete)."""

    def __init__(self, prog: Program, game=None, depth_limit: int = 40, fold: bool = True):
        self.p = prog
        self.fold = fold
        # building the meaning of one property has a time limit of its own (z3's
        # timeout counts only its queries): past it, Unsupported, so UNKNOWN
        self._deadline = time.perf_counter() + BUILD_SECONDS
        self._calls = 0
        # Conditions the meaning needs (a map key present, a list index inside):
        # a checker that keeps this list proves them before it trusts a value;
        # None: a missing key or index gives any value of its type instead.
        self.obligations: Optional[list] = None
        self.path: list = []   # the conditions under which the expression now evaluated runs
        self.game = game
        self.depth = 0
        self.depth_limit = depth_limit
        self.fresh_count = 0

    # ------------------------------------------------------------ values
    def enum_index(self, enum: str, member: str) -> int:
        return self.p.enums[enum].members.index(member)

    def lift(self, t, v):
        """A concrete Python value (as the model holds it) to a symbolic one."""
        if isinstance(t, tuple) and t[0] == "maybe":
            return Opt(FALSE, None) if v is None else Opt(TRUE, self.lift(t[1], v))
        if t in (T.INT,) or (t == T.UNKNOWN and isinstance(v, int) and not isinstance(v, bool)):
            return z3.IntVal(v)
        if t == T.BOOL or isinstance(v, bool):
            return z3.BoolVal(v)
        if t == T.STR or isinstance(v, str):
            return z3.StringVal(v)
        kind = t[0]
        if kind == "enum":   # the model runs members as their index already
            return z3.IntVal(v)
        if kind == "record":
            return tuple(self.lift(ft, x) for (_, ft), x in zip(self.fields(t[1]), v))
        if kind == "tuple":
            return tuple(self.lift(it, x) for it, x in zip(t[1:], v))
        if kind in ("list", "bag"):
            return Coll(kind, [(self.lift(t[1], x), TRUE) for x in v])
        if kind == "set":
            return Coll("set", [(self.lift(t[1], x), TRUE) for x in sort_values(v)])
        if kind == "map":
            return SMap([(self.lift(t[1], k), self.lift(t[2], x), TRUE) for k, x in v.items()])
        raise Unsupported(f"values of type {T.show(t)}")

    def fields(self, record: str):
        if record == "Pos":
            return [("x", T.INT), ("y", T.INT)]
        from atoll.compiler.check import Checker
        from atoll.diagnostics import Reporter
        return Checker(self.p, Reporter()).record_fields(record)

    def concrete(self, t, s, model: Optional[z3.ModelRef] = None):
        """Back from a symbolic value to a Python value (under ``model``)."""
        def val(x):
            x = model.eval(x, model_completion=True) if model is not None else simp(x)
            if z3.is_int_value(x):
                return x.as_long()
            if z3.is_string_value(x):
                return x.as_string()
            if z3.is_true(x):
                return True
            if z3.is_false(x):
                return False
            raise Unsupported(f"{x} is not a concrete value")
        if t == T.INT:
            return val(s)
        if t == T.BOOL:
            return bool(val(s))
        if t == T.STR:
            return val(s)
        kind = t[0]
        if kind == "maybe":
            return self.concrete(t[1], s.val, model) if s.val is not None and val(s.has) else None
        if kind == "enum":
            return val(s)
        if kind == "record":
            return tuple(self.concrete(ft, x, model) for (_, ft), x in zip(self.fields(t[1]), s))
        if kind == "tuple":
            return tuple(self.concrete(it, x, model) for it, x in zip(t[1:], s))
        if kind in ("list", "bag", "set"):
            items = [self.concrete(t[1], v, model) for v, c in s.items if val(c)]
            if kind == "set":
                return frozenset(items)
            return tuple(sort_values(items)) if kind == "bag" else tuple(items)
        if kind == "map":
            return {self.concrete(t[1], k, model): self.concrete(t[2], v, model)
                    for k, v, c in s.entries if val(c)}
        raise Unsupported(f"values of type {T.show(t)}")

    def fresh(self, t, stem: str = "v"):
        """An unconstrained symbolic value of a scalar or record type."""
        self.fresh_count += 1
        name = f"{stem}!{self.fresh_count}"
        if t == T.INT:
            return z3.Int(name)
        if t == T.BOOL:
            return z3.Bool(name)
        if t == T.STR:
            return z3.String(name)
        if isinstance(t, tuple) and t[0] == "enum":
            return z3.Int(name)
        if isinstance(t, tuple) and t[0] == "record":
            return tuple(self.fresh(ft, f"{stem}.{fn}") for fn, ft in self.fields(t[1]))
        if isinstance(t, tuple) and t[0] == "tuple":
            return tuple(self.fresh(it, f"{stem}.{i}") for i, it in enumerate(t[1:]))
        if isinstance(t, tuple) and t[0] == "maybe":
            return Opt(z3.Bool(f"{name}.has"), self.fresh(t[1], f"{stem}.val"))
        raise Unsupported(f"a free value of type {T.show(t)}")

    def domain(self, t, s):
        """Constraints that a free value of type ``t`` is well-formed (enum range)."""
        if isinstance(t, tuple) and t[0] == "enum":
            return z3.And(s >= 0, s < len(self.p.enums[t[1]].members))
        if isinstance(t, tuple) and t[0] == "record":
            return z3.And([self.domain(ft, x) for (_, ft), x in zip(self.fields(t[1]), s)] + [TRUE])
        if isinstance(t, tuple) and t[0] == "tuple":
            return z3.And([self.domain(it, x) for it, x in zip(t[1:], s)] + [TRUE])
        if isinstance(t, tuple) and t[0] == "maybe" and s.val is not None:
            return self.domain(t[1], s.val)
        return TRUE

    # ------------------------------------------------------------ expressions
    def t(self, e):
        return self.p.types.get(id(e), T.UNKNOWN)

    def ite(self, c, a, b):
        return ite(c, a, b)

    def ev(self, e, env: dict):
        self._calls += 1
        if not self._calls & 1023 and time.perf_counter() > self._deadline:
            raise Unsupported(f"building the z3 meaning took more than {BUILD_SECONDS} s")
        if self.fold and self.game is not None and not isinstance(e, (A.IntLit, A.BoolLit, A.StrLit)):
            v = fold.folded(self, e)   # a closed subterm: its value in Python, lifted
            if v is not None:
                return v
        if isinstance(e, A.IntLit):
            return z3.IntVal(e.value)
        if isinstance(e, A.BoolLit):
            return z3.BoolVal(e.value)
        if isinstance(e, A.StrLit):
            return z3.StringVal(e.value)
        if isinstance(e, A.Name):
            return self.name(e, env)
        if isinstance(e, A.IfExpr):
            c = self.ev(e.cond, env)
            return self.ite(c, self.under(c, e.then, env), self.under(z3.Not(c), e.else_, env))
        if isinstance(e, A.Not):
            return z3.Not(self.ev(e.operand, env))
        if isinstance(e, A.Neg):
            return -self.ev(e.operand, env)
        if isinstance(e, A.BinOp):
            return self.binop(e, env)
        if isinstance(e, A.FieldAccess):
            rec = self.t(e.obj)
            names = [n for n, _ in self.fields(rec[1])]
            return self.ev(e.obj, env)[names.index(e.name)]
        if isinstance(e, A.Index):
            return self.index(e, env)
        if isinstance(e, A.Call):
            return self.call(e, env)
        if isinstance(e, A.Aggregate):
            return self.aggregate(e, env)
        if isinstance(e, A.ListLit):
            return Coll("list", [(self.ev(i, env), TRUE) for i in e.items])
        if isinstance(e, A.SetLit):
            return Coll("set", dedupe([(self.ev(i, env), TRUE) for i in e.items]))
        if isinstance(e, A.MapLit):
            return self.make_map([(self.ev(k, env), self.ev(v, env), TRUE)
                                  for k, v in zip(e.keys, e.values)])
        if isinstance(e, A.Comprehension):
            rows = self.rows(e.fors, env)
            if e.kind == "map":
                return self.make_map([(self.under(g, e.key, r), self.under(g, e.elem, r), g) for r, g in rows])
            items = [(self.under(g, e.elem, r), g) for r, g in rows]
            return Coll(e.kind, dedupe(items) if e.kind == "set" else items)
        if isinstance(e, A.With):
            return self.with_value(e, env)
        if isinstance(e, A.EmptyOf):
            return SMap([]) if e.type.name == "map" else Coll(e.type.name, [])
        if isinstance(e, A.Cases):
            out = self.fresh(self.t(e), "no_case")   # no case: any value (it is an error at run time)
            conds = []
            for arm in e.arms:   # a case is tried when the ones before it do not hold
                conds.append(self.under(z3.And([z3.Not(c) for c in conds] + [TRUE]), arm.cond, env))
            for i in range(len(e.arms) - 1, -1, -1):
                first = z3.And([conds[i]] + [z3.Not(c) for c in conds[:i]])
                out = self.ite(conds[i], self.under(first, e.arms[i].value, env), out)
            return out
        if isinstance(e, A.Match):
            s = self.ev(e.subject, env)
            st = self.t(e.subject)
            out = None
            for arm in reversed(e.arms):
                v = self.ev(arm.value, env)
                if out is None or arm.pattern is None:
                    out = v
                else:
                    pat = z3.IntVal(arm.pattern) if isinstance(arm.pattern, int) else \
                        z3.IntVal(self.enum_index(st[1], arm.pattern))
                    out = self.ite(s == pat, v, out)
            return out
        if isinstance(e, A.TupleLit):
            return tuple(self.ev(i, env) for i in e.items)
        if isinstance(e, A.LetExpr):   # each value once, bound in what follows (substitution)
            for b in e.bindings:
                env = {**env, **self.bind(b, self.ev(b.value, env))}
            return self.ev(e.body, env)
        raise Unsupported(f"the form {type(e).__name__}")  # pragma: no cover

    def bind(self, node, v) -> dict:
        """The names a binding binds, to ``v`` or to its items (a tuple taken apart)."""
        if node.names:
            return dict(zip(node.names, v))
        return {A.bound_names(node)[0]: v}

    def with_value(self, e: A.With, env: dict):
        """``m with {k: v}``: the entries of ``m`` then the new ones (later
        entries win, see ``make_map``); a record: its fields, some replaced."""
        t = self.t(e)
        obj = self.ev(e.obj, env)
        if isinstance(t, tuple) and t[0] == "record" and isinstance(obj, (tuple, list)):   # (list: see abstraction.choose)
            names = [n for n, _ in self.fields(t[1])]
            out = list(obj)
            for k, v in zip(e.keys, e.values):
                out[names.index(k.name)] = self.ev(v, env)
            return tuple(out)
        if not isinstance(obj, SMap):
            raise Unsupported("`with` on a map whose entries are not known here")
        return self.make_map(obj.entries + [(self.ev(k, env), self.ev(v, env), TRUE)
                                            for k, v in zip(e.keys, e.values)])

    def make_map(self, entries):
        """Later entries win for equal keys, as in the Python meaning. Keys
        written out as literals are compared here (a later entry with another
        literal key never hides this one): the same conditions, without a
        z3 term for every pair."""
        keys = [literal(k) for k, _, _ in entries]
        out = []
        for j, (k, v, c) in enumerate(entries):
            lk = keys[j]
            later = []
            for j2 in range(j + 1, len(entries)):
                l2 = keys[j2]
                if lk is SYMBOLIC or l2 is SYMBOLIC:
                    later.append(z3.And(entries[j2][2], eq(entries[j2][0], k)))
                elif l2 == lk:
                    later.append(entries[j2][2])
            out.append((k, v, z3.And(c, z3.Not(z3.Or(later))) if later else c))
        return SMap(out)

    def name(self, e: A.Name, env: dict):
        ref = self.p.refs[id(e)]
        kind = ref[0]
        if kind == "local":
            if ref[1] not in env:
                raise Unsupported(f"`{ref[1]}` has no value here")
            return env[ref[1]]
        if kind == "member":
            return z3.IntVal(self.enum_index(ref[1], ref[2]))
        if kind in ("const", "option", "data"):
            if self.game is None:
                raise Unsupported("constants need a player count and options")
            return self.lift(self.t(e), self.game.ns[N.value(ref[1])])
        if kind == "builtin" and ref[1] == "none":
            return Opt(FALSE, None)
        if kind == "builtin":
            if self.game is None:
                raise Unsupported("the players need a player count")
            n = self.game.num_players
            if ref[1] in ("players", "seats"):
                return Coll("list", [(z3.IntVal(p), TRUE) for p in range(n)])
            if ref[1] == "player_count":
                return z3.IntVal(n)
        raise Unsupported(f"`{e.name}` reads the game state; properties over pure rules cannot")

    def binop(self, e: A.BinOp, env):
        a = self.ev(e.left, env)
        if e.op in ("and", "or"):   # the right side is evaluated only when it decides
            return self.binop_values(e, a, self.under(a if e.op == "and" else z3.Not(a), e.right, env))
        return self.binop_values(e, a, self.ev(e.right, env))

    def under(self, cond, e, env):
        """``e`` evaluated where ``cond`` holds (what it needs is needed only there)."""
        self.path.append(cond)
        try:
            return self.ev(e, env)
        finally:
            self.path.pop()

    def binop_values(self, e: A.BinOp, a, b):
        op = e.op
        if op == "and":
            return z3.And(a, b)
        if op == "or":
            return z3.Or(a, b)
        if op == "==":
            return eq(a, b)
        if op == "!=":
            return z3.Not(eq(a, b))
        if op in ("<", "<=", ">", ">="):
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if op == "in":
            return member(b, a)
        if op == "notin":
            return z3.Not(member(b, a))
        if isinstance(a, Coll):
            if op == "+":
                if a.kind == "set":
                    return Coll("set", a.items + [(v, z3.And(c, z3.Not(member(a, v)))) for v, c in b.items])
                if a.kind == "bag":
                    return Coll("bag", self.sorted_items(a.items + b.items))
                return Coll(a.kind, a.items + b.items)
            if op == "-" and a.kind == "set":
                return Coll("set", [(v, z3.And(c, z3.Not(member(b, v)))) for v, c in a.items])
            raise Unsupported(f"`{op}` on {a.kind}s")
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return floor_div(a, b)
        if op == "%":
            return floor_mod(a, b)
        raise Unsupported(op)  # pragma: no cover

    def index(self, e: A.Index, env):
        t = self.t(e.obj)
        obj = self.ev(e.obj, env)
        if isinstance(t, tuple) and t[0] == "tuple":   # a number written out, within its items
            return obj[e.key.value]
        key = self.ev(e.key, env)
        if isinstance(obj, SMap):
            if not obj.entries:
                raise Unsupported("looking up an empty map")
            entries = obj.entries
            if self.obligations is not None:   # the key must be there (the checker proves it)
                self.oblige(member(obj, key), "a map key")
                out, entries = entries[-1][1], entries[:-1]
            else:
                out = self.fresh(t[2], "missing")   # a missing key: any value
            lkey = literal(key)
            for k, v, c in reversed(entries):
                if lkey is not SYMBOLIC and literal(k) not in (SYMBOLIC, lkey):
                    continue   # another key, written out: never this entry
                out = self.ite(z3.And(c, eq(k, key)), v, out)
            return out
        if isinstance(obj, Coll):   # the key-th present item
            return self._first_match(obj, key, t[1])
        raise Unsupported("indexing this value")

    def _first_match(self, obj: Coll, key, elem_t):
        pos = z3.IntVal(0)
        pairs = []
        for v, c in obj.items:
            pairs.append((z3.And(c, pos == key), v))
            pos = pos + z3.If(c, 1, 0)
        if self.obligations is not None and pairs:   # the index must be inside (the checker proves it)
            self.oblige(z3.And(key >= 0, key < pos), "a list index")
            out, pairs = pairs[-1][1], pairs[:-1]
        else:
            out = self.fresh(elem_t, "outside")   # outside the list: any value
        for cond, v in reversed(pairs):
            out = self.ite(cond, v, out)
        return out

    def oblige(self, cond, what: str):
        """Record a condition the value just built needs (``what``: a key
        present, an index inside), where the evaluation gets to it."""
        self.obligations.append(z3.Implies(z3.And(self.path), cond) if self.path else cond)

    def rows(self, fors, env):
        """The environments a comprehension's ``for``s generate, each with its guard."""
        rows = [(env, TRUE)]
        for f in fors:
            new = []
            for r, g in rows:
                coll = self.ev(f.iter, r)
                items = coll.items if isinstance(coll, Coll) else [(k, c) for k, _, c in coll.entries]
                if not T.is_ordered_iteration(self.t(f.iter)):
                    items = self.sorted_items(items)
                for v, c in items:
                    if z3.is_false(simp(c)):
                        continue
                    r2 = {**r, **self.bind(f, v)}
                    guard = z3.And(g, c)
                    for cond in f.conds:   # each filter is evaluated where the ones before hold
                        guard = z3.And(guard, self.under(guard, cond, r2))
                    new.append((r2, guard))
            rows = new
        return rows

    def sorted_items(self, items):
        """Items in increasing order (sets and maps iterate so). Concrete items
        are sorted here; symbolic ones by rank: the j-th output is the item
        whose rank (present items before it in the order, ties by position)
        is j."""
        try:
            keyed = [(self._concrete_any(v), v, c) for v, c in items]
            keyed.sort(key=lambda x: x[0])
            return [(v, c) for _, v, c in keyed]
        except Unsupported:
            pass
        if len(items) <= 1:
            return items
        ranks = []
        for i, (v, c) in enumerate(items):
            before = [z3.And(c2, z3.Or(less(v2, v), eq(v2, v)) if k < i else z3.And(c2, less(v2, v)))
                      for k, (v2, c2) in enumerate(items) if k != i]
            ranks.append(z3.Sum([z3.If(b, 1, 0) for b in before]))
        n_present = count(items)
        out = []
        for j in range(len(items)):
            val = items[-1][0]
            for i in range(len(items) - 2, -1, -1):
                val = ite(z3.And(items[i][1], ranks[i] == j), items[i][0], val)
            out.append((val, n_present > j))
        return out

    def _concrete_any(self, v):
        if isinstance(v, Opt):   # (sorted by rank instead: see sorted_items)
            raise Unsupported("an optional item")
        if isinstance(v, tuple):
            return tuple(self._concrete_any(x) for x in v)
        x = simp(v)
        if z3.is_int_value(x):
            return x.as_long()
        if z3.is_string_value(x):
            return x.as_string()
        if z3.is_true(x) or z3.is_false(x):
            return z3.is_true(x)
        raise Unsupported("symbolic item")

    def aggregate(self, e: A.Aggregate, env):
        rows = self.rows(e.fors, env)
        f = e.func
        if f == "count":
            return z3.Sum([z3.If(g, 1, 0) for _, g in rows]) if rows else z3.IntVal(0)
        vals = [(self.under(g, e.elem, r), g) for r, g in rows]
        if f == "sum":
            return z3.Sum([z3.If(g, v, 0) for v, g in vals]) if vals else z3.IntVal(0)
        if f == "all":
            return z3.And([z3.Implies(g, v) for v, g in vals] + [TRUE])
        if f == "any":
            return z3.Or([z3.And(g, v) for v, g in vals] + [FALSE])
        if f in ("min", "max"):
            acc, seen = z3.IntVal(0), FALSE
            for v, g in vals:
                better = (v < acc) if f == "min" else (v > acc)
                acc = z3.If(g, z3.If(z3.Or(z3.Not(seen), better), v, acc), acc)
                seen = z3.Or(seen, g)
            return acc
        raise Unsupported(f)  # pragma: no cover

    # ------------------------------------------------------------ calls
    def call(self, e: A.Call, env):
        ref = self.p.refs.get(id(e))
        kind = ref[0]
        if kind == "record":
            if e.named:
                given = {n.name: n.value for n in e.named}
                return tuple(self.ev(given[n], env) for n, _ in self.fields(ref[1]))
            return tuple(self.ev(a, env) for a in e.args)
        if kind == "def":
            d = self.p.defs[ref[1]]
            if self.depth >= self.depth_limit:
                raise Unsupported(f"`{d.name}` calls itself too deeply")
            args = [self.ev(a, env) for a in e.args]
            self.depth += 1
            try:
                return self.ev(d.body, {q.name: v for q, v in zip(d.params, args)})
            finally:
                self.depth -= 1
        if kind == "team_of":
            if self.game is None:
                raise Unsupported("teams need a player count")
            p = self.ev(e.args[0], env)
            out = None
            for q in range(self.game.num_players):
                team = Coll("list", [(z3.IntVal(x), TRUE) for x in self.game.team_of.get(q, (q,))])
                out = team if out is None else ite(p == q, team, out)
            return out
        if kind == "can":
            raise Unsupported("`can` reads the game state")
        if kind == "stdlib":
            return self.stdlib(ref[1], e, [self.ev(a, env) for a in e.args])
        raise Unsupported(str(ref))  # pragma: no cover

    def stdlib(self, name: str, e: A.Call, args):
        ts = [self.t(a) for a in e.args]
        if name == "size":
            c = args[0]
            return count(c.items) if isinstance(c, Coll) else count([(k, g) for k, _, g in c.entries])
        if name == "keys":
            return Coll("set", [(k, g) for k, _, g in args[0].entries])
        if name == "get":
            m, k, d = args
            out = d
            for kk, v, c in reversed(m.entries):
                out = ite(z3.And(c, eq(kk, k)), v, out)
            return out
        if name == "abs":
            return z3.If(args[0] < 0, -args[0], args[0])
        if name == "min2":
            return z3.If(args[0] <= args[1], args[0], args[1])
        if name == "max2":
            return z3.If(args[0] >= args[1], args[0], args[1])
        if name == "some":
            return Opt(TRUE, args[0])
        if name == "value_or":
            m, d = args
            return d if m.val is None else ite(m.has, m.val, d)
        if name == "pos":
            return (args[0], args[1])
        if name == "orth":
            x, y = args[0]
            return Coll("list", [((x, y - 1), TRUE), ((x + 1, y), TRUE), ((x, y + 1), TRUE),
                                 ((x - 1, y), TRUE)])
        if name == "around":
            x, y = args[0]
            return Coll("list", [((x + dx, y + dy), TRUE) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                                 if dx or dy])
        if name == "distinct":
            return Coll("set", dedupe(args[0].items))
        if name == "bag":   # a bag keeps its items in increasing order, as the model does
            items = args[0].items if isinstance(args[0], Coll) else [(k, g) for k, _, g in args[0].entries]
            return Coll("bag", self.sorted_items(items))
        if name == "count_of":
            c, x = args
            return z3.Sum([z3.If(z3.And(g, eq(v, x)), 1, 0) for v, g in c.items] + [z3.IntVal(0)])
        if name == "without":
            xs, ys = args
            return Coll(xs.kind, [(v, z3.And(g, z3.Not(member(ys, v)))) for v, g in xs.items])
        if name == "without_keys":
            m, ks = args
            return SMap([(k, v, z3.And(g, z3.Not(member(ks, k)))) for k, v, g in m.entries])
        if name in ("sorted", "to_list"):
            items = args[0].items if isinstance(args[0], Coll) else [(k, g) for k, _, g in args[0].entries]
            if name == "to_list" and T.is_ordered_iteration(ts[0]):
                return Coll("list", list(items))
            return Coll("list", self.sorted_items(items))
        if name in ("lines", "collinear_subsets", "range", "between", "subsets"):
            return self.geometric(name, args, ts)
        if name in z3tiles.SYMBOLIC or name in z3tiles.SHAPE:
            return z3tiles.call(self, name, args)
        if name in CONCRETE_ONLY:
            return self.concrete_call(name, args, ts, e)
        raise Unsupported(f"`{name}` has no z3 meaning yet")

    def geometric(self, name, args, ts):
        """Functions of the *shape* of their input: the items must be concrete,
        their presence may be symbolic."""
        if name in ("range", "between"):
            vals = [self._concrete_any(a) for a in args]
            lo, hi = (0, vals[0] - 1) if name == "range" else vals
            if hi - lo >= MAX_ITEMS:
                raise Unsupported(f"`{name}` of more than {MAX_ITEMS} items")
            return Coll("list", [(z3.IntVal(i), TRUE) for i in range(lo, hi + 1)])
        coll = args[0]
        try:
            universe = [(self._concrete_any(v), c) for v, c in coll.items if not z3.is_false(simp(c))]
        except Unsupported:
            raise Unsupported(f"`{name}` of positions that are symbolic") from None
        present = {}
        for v, c in universe:
            present[v] = z3.Or(present.get(v, FALSE), c)
        if name == "subsets":
            elems = sorted(present)
            if len(elems) > 14:
                raise Unsupported("subsets of more than 14 items")
            out = []
            for k in range(len(elems) + 1):
                for combo in combinations(elems, k):
                    out.append((Coll("set", [(self._lift_plain(x), TRUE) for x in combo]),
                                z3.And([present[x] for x in combo] + [TRUE])))
            return Coll("list", out)
        if name == "lines":
            return self.lines(present)
        if sum(2 ** len(line) for line in stdlib.FUNCTIONS["lines"][0](frozenset(present))) > MAX_ITEMS:
            raise Unsupported(f"`{name}` of more than {MAX_ITEMS} groups")
        out = []   # every subset of 2+ cells of a line of the candidates, present when all its cells are
        for group in stdlib.FUNCTIONS[name][0](frozenset(present)):
            guard = z3.And([present[x] for x in group])
            out.append((Coll("set", [(self._lift_plain(x), TRUE) for x in sorted(group)]), guard))
        return Coll("list", out)

    def lines(self, present: dict):
        """The maximal groups of the present cells on one line: for each line
        through the candidates, its present cells, when there are 2 or more
        (in the order of the Python meaning: by direction, then by key)."""
        groups: dict = {}
        for cell in present:
            x, y = cell
            for d, key in enumerate((y, x, y - x, y + x)):
                groups.setdefault((d, key), []).append(cell)
        out = []
        for k in sorted(groups):
            cells = sorted(groups[k])
            if len(cells) < 2:
                continue
            n = z3.Sum([z3.If(present[c], 1, 0) for c in cells])
            out.append((Coll("list", [(self._lift_plain(c), present[c]) for c in cells]), n >= 2))
        return Coll("list", out)

    def _lift_plain(self, x):
        if isinstance(x, tuple):
            return tuple(self._lift_plain(y) for y in x)
        if isinstance(x, bool):
            return z3.BoolVal(x)
        if isinstance(x, str):
            return z3.StringVal(x)
        return z3.IntVal(x)

    def concrete_call(self, name, args, ts, e):
        """Functions with a Python meaning only: fine when every input is concrete."""
        try:
            py = [self.concrete(t, a) for t, a in zip(ts, args)]
        except Unsupported:
            raise Unsupported(f"`{name}` on values that are symbolic") from None
        return self.lift(self.t(e), stdlib.FUNCTIONS[name][0](*py))


# Forms and functions with a symbolic meaning (the agreement test covers
# these); the others need concrete arguments.
SYMBOLIC_FUNCTIONS = {"size", "keys", "get", "abs", "min2", "max2", "pos", "orth", "around",
                      "distinct", "bag", "count_of", "without", "without_keys", "sorted", "to_list",
                      "some", "value_or"} | z3tiles.SYMBOLIC
SHAPE_FUNCTIONS = {"lines", "collinear_subsets", "range", "between", "subsets"} | z3tiles.SHAPE
CONCRETE_ONLY = {"remove", "swap", "values", "span_covered", "collinear_subsets_summing", "reach",
                 "components", "connected", "seats_from", "planar", "dice", "graph"}
