"""The AST builder: one method per rule of the grammar (grammar/atoll.lark),
called bottom-up with the rule's children.

Each method receives ``meta``, the extent of the text the rule matched as
``(line, column, end_line, end_column)`` (1-based, end exclusive), or None
for a rule that matched no text, then the rule's children as lark would
give them (tokens kept, `[x]` as None when absent). Both parse paths call
it: the fast one (``lalr``) as it reduces, the general one through the
lark adapter in ``parse``.
"""
from __future__ import annotations

import re

from atoll.grammar import ast as A
from atoll.grammar import shape

_tok_span = shape.token_span


_ESCAPE = re.compile(r'\\(["\\n])')


def _unquote(s: str) -> str:
    """The text of a string literal: its escapes are \\", \\\\ and \\n (read left to right)."""
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), s[1:-1])


def _notes(items) -> A.Notes:
    summary, cites, assumption = [], [], []
    for kind, value in items:
        {"summary": summary, "cites": cites, "assumption": assumption}[kind].extend(value)
    return A.Notes(" ".join(summary), tuple(cites), " ".join(assumption))



class AstBuilder:
    """Builds AST nodes bottom-up; the method names are the grammar's rule names."""

    def __init__(self, file: str):
        self.file = file
        self.type_indexes = False   # set by `type_index`: each must end up inside a typed empty

    def _s(self, meta) -> A.Span:
        if meta is None:
            return A.NO_SPAN
        return A.Span(self.file, meta[0], meta[1], meta[2], meta[3])

    # -- keyword choices (kept tokens)
    def _kw(self, meta, tok):
        return str(tok)

    option_kind = scope = visibility_kind = stage_kind = ending_time = tie_kind = end_what = _kw
    optimize_kind = step_kind = verdict_word = override_target = quantifier = _kw

    # -- properties
    def binder(self, meta, name, type_, domain):
        return A.Binder(str(name), type_, domain, self._s(meta))

    def binders(self, meta, quantifier, *bs):
        return (str(quantifier), tuple(bs))

    def objective(self, meta, kind, e):
        return (kind, e)

    def show_count(self, meta, n):
        return int(n)

    def expectation(self, meta, word):
        return word

    def prop_theorem(self, meta, binders, body):
        return dict(kind="theorem", quantifier=binders[0], binders=binders[1], body=body)

    def prop_witness(self, meta, binders, body, objective, show):
        return dict(kind="witness", quantifier=binders[0], binders=binders[1], body=body,
                    objective=objective, show=show or 1)

    def prop_well_defined(self, meta, binders, body):
        return dict(kind="well_defined", quantifier=binders[0], binders=binders[1], body=body)

    def prop_invariant(self, meta, body, *assumed):
        return dict(kind="invariant", body=body,
                    assuming=tuple(str(n) for n in assumed if n is not None))

    def prop_action_invariant(self, meta, action, *rest):
        *names, body = rest
        return dict(kind="action_invariant", action=str(action),
                    action_params=tuple(str(n) for n in names if n is not None), body=body)

    def prop_deadlock(self, meta):
        return dict(kind="deadlock_free")

    def prop_no_leak(self, meta):
        return dict(kind="no_leak")

    def prop_terminates(self, meta, body, step):
        return dict(kind="terminates", body=body, step=step)

    def prop_terminates_surely(self, meta, p):
        return dict(kind="almost_surely", probability=int(p))

    def prop_reachable(self, meta, body):
        return dict(kind="reachable", body=body)

    def _chance_prop(self, kind, body, over, op, value):
        fors, script = over
        return dict(kind=kind, body=body, fors=fors, script=script, compare=str(op), value=value)

    def prop_probability(self, meta, body, over, op, value):
        return self._chance_prop("probability", body, over, op, value)

    def prop_expectation(self, meta, body, over, op, value):
        return self._chance_prop("expectation", body, over, op, value)

    def over_outcomes(self, meta, *fors):
        return (tuple(fors), ())

    def over_script(self, meta, *steps):
        return ((), tuple(steps))

    def script_step(self, meta, name, *rest):
        *args, op, times = rest
        args = tuple(a for a in args if a is not None)
        return A.ScriptStep(str(name), args, 1 if times is None else int(times),
                            "*" if op is None else str(op), self._s(meta))

    def rational(self, meta, num, op, den):
        return A.Rational(int(num), 1 if den is None else int(den), "/" if op is None else str(op),
                          self._s(meta))

    def neg_rational(self, meta, num, op, den):
        r = self.rational(meta, num, op, den)
        return A.Rational(-r.num, r.den, r.op, r.span)

    def property_decl(self, meta, name, when, notes, body, expect):
        return A.PropertyDecl(str(name), when=when, notes=notes, expect=expect,
                              span=_tok_span(self.file, name), **body)

    # -- worked examples
    def example_decl(self, meta, name, notes, settings, *steps):
        return A.ExampleDecl(str(name), settings or (), tuple(steps), notes,
                             _tok_span(self.file, name))

    def example_with(self, meta, *settings):
        return tuple(settings)

    def ex_players(self, meta, n, word):
        return A.ExSetting("players", str(word), int(n), self._s(meta))

    def ex_seed(self, meta, word, n):
        return A.ExSetting("seed", str(word), int(n), self._s(meta))

    def ex_option(self, meta, name, value):
        return A.ExSetting("option", str(name), value, self._s(meta))

    def ex_given(self, meta, player, phase, *values):
        return A.ExGiven(player, None if phase is None else str(phase), tuple(values), self._s(meta),
                         None if phase is None else _tok_span(self.file, phase))

    def given_player(self, meta, e):
        return e

    def given_phase(self, meta, name):
        return name

    def given_in(self, meta, name):
        return name

    def given_value(self, meta, name, var, *rest):
        *indices, value = rest
        if var is None:
            return A.ExValue(str(name), None, tuple(indices), value, self._s(meta))
        return A.ExValue(str(var), str(name), tuple(indices), value, self._s(meta))

    def ex_play(self, meta, word, *actions):
        return A.ExPlay(str(word), tuple(actions), self._s(meta))

    def example_action(self, meta, name, *rest):
        *args, by = rest
        args = [a for a in args if a is not None]
        return A.ExAction(str(name), tuple(a for a in args if not isinstance(a, A.NamedArg)),
                          tuple(a for a in args if isinstance(a, A.NamedArg)), by, self._s(meta))

    def example_choice(self, meta, name, value, by):
        return A.ExAction(str(name), (value,), (), by, self._s(meta), choice=True)

    def action_by(self, meta, e):
        return e

    def ex_expect(self, meta, e):
        return A.ExExpect(**e, span=self._s(meta))

    def expect_true(self, meta, e):
        return dict(kind="true", value=e)

    def expect_legal(self, meta, action):
        return dict(kind="legal", action=action)

    def expect_illegal(self, meta, action, refusal):
        return dict(kind="illegal", action=action, refusal=refusal)

    def expect_win(self, meta, e):
        return dict(kind="win", value=e)

    def expect_tie(self, meta):
        return dict(kind="tie")

    def expect_score(self, meta, e):
        return dict(kind="score", value=e)

    def expect_ending(self, meta, name):
        return dict(kind="ending", name=str(name), name_span=_tok_span(self.file, name))

    def expect_player(self, meta, e, phase):
        return dict(kind="player", value=e, name="" if phase is None else str(phase),
                    name_span=None if phase is None else _tok_span(self.file, phase))

    def refused_when(self, meta, cond):
        return A.ExRefusal("when", cond, "", self._s(meta))

    def refused_ensures(self, meta, cond):
        return A.ExRefusal("ensures", cond, "", self._s(meta))

    def refused_phase(self, meta):
        return A.ExRefusal("phase", None, "", self._s(meta))

    def refused_choice(self, meta, name):
        return A.ExRefusal("choice", None, str(name), _tok_span(self.file, name))

    # -- metadata
    def start(self, meta, *items):
        return tuple(items)

    def game_decl(self, meta, name, *entries):
        return A.GameDecl(str(name), tuple(entries), self._s(meta))

    def meta_entry(self, meta, key, value):
        return A.MetaEntry(str(key), value, self._s(meta))

    def meta_string(self, meta, s):
        return _unquote(s)

    def meta_int(self, meta, i):
        return int(i)

    def meta_range(self, meta, lo, hi):
        return (int(lo), int(hi))

    def extends_decl(self, meta, path):
        return A.ExtendsDecl(_unquote(path), self._s(meta))

    def override_decl(self, meta, name):
        return A.OverrideDecl(str(name), self._s(meta))

    def unmodelled_decl(self, meta, name, notes):
        return A.UnmodelledDecl(str(name), notes, _tok_span(self.file, name))

    # -- notes
    def notes(self, meta, *items):
        return _notes(items)

    def summary(self, meta, s):
        return ("summary", [_unquote(s)])

    def cites(self, meta, *ss):
        return ("cites", [_unquote(s) for s in ss])

    def assumption(self, meta, s):
        return ("assumption", [_unquote(s)])

    # -- types and data
    def simple_type(self, meta, name):
        return A.TypeRef(str(name), (), self._s(meta))

    def generic_type(self, meta, name, *args):
        return A.TypeRef(str(name), tuple(args), self._s(meta))

    def name_list(self, meta, *names):
        return tuple(str(n) for n in names)

    def enum_decl(self, meta, name, members, notes):
        return A.EnumDecl(str(name), members, notes, _tok_span(self.file, name))

    def field(self, meta, name, type_):
        return A.FieldDecl(str(name), type_, self._s(meta))

    def record_decl(self, meta, name, *rest):
        *fields_, notes = rest
        return A.RecordDecl(str(name), tuple(fields_), notes, _tok_span(self.file, name))

    def data_decl(self, meta, name, type_, path, key, notes):
        return A.DataDecl(str(name), type_, _unquote(path), _unquote(key) if key else None,
                          notes, _tok_span(self.file, name))

    def option_decl(self, meta, kind, name, type_, default, notes):
        return A.OptionDecl(str(kind), str(name), type_, default, notes, _tok_span(self.file, name))

    def require_decl(self, meta, cond, notes):
        return A.RequireDecl(cond, notes, self._s(meta))

    def const_decl(self, meta, name, type_, value, notes):
        return A.ConstDecl(str(name), type_, value, notes, _tok_span(self.file, name))

    def param(self, meta, name, type_):
        return A.Param(str(name), type_, self._s(meta))

    def def_decl(self, meta, name, *rest):
        *params, type_, body, notes = rest
        params = tuple(p for p in params if p is not None)
        return A.DefDecl(str(name), params, type_, body, notes, _tok_span(self.file, name))

    def proc_decl(self, meta, name, *rest):
        *params, notes, body = rest
        params = tuple(p for p in params if p is not None)
        return A.ProcDecl(str(name), params, body, notes, _tok_span(self.file, name))

    def event_decl(self, meta, name, *rest):
        *params, notes = rest
        return A.EventDecl(str(name), tuple(p for p in params if p is not None), notes,
                           _tok_span(self.file, name))

    def trigger_from(self, meta, var, domain):
        return ("from", str(var), domain)

    def trigger_when(self, meta, cond):
        return ("when", cond)

    def trigger_by(self, meta, who):
        return ("by", who)

    def trigger_optional(self, meta, by, when):
        return ("optional", by[1] if by else None, when[1] if when else None)

    def trigger_decl(self, meta, name, event, *rest):
        *names, frm, when, opt, notes, body = rest
        return A.TriggerDecl(str(name), str(event), tuple(str(n) for n in names if n is not None), body,
                             var=frm[1] if frm else None, domain=frm[2] if frm else None,
                             when=when[1] if when else None, optional=opt is not None,
                             by=opt[1] if opt else None, optional_when=opt[2] if opt else None,
                             notes=notes, span=_tok_span(self.file, name))

    def modify_decl(self, meta, func, *rest):
        *names, name, when, value, notes = rest
        return A.ModifyDecl(str(func), tuple(str(n) for n in names if n is not None), str(name), when, value,
                            notes, _tok_span(self.file, name))

    def teams_decl(self, meta, value, notes):
        return A.TeamsDecl(value, notes, self._s(meta))

    # -- state
    def visibility(self, meta, v):
        return str(v)

    def var_decl(self, meta, scope, name, type_, init, visibility, notes):
        return A.VarDecl(str(scope) if scope else "global", str(name), type_, init,
                         visibility or "all", notes, _tok_span(self.file, name))

    def state_decl(self, meta, *vars_):
        return A.StateDecl(tuple(vars_), self._s(meta))

    # -- setup, flow, phases, actions
    def setup_decl(self, meta, notes, body):
        return A.SetupDecl(body, notes, self._s(meta))

    def flow_decl(self, meta, notes, *rounds):
        return A.FlowDecl(tuple(rounds), notes, self._s(meta))

    def round_decl(self, meta, cond, notes, *stages):
        return A.RoundDecl(cond, tuple(stages), self._s(meta), notes or A.Notes())

    def stage(self, meta, kind, players, *phases):
        return A.Stage(str(kind), players, tuple(str(p) for p in phases),
                       tuple(_tok_span(self.file, p) for p in phases), self._s(meta))

    def around_stage(self, meta, players, keeper, until, *phases):
        return A.Stage("around", players, tuple(str(p) for p in phases),
                       tuple(_tok_span(self.file, p) for p in phases), self._s(meta),
                       None if until is None else until[0],
                       None if keeper is None else str(keeper[0]),
                       None if keeper is None else keeper[1],
                       A.Notes() if until is None else until[1])

    def around_from(self, meta, name):
        return (name, _tok_span(self.file, name))

    def around_until(self, meta, cond, notes):
        return (cond, notes)

    def phase_auto(self, meta, block):
        return ("auto", block)

    def phase_enter(self, meta, block):
        return ("enter", block)

    def phase_done(self, meta, cond, notes):
        return ("done", (cond, notes))

    def phase_repeat(self, meta, cond, notes):
        return ("repeat", (cond, notes))

    def phase_decl(self, meta, name, notes, *items):
        vars_, actions, parts = [], [], {}
        for it in items:
            if isinstance(it, A.VarDecl):
                vars_.append(A.VarDecl("phase", it.name, it.type, it.init, it.visibility,
                                       it.notes, it.span))
            elif isinstance(it, A.ActionDecl):
                actions.append(it)
            else:
                parts[it[0]] = it[1]
        done, repeat = parts.get("done", (None, A.Notes())), parts.get("repeat", (None, A.Notes()))
        return A.PhaseDecl(str(name), tuple(vars_), tuple(actions), parts.get("enter", ()),
                           parts.get("auto", ()), done[0], repeat[0],
                           notes, _tok_span(self.file, name), done[1], repeat[1])

    def action_param(self, meta, name, type_, domain):
        return A.ActionParam(str(name), type_, domain, self._s(meta))

    def guard_when(self, meta, cond, notes):
        return A.Guard("when", cond, notes, self._s(meta))

    def guard_ensures(self, meta, cond, notes):
        return A.Guard("ensures", cond, notes, self._s(meta))

    def action_decl(self, meta, name, *rest):
        params = []
        i = 0
        while i < len(rest) and (rest[i] is None or isinstance(rest[i], A.ActionParam)):
            if rest[i] is not None:
                params.append(rest[i])
            i += 1
        notes = rest[i]
        guards = tuple(g for g in rest[i + 1:-1])
        body = rest[-1]
        return A.ActionDecl(str(name), tuple(params), guards, body, notes,
                            _tok_span(self.file, name))

    # -- endings and scores
    def outcome_win(self, meta, e):
        return A.OutcomeWin(e, self._s(meta))

    def outcome_tie(self, meta):
        return A.OutcomeTie(self._s(meta))

    def tie_rule(self, meta, kind):
        return str(kind)

    def outcome_rank(self, meta, var, *keys):
        tie = "tie"
        if keys and isinstance(keys[-1], str):
            tie = keys[-1]
            keys = keys[:-1]
        elif keys and keys[-1] is None:
            keys = keys[:-1]
        return A.OutcomeRank(str(var), tuple(keys), tie, self._s(meta))

    def ending_decl(self, meta, name, time, cond, notes, outcome):
        return A.EndingDecl(str(name), str(time), cond, outcome, notes,
                            _tok_span(self.file, name))

    def score_decl(self, meta, var, value, notes):
        return A.ScoreDecl(str(var), value, notes, self._s(meta))

    # -- statements
    def block(self, meta, *stmts):
        return tuple(stmts)

    def lvalue(self, meta, name, *indices):
        return A.LValue(str(name), tuple(indices), self._s(meta))

    def assign(self, meta, target, value):
        return A.Assign(target, value, self._s(meta))

    def let_stmt(self, meta, name, value):
        return A.Let(str(name), value, self._s(meta))

    def if_stmt(self, meta, cond, notes, then, else_=None):
        if isinstance(else_, A.If):
            else_ = (else_,)
        return A.If(cond, then, else_ or (), self._s(meta), notes)

    def for_stmt(self, meta, var, iter_, body):
        return A.For(str(var), iter_, body, self._s(meta))

    def draw_stmt(self, meta, name, source):
        return A.Draw(str(name), source, self._s(meta))

    def roll_stmt(self, meta, name, source, seen=None):
        return A.Roll(str(name), source, self._s(meta), seen or "all")

    def deal_stmt(self, meta, count, source, dest):
        return A.Deal(count, source, dest, self._s(meta))

    def end_stmt(self, meta, what):
        return A.End(str(what), self._s(meta))

    def win_stmt(self, meta, e):
        return A.Win(e, self._s(meta))

    def tie_stmt(self, meta):
        return A.Tie(self._s(meta))

    def call_stmt(self, meta, name, *args):
        return A.CallStmt(str(name), tuple(a for a in args if a is not None), self._s(meta))

    def emit_stmt(self, meta, name, *args):
        return A.CallStmt(str(name), tuple(a for a in args if a is not None), self._s(meta), emit=True)

    def choose_stmt(self, meta, name, type_, domain, player):
        return A.Choose(str(name), type_, domain, player, self._s(meta))

    # -- expressions
    def if_expr(self, meta, c, t, e):
        return A.IfExpr(c, t, e, self._s(meta))

    def or_op(self, meta, a, b):
        return A.BinOp("or", a, b, self._s(meta))

    def and_op(self, meta, a, b):
        return A.BinOp("and", a, b, self._s(meta))

    def not_op(self, meta, a):
        return A.Not(a, self._s(meta))

    def compare(self, meta, a, op, b):
        return A.BinOp(str(op), a, b, self._s(meta))

    def in_op(self, meta, a, b):
        return A.BinOp("in", a, b, self._s(meta))

    def not_in_op(self, meta, a, b):
        return A.BinOp("notin", a, b, self._s(meta))

    def arith(self, meta, a, op, b):
        return A.BinOp(str(op), a, b, self._s(meta))

    def add(self, meta, a, b):
        return A.BinOp("+", a, b, self._s(meta))

    def sub(self, meta, a, b):
        return A.BinOp("-", a, b, self._s(meta))

    def neg(self, meta, a):
        return A.Neg(a, self._s(meta))

    def field_access(self, meta, obj, name):
        return A.FieldAccess(obj, str(name), self._s(meta))

    def index(self, meta, obj, key):
        return A.Index(obj, key, self._s(meta))

    def named_arg(self, meta, name, value):
        return A.NamedArg(str(name), value, self._s(meta))

    def call(self, meta, func, *args):
        args = [a for a in args if a is not None]
        pos = tuple(a for a in args if not isinstance(a, A.NamedArg))
        named = tuple(a for a in args if isinstance(a, A.NamedArg))
        return A.Call(str(func), pos, named, self._s(meta))

    def comp_if(self, meta, cond):
        return cond

    def comp_for(self, meta, var, iter_, *conds):
        return A.CompFor(str(var), iter_, tuple(conds), self._s(meta))

    def aggregate(self, meta, func, elem, *fors):
        return A.Aggregate(str(func), elem, tuple(fors), self._s(meta))

    def aggregate_all(self, meta, elem, *fors):
        return A.Aggregate("all", elem, tuple(fors), self._s(meta))

    def int_lit(self, meta, tok):
        return A.IntLit(int(tok), self._s(meta))

    def true_lit(self, meta):
        return A.BoolLit(True, self._s(meta))

    def false_lit(self, meta):
        return A.BoolLit(False, self._s(meta))

    def string_lit(self, meta, tok):
        return A.StrLit(_unquote(tok), self._s(meta))

    def name(self, meta, tok):
        return A.Name(str(tok), self._s(meta))

    def list_lit(self, meta, *items):
        return A.ListLit(tuple(i for i in items if i is not None), self._s(meta))

    def list_comp(self, meta, elem, *fors):
        return A.Comprehension("list", elem, tuple(fors), None, self._s(meta))

    def set_lit(self, meta, *items):
        return A.SetLit(tuple(items), self._s(meta))

    def set_comp(self, meta, elem, *fors):
        return A.Comprehension("set", elem, tuple(fors), None, self._s(meta))

    def map_lit(self, meta, *kv):
        return A.MapLit(tuple(kv[0::2]), tuple(kv[1::2]), self._s(meta))

    def map_comp(self, meta, key, value, *fors):
        return A.Comprehension("map", value, tuple(fors), key, self._s(meta))

    def empty_map(self, meta):
        return A.MapLit((), (), self._s(meta))

    def int_pattern(self, meta, tok):
        return int(tok)

    def name_pattern(self, meta, tok):
        return str(tok)

    def wildcard_pattern(self, meta):
        return None

    def match_arm(self, meta, pattern, value):
        return A.MatchArm(pattern, value, self._s(meta))

    def case_arm(self, meta, name, cond, value):
        return A.CaseArm(str(name), cond, value, self._s(meta))

    def cases_expr(self, meta, *arms):
        return A.Cases(tuple(arms), self._s(meta))

    def match_expr(self, meta, subject, *arms):
        return A.Match(subject, tuple(arms), self._s(meta))

    # -- let and tuples
    def name_tuple(self, meta, *names):
        return tuple(str(n) for n in names)

    def let_binding(self, meta, name, value):
        return A.LetBinding(str(name), value, self._s(meta))

    def let_tuple_binding(self, meta, names, value):
        return A.LetBinding("", value, self._s(meta), names)

    def let_expr(self, meta, *rest):
        *bindings, body = rest
        return A.LetExpr(tuple(bindings), body, self._s(meta))

    def tuple_lit(self, meta, *items):
        return A.TupleLit(tuple(items), self._s(meta))

    def comp_for_tuple(self, meta, names, iter_, *conds):
        return A.CompFor("", iter_, tuple(conds), self._s(meta), names)

    def let_tuple_stmt(self, meta, names, value):
        return A.Let("", value, self._s(meta), names)

    def for_tuple_stmt(self, meta, names, iter_, body):
        return A.For("", iter_, body, self._s(meta), names)

    def with_expr(self, meta, obj, *kv):
        return A.With(obj, tuple(kv[0::2]), tuple(kv[1::2]), self._s(meta))

    def type_index(self, meta, head, *args):
        self.type_indexes = True   # each must end up inside a typed empty (checked after)
        return A.Index(head, _TypeArgs(args), self._s(meta))   # type: ignore[arg-type]

    def empty_of(self, meta, head, *args):
        return A.EmptyOf(A.TypeRef(_type_name(head), tuple(_as_type(a) for a in args),
                                   head.span), self._s(meta))


class _TypeArgs(tuple):
    """The arguments of `T[A, B]` read inside a typed empty's type."""


class _NotAType(Exception):
    """A typed empty collection whose type part is not a type (`list[1]()`)."""

    def __init__(self, node):
        super().__init__()
        self.node = node


def _type_name(e) -> str:
    if not isinstance(e, A.Name):
        raise _NotAType(e)
    return e.name


def _as_type(e) -> A.TypeRef:
    """The type written where an expression was parsed: `T` or `T[A, ...]`
    (the grammar reads a typed empty's arguments as expressions)."""
    if isinstance(e, A.Index):
        args = e.key if isinstance(e.key, _TypeArgs) else (e.key,)
        return A.TypeRef(_type_name(e.obj), tuple(_as_type(a) for a in args), e.span)
    if isinstance(e, A.EmptyOf):
        raise _NotAType(e)
    return A.TypeRef(_type_name(e), (), e.span)

