"""z3 checks: theorems (for every input) and witnesses (some input, several
distinct ones, or the best one under an objective)."""
from __future__ import annotations

import z3

from atoll.compiler import names as N
from atoll.compiler import types as T
from atoll.compiler.check import Checker
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.verify import verdicts as V
from atoll.compiler.values import sort_values
from atoll.verify.z3sem import TRUE, Coll, Opt, SMap, Unsupported, Z3Eval, eq, ite, simp


class _Query:
    """The binders of a property as symbolic values with their domain constraints."""

    def __init__(self, prog, game, pr: A.PropertyDecl):
        self.ev = Z3Eval(prog, game)
        self.ev.obligations = []   # conditions the values need (a key present...), proved below
        self.checker = Checker(prog, Reporter())
        self.pr = pr
        self.prog, self.game = prog, game
        self.env = {}
        self.constraints = []
        self.types = {}
        for b in pr.binders:
            t = self.checker.resolve(b.type)
            self.types[b.name] = t
            self.env[b.name] = self.bind(b, t)

    def bind(self, b: A.Binder, t):
        ev = self.ev
        d = b.domain
        if isinstance(d, A.Call) and d.func == "subsets" and len(d.args) == 1:
            # A set chosen from a collection: one Bool per item.
            base = ev.ev(d.args[0], self.env)
            items = []
            for i, (v, c) in enumerate(base.items):
                pick = z3.Bool(f"{b.name}!{i}")
                self.constraints.append(z3.Implies(pick, c))
                items.append((v, pick))
            from atoll.verify.z3sem import dedupe
            return Coll("set", dedupe(items))
        if isinstance(d, A.Call) and d.func == "between" and t == T.INT:
            lo, hi = (ev.ev(a, self.env) for a in d.args)   # bounds, not a list of values
            v = z3.Int(b.name)
            self.constraints += [v >= lo, v <= hi]
            return v
        dom = ev.ev(d, self.env)
        items = dom.items if isinstance(dom, Coll) else [(k, c) for k, _, c in dom.entries]
        if self._structured(t):
            # One of the items, whole: a selector picks it (a collection, or a
            # record holding one, has no free z3 value).
            if not items:
                self.constraints.append(z3.BoolVal(False))
                return self._nothing(t)
            sel = z3.Int(f"{b.name}!choice")
            out = items[-1][0]
            for i in range(len(items) - 2, -1, -1):
                out = ite(sel == i, items[i][0], out)
            self.constraints.append(z3.Or([z3.And(sel == i, c) for i, (_, c) in enumerate(items)]))
            return out
        v = ev.fresh(t, b.name)
        self.constraints.append(ev.domain(t, v))
        self.constraints.append(z3.Or([z3.And(c, eq(x, v)) for x, c in items] + [z3.BoolVal(False)]))
        return v

    def _structured(self, t) -> bool:
        if T.is_collection(t):
            return True
        if isinstance(t, tuple) and t[0] == "record":
            return any(self._structured(ft) for _, ft in self.ev.fields(t[1]))
        if isinstance(t, tuple) and t[0] == "tuple":
            return any(self._structured(it) for it in t[1:])
        if isinstance(t, tuple) and t[0] == "maybe":
            return self._structured(t[1])
        return False

    def _nothing(self, t):
        """A placeholder for a binder whose domain is empty (never read)."""
        if t[0] == "record":
            return tuple(self._nothing(ft) if self._structured(ft) else self.ev.fresh(ft)
                         for _, ft in self.ev.fields(t[1]))
        if t[0] == "tuple":
            return tuple(self._nothing(it) if self._structured(it) else self.ev.fresh(it) for it in t[1:])
        if t[0] == "maybe":
            return Opt(z3.BoolVal(False), None)
        return SMap([]) if t[0] == "map" else Coll(t[0], [])

    def values(self, model, codec) -> dict:
        """Each binder's value as text, in the game's notation (atoll.render);
        positions in a list (a binder over ``range(size(L))`` or its
        ``subsets``) with the list's items beside them."""
        from atoll.render import label
        out = {}
        binders = {b.name: b for b in self.pr.binders}
        for name, v in self.env.items():
            t = self.types[name]
            x = self.ev.concrete(t, v, model)
            out[name] = label(codec, t, x)
            items = self._indexed(binders[name].domain)
            if items is not None:
                lst, et = items
                picked = sort_values(x) if isinstance(x, (frozenset, set, tuple, list)) else [x]
                if all(isinstance(i, int) and 0 <= i < len(lst) for i in picked):
                    out[name] += " (" + ", ".join(label(codec, et, lst[i]) for i in picked) + ")"
        return out

    def _indexed(self, d):
        """(the list, its element type) when domain ``d`` is ``range(size(L))``
        or ``subsets(range(size(L)))`` for a constant or data list L; else None."""
        if isinstance(d, A.Call) and d.func == "subsets" and len(d.args) == 1:
            d = d.args[0]
        if not (isinstance(d, A.Call) and d.func == "range" and len(d.args) == 1):
            return None
        s = d.args[0]
        if not (isinstance(s, A.Call) and s.func == "size" and len(s.args) == 1
                and isinstance(s.args[0], A.Name)):
            return None
        name = s.args[0].name
        decl = self.prog.data.get(name) or self.prog.consts.get(name)
        lst = self.game.ns.get(N.value(name))
        if decl is None or not isinstance(lst, tuple):
            return None
        t = self.checker.resolve(decl.type)
        if not (isinstance(t, tuple) and t[0] == "list") or t[1] in ("int", "bool"):
            return None   # a list of numbers: its positions say as much
        return lst, t[1]

    def block(self, model):
        """A constraint excluding the binders' values in ``model``."""
        diffs = []
        for name, v in self.env.items():
            t = self.types[name]
            val = self.ev.lift(t, self.ev.concrete(t, v, model))
            diffs.append(z3.Not(eq(v, val)))
        return z3.Or(diffs) if diffs else z3.BoolVal(False)


TABLE_ROWS = 500   # a `well_defined` lists its inputs case by case up to this many


def _outcome(r, solver) -> str:
    reason = solver.reason_unknown() if r == z3.unknown else ""
    return reason


#: A theorem whose binders range over concrete collections with at most this
#: many combinations is checked by running its body on each, in Python.
ENUMERATE = 100_000
#: The evaluation budget (steps of the lowered code) of one enumerated theorem.
ENUMERATE_STEPS = 20_000_000


def _enumerated(prog, game, pr: A.PropertyDecl):
    """The theorem checked input by input, when every binder's domain is a
    concrete collection (it reads no state and no other binder) and they
    have at most ``ENUMERATE`` combinations: (verdict, detail, counterexample),
    or None (then z3 decides). The body runs as the model runs it (the
    lowered Python), within the evaluation budget; an input on which it
    fails (a partial operation) is left to z3, which reports it."""
    from itertools import product

    from atoll.compiler import names as N
    from atoll.compiler.consts import Budget
    from atoll.compiler.lower import Lowerer
    from atoll.render import label
    from atoll.verify.fold import free_locals

    checker = Checker(prog, Reporter())
    ns = dict(game.ns)
    ns.update(S=None, me=None)
    domains, total = [], 1
    try:
        for b in pr.binders:
            if free_locals(prog, b.domain) != frozenset():
                return None
            with Budget():
                values = eval(compile(Lowerer(prog).ex(b.domain), "<atoll binder>", "eval"), ns)
            values = list(values)
            total *= len(values)
            if total > ENUMERATE:
                return None
            domains.append(values)
        params = ", ".join(N.local(b.name) for b in pr.binders)
        body = eval(compile(f"lambda {params}: {Lowerer(prog).ex(pr.body)}", "<atoll theorem>", "eval"), ns)
        with Budget(steps=ENUMERATE_STEPS):
            for combo in product(*domains):
                if not body(*combo):
                    inputs = {b.name: label(game.codec, checker.resolve(b.type), v)
                              for b, v in zip(pr.binders, combo)}
                    out = {"inputs": inputs, "enumerated": total}
                    for side in _sides(pr.body):   # what the two sides of a comparison are there
                        try:
                            fn = eval(compile(f"lambda {params}: {Lowerer(prog).ex(side)}", "<atoll side>",
                                              "eval"), ns)
                            out.setdefault("values", {})[_src(prog, side)] = label(
                                game.codec, prog.types.get(id(side)), fn(*combo))
                        except Exception:   # a side that cannot be shown: the input still shows the violation
                            pass
                    return V.VIOLATED, None, out
    except Exception:   # a partial operation (a missing key...), the budget, an unlowered form: z3 decides
        return None
    detail = {"inputs": len(pr.binders), "enumerated": total}
    hyp = _hypothesis(pr.body)
    if total == 0:
        detail["vacuous"] = "vacuous: the domain is empty"
    elif hyp is not None:
        try:
            holds = eval(compile(f"lambda {params}: {Lowerer(prog).ex(hyp)}", "<atoll hypothesis>", "eval"), ns)
            with Budget(steps=ENUMERATE_STEPS):
                if not any(holds(*combo) for combo in product(*domains)):
                    detail["vacuous"] = "vacuous: no input in the domain satisfies the hypothesis"
        except Exception:
            pass
    return V.PROVED, detail, None


def _sides(body) -> tuple:
    """The two sides of a comparison (shown with a counterexample), else none."""
    if isinstance(body, A.BinOp) and body.op in ("==", "!=", "<", "<=", ">", ">="):
        return (body.left, body.right)
    return ()


def _src(prog, e) -> str:
    """The spec's own text of ``e`` (for a counterexample's values)."""
    try:
        sp = e.span
        lines = prog.sources[sp.file].splitlines()
        if sp.line == sp.end_line:
            return lines[sp.line - 1][sp.column - 1:sp.end_column - 1]
    except Exception:
        pass
    return type(e).__name__


def check_theorem(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """PROVED when no input violates the body; VIOLATED with the input otherwise."""
    if pr.binders:
        done = _enumerated(prog, game, pr)
        if done is not None:
            return done
    try:
        q = _Query(prog, game, pr)
        body = q.ev.ev(pr.body, q.env)
    except Unsupported as e:
        return V.UNKNOWN, {"reason": f"no z3 meaning: {e}"}, None
    undefined = _undefined(q, game, timeout_ms)
    if undefined is not None:
        return undefined
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*q.constraints)
    s.add(z3.Not(body))
    r = s.check()
    if r == z3.unsat:
        detail = {"inputs": len(pr.binders)}
        vacuous = _vacuity(q, pr, timeout_ms)
        if vacuous:
            detail["vacuous"] = vacuous
        return V.PROVED, detail, None
    if r == z3.sat:
        return V.VIOLATED, None, {"inputs": q.values(s.model(), game.codec)}
    return V.UNKNOWN, {"reason": f"z3 gave up: {s.reason_unknown()}"}, None


def _undefined(q, game, timeout_ms):
    """UNKNOWN when some input leaves a value undefined (a lookup of a key
    that is missing, where the value has no free z3 stand-in); else None."""
    if not q.ev.obligations:
        return None
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*q.constraints)
    s.add(z3.Not(z3.And(q.ev.obligations)))
    r = s.check()
    if r == z3.unsat:
        return None
    if r == z3.sat:
        return V.UNKNOWN, {"reason": "the property is undefined for some input (a map key is missing "
                                     "or a list index is outside the list), for example "
                                     + ", ".join(f"{k}={v}" for k, v in q.values(s.model(), game.codec).items())}, None
    return V.UNKNOWN, {"reason": f"z3 gave up: {s.reason_unknown()}"}, None


def _hypothesis(body):
    """The hypothesis of a body written `not H or C` or `if H then C else true`."""
    if isinstance(body, A.BinOp) and body.op == "or" and isinstance(body.left, A.Not):
        return body.left.operand
    if isinstance(body, A.IfExpr) and isinstance(body.else_, A.BoolLit) and body.else_.value:
        return body.cond
    return None


def _vacuity(q, pr, timeout_ms) -> str:
    """Why a proved theorem says nothing, if it cheaply shows: its domain
    is empty, or no input satisfies its hypothesis. '' otherwise."""
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*q.constraints)
    if s.check() == z3.unsat:
        return "vacuous: the domain is empty"
    hyp = _hypothesis(pr.body)
    if hyp is None:
        return ""
    try:
        h = q.ev.ev(hyp, q.env)
    except Unsupported:
        return ""
    s.add(h)
    if s.check() == z3.unsat:
        return "vacuous: no input in the domain satisfies the hypothesis"
    return ""


def check_witness(prog, game, pr: A.PropertyDecl, timeout_ms: int):
    """WITNESS FOUND with up to ``show`` distinct witnesses (the best first
    under an objective); NO WITNESS when z3 shows there is none."""
    try:
        q = _Query(prog, game, pr)
        body = q.ev.ev(pr.body, q.env)
        goal = q.ev.ev(pr.objective[1], q.env) if pr.objective else None
    except Unsupported as e:
        return V.UNKNOWN, {"reason": f"no z3 meaning: {e}"}, None
    witnesses = []
    best = None
    s = z3.Optimize() if goal is not None else z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*q.constraints, *q.ev.obligations)   # a witness is an input where everything is defined
    s.add(body)
    if goal is not None:
        (s.minimize if pr.objective[0] == "minimize" else s.maximize)(goal)
    for _ in range(max(1, pr.show)):
        r = s.check()
        if r == z3.unknown:
            if witnesses:
                break
            return V.UNKNOWN, {"reason": f"z3 gave up: {s.reason_unknown()}"}, None
        if r == z3.unsat:
            break
        m = s.model()
        w = q.values(m, game.codec)
        if goal is not None:
            value = m.eval(goal, model_completion=True).as_long()
            if best is None:
                best = value
                s = _fixed(q, body, goal, value, timeout_ms)   # list the optimum's witnesses
            w = {"objective": value, **w}
        witnesses.append(w)
        s.add(q.block(m))
    if not witnesses:
        return V.NO_WITNESS, {"reason": "z3: no input satisfies it"}, None
    detail = {"witnesses": witnesses}
    if best is not None:
        detail[pr.objective[0]] = best
    return V.WITNESS_FOUND, detail, None


def _fixed(q, body, goal, value, timeout_ms):
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*q.constraints, *q.ev.obligations)
    s.add(body, goal == value)
    return s


def check_well_defined(prog, game, pr: A.PropertyDecl, timeout_ms: int, count_limit: int = 2000):
    """For every input in the binders' domains, at least one case applies, and
    two cases that both apply agree on the value. PROVED comes with how many
    inputs each case takes (when the domains are small enough to count)."""
    from atoll.compiler.check import cases_of
    try:
        q = _Query(prog, game, pr)
        cases, call = cases_of(prog, pr.body)
        env = q.env
        if call is not None:
            d = prog.defs[call.func]
            env = {par.name: q.ev.ev(arg, q.env) for par, arg in zip(d.params, call.args)}
        conds = [q.ev.ev(arm.cond, env) for arm in cases.arms]
        vals = [q.ev.ev(arm.value, env) for arm in cases.arms]
    except Unsupported as e:
        return V.UNKNOWN, {"reason": f"no z3 meaning: {e}"}, None
    names = [arm.name for arm in cases.arms]
    undefined = _undefined(q, game, timeout_ms)
    if undefined is not None:
        return undefined

    def solve(*extra):
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(*q.constraints, *extra)
        return s, s.check()

    s, r = solve(z3.Not(z3.Or(conds)))
    if r == z3.sat:
        return V.VIOLATED, None, {"problem": "no case applies", "inputs": q.values(s.model(), game.codec)}
    if r == z3.unknown:
        return V.UNKNOWN, {"reason": f"z3 gave up: {s.reason_unknown()}"}, None
    for i in range(len(conds)):
        for j in range(i + 1, len(conds)):
            s, r = solve(conds[i], conds[j], z3.Not(eq(vals[i], vals[j])))
            if r == z3.sat:
                return V.VIOLATED, None, {
                    "problem": f"cases `{names[i]}` and `{names[j]}` both apply and disagree",
                    "inputs": q.values(s.model(), game.codec)}
            if r == z3.unknown:
                return V.UNKNOWN, {"reason": f"z3 gave up: {s.reason_unknown()}"}, None
    detail = {"cases": names}
    table, rows = {}, []
    for i, name in enumerate(names):   # inputs taken by each case (the first that applies)
        first = [conds[i]] + [z3.Not(c) for c in conds[:i]]
        s, r = solve(*first)
        n = 0
        while r == z3.sat and n < count_limit:
            n += 1
            model = s.model()
            if len(rows) < TABLE_ROWS:
                rows.append({"case": name, "inputs": q.values(model, game.codec)})
            s.add(q.block(model))
            r = s.check()
        table[name] = n if r == z3.unsat else f"{n}+"
    detail["inputs per case"] = table
    vacuous = _vacuity(q, pr, timeout_ms)
    if vacuous:
        detail["vacuous"] = vacuous
    # The outcome table itself (for --json and the docs), when it is small,
    # and the counts split by the first binder's value when it takes several.
    if len(rows) < TABLE_ROWS and all(isinstance(v, int) for v in table.values()):
        detail["table"] = rows
        first = pr.binders[0].name
        groups: dict = {}
        for row in rows:
            counts = groups.setdefault(row["inputs"][first], dict.fromkeys(names, 0))
            counts[row["case"]] += 1
        if len(groups) > 1:
            order = sorted(groups, key=lambda v: (0, int(v), "") if v.lstrip("-").isdigit() else (1, 0, v))
            detail["inputs per case by"] = {"binder": first, "groups": {v: groups[v] for v in order}}
    return V.PROVED, detail, None
