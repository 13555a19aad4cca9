"""Facts about rules that let the lowering skip work, for any game.

* ``reads``: the state slots an expression may read, following the functions
  it calls (a ``def`` body; for ``can(a)``, the choices of ``a``, and when its
  ``ensures`` cannot be decided at once, its effect and its ``ensures``);
* ``written`` and ``constants_after``: the slots an effect writes, and those
  it leaves holding a known literal;
* ``const``: the value of an expression when the known slots decide it;
* ``total``: the expression cannot fail (no missing map key, no index out of
  range, no ``remove`` of a missing item...), so skipping it changes nothing.

Every answer errs on the safe side: ``reads`` may name more slots than are
read, ``total`` may say False of an expression that cannot fail, ``const``
may say None of an expression whose value is fixed.

Slots are named as in the lowering's layout: ``("state", var)`` and
``("phase", phase, var)``. ``known`` maps slots to the literal they hold.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Optional

from atoll.compiler.symbols import Program
from atoll.grammar import ast as A

# Standard-library operations that raise on some arguments.
_PARTIAL_STDLIB = {"remove", "swap", "subsets", "planar"}


class Frame:
    def __init__(self, prog: Program, statics: Optional[dict] = None):
        self.p = prog
        # values fixed for one instantiation: ("option", name), ("const", name) and
        # ("builtin", "player_count") to their run-time value (see lower.specialise)
        self.statics = statics or {}
        self._def_total: dict = {}
        self._cans = None   # while `total` decides `can` calls (see post_total)
        # `reads` gives the slots the value may depend on, not every slot read:
        # `x and false` reads nothing (compiler/lower_flow.py, enter_shares)
        self.value_reads = False

    # ------------------------------------------------------------ slots
    def slot_of_ref(self, ref) -> Optional[tuple]:
        if ref is not None and ref[0] == "state":
            return ("state", ref[1])
        if ref is not None and ref[0] == "phase":
            return ("phase", ref[1], ref[2])
        return None

    def slot_of_target(self, name: str, phase: Optional[str]) -> tuple:
        """The slot an assignment target names, inside ``phase``."""
        if name in self.p.state:
            return ("state", name)
        return ("phase", phase, name)

    def _slots_named(self, name: str) -> set:
        """Every slot a target of this name may be (any phase's variable of that name)."""
        if name in self.p.state:
            return {("state", name)}
        return {("phase", ph.name, name) for ph in self.p.phases.values()
                if any(v.name == name for v in ph.vars)}

    def written(self, stmts, phase: Optional[str]) -> set:
        out = set()
        for s in stmts:
            if isinstance(s, A.Assign):
                out.add(self.slot_of_target(s.target.name, phase))
            elif isinstance(s, A.Draw):
                out.add(self.slot_of_target(s.source.name, phase))
            elif isinstance(s, A.Deal):
                out |= {self.slot_of_target(s.source.name, phase), self.slot_of_target(s.dest.name, phase)}
            elif isinstance(s, A.If):
                out |= self.written(s.then, phase) | self.written(s.else_, phase)
            elif isinstance(s, (A.For, A.CallStmt)):   # a call: what its procedure writes
                out |= self.written(s.body, phase)
        return out

    def constants_after(self, stmts, phase: Optional[str], known: dict) -> dict:
        """The slots known after running ``stmts`` on a state where ``known``
        holds: a whole slot set to a literal by a statement that always runs
        is known; any other write makes its slot unknown."""
        out = dict(known)
        for s in stmts:
            if isinstance(s, A.Assign) and not s.target.indices:
                slot = self.slot_of_target(s.target.name, phase)
                v = self.literal(s.value)
                if v is not None:
                    out[slot] = v
                else:
                    out.pop(slot, None)
            else:
                for slot in self.written([s], phase):
                    out.pop(slot, None)
        return out

    def literal(self, e):
        """The run-time value of a literal (a bool, an int, a string or an
        enum member), else None."""
        if isinstance(e, (A.BoolLit, A.IntLit, A.StrLit)):
            return e.value
        if isinstance(e, A.Name):
            ref = self.p.refs.get(id(e))
            if ref is not None and ref[0] == "member":
                return self.p.enums[ref[1]].members.index(ref[2])
        return None

    # ------------------------------------------------------------ constant folding
    def const(self, e, known: dict):
        """The value of ``e`` when the slots in ``known`` decide it, else None.
        Only bools and literals are folded (enough for `or`/`and` guards)."""
        v = self.literal(e)
        if v is not None:
            return v
        if isinstance(e, A.Name):
            ref = self.p.refs.get(id(e))
            slot = self.slot_of_ref(ref)
            if slot is not None:
                return known.get(slot)
            return self.statics.get(ref) if self.statics and ref is not None else None
        if isinstance(e, A.Not):
            v = self.const(e.operand, known)
            return None if v is None else (not v)
        if isinstance(e, A.BinOp) and e.op in ("or", "and"):
            left = self.const(e.left, known)
            if left is not None and bool(left) == (e.op == "or"):
                return left
            right = self.const(e.right, known)
            if left is not None:
                return right
            if (right is not None and bool(right) == (e.op == "or")
                    and self.p.types.get(id(e.left)) == "bool" and self.total(e.left)):
                return right   # x and false, x or true, whatever x is (and x cannot fail)
            return None
        if isinstance(e, A.BinOp) and e.op in ("==", "!=", "<", "<=", ">", ">="):
            left, right = self.const(e.left, known), self.const(e.right, known)
            if left is None or right is None:
                return None
            if e.op in ("==", "!="):
                return (left == right) == (e.op == "==")
            if not (type(left) is int and type(right) is int):
                return None
            return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[e.op]
        if isinstance(e, A.IfExpr):
            c = self.const(e.cond, known)
            if c is None:
                return None
            return self.const(e.then if c else e.else_, known)
        if isinstance(e, A.Match):
            arm = self.match_arm(e, known)
            return None if arm is None else self.const(arm.value, known)
        return None

    def match_arm(self, e: A.Match, known: dict):
        """The arm of ``e`` that its known subject takes, else None."""
        subject = self.const(e.subject, known)
        if subject is None:
            return None
        t = self.p.types.get(id(e.subject))
        for arm in e.arms:
            pat = arm.pattern
            if isinstance(pat, str) and isinstance(t, tuple) and t[0] == "enum":
                pat = self.p.enums[t[1]].members.index(pat)
            if pat is None or pat == subject:
                return arm
        return e.arms[-1]   # as the lowering reads a match: the last arm otherwise

    # ------------------------------------------------------------ reads
    def reads(self, e, known: dict) -> set:
        """Slots that evaluating ``e`` may read, with the functions it calls;
        slots in ``known`` are read as their literal, and a branch that the
        known slots rule out is not followed."""
        out: set = set()
        seen: set = set()
        todo = [(e, known)]
        while todo:
            node, kn = todo.pop()
            for item in self._own(node, kn, out):
                key = (item[0], item[1], frozenset(item[2].items()))
                if key not in seen:
                    seen.add(key)
                    todo.extend(self._expand(item))
        return out

    def _own(self, e, known, out: set):
        """Add the slots ``e`` reads itself to ``out``; return the calls it makes
        as ("def", name, {}) or ("can", action, known)."""
        calls = []
        stack = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, A.Name):
                ref = self.p.refs.get(id(n))
                slot = self.slot_of_ref(ref)
                if slot is not None and slot not in known:
                    out.add(slot)
                elif ref == ("builtin", "current_round"):
                    out.add(("round",))
                continue
            if isinstance(n, A.FieldAccess):
                slot = self.slot_of_ref(self.p.refs.get(id(n)))
                if slot is not None:
                    out.add(slot)
                    continue
            if isinstance(n, A.Call):
                ref = self.p.refs.get(id(n))
                if ref is not None and ref[0] == "def":
                    calls.append(("def", ref[1], {}))
                elif ref is not None and ref[0] == "can":
                    calls.append(("can", ref[1], known))
                    continue
            if isinstance(n, A.BinOp) and n.op in ("or", "and"):
                left = self.const(n.left, known)
                if left is not None and bool(left) == (n.op == "or"):
                    stack.append(n.left)
                    continue
                if self.value_reads:   # the right side decides the value, the left cannot fail
                    right = self.const(n.right, known)
                    if right is not None and bool(right) == (n.op == "or") and self.total(n.left):
                        continue
            if isinstance(n, A.IfExpr):
                c = self.const(n.cond, known)
                if c is not None:
                    stack.append(n.then if c else n.else_)
                    continue
            if isinstance(n, A.LValue):   # a target (updated in place, drawn from): read too
                out.update(self._slots_named(n.name))
                stack.extend(n.indices)
                continue
            if is_dataclass(n):
                for f in fields(n):
                    if f.name not in ("span", "phase_spans"):
                        stack.append(getattr(n, f.name))
            elif isinstance(n, (tuple, list)):
                stack.extend(n)
        return calls

    def _expand(self, call):
        """The expressions (with what is known) that a call evaluates."""
        kind, name, known = call
        if kind == "def":
            return [(self.p.defs[name].body, {})]
        phase, a = self.p.actions[name]
        out = [(q.domain, {}) for q in a.params] + [(g.cond, {}) for g in a.guards if g.kind == "when"]
        if self.ensures_decided(a, phase, known):
            return out
        after = self.constants_after(a.body, phase, known)
        out.append((a.body, {}))
        out.extend((g.cond, after) for g in a.guards if g.kind == "ensures")
        out.extend((d, known) for d in self.pre_disjuncts(a, phase))
        return out

    # ------------------------------------------------------------ ensures before the effect
    def pre_disjuncts(self, a: A.ActionDecl, phase: str) -> list:
        """Of each `ensures`, the disjuncts that read nothing the effect
        writes and call nothing: they can be decided before the effect."""
        written = self.written(a.body, phase)
        return [d for g in a.guards if g.kind == "ensures" for d in self.disjuncts(g.cond)
                if self.frame_safe(d, written)]

    def pre_clauses(self, a: A.ActionDecl, phase: str) -> list[list]:
        written = self.written(a.body, phase)
        return [[d for d in self.disjuncts(g.cond) if self.frame_safe(d, written)]
                for g in a.guards if g.kind == "ensures"]

    def ensures_decided(self, a: A.ActionDecl, phase: str, known: dict) -> bool:
        """Every `ensures` of ``a`` holds on any state where ``known`` holds,
        decided before the effect (trivially so without `ensures`)."""
        return all(any(self.const(d, known) is True for d in clause)
                   for clause in self.pre_clauses(a, phase))

    def disjuncts(self, e) -> list:
        if isinstance(e, A.BinOp) and e.op == "or":
            return self.disjuncts(e.left) + self.disjuncts(e.right)
        return [e]

    def frame_safe(self, e, written: set) -> bool:
        """Reads no slot in ``written`` and calls nothing that reads the state."""
        for node in A.walk(e):
            ref = self.p.refs.get(id(node))
            if ref is None:
                continue
            slot = self.slot_of_ref(ref)
            if isinstance(node, A.Name) and slot is not None and slot in written:
                return False
            if isinstance(node, A.Call) and ref[0] in ("def", "can"):
                return False
        return True

    # ------------------------------------------------------------ totality
    def store_total(self, a: A.ActionDecl, st: A.Assign, phase: str, written_before: set) -> bool:
        """The assignment in the effect of ``a`` cannot fail (when the choice is
        among the action's choices; ``written_before``: the slots the effect
        wrote before it)."""
        idx = st.target.indices
        if not all(self.total(i) for i in idx):
            return False
        decl = self.p.state.get(st.target.name)
        per_player = decl is not None and decl.scope == "player"
        is_map = decl is not None and not per_player and decl.type.name == "map"
        if idx and not ((len(idx) == 1 and per_player and self.is_seat(idx[0], frozenset()))
                        or (len(idx) == 1 and is_map)):
            return False   # a nested update checks its indices
        v = st.value
        if self.total(v):
            return True
        # remove(xs, c) and swap(xs, c, y) where the choice c ranges over xs, unchanged so far
        if isinstance(v, A.Call) and self.p.refs.get(id(v)) in (("stdlib", "remove"), ("stdlib", "swap")):
            first, second = v.args[0], v.args[1]
            ref = self.p.refs.get(id(second))
            for q in a.params:
                if (isinstance(second, A.Name) and ref == ("local", q.name) and first == q.domain
                        and not (self.reads(first, {}) & written_before)
                        and all(self.total(x) for x in (first,) + v.args[2:])):
                    return True
        return False

    def effect_total(self, a: A.ActionDecl, phase: str) -> bool:
        """Every statement of the effect of ``a`` runs without failing (only
        plain statements: assignments, `let`, `end`, `tie`, `win`)."""
        written = set()
        for st in a.body:
            if isinstance(st, A.Assign):
                if not self.store_total(a, st, phase, written):
                    return False
            elif isinstance(st, A.Let):
                if not self.total(st.value):
                    return False
            elif isinstance(st, A.Win):
                if not self.total(st.players):
                    return False
            elif not isinstance(st, (A.End, A.Tie)):
                return False
            written |= self.written([st], phase)
        return True

    def can_total(self, name: str, known: dict, visiting: frozenset = frozenset()) -> bool:
        """`can(name)`, asked on a state where ``known`` holds, cannot fail."""
        phase, a = self.p.actions[name]
        key = (name, frozenset(known.items()))
        if key in visiting:
            return False
        if not (all(self.total(q.domain) for q in a.params)
                and all(self.total(g.cond) for g in a.guards if g.kind == "when")):
            return False
        if self.ensures_decided(a, phase, known):
            return True
        return self.post_total(a, known, visiting | {key})

    def post_total(self, a: A.ActionDecl, known: dict, visiting: frozenset = frozenset()) -> bool:
        """Testing the `ensures` of ``a`` for one of its choices (before the
        effect, then after it) cannot fail."""
        phase = self.p.actions[a.name][0]
        if not all(self.total(d) for cl in self.pre_clauses(a, phase) for d in cl):
            return False
        if not self.effect_total(a, phase):
            return False
        after = self.constants_after(a.body, phase, known)
        cans = lambda n: self.can_total(n, after, visiting)   # noqa: E731
        return all(self.total(g.cond, cans=cans) for g in a.guards if g.kind == "ensures")

    def total(self, e, seats: frozenset = frozenset(), guards: tuple = (), cans=None) -> bool:
        """Evaluating ``e`` cannot raise. ``seats``: locals known to hold a
        valid seat; ``guards``: (map, key) pairs known to be present; ``cans``:
        whether `can(a)` cannot fail (by default it may)."""
        if cans is not None:
            saved, self._cans = self._cans, cans
            try:
                return self.total(e, seats, guards)
            finally:
                self._cans = saved
        if e is None or isinstance(e, (A.IntLit, A.BoolLit, A.StrLit, A.Name)):
            return True
        if isinstance(e, A.BinOp):
            if e.op == "and":
                g = guards
                if isinstance(e.left, A.BinOp) and e.left.op == "in":
                    g = guards + ((e.left.right, e.left.left),)
                return self.total(e.left, seats, guards) and self.total(e.right, seats, g)
            return self.total(e.left, seats, guards) and self.total(e.right, seats, guards)
        if isinstance(e, (A.Not, A.Neg)):
            return self.total(e.operand, seats, guards)
        if isinstance(e, A.IfExpr):
            return all(self.total(x, seats, guards) for x in (e.cond, e.then, e.else_))
        if isinstance(e, A.FieldAccess):
            return self.total(e.obj, seats, guards)
        if isinstance(e, A.Index):
            if not (self.total(e.obj, seats, guards) and self.total(e.key, seats, guards)):
                return False
            t = self.p.types.get(id(e.obj))
            kind = t[0] if isinstance(t, tuple) else None
            if kind == "player":
                return self.is_seat(e.key, seats)
            if kind == "map":
                return (e.obj, e.key) in guards
            return kind == "tuple"   # (its index is a number within its items: checked)
        if isinstance(e, A.Call):
            ref = self.p.refs.get(id(e), ("?",))
            args = list(e.args) + [n.value for n in e.named]
            if not all(self.total(x, seats, guards) for x in args):
                return False
            if ref[0] == "record":
                return True
            if ref[0] == "stdlib":
                return ref[1] not in _PARTIAL_STDLIB
            if ref[0] == "team_of":
                return self.is_seat(e.args[0], seats)
            if ref[0] == "def":
                d = self.p.defs[ref[1]]
                bound = frozenset(q.name for q, x in zip(d.params, e.args) if self.is_seat(x, seats))
                return self.def_total(ref[1], bound)
            if ref[0] == "can" and self._cans is not None:
                return self._cans(ref[1])
            return False   # `can` runs other rules
        if isinstance(e, (A.Aggregate, A.Comprehension)):
            inner = seats
            for f in e.fors:
                if not self.total(f.iter, inner, guards):
                    return False
                names = set(A.bound_names(f))
                inner = inner | names if self.is_seat_source(f.iter) else inner - names
                guards = tuple(g for g in guards if not any(self._mentions(g, n) for n in names))
                if not all(self.total(c, inner, guards) for c in f.conds):
                    return False
            return self.total(e.elem, inner, guards) and self.total(getattr(e, "key", None), inner, guards)
        if isinstance(e, (A.ListLit, A.SetLit)):
            return all(self.total(x, seats, guards) for x in e.items)
        if isinstance(e, A.MapLit):
            return all(self.total(x, seats, guards) for x in e.keys + e.values)
        if isinstance(e, A.TupleLit):
            return all(self.total(x, seats, guards) for x in e.items)
        if isinstance(e, A.LetExpr):   # its names hide outer seats and guards that mention them
            names = {n for b in e.bindings for n in A.bound_names(b)}
            inner = seats - names
            guards = tuple(g for g in guards if not any(self._mentions(g, n) for n in names))
            return all(self.total(x, inner, guards) for x in [b.value for b in e.bindings] + [e.body])
        if isinstance(e, A.With):   # (a record's keys are field names)
            keys = e.keys if self.p.types.get(id(e), ("?",))[0] == "map" else ()
            return all(self.total(x, seats, guards) for x in (e.obj,) + keys + e.values)
        if isinstance(e, A.EmptyOf):
            return True
        if isinstance(e, A.Match):
            return self.total(e.subject, seats, guards) and all(self.total(a.value, seats, guards)
                                                                for a in e.arms)
        return False   # `cases` fail when no case applies

    def def_total(self, name: str, seats: frozenset) -> bool:
        key = (name, seats)
        if key not in self._def_total:
            self._def_total[key] = False   # a def that calls itself counts as partial
            self._def_total[key] = self.total(self.p.defs[name].body, seats)
        return self._def_total[key]

    def is_seat(self, e, seats: frozenset) -> bool:
        if not isinstance(e, A.Name):
            return False
        ref = self.p.refs.get(id(e))
        return ref == ("me",) or (ref is not None and ref[0] == "local" and ref[1] in seats)

    def is_seat_source(self, e) -> bool:
        return isinstance(e, A.Name) and self.p.refs.get(id(e)) in (("builtin", "players"),
                                                                    ("builtin", "seats"))

    def _mentions(self, guard, var: str) -> bool:
        return any(isinstance(n, A.Name) and n.name == var for n in A.walk(guard))
