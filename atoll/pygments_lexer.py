"""A Pygments lexer for Atoll specs (``.atoll``).

Registered under the name ``atoll`` through the ``pygments.lexers`` entry
point, so ``pygmentize -l atoll`` and Sphinx's ``code-block:: atoll`` find it.
The reserved words and the operators come from the grammar itself
(``atoll.grammar.parse.keywords`` and ``symbols``), the built-in functions from
the standard library's registry: nothing here is a hand-kept copy.
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String,
                            Text, Whitespace)

from atoll.compiler import stdlib
from atoll.grammar.parse import keywords, symbols

# Words of the grammar that stand for a constant value rather than a construct.
_CONSTANT_WORDS = {"true", "false"}
_PUNCTUATION = {"{", "}", "[", "]", "(", ")", ",", ":", ".", "_"}


def _builtins() -> tuple[str, ...]:
    names = set(stdlib.FUNCTIONS) | set(stdlib.AGGREGATES) | set(stdlib.BUILTIN_VALUES) \
        | set(stdlib.CONTEXT_VALUES) | set(stdlib.SPECIAL_FORMS)
    return tuple(sorted(names - set(keywords())))


def _operator_regex() -> str:
    ops = [s for s in symbols() if s.replace("\\", "") not in _PUNCTUATION]
    return "|".join(ops)


class AtollLexer(RegexLexer):
    """Atoll, the declarative rules language for board games."""
    name = "Atoll"
    aliases = ["atoll"]
    filenames = ["*.atoll"]
    mimetypes = ["text/x-atoll"]

    tokens = {
        "root": [
            (r"[ \t\f\r\n]+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "string"),
            (r"[0-9]+", Number.Integer),
            (words(tuple(sorted(_CONSTANT_WORDS)), suffix=r"\b"), Keyword.Constant),
            (words(tuple(k for k in keywords() if k not in _CONSTANT_WORDS), prefix=r"\b",
                   suffix=r"\b"), Keyword),
            (words(_builtins(), prefix=r"\b", suffix=r"\b(?=\s*\()"), Name.Builtin),
            (words(tuple(n for n in _builtins() if n in stdlib.BUILTIN_VALUES
                         or n in stdlib.CONTEXT_VALUES), prefix=r"\b", suffix=r"\b"),
             Name.Builtin.Pseudo),
            (r"[A-Z][A-Za-z0-9_]*", Name.Class),
            (r"[A-Za-z][A-Za-z0-9_]*", Name),
            (_operator_regex(), Operator),
            (r"[{}\[\](),:.]", Punctuation),
            (r"_", Name.Builtin.Pseudo),
        ],
        "string": [
            (r'\\["\\n]', String.Escape),
            (r'[^"\\\n]+', String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", Text, "#pop"),   # an unterminated string ends at the line's end
        ],
    }
