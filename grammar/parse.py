"""The parse step: text to a typed AST (``atoll.grammar.ast``) with spans.

This is the only module that imports lark. Syntax errors become diagnostics
(code A0001/A0002) with what was expected and a hint; after an error the
parser skips to the next top-level declaration, so every broken declaration
of a file is reported, not only the first.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Optional

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             UnexpectedToken, VisitError)

from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.grammar import shape

TOP_KEYWORDS = ("game", "extends", "override", "unmodelled", "property", "enum", "record", "data", "option", "house",
                "require", "const", "def", "teams", "state", "setup", "phase", "flow",
                "ending", "score", "example")
_ITEM_START = re.compile(r"^(%s)\b" % "|".join(TOP_KEYWORDS), re.M)

# Readable names for the grammar's terminals, used in "expected ..." lists.
TOKEN_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a string",
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "LSQB": "`[`",
    "RSQB": "`]`", "COLON": "`:`", "COMMA": "`,`", "EQUAL": "`=`", "DOT": "`.`",
    "CMP_OP": "a comparison", "PLUS": "`+`", "MUL_OP": "`*`, `/` or `%`",
    "MINUS": "`-`", "MORETHAN": "`>`", "$END": "the end of the file",
    "SCOPE": "`player` or `global`", "VISIBILITY": "`all`, `owner` or `nobody`",
    "OPTION_KIND": "`option` or `house`", "STAGE_KIND": "`turns` or `simultaneous`",
    "ENDING_TIME": "`immediately`, `after_turn` or `after_round`",
    "END_WHAT": "`phase` or `turn`", "TIE_KIND": "`tie` or `shared`",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = resources.files("atoll.grammar").joinpath("atoll.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True,
                maybe_placeholders=True)


def _token_name(t: str) -> str:
    if t in TOKEN_NAMES:
        return TOKEN_NAMES[t]
    if t.isupper() and not t.startswith("__"):
        # Anonymous keyword terminals are named after their text by lark.
        return f"`{t.lower()}`"
    return t


def _expected(expected: set[str]) -> str:
    names = sorted({_token_name(e) for e in expected if not e.startswith("__ANON")})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _hint_for(token: Token, expected: set[str]) -> str:
    value = str(token)
    if value == "=" and "CMP_OP" in expected:
        return "to compare two values use `==`; `=` assigns in effects only."
    if token.type == "NAME" and value in ("True", "False"):
        return f"booleans are written `{value.lower()}`."
    if token.type == "NAME" and value in ("elif", "elsif"):
        return "write `else if`."
    if value in ("&&", "||", "!"):
        return "use the words `and`, `or`, `not`."
    if token.type == "$END":
        return "a block or bracket is left open: check that every `{`, `(` and `[` is closed."
    if value in TOP_KEYWORDS and "RBRACE" in expected:
        return "the declaration above is missing its closing `}`."
    if token.type == "NAME" and "EQUAL" in expected:
        return "a declaration gives its type and then `=` and a value."
    if token.type != "NAME" and value.isidentifier() and "NAME" in expected:
        return (f"`{value}` is a reserved word of the language and cannot name anything: "
                f"choose another name (say `{value}_`; the list is in docs/language.md).")
    return ""


_span = shape.span_of
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


@v_args(meta=True, inline=True)
class _ToAst(Transformer):
    """Builds AST nodes bottom-up; the method names are the grammar's rule names."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _s(self, meta) -> A.Span:
        return _span(self.file, meta)

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

    # -- terminals
    def NAME(self, tok):
        return tok

    def STRING(self, tok):
        return tok

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


def _blank(text: str, start: int, end: int) -> str:
    """Replace text[start:end] by spaces, keeping newlines (so positions stay)."""
    chunk = re.sub(r"[^\n]", " ", text[start:end])
    return text[:start] + chunk + text[end:]


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def parse(text: str, file: str, reporter: Reporter) -> Optional[A.Spec]:
    """Parse ``text``; report every syntax error; return the AST if there were none."""
    work = text
    errors = 0
    while True:
        try:
            tree = _parser().parse(work)
        except UnexpectedInput as e:
            errors += 1
            pos = _report(e, work, file, reporter)
            if errors >= 20:
                return None
            # Skip from the start of the broken declaration to the next one.
            starts = [m.start() for m in _ITEM_START.finditer(work)]
            if pos in starts:   # the previous declaration is the broken one
                lo = max([s for s in starts if s < pos], default=0)
                hi = pos
            else:
                lo = max([s for s in starts if s <= pos], default=0)
                hi = min([s for s in starts if s > pos], default=len(work))
            if hi <= lo:
                return None
            work = _blank(work, lo, hi)
            continue
        if errors:
            return None
        tree = shape.rebalance(tree)
        if not shape.within_limits(tree, file, reporter):
            return None
        builder = _ToAst(file)
        try:
            items = builder.transform(tree)
        except VisitError as e:
            if isinstance(e.orig_exc, _NotAType):
                _report_not_a_type(e.orig_exc.node, reporter)
                return None
            raise RuntimeError(f"internal error building the AST: {e.orig_exc!r}") from e   # pragma: no cover
        if getattr(builder, "type_indexes", False) and not _type_indexes_placed(items, reporter):
            return None
        return A.Spec(file, items)


def _report_not_a_type(node, reporter: Reporter) -> None:
    reporter.add("A0001", "this is not a type", node.span,
                 "a typed empty collection names its type and is called with no arguments: "
                 "`list[str]()`, `set[Pos]()`, `bag[int]()`, `map[str, int]()`")


def _type_indexes_placed(items, reporter: Reporter) -> bool:
    """`m[a, b]` means a type with two arguments, inside a typed empty only."""
    for n in A.walk(items):
        if isinstance(n, A.Index) and isinstance(n.key, _TypeArgs):
            reporter.add("A0001", "a value is indexed by one key at a time", n.span,
                         "`T[A, B]` with two arguments is a type: it may stand inside a typed "
                         "empty collection such as `list[map[str, int]]()`; to index twice "
                         "write `m[a][b]`")
            return False
    return True


def _report(e: UnexpectedInput, text: str, file: str, reporter: Reporter) -> int:
    """Turn a lark error into a diagnostic; return the error's offset in the text."""
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        span = A.Span(file, e.line, e.column, e.line, e.column + 1)
        if ch == '"':
            reporter.add("A0002", "this string is never closed", span,
                         "close it with `\"` on the same line.")
        else:
            hint = "comments start with `#`." if ch in "/;" else ""
            if ch in "&|!":
                hint = "use the words `and`, `or`, `not`."
            reporter.add("A0002", f"unexpected character `{ch}`", span, hint)
        return e.pos_in_stream
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            body = text.rstrip()
            line = body.count("\n") + 1
            col = len(body) - _line_start(body, len(body)) + 1
            span = A.Span(file, line, col, line, col + 1)
            reporter.add("A0001", "the file ends too early",
                         span, _hint_for(tok, e.expected),
                         (f"expected {_expected(e.expected)}",))
            return len(text)
        span = _tok_span(file, tok)
        hint = _hint_for(tok, e.expected)
        if re.search(r"\bdraw\s+\w+\s+from\s+\w+\s*$", text[_line_start(text, tok.start_pos):tok.start_pos]):
            hint = ("`draw` takes an item out of a state variable (a `bag`), named alone; to pick an item "
                    "of a computed collection and put it back, write `roll x from ...`")
        reporter.add("A0001", f"unexpected {_describe(tok)}", span, hint,
                     (f"expected {_expected(e.expected)}",))
        return tok.start_pos
    if isinstance(e, UnexpectedEOF):   # pragma: no cover - LALR reports $END as a token
        line = text.count("\n") + 1
        reporter.add("A0001", "the file ends too early", A.Span(file, line, 1, line, 2))
        return len(text)
    raise e   # pragma: no cover


def _describe(tok: Token) -> str:
    if tok.type == "NAME":
        return f"name `{tok}`"
    if tok.type == "INT":
        return f"number `{tok}`"
    if tok.type == "STRING":
        return "string"
    return f"`{tok}`"


# ---------------------------------------------------------------- the lexicon, for tools

_TOKEN_CLASSES = ("NAME", "INT", "STRING", "COMMENT", "WS")


def keywords() -> tuple[str, ...]:
    """The reserved words: every keyword terminal of the grammar, sorted
    (syntax highlighters and the docs read them from here)."""
    return tuple(sorted({t.pattern.value for t in _parser().terminals
                         if t.pattern.type == "str" and re.fullmatch(r"[a-z][a-z_]*", t.pattern.value)}))


def symbols() -> tuple[str, ...]:
    """Regular expressions of the grammar's operators and punctuation,
    longest literal first."""
    out = []
    for t in _parser().terminals:
        if t.name in _TOKEN_CLASSES:
            continue
        if t.pattern.type == "str" and not re.fullmatch(r"[a-z][a-z_]*", t.pattern.value):
            out.append(re.escape(t.pattern.value))
        elif t.pattern.type == "re":
            out.append(t.pattern.value)
    return tuple(sorted(out, key=lambda s: -len(s)))
