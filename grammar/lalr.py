"""The fast parse: the grammar's own LALR(1) tables (``tables``) driven here,
building the AST as each rule is reduced, with no parse tree in between.

It gives what lark's parser, ``shape.rebalance``, ``shape.within_limits``
and the builder give together, node for node and span for span, for every
text it accepts; on anything else it gives up (``Fallback``) and
``parse.parse`` takes lark's way, which reports it. It gives up on:

* a character no terminal matches, a token the table refuses (syntax errors);
* a number longer than ``limits.MAX_INT_DIGITS``;
* nesting that might pass ``limits.MAX_NESTING`` (counted as
  ``within_limits`` counts the parse tree's levels, over-estimated for a
  `let`), loops nested past ``limits.MAX_LOOPS``, an action with more
  choices than that;
* a chain of one associative operator longer than ``shape._CHAIN`` (those
  are regrouped on lark's way);
* an exception from the builder (a typed empty that is not a type).

Positions follow lark's ``propagate_positions``: a rule's extent runs from
the first to the last token it matched, through rules that matched nothing;
a ``?rule`` that hands on its only child widens the extent its parent sees
(brackets included), not the child's own span.
"""
from __future__ import annotations

import re
from typing import Optional


from atoll.compiler import limits
from atoll.grammar import ast as A
from atoll.grammar import shape
from atoll.grammar import tables as TB

_LOOPS = ("for_stmt", "for_tuple_stmt", "deal_stmt")
_CHAINS = ("add", "and_op", "or_op", "arith")
_LET, _LOOP, _CHAIN, _ACTION = 1, 2, 4, 8


def _flags(name: str) -> int:
    """What ``_run`` checks after building a node of rule ``name``."""
    return ((_LET if name == "let_expr" else 0) | (_LOOP if name in _LOOPS else 0)
            | (_CHAIN if name in _CHAINS else 0) | (_ACTION if name == "action_decl" else 0))


class Fallback(Exception):
    """The fast parse cannot vouch for the result: take lark's way."""


class _Token(str):
    """A kept terminal as the builder reads it: its text (a ``str``) and its
    extent (``line``, ``column``, ``end_line``, ``end_column``, as on lark's
    ``Token``), made with one store: the parse makes one per name, number
    and string, and the builder reads the extent of a few (declarations'
    names). No token is kept in the AST (the builder takes its text)."""
    __slots__ = ("_x",)

    line = property(lambda self: self._x[0])
    column = property(lambda self: self._x[1])
    end_line = property(lambda self: self._x[2])
    end_column = property(lambda self: self._x[3])


class _Grammar:
    """The tables made ready to run: one compiled regular expression, rows
    as dicts, rules as tuples."""

    def __init__(self, data: dict):
        # Each terminal's pattern, then an empty group named after it: the
        # alternatives are tried in the same order and match the same text
        # (``lastgroup`` names the one that matched), and a pattern that
        # starts with a character or a class of them is passed over on a
        # mismatch of its first character without entering it (where a
        # group first has to be opened).
        alts = "|".join(f"(?:{rx})(?P<{name}>)" for name, rx in data["terminals"])
        self.scan = re.compile(alts + r"|[\s\S](?P<_ERR>)").finditer
        self.keywords = data["keywords"]
        self.ignore = frozenset(data["ignore"])
        self.newline = frozenset(data["newline"])
        self.states = data["states"]
        self.start, self.end = data["start"], data["end"]
        self.rules = [(o, size, kind, name, tuple(tuple(x) for x in inc), tail)
                      for o, size, kind, name, inc, tail in data["rules"]]
        # What ``_run`` reads: the rows with each unit reduction (`?a: b`,
        # three reductions in four) as a dict of its own, told apart from a
        # shift or another reduction without reading the rule: the state
        # below -> the state on top after every unit reduction the lookahead
        # calls for (filled as met); per rule, besides the above, what to
        # check after building (``_LET``, ...) and whether its children are
        # its values as they stand on the stack (every one kept, in order, no
        # placeholders).
        unit = {~r for r, rule in enumerate(self.rules) if rule[2] == 3}
        self.rows = [row if unit.isdisjoint(row.values())   # (most rows have none: shared)
                     else {t: ({} if a in unit else a) for t, a in row.items()} for row in self.states]
        self.run_rules = [rule + (_flags(rule[3]), rule[2] != 2 and not rule[5]
                                  and rule[4] == tuple((k, 0, 0) for k in range(rule[1])))
                          for rule in self.rules]


_GRAMMAR: list = []


def grammar() -> Optional[_Grammar]:
    """The tables ready to run, or None (lark's way then parses everything)."""
    if not _GRAMMAR:
        data = TB.tables()
        try:
            g = None if data is None else _Grammar(data)
        except (re.error, TypeError, ValueError, KeyError):   # not tables this module made
            g = None
        _GRAMMAR.append(g)
    return _GRAMMAR[0]


def lex(g: _Grammar, text: str):
    """Tokens as parallel lists: types, values, extents ``(line, column,
    end_line, end_column)`` and offsets, as lark's basic lexer reads them."""
    types, values, extents, offsets = [], [], [], []
    ignore, newline, keywords = g.ignore, g.newline, g.keywords
    line, line_start = 1, 0
    digits = limits.MAX_INT_DIGITS
    for m in g.scan(text):
        kind = m.lastgroup
        if kind in ignore:   # (white space, comments: only the lines they end are counted)
            if kind in newline:
                value = m.group()
                if "\n" in value:
                    line += value.count("\n")
                    line_start = m.start() + value.rindex("\n") + 1
            continue
        value = m.group()
        start = m.start()
        if kind in newline and "\n" in value:
            first = (line, start - line_start + 1)
            line += value.count("\n")
            line_start = start + value.rindex("\n") + 1
            ext = first + (line, start + len(value) - line_start + 1)
        else:
            col = start - line_start + 1
            ext = (line, col, line, col + len(value))
        if kind == "_ERR":
            raise Fallback("a character no terminal matches")
        if kind in keywords:
            kind = keywords[kind].get(value, kind)
        elif kind == "INT" and len(value) > digits:
            raise Fallback("a number past the limit")
        types.append(kind)
        values.append(value)
        extents.append(ext)
        offsets.append(start)
    return types, values, extents, offsets


def parse(text: str, builder):
    """The items of ``text`` (what the builder's ``start`` returns)."""
    g = grammar()
    if g is None:
        raise Fallback("the grammar needs lark")
    types, values, extents, offsets = lex(g, text)
    try:
        return _run(g, builder, types, values, extents, offsets)
    except Fallback:
        raise
    except Exception as e:   # the builder refused (a typed empty that is not a type), or worse
        raise Fallback(repr(e)) from e


def _run(g: _Grammar, builder, types, values, extents, offsets):
    rows, rules, end = g.rows, g.run_rules, g.end
    states = g.states
    max_depth = limits.MAX_NESTING + 1
    max_loops = limits.MAX_LOOPS
    max_chain = shape._CHAIN
    new_str = str.__new__
    methods: list = [None] * len(rules)
    chains = {}   # id of an operator's node: (rule, operators in its chain, the node)
    # the stacks: state, value (a token's index for a token), extent, depth in
    # parse-tree levels, loops
    top = g.start
    st = [top]
    vs: list = [None]
    xs: list = [None]
    ds = [0]
    ls = [0]
    n = len(types)
    types = types + ["$END"]
    i = 0
    while True:
        tt = types[i]
        while True:
            try:
                a = rows[top][tt]
            except KeyError:
                raise Fallback("a syntax error") from None
            if a.__class__ is dict:   # `?a: b` hands b on; only the state on top changes
                below = st[-2]
                target = a.get(below)
                if target is None:
                    target = a[below] = _units(states, g.rules, below, top, tt)
                st[-1] = top = target
                continue
            if a >= 0:
                if i == n:   # lark never shifts $END
                    raise Fallback("shift at the end")
                st.append(a)
                top = a
                vs.append(i)
                xs.append(extents[i])
                ds.append(0)
                ls.append(0)
                break
            origin, size, kind, name, include, tail, flags, as_is = rules[~a]
            one = size == 1   # then the node takes its child's place on the stacks
            if size:
                rv = vs[-size:]
                if one:
                    depth = ds[-1]
                    loops = ls[-1]
                    ext = xs[-1]
                else:
                    rx = xs[-size:]
                    depth = max(ds[-size:])
                    loops = max(ls[-size:])
                    del st[-size:], vs[-size:], xs[-size:], ds[-size:], ls[-size:]
                    first = rx[0]
                    if first is None:
                        for first in rx:
                            if first is not None:
                                break
                    if first is None:
                        ext = None
                    else:
                        last = rx[-1]
                        if last is None:
                            for last in reversed(rx):
                                if last is not None:
                                    break
                        ext = (first[0], first[1], last[2], last[3])
            else:
                rv, ext, depth, loops = [], None, 0, 0
            if kind == 2:   # PASS
                value = rv[include[0][0]]
            else:
                if as_is:   # every child kept, in order: the values as they stand
                    children = rv
                else:
                    children = []
                    for k, mode, nones in include:
                        if nones:
                            children.extend([None] * nones)
                        if mode == 0:
                            children.append(rv[k])
                        elif mode == 1:
                            j = rv[k]
                            tok = new_str(_Token, values[j])
                            tok._x = extents[j]
                            children.append(tok)
                        else:
                            children.extend(rv[k])
                    if tail:
                        children.extend([None] * tail)
                if kind == 1:   # INLINE
                    value = children
                else:
                    depth += 1
                    if flags & _LET:   # each binding holds the rest: one level more
                        depth += len(children) - 1
                    if depth > max_depth:
                        raise Fallback("nesting")
                    if flags & _LOOP:
                        loops += 1
                        if loops > max_loops:
                            raise Fallback("loops")
                    f = methods[~a]
                    if f is None:
                        f = methods[~a] = getattr(builder, name)
                    value = f(ext, *children)
                    if flags & _CHAIN:
                        if name != "arith" or children[1] == "*":
                            count = 1
                            for c in (children[0], children[-1]):
                                link = chains.get(id(c))
                                if link is not None and link[2] is c and link[0] == name:
                                    count += link[1]
                            if count + 1 > max_chain:
                                raise Fallback("a long chain")
                            chains[id(value)] = (name, count, value)
                    elif flags & _ACTION:
                        if sum(1 for c in children if isinstance(c, A.ActionParam)) > max_loops:
                            raise Fallback("choices")
            if one:
                st[-1] = top = states[st[-2]][origin]
                vs[-1] = value
                xs[-1] = ext
                ds[-1] = depth
                ls[-1] = loops
            else:
                top = states[st[-1]][origin]
                st.append(top)
                vs.append(value)
                xs.append(ext)
                ds.append(depth)
                ls.append(loops)
            if i == n and top == end:
                return value
        i += 1


def _units(states, rules, below: int, top: int, tt: str) -> int:
    """The state on top after every unit reduction (`?a: b`) that ``tt``
    calls for over ``below``: they pop one state and push one, so only the
    top changes."""
    while True:
        a = states[top].get(tt)
        if a is None or a >= 0 or rules[~a][2] != 3:
            return top
        top = states[below][rules[~a][0]]
