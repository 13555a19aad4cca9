"""The parse step: text to a typed AST (``atoll.grammar.ast``) with spans.

A text that parses is read by the fast parser (``lalr``, on the grammar's
own tables), which builds the AST as it goes. Anything else takes lark's
way: syntax errors become diagnostics (code A0001/A0002) with what was
expected and a hint; after an error the parser skips to the next top-level
declaration, so every broken declaration of a file is reported, not only
the first; limits are checked on lark's parse tree (``shape``).
"""
from __future__ import annotations

import re
from typing import Optional

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from atoll.diagnostics import Reporter
from atoll.grammar import ast as A
from atoll.grammar import lalr, shape
from atoll.grammar.build import AstBuilder, _NotAType, _TypeArgs
from atoll.grammar.tables import lark_parser

_tok_span = shape.token_span

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


def _parser() -> Lark:
    """lark's parser of the grammar (built on first use, in ``tables``)."""
    return lark_parser()


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


def _blank(text: str, start: int, end: int) -> str:
    """Replace text[start:end] by spaces, keeping newlines (so positions stay)."""
    chunk = re.sub(r"[^\n]", " ", text[start:end])
    return text[:start] + chunk + text[end:]


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def parse(text: str, file: str, reporter: Reporter) -> Optional[A.Spec]:
    """Parse ``text``; report every syntax error; return the AST if there were none.

    The fast parse (``lalr``) builds the AST of a text that parses and keeps
    within the limits; anything else takes lark's way below, which reports
    every broken declaration."""
    builder = AstBuilder(file)
    try:
        items = lalr.parse(text, builder)
    except lalr.Fallback:
        items = None
    if items is None:
        return _parse_lark(text, file, reporter)
    if builder.type_indexes and not _type_indexes_placed(items, reporter):
        return None
    return A.Spec(file, items)


class _LarkToAst(Transformer):
    """lark's parse tree to the AST: the builder's method for each rule."""

    def __init__(self, builder: AstBuilder):
        super().__init__(visit_tokens=False)
        self.builder = builder

    def __default__(self, data, children, meta):
        f = getattr(self.builder, data, None)
        if f is None:   # pragma: no cover - every rule has a method (tables checks it)
            return Tree(data, children, meta)
        return f(None if meta.empty else (meta.line, meta.column, meta.end_line, meta.end_column),
                 *children)


def _parse_lark(text: str, file: str, reporter: Reporter) -> Optional[A.Spec]:
    """lark's way: parse, recover after each syntax error, check the limits
    on the parse tree, then build the AST from it."""
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
        builder = AstBuilder(file)
        try:
            items = _LarkToAst(builder).transform(tree)
        except _NotAType as e:
            _report_not_a_type(e.node, reporter)
            return None
        if builder.type_indexes and not _type_indexes_placed(items, reporter):
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
