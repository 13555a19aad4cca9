"""The rules in words, for the players' edition.

``Prose`` turns a spec's expressions and effects into English through a
few phrase templates and the spec's own descriptions: a condition that
carries a description (a guard's note, a phrase after ``done when``, a
zero-argument yes/no function with a description) is shown by that
description; names are written as words in italics (``team_cards`` is
*team cards*, explained under "Terms used in the rules" or in the tables);
comparisons, ``and``/``or``/``not``, membership, sizes, a player's share of
per-player state and a few simple comprehensions have templates. What no
template covers gives ``None``: the caller then leaves it to the
designer's edition (where the spec's notation is shown) rather than
printing notation to players. Every text returned is escaped reST.
"""
from __future__ import annotations

from typing import Optional

from atoll.compiler import types as T
from atoll.docgen.rst import clean, code, emph, esc
from atoll.grammar import ast as A

_CMP = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most",
        ">": "is more than", ">=": "is at least"}
_NEG = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_BUILTIN_NAMES = {"me": "the player", "player_count": "the number of players",
                  "players": "the players", "seats": "the players in seat order",
                  "current_round": "the number of the round"}


def words(name: str) -> str:
    """A spec name as words: ``team_cards`` is ``team cards``."""
    return " ".join(str(name).replace("_", " ").split())


def term(name: str) -> str:
    """A spec name as a term, in italics."""
    return emph(words(name))


def sentence(text: str) -> str:
    """A description as a clause: without its final full stop, escaped."""
    text = clean(text).rstrip()
    while text.endswith("."):
        text = text[:-1].rstrip()
    if text and text[0].isupper() and (len(text) == 1 or not text[1].isupper()):
        text = text[0].lower() + text[1:]
    return esc(text)


class Prose:
    """Words for the expressions of one spec.

    ``bound`` maps a name bound around the expression (a parameter, a loop
    variable) to the words that stand for it."""

    def __init__(self, doc, bound: Optional[dict] = None, phase=None):
        self.doc = doc
        self.prog = doc.prog
        self.bound = dict(bound or {})
        self.phase = phase

    def inside(self, **names) -> "Prose":
        return Prose(self.doc, {**self.bound, **names}, self.phase)

    # ------------------------------------------------------------ values
    def value(self, e) -> Optional[str]:
        p = self.prog
        if isinstance(e, A.IntLit):
            return str(e.value)
        if isinstance(e, A.BoolLit):
            return "yes" if e.value else "no"
        if isinstance(e, A.StrLit):
            return f"“{esc(e.value)}”"
        if isinstance(e, A.Name):
            n = e.name
            if n in self.bound:
                return self.bound[n]
            if n in _BUILTIN_NAMES:
                return _BUILTIN_NAMES[n]
            if n in p.options:      # by its own name: ``--option NAME=VALUE`` takes it
                kind = "house rule" if p.options[n].kind == "house" else "option"
                return f"the {kind} {code(n)}"
            for enum in p.enums.values():
                if n in enum.members:
                    return esc(words(n))
            return term(n)
        if isinstance(e, A.Index):
            obj, key = e.obj, e.key
            if isinstance(obj, A.Name) and obj.name in p.state and p.state[obj.name].scope == "player":
                who = self.value(key)
                if who is None:
                    return None
                return f"{self._possessive(who)} {term(obj.name)}"
            o, k = self.value(obj), self.value(key)
            return None if o is None or k is None else f"the entry of {o} for {k}"
        if isinstance(e, A.FieldAccess):
            if isinstance(e.obj, A.Name) and e.obj.name in p.phases:
                return None      # a phase's own bookkeeping
            o = self.value(e.obj)
            return None if o is None else f"the {esc(words(e.name))} of {o}"
        if isinstance(e, A.Call):
            return self._call_value(e)
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
            if e.op == "-" and isinstance(e.left, A.IntLit) and e.left.value == 0:
                r = self.value(e.right)
                return None if r is None else f"minus {r}"
            l, r = self.value(e.left), self.value(e.right)
            word = {"+": "plus", "-": "minus", "*": "times"}[e.op]
            return None if l is None or r is None else f"{l} {word} {r}"
        if isinstance(e, A.Neg):
            r = self.value(e.operand)
            return None if r is None else f"minus {r}"
        if isinstance(e, A.ListLit):
            items = [self.value(x) for x in e.items]
            if not items or any(x is None for x in items):
                return None if items else "nobody"
            return _join(items, "and")
        if isinstance(e, A.Comprehension) and e.kind == "list":
            return self._every(e)
        return None

    @staticmethod
    def _possessive(who: str) -> str:
        return "the player's" if who == "the player" else f"{who}'s"

    def _call_value(self, e: A.Call) -> Optional[str]:
        p = self.prog
        args = [self.value(a) for a in e.args]
        if any(a is None for a in args) or e.named:
            return None
        if e.func == "size" and len(args) == 1:
            return f"the number of items in {args[0]}"
        if e.func in _STDLIB and len(args) == 1:
            return _STDLIB[e.func].format(args[0])
        if e.func == "dice" and len(args) == 2:
            return f"the roll of {args[0]} dice with faces 1 to {args[1]}"
        if e.func == "team_of" and len(args) == 1:
            return "the player's team" if args[0] == "the player" else f"the team of {args[0]}"
        if e.func in p.defs:
            name = term(e.func)
            return name if not args else f"{name} of {_join(args, 'and')}"
        return None

    def _every(self, e: A.Comprehension) -> Optional[str]:
        """``[v for v in xs if c]``: every v of xs such that c."""
        if len(e.fors) != 1 or not isinstance(e.elem, A.Name):
            return None
        f = e.fors[0]
        if f.names or f.var != e.elem.name or len(f.conds) > 1:
            return None
        src = self.value(f.iter)
        if src is None:
            return None
        inner = self.inside(**{f.var: term(f.var)})
        if not f.conds:
            return src
        c0 = f.conds[0]
        if isinstance(c0, A.BinOp) and c0.op == "!=" and _is_name(c0.left, f.var):
            other = self.value(c0.right)
            return None if other is None else f"{src} except {other}"
        if isinstance(c0, A.Call) and c0.func in self.prog.defs and len(c0.args) == 1 \
                and _is_name(c0.args[0], f.var):
            return f"{src} for whom {term(c0.func)} holds"
        c = inner.cond(c0)
        return None if c is None else f"every {term(f.var)} of {src} such that {c}"

    # ------------------------------------------------------------ conditions
    def cond(self, e) -> Optional[str]:
        p = self.prog
        if isinstance(e, A.BinOp) and e.op in ("and", "or"):
            parts = [self.cond(x) for x in _flatten(e, e.op)]
            if any(x is None for x in parts):
                return None
            return _join([_group(x, _top(y)) for x, y in zip(parts, _flatten(e, e.op))], e.op)
        if isinstance(e, A.Not):
            return self._negated(e.operand)
        if isinstance(e, A.BinOp) and e.op in _CMP:
            return self._compare(e.op, e.left, e.right)
        if isinstance(e, A.BinOp) and e.op in ("in", "notin"):
            l, r = self.value(e.left), self.value(e.right)
            if l is None or r is None:
                return None
            return f"{l} {'is' if e.op == 'in' else 'is not'} in {r}"
        if isinstance(e, A.Name):
            n = e.name
            if n in p.options:
                return f"{self.value(e)} is on"
            v = self._var(n)
            if v is not None and v.notes.summary:
                return sentence(v.notes.summary)
            return f"{term(n)} holds" if n not in self.bound else None
        if isinstance(e, A.Call):
            if e.func == "can" and len(e.args) == 1 and isinstance(e.args[0], A.Name):
                return f"the action {term(e.args[0].name)} is possible"
            d = p.defs.get(e.func)
            if d is not None and not e.args and d.notes.summary:
                return sentence(d.notes.summary)
            if d is not None:
                args = [self.value(a) for a in e.args]
                if any(a is None for a in args):
                    return None
                return f"{term(e.func)} holds" + (f" for {_join(args, 'and')}" if args else "")
            return None
        if isinstance(e, A.BoolLit):
            return "always" if e.value else "never"
        return None

    def _negated(self, e) -> Optional[str]:
        if isinstance(e, A.Not):
            return self.cond(e.operand)
        if isinstance(e, A.BinOp) and e.op in _NEG:
            return self._compare(_NEG[e.op], e.left, e.right)
        if isinstance(e, A.BinOp) and e.op in ("in", "notin"):
            return self.cond(A.BinOp("notin" if e.op == "in" else "in", e.left, e.right, e.span))
        if isinstance(e, A.BinOp) and e.op in ("and", "or"):
            parts = [self._negated(x) for x in _flatten(e, e.op)]
            if any(x is None for x in parts):
                return None
            flip = {"and": "or", "or": "and"}
            return _join([_group(x, flip.get(_top(y), "")) for x, y in zip(parts, _flatten(e, e.op))],
                         flip[e.op])
        if isinstance(e, A.Call) and e.func == "can" and len(e.args) == 1 \
                and isinstance(e.args[0], A.Name):
            return f"the action {term(e.args[0].name)} is not possible"
        if isinstance(e, A.Name) and e.name in self.prog.options:
            return f"{self.value(e)} is off"
        inner = self.cond(e)
        return None if inner is None else f"it is not so that {inner}"

    def _compare(self, op: str, left, right) -> Optional[str]:
        if isinstance(left, A.Call) and left.func == "size" and isinstance(right, A.IntLit) \
                and right.value == 0 and op in ("==", "!=", ">", "<="):
            what = self.value(left.args[0]) if len(left.args) == 1 else None
            if what is None:
                return None
            return f"{what} {'is empty' if op in ('==', '<=') else 'is not empty'}"
        l, r = self.value(left), self.value(right)
        if l is None or r is None:
            return None
        return f"{l} {_CMP[op]} {r}"

    def _var(self, name: str):
        if self.phase is not None:
            for v in self.phase.vars:
                if v.name == name:
                    return v
        return self.prog.state.get(name)

    # ------------------------------------------------------------ winners
    def winners(self, e) -> Optional[str]:
        """Who wins, from a ``win`` statement's list of players, as a clause:
        "the player who made the move wins"."""
        mover = self.inside(me="the player who made the move")
        if isinstance(e, A.ListLit) and len(e.items) == 1:
            one = mover.value(e.items[0])
            return None if one is None else f"{one} wins"
        if isinstance(e, A.Call) and e.func == "team_of":
            who = mover.value(e)
            return None if who is None else f"{who} wins"
        many = mover.value(e)
        return None if many is None else f"{many} win"

    # ------------------------------------------------------------ effects
    def effects(self, stmts) -> Optional[list[str]]:
        """Effects as bullets in words, or None when one of them has no words."""
        out: list[str] = []
        for idx, s in enumerate(stmts):
            if isinstance(s, A.Assign):
                tgt = self._lvalue(s.target)
                val = self.value(s.value)
                if tgt is None or val is None:
                    return None
                out.append(f"- {tgt[0].upper() + tgt[1:]} becomes {val}.")
            elif isinstance(s, (A.Draw, A.Roll)):   # chance that names its result for what follows
                if isinstance(s, A.Draw):
                    src = self._lvalue(s.source)
                    line = f"- Draw one at random from {src}, called {term(s.name)}."
                elif isinstance(s.source, A.Call) and s.source.func == "dice" and len(s.source.args) == 2:
                    n, f = (self.value(a) for a in s.source.args)
                    src = None if None in (n, f) else "dice"
                    line = f"- Roll {n} dice with faces 1 to {f}; the result, lowest first, is called {term(s.name)}."
                else:
                    src = self.value(s.source)
                    line = f"- Roll: one of {src} at random (it stays where it is), called {term(s.name)}."
                if src is None:
                    return None
                rest = self.inside(**{s.name: term(s.name)}).effects(stmts[idx + 1:])
                return None if rest is None else out + [line] + rest
            elif isinstance(s, A.CallStmt) and s.emit:
                args = [self.value(a) for a in s.args]
                if None in args:
                    return None
                of = f" (of {', '.join(args)})" if args else ""
                out.append(f"- Then: {term(s.proc)}{of} happens, and what answers it.")
            elif isinstance(s, A.CallStmt):   # named in the terms (players.terms)
                args = [self.value(a) for a in s.args]
                if None in args:
                    return None
                of = f" (of {', '.join(args)})" if args else ""
                out.append(f"- Then: {term(s.proc)}{of}.")
            elif isinstance(s, A.Choose):   # a choice that names its result for what follows
                who, src = self.value(s.player), self.value(s.domain)
                if who is None or src is None:
                    return None
                rest = self.inside(**{s.name: term(s.name)}).effects(stmts[idx + 1:])
                line = f"- {who[0].upper() + who[1:]} chooses one of {src}, called {term(s.name)}."
                return None if rest is None else out + [line] + rest
            elif isinstance(s, A.Deal):
                n, src, dst = self.value(s.count), self._lvalue(s.source), self._lvalue(s.dest)
                if None in (n, src, dst):
                    return None
                out.append(f"- Deal {n} at random from {src} to {dst} (fewer if it runs out).")
            elif isinstance(s, A.End):
                out.append(f"- The {s.what} ends.")
            elif isinstance(s, A.Win):
                who = self.winners(s.players)
                if who is None:
                    return None
                out.append(f"- The game ends: {who}.")
            elif isinstance(s, A.Tie):
                out.append("- The game ends: nobody wins.")
            elif isinstance(s, A.For) and not s.names:
                src = self.value(s.iter)
                body = self.inside(**{s.var: term(s.var)}).effects(s.body)
                if src is None or body is None:
                    return None
                out += [f"- For each {term(s.var)} of {src}:", ""] + ["  " + l if l else l
                                                                        for l in body] + [""]
            elif isinstance(s, A.If):
                c = self.cond(s.cond)
                then = self.effects(s.then)
                other = self.effects(s.else_) if s.else_ else []
                if c is None or then is None or other is None:
                    return None
                out += [f"- If {c}:", ""] + ["  " + l if l else l for l in then] + [""]
                if other:
                    out += ["- Otherwise:", ""] + ["  " + l if l else l for l in other] + [""]
            else:
                return None
        return out

    def _lvalue(self, lv: A.LValue) -> Optional[str]:
        """An assignment's target (``hand[p]``) in words, as a value."""
        e = A.Name(lv.name, lv.span)
        for k in lv.indices:
            e = A.Index(e, k, lv.span)
        return self.value(e)


# Standard functions with a phrase ({} is the argument in words).
_STDLIB = {"orth": "the four spaces next to {}", "around": "the eight spaces around {}",
           "keys": "the keys of {}", "distinct": "the distinct items of {}"}


def _is_name(e, name: str) -> bool:
    return isinstance(e, A.Name) and e.name == name


def _flatten(e, op: str) -> list:
    if isinstance(e, A.BinOp) and e.op == op:
        return _flatten(e.left, op) + _flatten(e.right, op)
    return [e]


def _top(e) -> str:
    """The and/or at the top of a condition (through ``not``), if any."""
    if isinstance(e, A.BinOp) and e.op in ("and", "or"):
        return e.op
    if isinstance(e, A.Not):
        return {"and": "or", "or": "and"}.get(_top(e.operand), "")
    return ""


def _group(text: str, op: str) -> str:
    """A part of a longer and/or that is an and/or itself: "both a and b",
    "either a or b"."""
    return {"and": "both ", "or": "either "}.get(op, "") + text


def _join(items: list[str], word: str) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {word} " + items[-1]

