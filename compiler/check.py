"""Static checks: names (with did-you-mean), types and arity.

``check_types`` walks every expression and statement once, records the type
of each expression and what each name denotes in the program's side tables,
and reports every problem it finds (it never stops at the first one).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from atoll.compiler import stdlib
from atoll.compiler import check_effects, check_maybe, check_with
from atoll.compiler import types as T
from atoll.compiler.check_chance import check_action_invariant, check_chance_property
from atoll.compiler.check_let import LetTupleChecks
from atoll.compiler.check_records import check_record_cycles
from atoll.compiler.symbols import Program
from atoll.diagnostics import Reporter, did_you_mean
from atoll.grammar import ast as A

BASE_TYPES = {"int": T.INT, "bool": T.BOOL, "str": T.STR, "Player": T.INT, "Pos": T.POS}


@dataclass(frozen=True)
class Ctx:
    """Where an expression stands: what it may read."""
    where: str                      # e.g. "constant `victory`", for messages
    state: bool = True              # may read the state
    me: bool = False                # inside a phase or action
    phase: Optional[str] = None     # phase variables visible
    phase_refs: bool = False        # `phase.var` reads a phase's variable (in properties)
    locals: dict = field(default_factory=dict)

    def bind(self, name: str, t) -> "Ctx":
        """``replace(self, locals=...)``: every field copied, ``locals`` with
        ``name`` bound (a copy of the instance's fields: no field is computed
        in ``__init__``, so no ``replace`` and its walk over the fields)."""
        new = object.__new__(Ctx)
        d = new.__dict__
        d.update(self.__dict__)
        d["locals"] = {**self.locals, name: t}
        return new


class Checker(LetTupleChecks):
    def __init__(self, prog: Program, rep: Reporter):
        self.p = prog
        self.rep = rep

    # ------------------------------------------------------------ types
    def resolve(self, tr: A.TypeRef):
        if tr.name == "tuple":
            return self.tuple_type(tr)
        if tr.name == "maybe":
            return check_maybe.maybe_type(self, tr)
        if tr.name in T.GENERIC_ARITY:
            n = T.GENERIC_ARITY[tr.name]
            if len(tr.args) != n:
                self.rep.add("A0104", f"`{tr.name}` takes {n} type argument{'s' * (n > 1)}",
                             tr.span, f"write `{tr.name}[{', '.join(['T'] * n)}]`")
                return T.UNKNOWN
            return (tr.name,) + tuple(self.resolve(a) for a in tr.args)
        if tr.args:
            self.rep.add("A0104", f"type `{tr.name}` takes no type arguments", tr.span)
        if tr.name in BASE_TYPES:
            return BASE_TYPES[tr.name]
        if tr.name in self.p.enums:
            return ("enum", tr.name)
        if tr.name in self.p.records:
            return ("record", tr.name)
        names = list(BASE_TYPES) + list(T.GENERIC_ARITY) + list(self.p.enums) + list(self.p.records)
        names += ["tuple", "maybe"]
        self.rep.add("A0101", f"unknown type `{tr.name}`", tr.span, did_you_mean(tr.name, names))
        return T.UNKNOWN

    def record_fields(self, name: str) -> list[tuple[str, object]]:
        if name == "Pos":
            return [("x", T.INT), ("y", T.INT)]
        rec = self.p.records.get(name)
        return [(f.name, self.resolve(f.type)) for f in rec.fields] if rec else []

    def expect(self, want, got, span, what: str) -> None:
        if not T.compatible(want, got):
            self.rep.add("A0103", f"{what} must be {T.show(want)}, but this is {T.show(got)}", span,
                         check_maybe.mismatch_hint(want, got))

    # ------------------------------------------------------------ names
    def visible_names(self, ctx: Ctx) -> list[str]:
        names = list(ctx.locals) + list(self.p.consts) + list(self.p.options) + \
            list(self.p.data) + list(self.p.members) + list(stdlib.BUILTIN_VALUES)
        if ctx.state:
            names += list(self.p.state)
        if ctx.phase:
            names += [v.name for v in self.p.phases[ctx.phase].vars]
        if ctx.me:
            names.append("me")
        return names

    def name(self, e: A.Name, ctx: Ctx):
        n = e.name
        p = self.p
        if n in ctx.locals:
            self.p.refs[id(e)] = ("local", n)
            return ctx.locals[n]
        if ctx.phase and p.phase_var(ctx.phase, n):
            self.p.refs[id(e)] = ("phase", ctx.phase, n)
            return self.resolve(p.phase_var(ctx.phase, n).type)
        if n in p.state:
            if not ctx.state:
                self.rep.add("A0101", f"the {ctx.where} cannot read the state variable `{n}`",
                             e.span, "constants, options and requirements are fixed before the game "
                             "starts; use a `def` to compute from the state")
                return T.UNKNOWN
            v = p.state[n]
            self.p.refs[id(e)] = ("state", n)
            t = self.resolve(v.type)
            return ("player", t) if v.scope == "player" else t
        for table, kind in ((p.consts, "const"), (p.options, "option"), (p.data, "data")):
            if n in table:
                self.p.refs[id(e)] = (kind, n)
                self.p.used.add(n)
                return self.resolve(table[n].type)
        if n in p.members:
            self.p.refs[id(e)] = ("member", p.members[n], n)
            return ("enum", p.members[n])
        if n in stdlib.BUILTIN_VALUES:
            if n == "current_round" and not ctx.state:
                self.rep.add("A0101", f"the {ctx.where} cannot read `current_round`", e.span,
                             "it changes during the game; constants are fixed before it starts")
                return T.UNKNOWN
            self.p.refs[id(e)] = ("builtin", n)
            return stdlib.BUILTIN_VALUES[n][0]
        if n == "me":
            if ctx.me:
                self.p.refs[id(e)] = ("me",)
                return T.INT
            hint = ("a property is about states, and a state at a chance step or at the end has no "
                    "player to move: keep whose turn it is in a global `Player` variable (the flow "
                    "keeps one for you with `turns round seats from active ...`) and name it, or "
                    "quantify over `players`" if ctx.where.startswith("property") else
                    "a procedure sees its parameters and the game's names: give it a `p: Player` "
                    "parameter and pass `me` in the call" if ctx.where.startswith(("procedure", "trigger")) else
                    "`me` is the player whose turn it is: it exists inside phases and "
                    "actions; give a `def` a `p: Player` parameter instead")
            self.rep.add("A0101", f"`me` is not defined in the {ctx.where}", e.span, hint)
            return T.UNKNOWN
        if n in p.actions and ctx.me:
            self.rep.add("A0103", f"action `{n}` is not a value", e.span,
                         f"to ask whether it can be taken, write `can({n})`")
            return T.UNKNOWN
        hint = did_you_mean(n, self.visible_names(ctx))
        if not hint and ctx.phase is None:
            for ph in p.phases.values():
                if any(v.name == n for v in ph.vars):
                    hint = f"`{n}` is a variable of phase `{ph.name}` and exists only there"
        self.rep.add("A0101", f"unknown name `{n}`", e.span, hint)
        return T.UNKNOWN

    # ------------------------------------------------------------ expressions
    def expr(self, e, ctx: Ctx):
        t = self._expr(e, ctx)
        self.p.types[id(e)] = t
        return t

    def _expr(self, e, ctx: Ctx):
        # (the node classes are disjoint: the most frequent are asked first)
        if isinstance(e, A.Name):
            return self.name(e, ctx)
        if isinstance(e, A.BinOp):
            return self.binop(e, ctx)
        if isinstance(e, A.Call):
            return self.call(e, ctx)
        if isinstance(e, A.IntLit):
            return T.INT
        if isinstance(e, A.BoolLit):
            return T.BOOL
        if isinstance(e, A.StrLit):
            return T.STR
        if isinstance(e, A.IfExpr):
            self.expect(T.BOOL, self.expr(e.cond, ctx), e.cond.span, "a condition")
            a, b = self.expr(e.then, ctx), self.expr(e.else_, ctx)
            if not (T.compatible(a, b) or T.compatible(b, a)):
                self.rep.add("A0103", f"the two branches differ: {T.show(a)} and {T.show(b)}", e.span)
            return T.join(a, b)
        if isinstance(e, A.Not):
            self.expect(T.BOOL, self.expr(e.operand, ctx), e.operand.span, "the operand of `not`")
            return T.BOOL
        if isinstance(e, A.Neg):
            self.expect(T.INT, self.expr(e.operand, ctx), e.operand.span, "the operand of `-`")
            return T.INT
        if isinstance(e, A.FieldAccess):
            if ctx.phase_refs and isinstance(e.obj, A.Name) and e.obj.name in self.p.phases \
                    and e.obj.name not in ctx.locals:
                v = self.p.phase_var(e.obj.name, e.name)
                if v is None:
                    self.rep.add("A0105", f"phase `{e.obj.name}` has no variable `{e.name}`", e.span,
                                 did_you_mean(e.name, [x.name for x in self.p.phases[e.obj.name].vars]))
                    return T.UNKNOWN
                self.p.refs[id(e)] = ("phase", e.obj.name, e.name)
                return self.resolve(v.type)
            t = self.expr(e.obj, ctx)
            if t == T.UNKNOWN:
                return T.UNKNOWN
            if not (isinstance(t, tuple) and t[0] == "record"):
                self.rep.add("A0105", f"{T.show(t)} has no fields", e.span, check_maybe.no_fields_hint(t))
                return T.UNKNOWN
            fields_ = dict(self.record_fields(t[1]))
            if e.name not in fields_:
                self.rep.add("A0105", f"{t[1]} has no field `{e.name}`", e.span,
                             did_you_mean(e.name, fields_))
                return T.UNKNOWN
            return fields_[e.name]
        if isinstance(e, A.Index):
            return self.index(e, ctx)
        if isinstance(e, A.Aggregate):
            return self.aggregate(e, ctx)
        if isinstance(e, A.ListLit):
            return ("list", self.items(e.items, ctx))
        if isinstance(e, A.SetLit):
            return ("set", self.items(e.items, ctx))
        if isinstance(e, A.MapLit):
            return ("map", self.items(e.keys, ctx), self.items(e.values, ctx))
        if isinstance(e, A.Comprehension):
            inner = self.fors(e.fors, ctx)
            elem = self.expr(e.elem, inner)
            if e.kind == "map":
                return ("map", self.expr(e.key, inner), elem)
            return (e.kind, elem)
        if isinstance(e, A.Match):
            return self.match(e, ctx)
        if isinstance(e, A.TupleLit):
            return ("tuple",) + tuple(self.expr(i, ctx) for i in e.items)
        if isinstance(e, A.LetExpr):
            return self.let_expr(e, ctx)
        if isinstance(e, A.With):
            return check_with.with_expr(self, e, ctx)
        if isinstance(e, A.EmptyOf):
            return check_with.empty_of(self, e)
        if isinstance(e, A.Cases):
            result, seen = T.UNKNOWN, {}
            for arm in e.arms:
                if arm.name in seen:
                    self.rep.add("A0102", f"case `{arm.name}` is named twice", arm.span)
                seen[arm.name] = arm
                self.expect(T.BOOL, self.expr(arm.cond, ctx), arm.cond.span, "a case's condition")
                t = self.expr(arm.value, ctx)
                if not (T.compatible(result, t) or T.compatible(t, result)):
                    self.rep.add("A0103", f"cases differ: {T.show(result)} and {T.show(t)}",
                                 arm.value.span)
                result = T.join(result, t)
            return result
        raise AssertionError(f"unhandled expression {type(e).__name__}")  # pragma: no cover

    def items(self, items, ctx):
        t = T.UNKNOWN
        for it in items:
            u = self.expr(it, ctx)
            if not (T.compatible(t, u) or T.compatible(u, t)):
                self.rep.add("A0103", f"items of one collection must have one type: "
                             f"{T.show(t)} and {T.show(u)}", it.span)
            t = T.join(t, u)
        return t

    def binop(self, e: A.BinOp, ctx: Ctx):
        a, b = self.expr(e.left, ctx), self.expr(e.right, ctx)
        op = e.op
        if op in ("and", "or"):
            self.expect(T.BOOL, a, e.left.span, f"the left side of `{op}`")
            self.expect(T.BOOL, b, e.right.span, f"the right side of `{op}`")
            return T.BOOL
        if op in ("==", "!="):
            if not (T.compatible(a, b) or T.compatible(b, a) or check_maybe.lifted(a, b)):
                self.rep.add("A0103", f"cannot compare {T.show(a)} with {T.show(b)}", e.span)
            return T.BOOL
        if op in ("<", "<=", ">", ">="):
            self.expect(T.INT, a, e.left.span, f"the left side of `{op}`")
            self.expect(T.INT, b, e.right.span, f"the right side of `{op}`")
            return T.BOOL
        if op in ("in", "notin"):
            if b != T.UNKNOWN and not T.is_collection(b):
                self.rep.add("A0103", f"`in` needs a collection on its right, not {T.show(b)}",
                             e.right.span)
            elif not (T.compatible(T.element(b), a) or check_maybe.lifted(a, T.element(b))):
                self.rep.add("A0103", f"{T.show(a)} cannot be in a {T.show(b)}", e.span)
            return T.BOOL
        if op in ("+", "-"):
            if a == T.INT or b == T.INT or (a == T.UNKNOWN and b == T.UNKNOWN):
                self.expect(T.INT, a, e.left.span, f"the left side of `{op}`")
                self.expect(T.INT, b, e.right.span, f"the right side of `{op}`")
                return T.INT
            if isinstance(a, tuple) and a[0] in ("list", "set", "bag") and T.compatible(a, b):
                if op == "-" and a[0] == "list":
                    self.rep.add("A0103", "`-` on lists is not defined", e.span,
                                 "use `without(xs, ys)` or `remove(xs, x)`")
                return T.join(a, b)
            self.rep.add("A0103", f"`{op}` is not defined for {T.show(a)} and {T.show(b)}", e.span,
                         "`+` adds ints and joins two lists, sets or bags of one type")
            return T.UNKNOWN
        if op in ("*", "/", "%"):
            self.expect(T.INT, a, e.left.span, f"the left side of `{op}`")
            self.expect(T.INT, b, e.right.span, f"the right side of `{op}`")
            return T.INT
        raise AssertionError(op)  # pragma: no cover

    def index(self, e: A.Index, ctx: Ctx):
        t = self.expr(e.obj, ctx)
        k = self.expr(e.key, ctx)
        if t == T.UNKNOWN:
            return T.UNKNOWN
        if isinstance(t, tuple) and t[0] == "tuple":
            return self.tuple_item(e, t)
        if isinstance(t, tuple) and t[0] == "player":
            self.expect(T.INT, k, e.key.span, "a per-player variable's index (a player)")
            return t[1]
        if isinstance(t, tuple) and t[0] == "list":
            self.expect(T.INT, k, e.key.span, "a list index")
            return t[1]
        if isinstance(t, tuple) and t[0] == "map":
            self.expect(t[1], k, e.key.span, "this map's key")
            return t[2]
        self.rep.add("A0103", f"{T.show(t)} cannot be indexed", e.span,
                     "lists take an int, maps a key, per-player variables a player")
        return T.UNKNOWN

    def fors(self, fors, ctx: Ctx) -> Ctx:
        for f in fors:
            it = self.expr(f.iter, ctx)
            if it != T.UNKNOWN and not T.is_collection(it):
                self.rep.add("A0103", f"cannot iterate over {T.show(it)}", f.iter.span,
                             "iterate over a list, set, bag or map (its keys)")
            ctx = self.bind_target(f, T.element(it), ctx)
            for c in f.conds:
                self.expect(T.BOOL, self.expr(c, ctx), c.span, "a filter")
        return ctx

    def aggregate(self, e: A.Aggregate, ctx: Ctx):
        if e.func not in stdlib.AGGREGATES:
            self.rep.add("A0101", f"`{e.func}` is not an aggregate", e.span,
                         did_you_mean(e.func, stdlib.AGGREGATES) or
                         "aggregates are " + ", ".join(stdlib.AGGREGATES))
            return T.UNKNOWN
        need, result, _ = stdlib.AGGREGATES[e.func]
        inner = self.fors(e.fors, ctx)
        t = self.expr(e.elem, inner)
        if need:
            self.expect(need, t, e.elem.span, f"what `{e.func}` adds up")
        return result

    def match(self, e: A.Match, ctx: Ctx):
        s = self.expr(e.subject, ctx)
        result = T.UNKNOWN
        seen_default = False
        for arm in e.arms:
            if arm.pattern is None:
                seen_default = True
            elif isinstance(arm.pattern, int):
                self.expect(s, T.INT, arm.span, "a pattern of this match")
            else:
                if arm.pattern not in self.p.members:
                    self.rep.add("A0101", f"unknown enum member `{arm.pattern}`", arm.span,
                                 did_you_mean(arm.pattern, self.p.members))
                else:
                    self.expect(s, ("enum", self.p.members[arm.pattern]), arm.span,
                                "a pattern of this match")
            t = self.expr(arm.value, ctx)
            if not (T.compatible(result, t) or T.compatible(t, result)):
                self.rep.add("A0103", f"match arms differ: {T.show(result)} and {T.show(t)}",
                             arm.value.span)
            result = T.join(result, t)
        if not seen_default:
            if isinstance(s, tuple) and s[0] == "enum":
                missing = [m for m in self.p.enums[s[1]].members
                           if m not in [a.pattern for a in e.arms]]
                if missing:
                    self.rep.add("A0103", f"this match misses {', '.join(missing)}", e.span,
                                 "cover every member or add `_ => ...`")
            elif s != T.UNKNOWN:
                self.rep.add("A0103", "a match on an int needs a last arm `_ => ...`", e.span,
                             "expressions are total: every value needs an answer")
        return result

    def call(self, e: A.Call, ctx: Ctx):
        f = e.func
        p = self.p
        if f == "can":
            if not ctx.me:
                self.rep.add("A0107", f"`can` is only meaningful in phases, not in the {ctx.where}",
                             e.span)
                return T.BOOL
            if len(e.args) != 1 or not isinstance(e.args[0], A.Name) or e.named:
                self.rep.add("A0104", "`can` takes the name of one action", e.span)
                return T.BOOL
            a = e.args[0].name
            if a not in p.actions:
                self.rep.add("A0101", f"unknown action `{a}`", e.args[0].span,
                             did_you_mean(a, p.actions))
            elif p.actions[a][0] != ctx.phase:
                self.rep.add("A0107", f"`can({a})` asks about an action of phase `{p.actions[a][0]}` "
                             f"from phase `{ctx.phase}`", e.span,
                             "`can` looks at the actions of the current phase only")
            self.p.refs[id(e)] = ("can", a)
            return T.BOOL
        if f == "team_of":
            if not ctx.state:
                self.rep.add("A0107", f"`team_of` cannot be used in the {ctx.where}", e.span,
                             "teams are formed from the `teams` declaration once the game is set up")
            if len(e.args) != 1 or e.named:
                self.rep.add("A0104", "`team_of` takes one player", e.span)
                return ("list", T.INT)
            self.expect(T.INT, self.expr(e.args[0], ctx), e.args[0].span, "the player")
            self.p.refs[id(e)] = ("team_of",)
            return ("list", T.INT)
        if f in p.records or f == "Pos":
            return self.construct(e, ctx)
        if e.named:
            self.rep.add("A0104", "named arguments build records only", e.named[0].span)
        args = [self.expr(a, ctx) for a in e.args]
        if f in p.defs:
            d = p.defs[f]
            p.used.add(f)
            self.p.refs[id(e)] = ("def", f)
            if len(args) != len(d.params):
                self.rep.add("A0104", f"`{f}` takes {len(d.params)} argument"
                             f"{'s' * (len(d.params) != 1)}, not {len(args)}", e.span,
                             f"it is declared at {d.span}")
            for a, par, arg in zip(args, d.params, e.args):
                self.expect(self.resolve(par.type), a, arg.span, f"argument `{par.name}` of `{f}`")
            return self.resolve(d.type)
        if f in stdlib.FUNCTIONS:
            self.p.refs[id(e)] = ("stdlib", f)
            result, err = stdlib.FUNCTIONS[f][1](args)
            if err:
                code = "A0104" if (" argument" in err and "must" not in err) or err.startswith("takes") \
                    else "A0103"
                self.rep.add(code, f"`{f}` {err}", e.span, stdlib.FUNCTIONS[f][2])
            return result
        if f in stdlib.AGGREGATES:
            self.rep.add("A0103", f"`{f}` is an aggregate: write `{f}(e for x in xs)`", e.span,
                         "for two ints use `min2(a, b)` or `max2(a, b)`" if f in ("min", "max") else "")
            return T.UNKNOWN
        names = list(p.defs) + list(stdlib.FUNCTIONS) + list(p.records) + ["can", "team_of"]
        self.rep.add("A0101", f"unknown function `{f}`", e.span, did_you_mean(f, names))
        return T.UNKNOWN

    def construct(self, e: A.Call, ctx: Ctx):
        fields_ = self.record_fields(e.func)
        self.p.refs[id(e)] = ("record", e.func)
        if e.args and e.named:
            self.rep.add("A0104", "give a record's fields either all by position or all by name",
                         e.span)
        if e.named:
            given = {n.name: n for n in e.named}
            for n in e.named:
                if n.name not in dict(fields_):
                    self.rep.add("A0105", f"{e.func} has no field `{n.name}`", n.span,
                                 did_you_mean(n.name, dict(fields_)))
            for fname, ft in fields_:
                if fname not in given:
                    self.rep.add("A0104", f"field `{fname}` of {e.func} is missing", e.span)
                else:
                    self.expect(ft, self.expr(given[fname].value, ctx), given[fname].span,
                                f"field `{fname}`")
        else:
            if len(e.args) != len(fields_):
                self.rep.add("A0104", f"{e.func} has {len(fields_)} fields, not {len(e.args)}",
                             e.span)
            for (fname, ft), a in zip(fields_, e.args):
                self.expect(ft, self.expr(a, ctx), a.span, f"field `{fname}`")
        return ("record", e.func)

    # ------------------------------------------------------------ statements
    def block(self, stmts, ctx: Ctx, where: str) -> None:
        for s in stmts:
            ctx = self.stmt(s, ctx, where)

    def lvalue(self, lv: A.LValue, ctx: Ctx):
        """Type of an assignable place (recorded for the lowering), or report why it is not one."""
        t = self._lvalue(lv, ctx)
        self.p.types[id(lv)] = t
        return t

    def _lvalue(self, lv: A.LValue, ctx: Ctx):
        n = lv.name
        if ctx.phase and self.p.phase_var(ctx.phase, n):
            t = self.resolve(self.p.phase_var(ctx.phase, n).type)
        elif n in self.p.state:
            v = self.p.state[n]
            t = self.resolve(v.type)
            if v.scope == "player":
                if not lv.indices:
                    self.rep.add("A0106", f"`{n}` holds one value per player: index it", lv.span,
                                 f"write `{n}[me] = ...` or `{n}[p] = ...`")
                    return T.UNKNOWN
                self.expect(T.INT, self.expr(lv.indices[0], ctx), lv.indices[0].span, "a player")
                return self._index_chain(t, lv.indices[1:], lv, ctx)
        else:
            if n in ctx.locals or n in self.p.consts or n in self.p.options or n in self.p.data:
                self.rep.add("A0106", f"`{n}` cannot be assigned", lv.span,
                             "only state variables change during the game")
            else:
                self.rep.add("A0101", f"unknown state variable `{n}`", lv.span,
                             did_you_mean(n, list(self.p.state) + (
                                 [v.name for v in self.p.phases[ctx.phase].vars] if ctx.phase else [])))
            return T.UNKNOWN
        return self._index_chain(t, lv.indices, lv, ctx)

    def _index_chain(self, t, indices, lv, ctx):
        for i in indices:
            k = self.expr(i, ctx)
            if isinstance(t, tuple) and t[0] == "map":
                self.expect(t[1], k, i.span, "this map's key")
                t = t[2]
            elif isinstance(t, tuple) and t[0] == "list":
                self.expect(T.INT, k, i.span, "a list index")
                t = t[1]
            elif t != T.UNKNOWN:
                self.rep.add("A0106", f"cannot assign into {T.show(t)}", lv.span)
                return T.UNKNOWN
        return t

    def stmt(self, s, ctx: Ctx, where: str) -> Ctx:
        if isinstance(s, A.Assign):
            t = self.lvalue(s.target, ctx)
            self.expect(t, self.expr(s.value, ctx), s.value.span, f"the value of `{s.target.name}`")
            return ctx
        if isinstance(s, A.Let):
            return self.bind_target(s, self.expr(s.value, ctx), ctx)
        if isinstance(s, A.If):
            self.expect(T.BOOL, self.expr(s.cond, ctx), s.cond.span, "a condition")
            self.block(s.then, ctx, where)
            self.block(s.else_, ctx, where)
            return ctx
        if isinstance(s, A.For):
            it = self.expr(s.iter, ctx)
            if it != T.UNKNOWN and not T.is_collection(it):
                self.rep.add("A0103", f"cannot iterate over {T.show(it)}", s.iter.span)
            self.block(s.body, self.bind_target(s, T.element(it), ctx), where)
            return ctx
        if isinstance(s, A.Draw):
            n = s.source.name
            if not s.source.indices and n not in self.p.state and (
                    n in ctx.locals or n in self.p.consts or n in self.p.options or n in self.p.data):
                self.rep.add("A0106", f"`draw` takes an item out of a pile for good, and `{n}` is fixed",
                             s.source.span, f"to pick an item and put it back, write `roll {s.name} from "
                             f"{n}`; a pile that shrinks is a `bag` state variable")
                return ctx.bind(s.name, T.UNKNOWN)
            src = self.lvalue(s.source, ctx)
            if src != T.UNKNOWN and not (isinstance(src, tuple) and src[0] == "bag"):
                self.rep.add("A0103", f"draw takes from a bag, and this is {T.show(src)}",
                             s.source.span, "declare the pile as `bag[...]`: drawing is chance")
            return ctx.bind(s.name, T.element(src))
        if isinstance(s, A.Roll):
            src = self.expr(s.source, ctx)
            if src != T.UNKNOWN and not (isinstance(src, tuple) and src[0] in ("list", "bag", "set")):
                self.rep.add("A0103", f"roll takes one item, put back, from a list, bag or set, and "
                             f"this is {T.show(src)}", s.source.span,
                             "roll dice with `roll r from dice(4, 6)`; to take an item out of a pile "
                             "for good, use `draw x from pile` on a `bag` state variable")
            return ctx.bind(s.name, T.element(src) if src != T.UNKNOWN else T.UNKNOWN)
        if isinstance(s, A.Deal):
            self.expect(T.INT, self.expr(s.count, ctx), s.count.span, "the number of items dealt")
            src = self.lvalue(s.source, ctx)
            if src != T.UNKNOWN and not (isinstance(src, tuple) and src[0] == "bag"):
                self.rep.add("A0103", f"deal takes from a bag, and this is {T.show(src)}",
                             s.source.span)
            dst = self.lvalue(s.dest, ctx)
            if dst != T.UNKNOWN and not (isinstance(dst, tuple) and dst[0] in ("list", "bag")):
                self.rep.add("A0103", f"deal puts into a list or a bag, not {T.show(dst)}",
                             s.dest.span)
            elif dst != T.UNKNOWN and not T.compatible(T.element(dst), T.element(src)):
                self.rep.add("A0103", f"cannot deal {T.show(T.element(src))} into "
                             f"{T.show(dst)}", s.dest.span)
            return ctx
        if isinstance(s, A.End):
            if where not in ("action", "procedure"):   # a procedure's calls are checked (check_effects)
                self.rep.add("A0107", f"`end {s.what}` has no meaning in {where}", s.span,
                             "it ends the current phase or turn from inside an action")
            return ctx
        if isinstance(s, A.Win):
            t = self.expr(s.players, ctx)
            self.expect(("list", T.INT), t, s.players.span, "the winners")
            return ctx
        if isinstance(s, A.Tie):
            return ctx
        if isinstance(s, A.CallStmt):
            return check_effects.call(self, s, ctx, where)
        if isinstance(s, A.Choose):
            return check_effects.choose(self, s, ctx, where)
        raise AssertionError(type(s).__name__)  # pragma: no cover


def _no_duplicates(names, nodes, rep: Reporter, what: str) -> None:
    seen = {}
    for n, node in zip(names, nodes):
        if n in seen:
            rep.add("A0102", f"{what} `{n}` is defined twice", node.span,
                    f"the first is at {seen[n].span}")
        else:
            seen[n] = node


def check_types(prog: Program, rep: Reporter) -> None:
    """Type-check every declaration of the program."""
    c = Checker(prog, rep)
    static = dict(state=False)
    for rec in prog.records.values():
        for f in rec.fields:
            c.resolve(f.type)
    check_record_cycles(c, prog)
    for d in prog.data.values():
        c.resolve(d.type)
    for o in prog.options.values():
        want = c.resolve(o.type)
        c.expect(want, c.expr(o.default, Ctx(f"option `{o.name}`", **static)), o.default.span,
                 f"the default of `{o.name}`")
        if not (want in (T.INT, T.BOOL) or (isinstance(want, tuple) and want[0] == "enum")
                or want == T.UNKNOWN):
            rep.add("A0103", f"option `{o.name}` must be an int, a bool or an enum", o.type.span)
    for r in prog.requires:
        c.expect(T.BOOL, c.expr(r.cond, Ctx("requirement", **static)), r.cond.span, "a requirement")
    for k in prog.consts.values():
        c.expect(c.resolve(k.type), c.expr(k.value, Ctx(f"constant `{k.name}`", **static)),
                 k.value.span, f"the value of `{k.name}`")
    if prog.teams:
        c.expect(("list", ("list", T.INT)), c.expr(prog.teams.value, Ctx("teams", **static)),
                 prog.teams.value.span, "the teams")
    bad_mods = check_effects.modifiers(c, prog, rep)
    for d in prog.defs.values():
        ctx = Ctx(f"function `{d.name}`")
        _no_duplicates([par.name for par in d.params], d.params, rep, "parameter")
        for par in d.params:
            ctx = ctx.bind(par.name, c.resolve(par.type))
        if d.name in bad_mods:   # said at the modifier
            continue
        c.expect(c.resolve(d.type), c.expr(d.body, ctx), d.body.span, f"the result of `{d.name}`")
    for v in prog.state.values():
        t = c.resolve(v.type)
        c.expect(t, c.expr(v.init, Ctx(f"initial value of `{v.name}`", **static)), v.init.span,
                 f"the initial value of `{v.name}`")
        if v.visibility == "owner" and v.scope != "player":
            rep.add("A0103", f"only per-player variables can be visible to their owner; "
                    f"`{v.name}` is global", v.span, "write `player` before its name, "
                    "or make it `visible all` or `visible nobody`")
    check_effects.procs(c, prog, rep)
    if prog.setup:
        c.block(prog.setup.body, Ctx("setup"), "setup")
    if prog.flow:
        for rd in prog.flow.rounds:
            if rd.cond is not None:
                c.expect(T.BOOL, c.expr(rd.cond, Ctx("round condition")), rd.cond.span,
                         "a round's condition")
            for st in rd.stages:
                c.expect(("list", T.INT), c.expr(st.players, Ctx("stage")), st.players.span,
                         "the players of a stage")
                if st.kind == "around":
                    _check_around(c, st)
                for name, span in zip(st.phases, st.phase_spans or [st.span] * len(st.phases)):
                    if name not in prog.phases:
                        rep.add("A0101", f"unknown phase `{name}`", span,
                                did_you_mean(name, prog.phases))
    for ph in prog.phases.values():
        pctx = Ctx(f"phase `{ph.name}`", me=True, phase=ph.name)
        for v in ph.vars:
            if v.visibility == "owner":
                rep.add("A0103", f"phase variable `{v.name}` cannot be visible to an owner", v.span,
                        "only per-player state variables have an owner; use `visible all` or "
                        "`visible nobody`")
            c.expect(c.resolve(v.type), c.expr(v.init, pctx), v.init.span,
                     f"the initial value of `{v.name}`")
        c.block(ph.enter, pctx, "phase entry")
        c.block(ph.auto, pctx, "an automatic phase")
        for cond in (ph.done, ph.repeat):
            if cond is not None:
                c.expect(T.BOOL, c.expr(cond, pctx), cond.span, "a phase condition")
        _no_duplicates([v.name for v in ph.vars], ph.vars, rep, "phase variable")
        for a in ph.actions:
            _no_duplicates([q.name for q in a.params], a.params, rep, "parameter")
            actx = pctx
            for par in a.params:
                want = c.resolve(par.type)
                dom = c.expr(par.domain, actx)
                if dom != T.UNKNOWN and not T.is_collection(dom):
                    rep.add("A0103", f"the choices for `{par.name}` must be a collection, "
                            f"not {T.show(dom)}", par.domain.span)
                else:
                    c.expect(want, T.element(dom), par.domain.span, f"each choice of `{par.name}`")
                actx = actx.bind(par.name, want)
            for g in a.guards:
                c.expect(T.BOOL, c.expr(g.cond, actx), g.cond.span, f"a `{g.kind}` condition")
            c.block(a.body, actx, "action")
    for en in prog.endings.values():
        ctx = Ctx(f"ending `{en.name}`")
        c.expect(T.BOOL, c.expr(en.cond, ctx), en.cond.span, "an ending's condition")
        o = en.outcome
        if isinstance(o, A.OutcomeWin):
            c.expect(("list", T.INT), c.expr(o.players, ctx), o.players.span, "the winners")
        elif isinstance(o, A.OutcomeRank):
            kctx = ctx.bind(o.var, T.INT)
            for k in o.keys:
                c.expect(T.INT, c.expr(k, kctx), k.span, "a ranking key")
    if prog.score:
        c.expect(T.INT, c.expr(prog.score.value, Ctx("score").bind(prog.score.var, T.INT)),
                 prog.score.value.span, "a score")
    for pr in prog.properties.values():
        check_property(c, pr, rep)
    from atoll.compiler.check_examples import check_examples
    check_examples(c, prog, rep)
    if prog.game is not None:
        check_modes(c, prog, rep)
        from atoll.compiler.check_pictures import check_pictures
        check_pictures(c, prog, rep)


def cases_of(prog, e):
    """The `cases` a property body stands for: itself, or the body of the
    function it calls (with the call's arguments), else None."""
    if isinstance(e, A.Cases):
        return e, None
    if isinstance(e, A.Call) and e.func in prog.defs and isinstance(prog.defs[e.func].body, A.Cases):
        return prog.defs[e.func].body, e
    return None


# What each kind of property can come out as (by z3 or by play).
POSSIBLE_EXPECTATIONS = {
    "well_defined": ("proved", "holds", "violated", "unknown"),
    "theorem": ("proved", "holds", "violated", "unknown"),
    "witness": ("witness", "no_witness", "unknown"),
    "invariant": ("proved", "holds", "violated", "unknown"),
    "action_invariant": ("proved", "holds", "violated", "unknown"),
    "deadlock_free": ("proved", "holds", "violated", "unknown"),
    "no_leak": ("proved", "holds", "violated", "unknown"),
    "terminates": ("proved", "holds", "violated", "unknown"),
    "reachable": ("witness", "no_witness", "unknown"),
    "almost_surely": ("proved", "violated", "unknown"),
    "probability": ("proved", "violated", "unknown"),
    "expectation": ("proved", "violated", "unknown"),
}


def check_modes(c: Checker, prog, rep: Reporter) -> None:
    """The game block's `modes` names the options that span `verify --matrix`."""
    from atoll.compiler.check_pictures import named_in_entry
    got = named_in_entry(prog, rep, "modes", "lists option names", "mode, variant")
    if got is None:
        return
    entry, names = got
    for name in names:
        o = prog.options.get(name)
        if o is None:
            rep.add("A0108", f"`modes` names `{name}`, which is not an option", entry.span,
                    did_you_mean(name, prog.options))
            continue
        t = c.resolve(o.type)
        if not (t == T.BOOL or (isinstance(t, tuple) and t[0] == "enum")):
            rep.add("A0108", f"`modes` may only name enum or bool options; `{name}` is {T.show(t)}",
                    entry.span, "the matrix tries every value of each mode")
        prog.used.add(name)


def check_property(c: Checker, pr: A.PropertyDecl, rep: Reporter) -> None:
    where = f"property `{pr.name}`"
    if pr.when is not None:
        c.expect(T.BOOL, c.expr(pr.when, Ctx(where, state=False)), pr.when.span,
                 "a property's `when` (it may read options and player_count)")
    want_q = {"theorem": "forall", "witness": "exists", "well_defined": "forall"}.get(pr.kind)
    if want_q and pr.quantifier != want_q:
        rep.add("A0103", f"a {pr.kind} is stated with `{want_q}`, not `{pr.quantifier}`", pr.span,
                "a theorem holds for all inputs (`forall`); a witness is some input (`exists`)")
    possible = POSSIBLE_EXPECTATIONS[pr.kind]
    if pr.expect is not None and pr.expect not in possible:
        article = "an" if pr.kind[0] in "aeiou" else "a"
        rep.add("A0103", f"{article} `{pr.kind}` property can never be {pr.expect.replace('_', ' ')}", pr.span,
                "it can be: " + ", ".join(possible))
    if pr.kind in ("theorem", "witness", "well_defined"):
        ctx = Ctx(where, state=False)
        for b in pr.binders:
            want = c.resolve(b.type)
            dom = c.expr(b.domain, ctx)
            if dom != T.UNKNOWN and not T.is_collection(dom):
                rep.add("A0103", f"the domain of `{b.name}` must be a collection, not {T.show(dom)}",
                        b.domain.span, "for ints write `between(lo, hi)`; for sets `subsets(xs)`")
            else:
                c.expect(want, T.element(dom), b.domain.span, f"each value of `{b.name}`")
            ctx = ctx.bind(b.name, want)
        body_t = c.expr(pr.body, ctx)
        if pr.kind == "well_defined":
            if cases_of(c.p, pr.body) is None:
                rep.add("A0103", "`well_defined` checks a rule stated with `cases`", pr.body.span,
                        "give it `cases { ... }` or a call of a function whose body is `cases { ... }`")
        else:
            c.expect(T.BOOL, body_t, pr.body.span, f"the body of {where}")
        if pr.objective is not None:
            c.expect(T.INT, c.expr(pr.objective[1], ctx), pr.objective[1].span, "an objective")
    elif pr.kind == "almost_surely" and pr.probability != 1:
        rep.add("A0103", f"only termination with probability 1 can be checked, not {pr.probability}", pr.span,
                "write `terminates with probability 1`, or state a bound with `terminates by MEASURE per turn`")
    elif pr.kind in ("probability", "expectation"):
        check_chance_property(c, pr, where, Ctx)
    elif pr.kind == "action_invariant":
        check_action_invariant(c, pr, where, Ctx)
    if pr.assuming:
        _check_assumed(c, pr)
    if pr.kind in ("invariant", "reachable", "terminates"):
        ctx = Ctx(where, phase_refs=True)
        want = T.INT if pr.kind == "terminates" else T.BOOL
        c.expect(want, c.expr(pr.body, ctx), pr.body.span,
                 "a ranking measure" if want == T.INT else f"the body of {where}")


def _check_assumed(c: Checker, pr: A.PropertyDecl) -> None:
    """`invariant E assuming A, B`: A and B are other invariants of the spec."""
    for n in pr.assuming:
        other = c.p.properties.get(n)
        if other is None:
            c.rep.add("A0101", f"`assuming {n}`: no property is named `{n}`", pr.span,
                      did_you_mean(n, [k for k, q in c.p.properties.items() if q.kind == "invariant"])
                      or "name another invariant of the spec")
        elif other.kind != "invariant" or n == pr.name:
            c.rep.add("A0103", f"`assuming {n}`: an invariant assumes other invariants, and `{n}` is "
                      + ("this one" if n == pr.name else f"a {other.kind}"), pr.span,
                      "name invariants stated with `invariant`")


def _check_around(c: "Checker", st: A.Stage) -> None:
    """`turns round L from v until C`: C is a condition on the state, and v
    a global variable of seats that the flow may write (it keeps whose turn it is)."""
    if st.until is not None:
        c.expect(T.BOOL, c.expr(st.until, Ctx("condition of a stage")), st.until.span,
                 "the condition that ends the stage")
    if st.keeper is None:
        return
    v = c.p.state.get(st.keeper)
    span = st.keeper_span or st.span
    if v is None:
        c.rep.add("A0101", f"`from {st.keeper}`: no state variable is named `{st.keeper}`", span,
                  "declare a global variable of type Player in `state` (for instance "
                  f"`{st.keeper}: Player = 0 visible all`) and name it here")
    elif v.scope == "player" or c.resolve(v.type) != T.INT:
        c.rep.add("A0103", f"`from {st.keeper}`: the flow keeps whose turn it is in `{st.keeper}`, "
                  "which must be a global variable of type Player", span,
                  f"declare `{st.keeper}: Player = 0` in `state`")
