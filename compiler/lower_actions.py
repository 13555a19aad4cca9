"""Lowering of an action's choices, `ensures` and `can`: a part of the
Lowerer (``lower.Lowerer`` inherits it and provides ``emit``, ``ex``, the
analyses in ``frame`` and the state of the lowering).

The meaning of `ensures` is: run the effect on a copy of the state, then
test the conditions there. The generated code takes shortcuts:
* pre-test: the disjuncts that read nothing the effect writes (and call
  nothing) are tried on the state before the effect; when they read no
  choice and cannot fail, once for all choices;
* apost_<action> runs the effect without the stores that nothing after
  them reads, and reads the slots it sets to a literal as constants;
* `can` there asks a variant specialised to those constants (numbered:
  can<n>_<action>, see ``names``); without a look-ahead, `can` is an
  existence test;
* the legal choices are listed by achoices_<action>; can(a) runs the same
  loops and stops at the first.
"""
from __future__ import annotations

import ast as _py
import re
from dataclasses import fields, is_dataclass

from atoll.compiler import limits, pyparse
from atoll.compiler import names as N
from atoll.compiler import types as T
from atoll.compiler.lower_let import let_bound
from atoll.grammar import ast as A

# Loops one generated function may nest (Python refuses more than 20 blocks);
# the parser keeps an action's choices within limits.MAX_LOOPS.
_MAX_BLOCKS = 18


class ActionLowering:
    """The methods of the Lowerer for actions (see the module's text)."""

    def can_name(self, action: str, known: dict) -> str:
        """The function deciding `can(action)` on a state where ``known`` holds."""
        if not known:
            return N.can(action)
        key = (action, frozenset(known.items()))
        if key not in self.variants:
            self.variants[key] = len(self.variants) + 1
            self.pending.append((action, dict(known), self.variants[key]))
        return N.can_variant(action, self.variants[key])

    def flush_variants(self) -> None:
        while self.pending:
            name, known, i = self.pending.pop(0)
            a = self.p.actions[name][1]
            if not self.frame.ensures_decided(a, self.p.actions[name][0], known):
                self.post_function(a, known, i)
            self.can_function(a, known, i)

    def known_text(self, known: dict) -> str:
        return ", ".join(f"{self.layout.names[self.layout.slots[k]]} = {v!r}"
                         for k, v in sorted(known.items()))

    def can_function(self, a: A.ActionDecl, known: dict, variant: int) -> None:
        """can_<action> (``variant`` 0), or its variant where ``known`` holds."""
        self.open_def(N.can_variant(a.name, variant) if variant else N.can(a.name), "S, me")
        if known:
            self.emit(f"# can({N.ident(a.name)}) where {self.known_text(known)}", 1)
        saved, self.known = self.known, known
        depth = self.ensured_loops(a, known, "return False", variant, exists=True)
        self.known = saved
        self.emit("return True", depth)
        if depth > 1:
            self.emit("return False", 1)
        self.emit("", 0)

    def post_name(self, action: str, variant: int) -> str:
        return N.action_post_variant(action, variant) if variant else N.action("post", action)

    def ensured_loops(self, a: A.ActionDecl, known: dict, stop: str, variant: int,
                      exists: bool = False, listing: bool = False) -> int:
        """The loops over the choices of ``a`` that pass its `when`s and
        `ensures`, on a state where ``known`` holds; returns the depth of their
        body. ``exists``: only whether there is one matters. ``listing``: the
        body appends the choices to ``_out`` (see choice_loops)."""
        phase = self.p.actions[a.name][0]
        if self.frame.ensures_decided(a, phase, known):
            return self.choice_loops(a, stop, exists=exists, listing=listing)
        pre, once = self.pre_test(a, known)
        names = [q.name for q in a.params]
        reads = set(self.post_reads.get((a.name, variant), names))
        if pre is not None and not once:
            reads |= {n for cl in self.frame.pre_clauses(a, phase) for d in cl for n in self._locals_in(d)}
        reads &= set(names)
        args = "".join(f", {N.local(n) if n in reads else 'None'}" for n in names)
        post = f"{self.post_name(a.name, variant)}(S, me{args})"
        test = post if pre is None else f"_pre or {post}" if once else f"({pre}) or {post}"
        before = [f"_pre = {pre}"] if once else []
        total = self.frame.post_total(a, known)
        plan = None if exists or reads == set(names) else self._memo_plan(a, reads, total)
        if plan == "dict":
            memo = self.fresh("memo")
            before.append(f"{memo} = {{}}")
        depth = self.choice_loops(a, stop, before, exists=exists and total,
                                  filtered=(next(iter(reads)), test) if plan == "filter" else None)
        if plan == "filter":   # the domain of the one choice the test reads holds only those that pass
            return depth
        if plan == "dict":   # the test asked once per value of the choices it reads (the first time as before)
            key = "".join(f"{N.local(n)}, " for n in names if n in reads)
            r = self.fresh("r")
            self.emit(f"{r} = {memo}.get(({key}))", depth)
            self.emit(f"if {r} is None:", depth)
            self.emit(f"{r} = {memo}[({key})] = True if {test} else False", depth + 1)
            self.emit(f"if {r}:", depth)
            return depth + 1
        self.emit(f"if {test}:", depth)
        return depth + 1

    def _memo_plan(self, a: A.ActionDecl, reads: set, total: bool):
        """How the listing may ask the post-test of ``a``, which reads only
        the choices ``reads`` (not all): "filter" when it reads one choice
        whose domain is computed before the loops (see choice_loops) and
        neither the test nor anything it would skip (the `when`s from that
        choice's loop inward, the domains inside it) can fail: that domain is
        then filtered once; "dict" when the values of the choices it reads are
        hashable: each answer is kept, so the test runs once per value, the
        first time where it ran before; None otherwise."""
        idx = {q.name: i for i, q in enumerate(a.params)}
        if len(reads) == 1:
            i = idx[next(iter(reads))]
            q = a.params[i]
            earlier = {p.name for p in a.params[:i]}
            inner = {p.name for p in a.params[i:]}
            if (total and i > 0 and not (self._locals_in(q.domain) & earlier)
                    and self.frame.total(q.domain)
                    and all(self.frame.total(p.domain) for p in a.params[i + 1:])
                    and all(self.frame.total(g.cond) for g in a.guards
                            if g.kind == "when" and self._locals_in(g.cond) & inner)):
                return "filter"
        if all(self._hashable(T.element(self.t(a.params[idx[n]].domain))) for n in reads):
            return "dict"
        return None

    def _hashable(self, t, seen: frozenset = frozenset()) -> bool:
        """Values of type ``t`` are hashable at run time (no map inside)."""
        if not isinstance(t, tuple):
            return t != T.UNKNOWN
        if t[0] == "map":
            return False
        if t[0] == "record":
            if t[1] == "Pos" or t[1] in seen:
                return True
            rec = self.p.records.get(t[1])
            return rec is not None and not any(
                isinstance(n, A.TypeRef) and n.name == "map" for f in rec.fields for n in A.walk(f))
        return all(self._hashable(x, seen) for x in t[1:] if isinstance(x, (str, tuple)))

    def pre_test(self, a: A.ActionDecl, known: dict) -> tuple:
        """The test of the `ensures` before the effect (None when it cannot
        hold), and whether it reads no choice and cannot fail."""
        saved, self.known = self.known, known
        parts, total = [], True
        for cl in self.frame.pre_clauses(a, self.p.actions[a.name][0]):
            ds = [d for d in cl if self.frame.const(d, known) is not False]
            if not ds:
                parts.append("False")
                break   # false from here on
            parts.append(" or ".join(self.ex(d) for d in ds))
            total = total and all(self.frame.total(d) for d in ds)
        self.known = saved
        if parts[-1] == "False" and total:
            return None, False
        choices = {q.name for q in a.params}
        once = total and parts[-1] != "False" and not any(
            self._locals_in(d) & choices for cl in self.frame.pre_clauses(a, self.p.actions[a.name][0])
            for d in cl)
        return " and ".join(f"({c})" for c in parts), once

    def post_function(self, a: A.ActionDecl, known: dict, variant: int) -> None:
        """apost_<action> (or its ``variant``): whether every `ensures` of ``a``
        holds after its effect, for one of its choices on a state where
        ``known`` holds and the pre-test failed. Notes which choices the
        generated function reads (``post_reads``)."""
        start = len(self.lines)
        self._post_body(a, known, variant)
        self.post_reads[(a.name, variant)] = _params_read(self.lines[start:], [q.name for q in a.params])

    def _post_body(self, a: A.ActionDecl, known: dict, variant: int) -> None:
        phase = self.p.actions[a.name][0]
        plist = "".join(f", {N.local(q.name)}" for q in a.params)
        self.open_def(self.post_name(a.name, variant), f"S, me{plist}")
        if known:
            self.emit(f"# where {self.known_text(known)}", 1)
        ensures = [g.cond for g in a.guards if g.kind == "ensures"]
        if len(ensures) == 1 and self.pre_test(a, known)[0] is not None:
            # the pre-test failed: its disjuncts are false after the effect too
            safe = self.frame.pre_clauses(a, phase)[0]
            rest = [d for d in self.frame.disjuncts(ensures[0]) if not any(d is x for x in safe)]
            known = dict(known)
            for d in safe:   # a variable that failed the pre-test is false (true under `not`)
                neg = isinstance(d, A.Not)
                v = d.operand if neg else d
                slot = self.frame.slot_of_ref(self.p.refs.get(id(v))) if isinstance(v, A.Name) else None
                if slot is not None and self.t(v) == T.BOOL:
                    known[slot] = neg
        else:
            rest = None
        after = self.frame.constants_after(a.body, phase, known)
        tests = ensures if rest is None else rest
        body = self.live_statements(a, phase, self.frame.reads(tuple(tests), after))
        plan = self.post_substitution_plan(body, rest, after, phase) if rest else None
        if plan is not None:
            self.post_by_substitution(plan, rest, after)
            return
        saved, self.known = self.known, {}
        if body:
            self.emit("S = S[:]", 1)
            if any(isinstance(x, (A.Draw, A.Deal, A.Win)) for st in body for x in A.walk(st)):
                self.emit("X = DRY", 1)
            self.block(body, 1)
        self.known = after
        if rest is None:
            self.emit(f"return {' and '.join(f'({self.ex(c)})' for c in ensures)}", 1)
        else:
            self.emit(f"return {' or '.join(self.ex(d) for d in rest) or 'False'}", 1)
        self.emit("", 0)
        self.known = saved

    def post_substitution_plan(self, body, rest, after: dict, phase: str):
        """How to test the `ensures` after the effect without copying the
        state: each statement's value goes to a local, and reads of what it
        set take the local (a whole variable; the acting player's entry; one
        key of a map, for `in` and reads at a key). None when some statement
        or read does not fit, or `can` would read the state itself: only a
        last disjunct `can(b)` that needs no look-ahead is inlined, as loops."""
        plan, kinds = [], {}
        for st in body:
            if isinstance(st, A.Let):
                plan.append((st, "let", None))
                continue
            if not isinstance(st, A.Assign):
                return None
            slot = self.frame.slot_of_target(st.target.name, phase)
            decl = self.p.state.get(st.target.name)
            idx = st.target.indices
            if not idx:
                kind = "value"
            elif (len(idx) == 1 and decl is not None and decl.scope == "player"
                  and self.p.refs.get(id(idx[0])) == ("me",)):
                kind = "player"
            elif len(idx) == 1 and decl is not None and decl.scope != "player" and decl.type.name == "map":
                kind = "map"
            else:
                return None
            if slot in kinds and (kind != "value" or kinds[slot] != "value"):
                return None   # a second write to an entry: not followed
            parts = (st.value,) + idx
            if not all(self._substitution_ok(x, kinds) for x in parts):
                return None
            kinds[slot] = kind
            plan.append((st, kind, slot))
        last = rest[-1]
        ref = self.p.refs.get(id(last)) if isinstance(last, A.Call) else None
        if ref is not None and ref[0] == "can":
            b_phase, b = self.p.actions[ref[1]]
            if not self.frame.ensures_decided(b, b_phase, after):
                return None
            checked = rest[:-1] + [q.domain for q in b.params] + [g.cond for g in b.guards if g.kind == "when"]
        else:
            checked = list(rest)
        if not all(self._substitution_ok(x, kinds) for x in checked):
            return None
        return plan

    def _substitution_ok(self, e, kinds: dict) -> bool:
        """Every read in ``e`` of a slot in ``kinds`` fits its substitution, and
        nothing that reads such a slot is called with the state itself."""
        if not kinds:
            return True
        if isinstance(e, A.Name):
            slot = self.frame.slot_of_ref(self.p.refs.get(id(e)))
            return slot not in kinds or kinds[slot] == "value"
        if isinstance(e, A.Index) and isinstance(e.obj, A.Name):
            slot = self.frame.slot_of_ref(self.p.refs.get(id(e.obj)))
            if slot in kinds:
                return self._substitution_ok(e.key, kinds)
        if isinstance(e, A.BinOp) and e.op in ("in", "notin") and isinstance(e.right, A.Name):
            slot = self.frame.slot_of_ref(self.p.refs.get(id(e.right)))
            if slot in kinds and kinds[slot] == "map":
                return self._substitution_ok(e.left, kinds)
        if isinstance(e, A.Call):
            ref = self.p.refs.get(id(e), ("?",))
            if ref[0] in ("def", "can") and self.frame.reads(e, {}) & set(kinds):
                if ref[0] == "can" or not self._inlinable(ref[1], e.args):
                    return False
                if not self._substitution_ok(self.p.defs[ref[1]].body, kinds):
                    return False
        if is_dataclass(e):
            return all(self._substitution_ok(getattr(e, f.name), kinds)
                       for f in fields(e) if f.name not in ("span", "phase_spans"))
        if isinstance(e, (tuple, list)):
            return all(self._substitution_ok(x, kinds) for x in e)
        return True

    def post_by_substitution(self, plan, rest, after: dict) -> None:
        saved = self.known, self.overrides
        self.known, self.overrides = {}, dict(self.overrides)
        start = len(self.lines)
        values = []   # (line, local, statement) of each value stored
        try:
            for st, kind, slot in plan:
                if kind == "let":
                    self.emit(f"{self.target(st)} = {self.ex(st.value)}", 1)
                    continue
                i = self.layout.slots[slot]
                v = self.fresh("v")
                values.append((len(self.lines), v, st))
                self.emit(f"{v} = {self.ex(st.value)}", 1)   # the value first, as in the effect
                if kind == "map":
                    k = self.fresh("k")
                    self.emit(f"{k} = {self.ex(st.target.indices[0])}", 1)
                    self.overrides[i] = ("map", k, v)
                else:
                    self.overrides[i] = (kind, v)
            self.known = after
            last = rest[-1]
            ref = self.p.refs.get(id(last)) if isinstance(last, A.Call) else None
            tests = rest[:-1] if ref is not None and ref[0] == "can" else rest
            for d in tests:
                self.emit(f"if {self.ex(d)}:", 1)
                self.emit("return True", 2)
            if tests is not rest:   # the last disjunct can(b), as its loops
                depth = self.choice_loops(self.p.actions[ref[1]][1], "return False", exists=True)
                self.emit("return True", depth)
            self.emit("return False", 1)
            self.emit("", 0)
            # a stored value that no test reads and that cannot fail: not computed
            dead = {line for line, v, st in values if self.frame.total(st.value)
                    and not any(_mentions_name(text, v) for text in self.lines[line + 1:])}
            if dead:
                self.lines[start:] = [t for k, t in enumerate(self.lines[start:], start) if k not in dead]
        finally:
            self.known, self.overrides = saved

    def live_statements(self, a: A.ActionDecl, phase: str, live: set) -> list:
        """The effect's statements without those whose only work is a store
        that nothing after them reads (and that cannot fail), and without the
        signals to the transaction that cannot fail (`end`, `tie`, `win`)."""
        fr = self.frame
        before, acc = [], set()
        for st in a.body:
            before.append(set(acc))
            acc |= fr.written([st], phase)
        live = set(live)
        kept = []
        for st, wb in reversed(list(zip(a.body, before))):
            if isinstance(st, (A.End, A.Tie)) or (isinstance(st, A.Win) and fr.total(st.players)):
                continue
            if isinstance(st, A.Assign):
                slot = fr.slot_of_target(st.target.name, phase)
                if slot not in live and fr.store_total(a, st, phase, wb):
                    continue
                if st.target.indices:
                    live.add(slot)
                else:
                    live.discard(slot)
                live |= fr.reads((st.value,) + st.target.indices, {})
            else:
                live |= fr.reads(st, {})
            kept.append(st)
        return kept[::-1]

    def choice_loops(self, a: A.ActionDecl, stop: str, before: list = (), exists: bool = False,
                     filtered: tuple = None, listing: bool = False) -> int:
        """Emit the loops that bind the choices of ``a``; return the depth of
        their body. Each `when` is tested as soon as the parameters it reads
        are bound (``stop`` leaves when one that reads none fails). A domain
        that reads no earlier choice and cannot fail is evaluated once, before
        the loops. ``exists``: only whether there is a choice matters, so when
        no test inside the loops can fail, items are taken in any order and
        repeats are kept. ``before``: lines to run once before the loops.
        ``listing``: the body appends the choice to ``_out``; when the first
        choice's domain is a set or a map (walked sorted), it is walked as it
        is, inside a ``try``, and ``self.sort_out`` tells the caller to sort
        ``_out`` by its first item afterwards (stably, so the later choices
        keep their order within one first choice) and, should anything raise
        there, to list the choices the plain way (``agen_``: the same loops,
        sorted), which raises the same error in the same place as before.
        The same list: the items of a set or the keys of a map are distinct,
        and which one is looked at first is not seen when nothing fails."""
        sort_out = False
        whens = [g for g in a.guards if g.kind == "when"]
        level_of = {q.name: i + 1 for i, q in enumerate(a.params)}
        by_level: dict[int, list] = {}
        for g in whens:
            lvl = max([level_of[nm] for nm in self._locals_in(g.cond) if nm in level_of], default=0)
            by_level.setdefault(lvl, []).append(g)
        depth = 1
        # candidates this listing may still examine (limits.MAX_CHOICES), counted
        # as each inner loop starts (the outermost walks a collection that exists)
        budget = self.fresh("left") if len(a.params) > 1 else None
        if budget:
            self.emit(f"{budget} = {limits.MAX_CHOICES}", depth)
        if self.known or self.statics:   # a `when` that the known slots make true needs no test
            by_level = {lvl: [g for g in gs if self.frame.const(g.cond, self.known) is not True]
                        for lvl, gs in by_level.items()}
        # The `when`s of one loop, when none of them can fail, cheapest first
        # (which one fails first is then not observable; `awhy_` keeps the spec's order).
        seats, guards = self._choice_facts(a)
        for lvl, gs in by_level.items():
            if len(gs) > 1 and all(self.frame.total(g.cond, seats, guards) for g in gs):
                gs.sort(key=lambda g: self._cost(g.cond))
        for g in by_level.get(0, []):
            self.test_lines(g.cond, stop, depth)
        for line in before:
            self.emit(line, depth)
        saved_vals = self.item_vals
        self.item_vals = {**saved_vals, **self._hoist_invariants(
            [g.cond for lvl, gs in by_level.items() if lvl > 0 for g in gs], depth)}
        any_order = exists and all(self.frame.total(q.domain) for q in a.params) and all(
            self.frame.total(g.cond) for lvl, gs in by_level.items() if lvl > 0 for g in gs)
        sources = []
        taken = {q.name for q in a.params}
        loops = len(a.params)   # the loops of the generated function, for Python's limit
        for i, q in enumerate(a.params):
            fused = self._comprehension_of(q.domain, taken) if any_order else None
            if fused is not None and loops - 1 + len(fused[0].fors) > _MAX_BLOCKS:
                fused = None   # as many loops would be too many: iterate the collection
            if fused is not None:   # walked as loops of its own, below
                taken |= {n for f in fused[0].fors for n in A.bound_names(f)}
                loops += len(fused[0].fors) - 1
                sources.append(fused)
                continue
            keys_of = isinstance(q.domain, A.Call) and self.p.refs.get(id(q.domain)) == ("stdlib", "keys")
            dom = self.ex(q.domain.args[0] if keys_of else q.domain)   # a map yields its keys
            if any_order:
                src = dom
            elif i == 0 and listing and self._unsorted_first(a):
                src = dom
                sort_out = True
            elif not T.is_ordered_iteration(self.t(q.domain)):
                src = f"sorted({dom})"
            elif self._distinct(q.domain) or keys_of:
                src = dom
            elif self._hashable(T.element(self.t(q.domain))):   # the distinct items, in order
                src = f"dict.fromkeys({dom})"
            else:
                src = f"f_unique({dom})"
            earlier = {p.name for p in a.params[:i]}
            if i > 0 and not (self._locals_in(q.domain) & earlier) and self.frame.total(q.domain):
                hoisted = self.fresh("dom")
                self.emit(f"{hoisted} = {src}", depth)
                src = hoisted
                if filtered is not None and filtered[0] == q.name:   # (see ensured_loops)
                    kept = self.fresh("ok")
                    self.emit(f"{kept} = [{N.local(q.name)} for {N.local(q.name)} in {hoisted} "
                              f"if {filtered[1]}]", depth)
                    src = (hoisted, kept)
            sources.append(src)
        for i, q in enumerate(a.params):
            if isinstance(sources[i], tuple) and len(sources[i]) == 3:
                depth = self._fused_loops(q.name, *sources[i], depth)
            else:
                src, walk = (sources[i], sources[i]) if isinstance(sources[i], str) else sources[i]
                if i > 0 and budget and not src.isidentifier():
                    src = walk = self.fresh("dom")
                    self.emit(f"{src} = {sources[i]}", depth)
                if i == 0:
                    self._empty_source(q.domain, stop, depth)
                if i == 0 and sort_out:   # (see the text above)
                    self.emit("try:", depth)
                    depth += 1
                if i > 0 and budget:   # (a filtered domain counts its candidates before the filter)
                    self.emit(f"{budget} -= len({src})", depth)
                    self.emit(f"if {budget} < 0:", depth)
                    self.emit(f"{N.stdlib('too_many_choices')}()", depth + 1)
                v = self._entry_walk(a, i, walk, by_level)
                if v is not None:
                    self.emit(f"for {N.local(q.name)}, {v} in {walk}.items():", depth)
                else:
                    self.emit(f"for {N.local(q.name)} in {walk}:", depth)
                depth += 1
            for g in by_level.get(i + 1, []):
                self.test_lines(g.cond, "continue", depth)
        self.sort_out = sort_out
        self.item_vals = saved_vals
        return depth

    def test_lines(self, cond, stop: str, depth: int) -> None:
        """``if not COND: STOP``. A `when` of the form ``count(x for x in L if
        C) OP E`` is counted by a loop written out in the listing, not by a
        list comprehension (in Python 3.11 a function called per test): the
        same items and tests in the same order, then ``E`` as before. The
        loop's variable takes a fresh name (nothing outside is overwritten;
        the spec's name inside the count means it, unless it is bound again
        inside, which keeps the comprehension)."""
        agg = cond.left if isinstance(cond, A.BinOp) and cond.op in ("<", "<=", ">", ">=", "==", "!=") else None
        if not (isinstance(agg, A.Aggregate) and agg.func == "count" and len(agg.fors) == 1
                and not agg.fors[0].names and len(A.bound_names(agg.fors[0])) == 1
                and depth + 1 < _MAX_BLOCKS):
            self.emit(f"if not {self.ex(cond)}:", depth)
            self.emit(stop, depth + 1)
            return
        f = agg.fors[0]
        var = A.bound_names(f)[0]
        if any(var in let_bound(c) for c in f.conds):
            self.emit(f"if not {self.ex(cond)}:", depth)
            self.emit(stop, depth + 1)
            return
        n, v = self.fresh("n"), self.fresh("c")
        self.emit(f"{n} = 0", depth)
        self.emit(f"for {v} in {self.iter_of(f.iter, order_matters=False)}:", depth)
        saved = self.subst, set(self.seat_vars)
        self.subst = {**self.subst, var: v}
        if self.is_seat_source(f.iter):
            self.seat_vars.add(var)
        else:
            self.seat_vars.discard(var)
        try:
            if f.conds:
                self.emit(f"if {' and '.join(self.ex(c) for c in f.conds)}:", depth + 1)
            self.emit(f"{n} += 1", depth + (2 if f.conds else 1))
        finally:
            self.subst = saved[0]
            self.seat_vars.clear()
            self.seat_vars.update(saved[1])
        self.emit(f"if not ({n} {cond.op} {self.ex(cond.right)}):", depth)
        self.emit(stop, depth + 1)

    def _hoist_invariants(self, conds, depth: int) -> dict:
        """The largest parts of the `when`s inside the loops that read no
        local (no choice, no variable of a comprehension: only the state, the
        constants and ``me``) and cannot fail, and are more than a name or a
        literal, each evaluated once here, before the loops, into ``_hN``:
        the same value wherever it was evaluated (the state does not change
        while the choices are listed), and evaluating it once more than
        needed (when no loop reaches it) changes nothing, since it cannot
        fail. Returns id(part) -> its variable (for ``item_vals``)."""
        out: dict = {}
        made: dict = {}   # text -> variable (the same part written twice: once)

        def visit(e):
            if isinstance(e, (A.Index, A.Call, A.Aggregate, A.Comprehension, A.FieldAccess)) \
                    and id(e) not in out and not any(
                        isinstance(n, A.Name) and self.p.refs.get(id(n), ("?",))[0] == "local"
                        for n in A.walk(e)) \
                    and not (isinstance(e, A.Call) and self.p.refs.get(id(e), ("?",))[0] == "can") \
                    and self.frame.total(e):
                text = self.ex(e)
                if text.isidentifier() or re.fullmatch(r"S\[\d+\]|[\d'\"()]+", text):
                    return   # as cheap as a variable
                v = made.get(text)
                if v is None:
                    v = made[text] = self.fresh("h")
                    self.emit(f"{v} = {text}", depth)
                out[id(e)] = v
                return
            if is_dataclass(e):
                for f in fields(e):
                    if f.name not in ("span", "phase_spans"):
                        visit(getattr(e, f.name))
            elif isinstance(e, (tuple, list)):
                for x in e:
                    visit(x)

        for c in conds:
            visit(c)
        return out

    def _entry_walk(self, a: A.ActionDecl, i: int, walk: str, by_level: dict):
        """When choice ``i`` is drawn from ``keys(m)`` (or ``m``), ``m`` a
        variable or constant, walked as it is (``walk`` is ``m``), and the
        `when`s or domains inside its loop read ``m`` at the choice: the
        variable that takes the entry's value (the loop walks ``m.items()``;
        see ``Lowerer.item_plan``), those reads registered; None otherwise."""
        q = a.params[i]
        dom = q.domain
        m = dom.args[0] if isinstance(dom, A.Call) and self.p.refs.get(id(dom)) == ("stdlib", "keys") else dom
        mt = self.t(m)
        if not (isinstance(m, A.Name) and isinstance(mt, tuple) and mt[0] == "map") or self.overrides:
            return None
        mref = self.p.refs.get(id(m))
        if mref is None or mref[0] not in ("state", "phase", "const", "data") or walk != self.ex(m):
            return None
        inside = [g.cond for lvl, gs in by_level.items() if lvl > i for g in gs] + \
            [p.domain for p in a.params[i + 1:]]
        if any(q.name in let_bound(x) for x in inside):
            return None
        reads = [x for part in inside for x in A.walk(part)
                 if isinstance(x, A.Index) and isinstance(x.obj, A.Name) and isinstance(x.key, A.Name)
                 and self.p.refs.get(id(x.obj)) == mref and self.p.refs.get(id(x.key)) == ("local", q.name)]
        if not reads:
            return None
        self.item_count += 1
        v = f"_iv{self.item_count}"
        self.item_vals = {**self.item_vals, **{id(x): v for x in reads}}
        return v

    def _empty_source(self, dom, stop: str, depth: int) -> None:
        """The first choice's domain is a comprehension whose first loop walks
        a variable (``S[n]`` or a name): when that holds nothing, the domain
        is empty and nothing else of it is evaluated, so the listing stops
        there, before building it (the variable is read as the domain would
        read it first, at the same place: nothing fails otherwise)."""
        if not (isinstance(dom, A.Comprehension) and dom.kind in ("list", "set") and dom.fors):
            return
        text = self.ex(dom.fors[0].iter)
        if re.fullmatch(r"S\[\d+\]|[A-Za-z_]\w*", text):
            self.emit(f"if not {text}:", depth)
            self.emit(stop if stop != "continue" else "pass", depth + 1)

    def _unsorted_first(self, a: A.ActionDecl) -> bool:
        """The first choice's domain is a set or a map (see choice_loops)."""
        t = self.t(a.params[0].domain)
        return isinstance(t, tuple) and t[0] in ("set", "map") and T.element(t) != T.UNKNOWN

    def _choice_facts(self, a: A.ActionDecl) -> tuple:
        """What the choices' domains tell ``frame.total``: the choices drawn
        from seats (players, seats, a team), and (map, choice) for a choice
        drawn from a map's keys (reading the map at it cannot fail)."""
        seats, guards = set(), []
        taken = set()
        for q in a.params:
            dom = q.domain
            if not (self._locals_in(dom) & taken):   # (a domain reading an earlier choice: left out)
                if self.is_seat_source(dom):
                    seats.add(q.name)
                if isinstance(dom, A.Call) and self.p.refs.get(id(dom)) == ("stdlib", "keys"):
                    dom = dom.args[0]
                t = self.t(dom)
                if isinstance(t, tuple) and t[0] == "map" and not self._locals_in(dom):
                    guards.append((dom, A.Name(q.name)))
            taken.add(q.name)
        # a guard or seat naming a choice that a later choice's name hides is dropped
        names = [q.name for q in a.params]
        if len(set(names)) != len(names):   # pragma: no cover - the checker refuses repeated names
            return frozenset(), ()
        return frozenset(seats), tuple(guards)

    def _cost(self, e) -> int:
        """A rough cost of evaluating ``e``: its nodes, a loop or a call of a
        rule counting as many."""
        c = 0
        for n in A.walk(e):
            c += 1
            if isinstance(n, (A.Comprehension, A.Aggregate)):
                c += 20 * len(n.fors)
            elif isinstance(n, A.Call) and self.p.refs.get(id(n), ("?",))[0] in ("def", "can"):
                c += 20
        return c

    def _comprehension_of(self, dom, taken: set):
        """For an existence test: the set or list comprehension that ``dom`` is
        (directly, or as the body of a def that can be inlined), with the
        def's parameters and seat variables, when its variables are free."""
        subst, seats = None, None
        if isinstance(dom, A.Call) and self.p.refs.get(id(dom), ("?",))[0] == "def":
            name = self.p.refs[id(dom)][1]
            if name not in self.def_seats or self.inline_def(name, dom.args) is None:
                return None
            d = self.p.defs[name]
            subst = {q.name: self.ex(x) for q, x in zip(d.params, dom.args)}
            seats = set(self.def_seats[name])
            dom = d.body
        if not (isinstance(dom, A.Comprehension) and dom.kind in ("set", "list")):
            return None
        if {n for f in dom.fors for n in A.bound_names(f)} & taken:
            return None
        return dom, subst, seats

    def _fused_loops(self, var: str, comp: A.Comprehension, subst, seats, depth: int) -> int:
        """The loops of ``comp``, binding ``var`` to each item (in any order)."""
        saved = self.subst, self.seat_vars
        if subst is not None:
            self.subst, self.seat_vars = subst, seats
        try:
            for f in comp.fors:
                if self.is_seat_source(f.iter):
                    self.seat_vars.add(f.var)
                else:
                    self.seat_vars.difference_update(A.bound_names(f))
                self.emit(f"for {self.target(f)} in {self.iter_of(f.iter, order_matters=False)}:", depth)
                depth += 1
                for c in f.conds:
                    self.emit(f"if not {self.ex(c)}:", depth)
                    self.emit("continue", depth + 1)
            self.emit(f"{N.local(var)} = {self.ex(comp.elem)}", depth)
        finally:
            self.subst, self.seat_vars = saved
        return depth



def _mentions_name(text: str, name: str) -> bool:
    """The generated line ``text`` uses the local ``name``."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def _params_read(lines: list, params: list) -> frozenset:
    """The choices (by name) whose locals the generated function in ``lines``
    reads; a function that does not parse alone counts as reading all."""
    try:
        tree = pyparse.parse("\n".join(lines))
    except SyntaxError:   # pragma: no cover - the lowering emits whole functions
        return frozenset(params)
    loads = {n.id for n in _py.walk(tree) if isinstance(n, _py.Name) and isinstance(n.ctx, _py.Load)}
    return frozenset(q for q in params if N.local(q) in loads)
