"""Lowering: the checked program to the source of a Python module.

Each rule becomes a small straight-line Python function (no interpreter walks
the AST at play time). The module is readable on purpose: ``atoll lower
SPEC`` prints it and golden tests keep it stable.

Safety: the generated text contains only what this module writes. Spec names
are emitted mangled by ``names`` (a tag such as ``l_``, ``k_``, ``agen_``, after
the grammar has restricted them to ``[A-Za-z][A-Za-z0-9_]*``; the mangling is
injective and ``define`` refuses a second definition of a name); every other
text that comes from outside (strings, the spec's path, enum members) is
emitted with ``repr``. That alone keeps the text inert; the module also runs
with a fixed list of builtins (``pipeline.SAFE_BUILTINS``).

Python's own limits (200 nested brackets, 100 levels of indentation, 20
nested loops, its recursion in the compiler) never depend on the spec: an
expression whose text nests deeper than ``HOIST_DEPTH`` brackets becomes a
call of a helper function ``_hN`` that returns it (``hoist``), `else if`
chains are written with ``elif``, and the parser bounds the rest (see
``compiler/limits.py``).

Run-time layout: ``S`` is the list of state values: ``S[0]`` is the current
round, then the state variables in declaration order, then every phase's
variables. ``me`` is the player whose turn it is; ``X`` is the transaction
(chance draws, phase and game endings).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from atoll.compiler import limits, stdlib
from atoll.compiler import names as N
from atoll.compiler import types as T
from atoll.compiler.frame import Frame
from atoll.compiler.lower_actions import ActionLowering
from atoll.compiler.lower_let import LetLowering, let_bound
from atoll.compiler.lower_memo import DefMemo
from atoll.compiler.lower_limits import MAX_INLINE, PythonLimits
from atoll.compiler.symbols import Program
from atoll.grammar import ast as A

_id = N.ident

# The Python of the spec's aggregates and operators (the only words of the
# spec written into the module as they are; looked up, not copied).
_AGGREGATE = {"min": "min", "max": "max", "all": "all", "any": "any"}
_OPERATOR = {o: o for o in ("and", "or", "==", "!=", "<", "<=", ">", ">=", "in", "+", "-", "*")}


@dataclass
class Layout:
    """Where each variable lives in ``S``."""
    slots: dict[tuple, int]
    names: list[str]

    @classmethod
    def of(cls, prog: Program) -> "Layout":
        slots, names = {}, ["current_round"]
        for v in prog.state.values():
            slots[("state", v.name)] = len(names)
            names.append(_id(v.name))
        for ph in prog.phases.values():
            for v in ph.vars:
                slots[("phase", ph.name, v.name)] = len(names)
                names.append(f"{_id(ph.name)}.{_id(v.name)}")
        return cls(slots, names)


# `range(n)` with n known and at most this is written out as a tuple literal
# (what f_range returns, there without a call; n <= 0 gives the empty tuple).
_SMALL_RANGE = 16


class Lowerer(ActionLowering, PythonLimits, LetLowering, DefMemo):
    def __init__(self, prog: Program, statics: Optional[dict] = None):
        self.p = prog
        self.layout = Layout.of(prog)
        self.lines: list[str] = []
        self.tmp = 0
        self.seat_vars: set[str] = set()   # locals that iterate over seats
        self.frame = Frame(prog, statics)
        self.statics = bool(statics)       # fold options, constants and the player count
        self.known: dict = {}              # slots whose value is known where the code runs
        self.variants: dict[tuple, int] = {}   # (action, known) -> number of its `can` variant
        self.pending: list[tuple] = []     # variants named but not yet emitted
        self.subst: dict[str, str] = {}    # a def's parameters, while its body is inlined
        self.overrides: dict[int, tuple] = {}   # slots read from locals (see post_by_substitution)
        self._branches: Optional[dict] = None   # id of a described `if` -> its number (branch_event)
        self.def_seats: dict[str, frozenset] = {}   # the seat variables when each def was lowered
        self._def_facts: dict[str, tuple] = {}
        self._heights: Optional[dict] = None   # per def, how deep its inlining goes
        self._def_calls: Optional[dict] = None   # per def, the defs it calls (def_calls)
        self.defined: set[str] = set()         # every name the module defines
        self.helpers: list[str] = []           # the lines of the hoisted expressions
        self.memo_slots: dict[str, list] = {}   # defs whose answers are kept (memo_function)
        self.item_vals: dict[int, str] = {}   # map reads and loops that walk items (item_plan)
        self.item_count = 0
        self.sort_out = False                  # the listing being lowered sorts its choices (choice_loops)
        self.post_reads: dict[tuple, frozenset] = {}   # (action, variant) -> the choices its post-test reads

    # ------------------------------------------------------------ expressions
    def t(self, e):
        return self.p.types.get(id(e), T.UNKNOWN)

    def iter_of(self, e, order_matters: bool = True) -> str:
        """Iterate a collection deterministically: sets and maps in sorted order,
        unless what is built does not depend on the order (a set, a sum, ...)."""
        if isinstance(e, A.Call) and self.p.refs.get(id(e)) == ("stdlib", "keys"):
            src = self.ex(e.args[0])   # a map yields its keys: no set of them needed
        else:
            src = self.ex(e)
        if T.is_ordered_iteration(self.t(e)) or not order_matters:
            return src
        return f"sorted({src})"

    def is_seat_source(self, e) -> bool:
        """Iterating this yields valid seats only (players, seats, a team)."""
        if isinstance(e, A.Name):
            return self.p.refs.get(id(e)) in (("builtin", "players"), ("builtin", "seats"))
        return isinstance(e, A.Call) and self.p.refs.get(id(e)) == ("team_of",)

    def is_seat(self, e) -> bool:
        """An index known to be a valid seat: `me`, or a variable bound over the seats."""
        if not isinstance(e, A.Name):
            return False
        ref = self.p.refs.get(id(e))
        return ref == ("me",) or (ref is not None and ref[0] == "local" and ref[1] in self.seat_vars)

    def fors(self, fors, order_matters: bool = True) -> str:
        out = []
        for f in fors:
            if self.is_seat_source(f.iter):
                self.seat_vars.add(f.var)
            else:
                self.seat_vars.difference_update(A.bound_names(f))
            v = self.item_vals.get(id(f))
            if v is not None:   # see item_plan
                it = f.iter
                if isinstance(it, A.Call):
                    it = it.args[0]
                out.append(f"for {self.target(f)}, {v} in {self.ex(it)}.items()")
            else:
                out.append(f"for {self.target(f)} in {self.iter_of(f.iter, order_matters)}")
            out.extend(f"if {self.ex(c)}" for c in f.conds)
        return " ".join(out)

    def ex(self, e) -> str:
        """The Python text of expression ``e``; one that nests too deep is hoisted."""
        return self.shallow(self._ex(e))

    def _ex(self, e) -> str:
        if self.item_vals:
            v = self.item_vals.get(id(e))
            if v is not None:   # an entry of a map walked by items, or a part evaluated once
                return v
        if self.known or self.statics:
            v = self.frame.const(e, self.known)
            if v is not None and not (type(v) is int and v.bit_length() > limits.MAX_INT_BITS):
                return repr(v)
        # (the node classes are disjoint: the most frequent are asked first)
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.BinOp):
            return self.binop(e)
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.IntLit):
            return repr(e.value)
        if isinstance(e, A.BoolLit):
            return repr(e.value)
        if isinstance(e, A.StrLit):
            return repr(e.value)
        if isinstance(e, A.IfExpr):
            if self.known or self.statics:
                c = self.frame.const(e.cond, self.known)
                if c is not None:   # only the branch taken
                    return self.ex(e.then if c else e.else_)
            return f"({self.ex(e.then)} if {self.ex(e.cond)} else {self.ex(e.else_)})"
        if isinstance(e, A.Not):
            return f"(not {self.ex(e.operand)})"
        if isinstance(e, A.Neg):
            return f"(-{self.ex(e.operand)})"
        if isinstance(e, A.FieldAccess):
            ref = self.p.refs.get(id(e))
            if ref is not None and ref[0] == "phase":   # `phase.var` in a property
                return f"S[{self.layout.slots[ref]}]"
            rt = self.t(e.obj)
            if not (isinstance(rt, tuple) and rt[0] == "record"):
                return "None"   # the element of an empty literal: this code never runs
            idx = self.field_index(rt[1], e.name)
            return f"{self.ex(e.obj)}[{idx}]"
        if isinstance(e, A.Index):
            over = self.override_of(e.obj)
            if over is not None:   # one entry of this value was set by the effect
                key = self.ex(e.key)
                if over[0] == "player" and key == "me":
                    return over[1]
                orig = self.ex_plain(e)
                return f"({over[-1]} if {key} == {'me' if over[0] == 'player' else over[1]} else {orig})"
            ot = self.t(e.obj)
            if isinstance(ot, tuple) and ot[0] == "list":
                return f"f_at({self.ex(e.obj)}, {self.ex(e.key)})"
            if isinstance(ot, tuple) and ot[0] == "player" and not self.is_seat(e.key):
                return f"f_at({self.ex(e.obj)}, {self.ex(e.key)})"
            return f"{self.ex(e.obj)}[{self.ex(e.key)}]"
        if isinstance(e, A.Aggregate):
            meets = self.meets(e)
            if meets is not None:
                return meets
            # sum, count, min, max, all and any do not depend on the order; those
            # that read every item take a list (quicker to build than a generator)
            saved_items = self.item_plan(e)
            try:
                gen = f"{self.ex(e.elem)} {self.fors(e.fors, order_matters=False)}"
                count = f"len([1 {self.fors(e.fors, order_matters=False)}])" if e.func == "count" else None
            finally:
                self.item_vals = saved_items
            if e.func == "sum":
                return f"sum([{gen}])"
            if e.func == "count":
                return count
            if e.func in ("min", "max"):
                return f"{_AGGREGATE[e.func]}([{gen}], default=0)"
            return f"{_AGGREGATE[e.func]}({gen})"
        if isinstance(e, A.ListLit):
            return "(" + "".join(self.ex(i) + ", " for i in e.items) + ")"
        if isinstance(e, A.SetLit):
            return "frozenset((" + "".join(self.ex(i) + ", " for i in e.items) + "))"
        if isinstance(e, A.MapLit):
            return "{" + ", ".join(f"{self.ex(k)}: {self.ex(v)}" for k, v in zip(e.keys, e.values)) + "}"
        if isinstance(e, A.Comprehension):
            return self.comprehension(e)
        if isinstance(e, A.TupleLit):
            return self.tuple_lit(e)
        if isinstance(e, A.LetExpr):
            return self.let_expr(e)
        if isinstance(e, A.With):
            return self.with_expr(e)
        if isinstance(e, A.EmptyOf):   # as the literals of each kind build them
            return {"list": "()", "bag": "()", "set": "frozenset()", "map": "{}"}.get(e.type.name, "None")
        if isinstance(e, A.Cases):   # the first case that holds; none is an error
            out = f"f_no_case({[a.name for a in e.arms]!r})"
            for arm in reversed(e.arms):
                out = self.shallow(f"({self.ex(arm.value)} if {self.ex(arm.cond)} else {out})")
            return out
        if isinstance(e, A.Match):
            if self.known or self.statics:
                arm = self.frame.match_arm(e, self.known)
                if arm is not None:   # only the arm taken
                    return self.ex(arm.value)
            subject = self.ex(e.subject)
            out = None
            for arm in reversed(e.arms):
                val = self.ex(arm.value)
                if out is None:
                    out = val
                elif arm.pattern is None:
                    out = val
                else:
                    pat = arm.pattern
                    st = self.t(e.subject)
                    if isinstance(pat, str) and isinstance(st, tuple) and st[0] == "enum":
                        pat = self.p.enums[st[1]].members.index(pat)
                    out = self.shallow(f"({val} if {subject} == {pat!r} else {out})")
            return out
        raise AssertionError(type(e).__name__)  # pragma: no cover

    def override_of(self, e):
        """The override of a state or phase variable named by ``e``, if any."""
        if not self.overrides or not isinstance(e, A.Name):
            return None
        slot = self.frame.slot_of_ref(self.p.refs.get(id(e)))
        if slot is None:
            return None
        over = self.overrides.get(self.layout.slots[slot])
        return over if over is not None and over[0] != "value" else None

    def ex_plain(self, e: A.Index) -> str:
        """``e`` read from the state itself (the entries the effect did not set)."""
        i = self.layout.slots[self.frame.slot_of_ref(self.p.refs[id(e.obj)])]
        saved = self.overrides
        self.overrides = {k: v for k, v in saved.items() if k != i}
        try:
            return self.ex(e)
        finally:
            self.overrides = saved

    def comprehension(self, e: A.Comprehension, order_matters: bool = True) -> str:
        """``order_matters``: False where the result is used in a way that
        does not depend on its order (a standard function that sorts or
        groups it), so sets and maps need not be iterated sorted."""
        if e.kind == "map" and order_matters and self._unique_keys(e):
            order_matters = False
        saved = self.item_plan(e, order_matters)
        try:
            return self._comprehension(e, order_matters)
        finally:
            self.item_vals = saved

    def item_plan(self, e, order_matters: bool = False) -> dict:
        """Where a loop of comprehension or aggregate ``e`` walks the keys of
        a map ``m`` (named: a variable of the state or of a phase, a local,
        a constant) in any order and its body reads ``m[k]`` of the key ``k``,
        the loop walks ``m.items()`` and those reads take the value of the
        entry (``_vN``): the same value, one lookup fewer per key (``_ivN``). Only when
        neither ``k`` nor ``m`` is bound again inside (then ``m[k]`` means
        the entry the loop is at) and no slot is read from locals (overrides).
        Registers the plan (``self.item_vals``: id of each such read -> its
        variable; ``self.item_fors``: id of the loop -> its variable) and
        returns what ``item_vals`` was before, to be put back afterwards."""
        saved = self.item_vals
        if order_matters or self.overrides:
            return saved
        fors = list(e.fors)
        plan = {}
        for n, f in enumerate(fors):
            names = A.bound_names(f)
            if f.names or len(names) != 1:
                continue
            it = f.iter
            m = it.args[0] if isinstance(it, A.Call) and self.p.refs.get(id(it)) == ("stdlib", "keys") \
                and len(it.args) == 1 else it
            mt = self.t(m)
            if not (isinstance(mt, tuple) and mt[0] == "map" and isinstance(m, A.Name)):
                continue
            mref = self.p.refs.get(id(m))
            if mref is None or mref[0] not in ("state", "phase", "local", "const", "data"):
                continue
            k = names[0]
            inside = [c for c in f.conds] + [x for g in fors[n + 1:] for x in [g.iter] + list(g.conds)] \
                + [e.elem] + ([e.key] if getattr(e, "key", None) is not None else [])
            rebound = {b for g in fors[n + 1:] for b in A.bound_names(g)}
            for x in inside:
                rebound |= let_bound(x)
            if k in rebound or (mref[0] == "local" and mref[1] in rebound):
                continue
            reads = [x for part in inside for x in A.walk(part)
                     if isinstance(x, A.Index) and isinstance(x.obj, A.Name) and isinstance(x.key, A.Name)
                     and self.p.refs.get(id(x.obj)) == mref and self.p.refs.get(id(x.key)) == ("local", k)]
            if reads:   # (numbered apart from `fresh`: the other names stay as they were)
                self.item_count += 1
                v = f"_iv{self.item_count}"
                plan[id(f)] = v
                for x in reads:
                    plan[id(x)] = v
        if plan:
            self.item_vals = {**saved, **plan}
        return saved

    def meets(self, e: A.Aggregate):
        """``any(x in W for x in L)`` as ``f_meets(L, W)`` (and ``all(x not in
        W for x in L)`` as its negation), when ``W`` does not mention ``x``
        and cannot fail: ``W`` is then evaluated once instead of once per
        item (the same value; once even for an empty ``L``, which is why it
        must not fail), and membership tests as before. None otherwise."""
        if e.func not in ("any", "all") or len(e.fors) != 1 or e.fors[0].conds or e.fors[0].names:
            return None
        f = e.fors[0]
        names = A.bound_names(f)
        b = e.elem
        if len(names) != 1 or not isinstance(b, A.BinOp) \
                or b.op != ("in" if e.func == "any" else "notin") or not isinstance(b.left, A.Name) \
                or self.p.refs.get(id(b.left)) != ("local", names[0]):
            return None
        if any(isinstance(n, A.Name) and n.name == names[0] for n in A.walk(b.right)):
            return None
        if not self.frame.total(b.right, frozenset(self.seat_vars)):
            return None
        if self.override_of(b.right) is not None:
            return None
        w = self.ex(b.right)
        out = f"f_meets({self.iter_of(f.iter, order_matters=False)}, {w})"
        if re.fullmatch(r"[A-Za-z_]\w*|S\[\d+\]", w) and self.frame.total(f.iter, frozenset(self.seat_vars)):
            # a name, tested empty without a call (then L, which cannot fail, is not evaluated)
            out = f"({out} if {w} else False)"
        return out if e.func == "any" else f"(not {out})"

    def _unique_keys(self, e: A.Comprehension) -> bool:
        """A map comprehension whose key is its one loop variable over a set
        or a map: each key goes in once, so the order in which they go in is
        not seen (the language iterates a map sorted)."""
        return len(e.fors) == 1 and isinstance(e.key, A.Name) \
            and tuple(A.bound_names(e.fors[0])) == (e.key.name,) \
            and isinstance(self.t(e.fors[0].iter), tuple) and self.t(e.fors[0].iter)[0] in ("set", "map")

    def _comprehension(self, e: A.Comprehension, order_matters: bool) -> str:
        if e.kind == "list":
            return f"tuple([{self.ex(e.elem)} {self.fors(e.fors, order_matters)}])"
        if e.kind == "set":
            return f"frozenset({{{self.ex(e.elem)} {self.fors(e.fors, order_matters=False)}}})"
        if order_matters and self._unique_keys(e):
            order_matters = False
        return f"{{{self.ex(e.key)}: {self.ex(e.elem)} {self.fors(e.fors, order_matters)}}}"

    def with_expr(self, e: A.With) -> str:
        """A map with keys set (a new dict; later entries win), or a record
        (a tuple) with fields replaced; evaluated left to right."""
        t = self.t(e)
        if isinstance(t, tuple) and t[0] == "record":
            out = self.ex(e.obj)
            for k, v in zip(e.keys, e.values):
                out = self.shallow(f"f_set_in({out}, ({self.field_index(t[1], k.name)},), {self.ex(v)})")
            return out
        return "{**" + self.ex(e.obj) + "".join(f", {self.ex(k)}: {self.ex(v)}"
                                                 for k, v in zip(e.keys, e.values)) + "}"

    def field_index(self, record: str, name: str) -> int:
        if record == "Pos":
            return {"x": 0, "y": 1}[name]
        return [f.name for f in self.p.records[record].fields].index(name)

    def name(self, e: A.Name) -> str:
        ref = self.p.refs[id(e)]
        kind = ref[0]
        if kind == "local":
            return self.subst.get(ref[1]) or N.local(ref[1])
        if kind in ("state", "phase"):
            i = self.layout.slots[("state", ref[1]) if kind == "state" else ("phase", ref[1], ref[2])]
            if i in self.overrides:
                assert self.overrides[i][0] == "value", "checked by post_substitution_plan"
                return self.overrides[i][1]
            return f"S[{i}]"
        if kind in ("const", "option", "data"):
            return N.value(ref[1])
        if kind == "member":
            return repr(self.p.enums[ref[1]].members.index(ref[2]))
        if kind == "builtin":
            return {"players": "PLAYERS", "seats": "SEATS", "player_count": "NP",
                    "current_round": "S[0]", "none": "None"}[ref[1]]
        if kind == "me":
            return "me"
        raise AssertionError(ref)  # pragma: no cover

    def binop(self, e: A.BinOp) -> str:
        if (self.known or self.statics) and e.op in ("and", "or"):
            left = self.frame.const(e.left, self.known)
            if left is not None:   # a known left side that does not decide
                return self.ex(e.right)
            right = self.frame.const(e.right, self.known)
            if right is not None and self.t(e.left) == T.BOOL:
                if bool(right) == (e.op == "and"):   # x and true = x, x or false = x
                    return self.ex(e.left)
                # (x and false = false, x or true = true are folded by const when x cannot fail)
        if e.op == "and":
            got = self.present_equal(e)
            if got is not None:
                return got
        over = self.override_of(e.right) if e.op in ("in", "notin") else None
        if over is not None and over[0] == "map":   # the effect added one key to this map
            a, i = self.ex(e.left), self.layout.slots[self.frame.slot_of_ref(self.p.refs[id(e.right)])]
            if e.op == "in":
                return f"({a} == {over[1]} or {a} in S[{i}])"
            return f"({a} != {over[1]} and {a} not in S[{i}])"
        a, b = self.ex(e.left), self.ex(e.right)
        op = e.op
        lt = self.t(e.left)
        if op == "notin":
            return f"({a} not in {b})"
        if op in ("/", "%"):
            d = self.frame.const(e.right, self.known)
            if type(d) is int and d != 0:   # a known divisor, not 0: f_div/f_mod are Python's // and %
                return f"({a} {'//' if op == '/' else '%'} {b})"
            return f"f_div({a}, {b})" if op == "/" else f"f_mod({a}, {b})"
        if op in ("+", "-") and isinstance(lt, tuple):
            if lt[0] == "set":
                return f"({a} {'|' if op == '+' else '-'} {b})"
            if lt[0] == "bag":
                return f"f_bag({a} + {b})" if op == "+" else f"f_bag_minus({a}, {b})"
            return f"({a} + {b})"
        return f"({a} {_OPERATOR[op]} {b})"

    def call(self, e: A.Call) -> str:
        ref = self.p.refs.get(id(e), ("?",))
        kind = ref[0]
        if kind == "can":
            return f"{self.can_name(ref[1], self.known)}(S, me)"
        if kind == "team_of":
            return f"TEAM_OF[{self.ex(e.args[0])}]"
        if kind == "record":
            if e.named:
                given = {n.name: n.value for n in e.named}
                names = ["x", "y"] if ref[1] == "Pos" else [f.name for f in self.p.records[ref[1]].fields]
                return "(" + "".join(self.ex(given[n]) + ", " for n in names) + ")"
            return "(" + "".join(self.ex(a) + ", " for a in e.args) + ")"
        if kind == "def" and ref[1] in self.memo_slots and not self.overrides:
            args = "".join(", " + self.ex(a) for a in e.args)
            return f"{N.def_memo_fn(ref[1])}(S{args})"
        if kind == "def" and ref[1] in self.def_seats:
            inlined = self.inline_def(ref[1], e.args)
            if inlined is not None:
                return inlined
        if kind == "stdlib" and ref[1] == "size":   # no call needed: the length
            return f"len({self.ex(e.args[0])})"
        if kind == "stdlib" and ref[1] == "pos":    # no call needed: a pair
            return f"({self.ex(e.args[0])}, {self.ex(e.args[1])})"
        if kind == "stdlib" and ref[1] == "bag":
            lit = self.bag_literal(e)
            if lit is not None:
                return lit
        if kind == "stdlib" and ref[1] == "some":   # a present maybe is the value itself
            return self.ex(e.args[0])
        if kind == "stdlib" and ref[1] == "range":   # a small known length: the tuple itself, built once
            n = self.frame.const(e.args[0], self.known)
            if type(n) is int and n <= _SMALL_RANGE:
                return "(" + "".join(f"{i}, " for i in range(n)) + ")"
        if kind == "stdlib":
            free = stdlib.ORDER_FREE.get(ref[1], ())
            args = ", ".join(self.comprehension(a, order_matters=False)
                             if i in free and isinstance(a, A.Comprehension) else self.ex(a)
                             for i, a in enumerate(e.args))
            return f"{N.stdlib(ref[1])}({args})"
        args = ", ".join(self.ex(a) for a in e.args)
        if kind == "def":
            return f"{N.def_fn(ref[1])}(S{', ' if args else ''}{args})"
        raise AssertionError(ref)  # pragma: no cover

    def present_equal(self, e: A.BinOp):
        """``k in m and m[k] == v`` (or ``v == m[k]``), ``m`` a map, as
        ``m.get(k, f_absent) == v``: one lookup instead of two. ``f_absent``
        is an object of its own, equal to no value of the language, so the
        test is false where ``k`` is absent, as before. Only where ``v``
        cannot fail (it is now evaluated where ``k`` is absent too; ``k`` and
        ``m`` are evaluated once, not twice: they cannot fail either, or the
        first test would have failed) and no slot is read from locals
        (``overrides``: ``m`` could then mean another value); None otherwise."""
        left, right = e.left, e.right
        if self.overrides or not (isinstance(left, A.BinOp) and left.op == "in"
                                  and isinstance(right, A.BinOp) and right.op == "=="):
            return None
        mt = self.t(left.right)
        if not (isinstance(mt, tuple) and mt[0] == "map"):
            return None
        for got, v in ((right.left, right.right), (right.right, right.left)):
            if isinstance(got, A.Index) and id(got) not in self.item_vals and self.frame.total(v) \
                    and self.frame.total(left.left) and self.frame.total(left.right):
                m, k = self.ex(left.right), self.ex(left.left)
                if self.ex(got.obj) == m and self.ex(got.key) == k:
                    return f"({m}.get({k}, f_absent) == {self.ex(v)})"
        return None

    def bag_literal(self, e: A.Call):
        """``bag([x])`` or ``bag([])``: the list literal itself, which is in
        order already (a bag is a sorted tuple); None for any other bag."""
        if isinstance(e.args[0], A.ListLit) and len(e.args[0].items) <= 1:
            return self.ex(e.args[0])
        return None

    def inline_def(self, name: str, args) -> str | None:
        """The body of a def in place of its call, when its arguments are names
        or literals (nothing to evaluate once) and nothing can be captured;
        None otherwise. The body is lowered as for the def itself."""
        d = self.p.defs[name]
        if not self._inlinable(name, args):
            return None
        subst = {q.name: self.ex(x) for q, x in zip(d.params, args)}
        saved = self.subst, self.seat_vars
        self.subst, self.seat_vars = subst, set(self.def_seats[name])
        try:
            return f"({self.ex(d.body)})"
        finally:
            self.subst, self.seat_vars = saved

    def _inlinable(self, name: str, args) -> bool:
        d = self.p.defs[name]
        if name not in self.def_seats or not all(
                isinstance(x, (A.Name, A.IntLit, A.BoolLit, A.StrLit)) for x in args):
            return False
        if self.inline_height(name) > MAX_INLINE:
            return False
        if name not in self._def_facts:   # (calls itself, variables its comprehensions bind)
            self._def_facts[name] = (self._calls_itself(name), let_bound(d.body))
        recursive, bound = self._def_facts[name]
        if recursive:
            return False
        used = {self.p.refs[id(x)][1] for x in args
                if isinstance(x, A.Name) and self.p.refs.get(id(x), ("?",))[0] == "local"}
        return not (bound & ({q.name for q in d.params} | used))

    def _calls_itself(self, name: str) -> bool:
        """``name``'s body calls it, directly or through other defs (on the
        map of the defs' calls, ``def_calls``, found once for all defs)."""
        calls = self.def_calls()
        todo, seen = [name], set()
        while todo:
            for c in calls[todo.pop()]:
                if c == name:
                    return True
                if c not in seen:
                    seen.add(c)
                    todo.append(c)
        return False

    # ------------------------------------------------------------ statements
    def emit(self, line: str, depth: int) -> None:
        self.lines.append("    " * depth + line)

    def define(self, name: str) -> str:
        """Claim a module-level name; a second claim is a bug in the lowering
        (two things of the spec would share one function)."""
        assert name not in self.defined, f"the lowering defines {name} twice"
        self.defined.add(name)
        return name

    def open_def(self, name: str, args: str) -> None:
        self.emit(f"def {self.define(name)}({args}):", 0)

    def fresh(self, stem: str) -> str:
        self.tmp += 1
        return f"_{stem}{self.tmp}"

    def place(self, lv: A.LValue) -> tuple[str, list[str]]:
        """The slot expression of an lvalue and its index expressions."""
        if ("state", lv.name) in self.layout.slots:
            base = f"S[{self.layout.slots[('state', lv.name)]}]"
        else:   # a variable of the phase being lowered
            base = f"S[{self.layout.slots[('phase', self.current_phase, lv.name)]}]"
        return base, [self.ex(i) for i in lv.indices]

    def read(self, lv: A.LValue) -> str:
        base, idx = self.place(lv)
        return base + "".join(f"[{i}]" for i in idx)

    def assign(self, lv: A.LValue, value: str, depth: int) -> None:
        base, idx = self.place(lv)
        is_per_player = ("state", lv.name) in self.layout.slots and self.p.state[lv.name].scope == "player"
        if not idx:
            self.emit(f"{base} = {value}", depth)
        elif len(idx) == 1 and is_per_player and self.is_seat(lv.indices[0]):
            # the common case, written out: replace one player's entry
            t = self.fresh("t")
            if idx[0] == "me":   # always a seat: set it in a list copy (quicker than slicing)
                self.emit(f"{t} = list({base})", depth)
                self.emit(f"{t}[me] = {value}", depth)
                self.emit(f"{base} = tuple({t})", depth)
            else:
                self.emit(f"{t} = {base}", depth)
                self.emit(f"{base} = {t}[:{idx[0]}] + ({value},) + {t}[{idx[0]} + 1:]", depth)
        elif len(idx) == 1 and not is_per_player and isinstance(self.p.state.get(lv.name), A.VarDecl) \
                and self.p.state[lv.name].type.name == "map":
            d = self.fresh("d")
            self.emit(f"{d} = dict({base})", depth)
            self.emit(f"{d}[{idx[0]}] = {value}", depth)
            self.emit(f"{base} = {d}", depth)
        else:
            self.emit(f"{base} = f_set_in({base}, ({''.join(i + ', ' for i in idx)}), {value})", depth)

    def block(self, stmts, depth: int) -> None:
        if not stmts:
            self.emit("pass", depth)
        for s in stmts:
            self.stmt(s, depth)

    def branch_event(self, s: A.If, depth: int) -> None:
        """A branch described in words reports that it was taken (an event
        for traces and play), by its number: no spec text enters the code."""
        if s.notes.summary:
            if self._branches is None:
                self._branches = {id(n): k for k, (n, _) in enumerate(self.p.branch_notes())}
            k = self._branches.get(id(s))
            if k is not None:
                self.emit(f"X.note({k})", depth)

    def stmt(self, s, depth: int) -> None:
        if isinstance(s, A.Assign):
            self.assign(s.target, self.ex(s.value), depth)
        elif isinstance(s, A.Let):
            self.emit(f"{self.target(s)} = {self.ex(s.value)}", depth)
        elif isinstance(s, A.If):
            self.emit(f"if {self.ex(s.cond)}:", depth)
            self.branch_event(s, depth + 1)
            self.block(s.then, depth + 1)
            while len(s.else_) == 1 and isinstance(s.else_[0], A.If):   # `else if`: flat
                s = s.else_[0]
                self.emit(f"elif {self.ex(s.cond)}:", depth)
                self.branch_event(s, depth + 1)
                self.block(s.then, depth + 1)
            if s.else_:
                self.emit("else:", depth)
                self.block(s.else_, depth + 1)
        elif isinstance(s, A.For):
            if self.is_seat_source(s.iter):
                self.seat_vars.add(s.var)
            else:
                self.seat_vars.difference_update(A.bound_names(s))
            self.emit(f"for {self.target(s)} in {self.iter_of(s.iter)}:", depth)
            self.block(s.body, depth + 1)
        elif isinstance(s, A.Draw):
            b = self.fresh("bag")
            ty = T.element(self.p.types.get(id(s.source), T.UNKNOWN))
            self.emit(f"{N.local(s.name)}, {b} = X.draw({self.read(s.source)}, {ty!r})", depth)
            self.assign(s.source, b, depth)
        elif isinstance(s, A.Roll):   # with replacement: the collection is not changed
            ty = T.element(self.p.types.get(id(s.source), T.UNKNOWN))
            how = "roll" if s.seen == "all" else f"roll {s.seen}"
            self.emit(f"{N.local(s.name)}, _ = X.draw({N.stdlib('bag')}({self.ex(s.source)}), {ty!r}, "
                      f"{how!r})", depth)
        elif isinstance(s, A.Deal):
            it, b = self.fresh("item"), self.fresh("bag")
            self.emit(f"for _ in range({self.ex(s.count)}):", depth)
            self.emit(f"if not {self.read(s.source)}:", depth + 1)
            self.emit("break", depth + 2)
            ty = T.element(self.p.types.get(id(s.source), T.UNKNOWN))
            self.emit(f"{it}, {b} = X.draw({self.read(s.source)}, {ty!r})", depth + 1)
            self.assign(s.source, b, depth + 1)
            dst = self.read(s.dest)
            dt = self.p.types.get(id(s.dest), T.UNKNOWN)
            joined = f"{dst} + ({it},)"
            self.assign(s.dest, f"f_bag({joined})" if isinstance(dt, tuple) and dt[0] == "bag" else joined,
                        depth + 1)
        elif isinstance(s, A.End):
            self.emit(f"X.end = {s.what!r}", depth)
        elif isinstance(s, A.Win):
            self.emit(f"X.finish({self.ex(s.players)})", depth)
        elif isinstance(s, A.Tie):
            self.emit("X.finish(())", depth)
        elif isinstance(s, A.CallStmt):
            self.emit(f"{N.proc_fn(s.proc)}(S, X{''.join(', ' + self.ex(a) for a in s.args)})", depth)
        elif isinstance(s, A.Choose):
            ty = self.p.types.get(id(s), T.UNKNOWN)
            self.emit(f"{N.local(s.name)} = X.choose({self.ex(s.player)}, {self.iter_of(s.domain)}, {ty!r}, {N.ident(s.name)!r})",
                      depth)
        else:  # pragma: no cover
            raise AssertionError(type(s).__name__)

    # ------------------------------------------------------------ declarations
    def function(self, name: str, args: str, body_expr: str, static: bool = False) -> None:
        self.open_def(name, args)
        if static:   # fixed before the game starts: no state to read
            self.emit("S = None", 1)
        self.emit(f"return {body_expr}", 1)
        self.emit("", 0)

    def lower(self) -> str:
        p = self.p
        self.current_phase = None
        # the path is outside text: written as a Python string literal (one line)
        self.emit(f"# Generated by atoll from {str(p.file)!r}. Do not edit: change the spec.", 0)
        self.emit(f"# State slots: {', '.join(f'{i}={n}' for i, n in enumerate(self.layout.names))}", 0)
        self.emit("", 0)
        for k in p.consts.values():
            self.function(N.const_fn(k.name), "", self.ex(k.value), static=True)
        for i, r in enumerate(p.requires):
            self.function(N.require_fn(i), "", self.ex(r.cond), static=True)
        self.function("teams", "", self.ex(p.teams.value) if p.teams else "tuple((q,) for q in PLAYERS)",
                      static=True)
        for v in p.state.values():
            self.function(N.init(v.name), "", self.ex(v.init), static=True)
        for d in p.defs.values():
            params = "".join(f", {N.local(q.name)}" for q in d.params)
            self.def_seats[d.name] = frozenset(self.seat_vars)
            start = len(self.lines)
            self.function(N.def_fn(d.name), f"S{params}", self.ex(d.body))
            self.memo_function(d, self.lines[start:])
        for pr in p.procs.values():   # effects with no player acting: no `me`, no phase
            seats, self.seat_vars = self.seat_vars, set()
            self.open_def(N.proc_fn(pr.name), "S, X" + "".join(f", {N.local(q.name)}" for q in pr.params))
            self.block(pr.body, 1)
            self.emit("", 0)
            self.seat_vars = seats
        self.open_def("setup", "S, X")
        self.block(p.setup.body if p.setup else (), 1)
        self.emit("", 0)
        if p.flow:
            for i, rd in enumerate(p.flow.rounds):
                self.function(N.round_fn(i), "S", self.ex(rd.cond) if rd.cond is not None else "True")
                for j, st in enumerate(rd.stages):
                    self.function(N.stage_fn(i, j), "S", self.ex(st.players))
                    if st.until is not None:
                        self.function(N.until_fn(i, j), "S", self.ex(st.until))
        for ph in p.phases.values():
            self.current_phase = ph.name
            self.open_def(N.phase("enter", ph.name), "S, me, X")
            for v in ph.vars:
                self.emit(f"S[{self.layout.slots[('phase', ph.name, v.name)]}] = {self.ex(v.init)}", 1)
            self.block(ph.enter, 1)
            self.emit("", 0)
            if ph.auto:
                self.open_def(N.phase("auto", ph.name), "S, me, X")
                self.block(ph.auto, 1)
                self.emit("", 0)
            self.function(N.phase("done", ph.name), "S, me",
                          self.ex(ph.done) if ph.done is not None else "False")
            self.function(N.phase("repeat", ph.name), "S, me",
                          self.ex(ph.repeat) if ph.repeat is not None else "False")
            for a in ph.actions:
                self.action(a)
            self.flush_variants()
        self.current_phase = None
        for en in p.endings.values():
            self.function(N.ending_cond(en.name), "S", self.ex(en.cond))
            o = en.outcome
            if isinstance(o, A.OutcomeWin):
                self.function(N.ending_winners(en.name), "S", self.ex(o.players))
            elif isinstance(o, A.OutcomeRank):
                keys = "".join(self.ex(k) + ", " for k in o.keys)
                self.function(N.ending_rank(en.name), f"S, {N.local(o.var)}", f"({keys})")
        # Per timing, all its endings' conditions in one test: the position of
        # the first that holds among them, or -1.
        times: dict[str, list] = {}
        for en in p.endings.values():
            times.setdefault(en.time, []).append(en)
        for time, ens in times.items():
            self.open_def(N.endings_at(time), "S")
            for i, en in enumerate(ens):
                self.emit(f"if {self.ex(en.cond)}:", 1)
                self.emit(f"return {i}", 2)
            self.emit("return -1", 1)
            self.emit("", 0)
        if p.score:
            self.function("score", f"S, {N.local(p.score.var)}", self.ex(p.score.value))
        for pr in p.properties.values():
            if pr.kind in ("invariant", "reachable", "terminates"):
                self.function(N.prop(pr.name), "S", self.ex(pr.body))
            elif pr.script:   # `probability(E by ...)`: E read in the position reached, by its player
                self.function(N.prop(pr.name), "S, me", self.ex(pr.body))
            elif pr.kind == "action_invariant":   # of a legal action: its player and parameters
                self.function(N.prop(pr.name), "".join(["S, me"] + [", " + N.local(n) for n in pr.action_params]),
                              self.ex(pr.body))
            if pr.when is not None:
                self.function(N.prop_when(pr.name), "", self.ex(pr.when), static=True)
        if self.helpers:
            self.emit("# Expressions nested too deep for one line of Python.", 0)
            self.lines.extend(self.helpers)
        return "\n".join(self.lines) + "\n"

    def action(self, a: A.ActionDecl) -> None:
        n = a.name
        params = [N.local(q.name) for q in a.params]
        plist = "".join(", " + q for q in params)
        whens = [g for g in a.guards if g.kind == "when"]
        ensures = [g for g in a.guards if g.kind == "ensures"]
        if ensures:   # first, so that the listing knows which choices the post-test reads
            self.post_function(a, {}, 0)
            pre = self.pre_test(a, {})[0]
            self.open_def(N.action("ok", n), f"S, me{plist}")
            self.emit(f"return {f'({pre}) or ' if pre else ''}{N.action('post', n)}(S, me{plist})", 1)
            self.emit("", 0)
        # Generator of the parameter tuples allowed by the domains and `when` guards.
        self.open_def(N.action("gen", n), "S, me")
        depth = self.choice_loops(a, "return")
        self.emit(f"yield ({''.join(q + ', ' for q in params)})", depth)
        self.emit("", 0)
        # The legal choices as a list: domains and `when`s, then the `ensures`.
        self.open_def(N.action("choices", n), "S, me")
        self.emit("_out = []", 1)
        depth = self.ensured_loops(a, {}, "return _out", 0, listing=True)
        self.emit(f"_out.append(({''.join(q + ', ' for q in params)}))", depth)
        if self.sort_out:   # the first choice walked unsorted (see choice_loops)
            self.emit("_out.sort(key=lambda _c: _c[0])", 2)
            self.emit(f"except {N.stdlib('failure')}:", 1)   # (Exception: not one of the builtins)
            self.emit(f"return list({N.action('gen', n)}(S, me))", 2)
            self.sort_out = False
        self.emit("return _out", 1)
        self.emit("", 0)
        # Why a given choice is illegal: the index of the first failing clause, or -1.
        self.open_def(N.action("why", n), f"S, me{plist}")
        k = 0
        for q in a.params:
            self.emit(f"if {N.local(q.name)} not in {self.ex(q.domain)}:", 1)
            self.emit(f"return {k}", 2)
            k += 1
        for g in whens:
            self.emit(f"if not {self.ex(g.cond)}:", 1)
            self.emit(f"return {k}", 2)
            k += 1
        self.emit("return -1", 1)
        self.emit("", 0)
        self.open_def(N.action("effect", n), f"S, me, X{plist}")
        self.block(a.body, 1)
        self.emit("", 0)
        self.open_def(N.action("ensures", n), f"S, me{plist}")   # an `ensures` may read the choices
        for i, g in enumerate(ensures):
            self.emit(f"if not {self.ex(g.cond)}:", 1)
            self.emit(f"return {i}", 2)
        self.emit("return -1", 1)
        self.emit("", 0)
        self.can_function(a, {}, 0)

    def _distinct(self, e) -> bool:
        """The collection never holds an item twice (no need to collapse equal choices)."""
        return isinstance(e, A.Call) and self.p.refs.get(id(e)) in (
            ("stdlib", "orth"), ("stdlib", "around"), ("stdlib", "range"), ("stdlib", "between"),
            ("stdlib", "sorted"), ("stdlib", "lines"), ("stdlib", "collinear_subsets"),
            ("stdlib", "collinear_subsets_summing"),
            ("stdlib", "subsets"))

    def _locals_in(self, e) -> set[str]:
        return {self.p.refs[id(n)][1] for n in A.walk(e)
                if isinstance(n, A.Name) and self.p.refs.get(id(n), ("?",))[0] == "local"}


def lower(prog: Program, statics: Optional[dict] = None) -> tuple[str, Layout]:
    """The module of ``prog``; with ``statics`` (the values of the options,
    of the constants and the player count of one game, see Frame), a module
    for that game only, where those values are folded into the rules."""
    lw = Lowerer(prog, statics)
    return lw.lower(), lw.layout
