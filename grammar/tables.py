"""The grammar's lexer and LALR(1) tables, as plain data, for ``lalr``.

lark builds them from grammar/atoll.lark (about half a second); they are
read out of lark's parser once and kept, as JSON, in a per-user cache
folder keyed by the grammar's text, the lark version and this module's
format, so a new process loads them in a few milliseconds. The cache is
only a shortcut: it is read only from a folder and file that belong to
the user and that nobody else may write, anything unexpected in it is
ignored, and without it the tables are built again (and saved if the
folder can be written). The environment variable ``ATOLL_CACHE_DIR``
names another folder; ``ATOLL_CACHE_DIR=""`` (empty) keeps nothing on
disk.

The data:

* ``terminals``: ``[name, regexp]`` in lark's order of trying them;
  ``keywords``: for a terminal that may match a keyword, the keyword's
  terminal by its text (lark's "unless" callbacks); ``ignore`` and
  ``newline``: the terminals skipped, and those that may hold a newline;
* ``states``: for each state, its action on each symbol: a state to shift
  or go to (>= 0), or ``~r`` to reduce by rule ``r``; ``start``, ``end``;
* ``rules``: ``[origin, size, kind, name, include, append_none]``: the
  rule's symbol, how many it pops, what it builds (``KINDS``), the builder
  method, and lark's child filter: ``[index, mode, nones_before]`` per kept
  child (``MODES``), with the `[x]` placeholders (None) to add after.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Optional

FORMAT = 1
#: What a rule builds: a node (calls the builder), a list spliced into its
#: parent (a rule named ``_x``), its only kept child (a ``?rule``; UNIT when
#: it is the rule's only symbol: nothing to do but change state).
NODE, INLINE, PASS, UNIT = 0, 1, 2, 3
KINDS = ("node", "inline", "pass", "unit")
#: A kept child: the value of a rule, a token, the items of an inlined rule.
CHILD, TOKEN, SPLICE = 0, 1, 2
MODES = ("child", "token", "splice")


class Unsupported(Exception):
    """The grammar uses a lark feature the fast parser does not mirror."""


def grammar_text() -> str:
    return resources.files("atoll.grammar").joinpath("atoll.lark").read_text()


@lru_cache(maxsize=1)
def lark_parser():
    """lark's parser of the grammar (built here only)."""
    from lark import Lark
    return Lark(grammar_text(), parser="lalr", lexer="basic", propagate_positions=True,
                maybe_placeholders=True)


def cache_key(text: str) -> str:
    import lark
    h = hashlib.sha256(f"atoll-tables {FORMAT}\0lark {lark.__version__}\0".encode())
    h.update(text.encode())
    return h.hexdigest()


@lru_cache(maxsize=1)
def tables() -> Optional[dict]:
    """The tables (see the module's docstring), or None when the grammar
    needs something the fast parser does not do."""
    text = grammar_text()
    key = cache_key(text)
    folder = cache_dir()
    if folder is not None:
        data = _read(folder, key)
        if data is not None:
            return data
    try:
        data = extract(lark_parser())
    except Exception:   # Unsupported, or a lark whose insides moved: lark's way serves
        return None
    data["key"] = key
    if folder is not None:
        _write(folder, key, data)
    return data


# ---------------------------------------------------------------- reading lark's parser

def extract(lk, method_names=None) -> dict:
    """The tables of a lark LALR parser with the basic lexer (see above).
    ``method_names``: the builder's methods (by default ``AstBuilder``'s)."""
    if method_names is None:
        from atoll.grammar.build import AstBuilder
        method_names = {n for n in dir(AstBuilder) if not n.startswith("_")}
    lexer = lk.parser.lexer
    parser = lk.parser.parser.parser
    scanner = lexer.scanner   # built on first use; it also fills lexer.callback
    if lexer.user_callbacks or lexer.g_regex_flags or lk.options.keep_all_tokens \
            or not lk.options.maybe_placeholders or lk.options.tree_class is not None:
        raise Unsupported("lexer callbacks, regex flags or tree options")
    keywords = {}
    for name, cb in lexer.callback.items():
        words = getattr(getattr(cb, "scanner", None), "terminals", None)
        if words is None or any(t.pattern.type != "str" or t.pattern.flags for t in words):
            raise Unsupported(f"callback on {name}")
        keywords[name] = {t.pattern.value: t.name for t in words}
    terminals = [[t.name, t.pattern.to_regexp()] for t in scanner.terminals]
    table = parser.parse_table
    n = len(table.states)
    if sorted(table.states) != list(range(n)):
        raise Unsupported("states are not numbered 0..n-1")
    rules, index = [], {}
    states = []
    for s in range(n):
        row = {}
        for sym, (action, arg) in table.states[s].items():
            if action.name == "Shift":
                row[sym] = arg
            else:
                if id(arg) not in index:
                    index[id(arg)] = len(rules)
                    rules.append(_rule(arg, method_names))
                row[sym] = ~index[id(arg)]
        states.append(row)
    return {"format": FORMAT, "terminals": terminals, "keywords": keywords,
            "ignore": sorted(lexer.ignore_types), "newline": sorted(lexer.newline_types),
            "start": table.start_states["start"], "end": table.end_states["start"],
            "states": states, "rules": rules}


def _rule(rule, method_names) -> list:
    """One rule, with lark's child filter (parse_tree_builder.maybe_create_child_filter)."""
    opts = rule.options
    origin = rule.origin.name
    name = rule.alias or opts.template_source or origin
    expansion = rule.expansion
    empty = opts.empty_indices
    if empty:
        s = "".join(str(int(b)) for b in empty)
        nones = [len(ones) for ones in s.split("0")]
    else:
        nones = [0] * (len(expansion) + 1)
    include, pending = [], 0
    for i, sym in enumerate(expansion):
        pending += nones[i]
        if sym.is_term and sym.filter_out:
            continue
        mode = TOKEN if sym.is_term else SPLICE if sym.name.startswith("_") else CHILD
        include.append([i, mode, pending])
        pending = 0
    pending += nones[len(expansion)]
    expand1 = opts.expand1 and not rule.alias
    if origin.startswith("_"):
        if expand1:
            raise Unsupported(f"an inlined ?rule: {origin}")
        kind = INLINE
    elif expand1:
        # the fast parser handles `?r: ... x ...` with one kept child, a rule's value
        if len(include) != 1 or include[0][1] != CHILD or include[0][2] or pending:
            raise Unsupported(f"?{origin} does not keep exactly one rule")
        kind = UNIT if len(expansion) == 1 else PASS
    else:
        if name not in method_names:
            raise Unsupported(f"no builder method for {name}")
        kind = NODE
    return [origin, len(expansion), kind, name, include, pending]


# ---------------------------------------------------------------- the cache on disk

def cache_dir() -> Optional[Path]:
    env = os.environ.get("ATOLL_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):
        return None
    return Path(base) / "atoll"


def _owned(st) -> bool:
    """Belongs to this user and nobody else may write it."""
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid != getuid():
        return False
    return not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _read(folder: Path, key: str) -> Optional[dict]:
    try:
        if not _owned(os.stat(folder, follow_symlinks=False)) or not stat.S_ISDIR(
                os.stat(folder, follow_symlinks=False).st_mode):
            return None
        fd = os.open(folder / f"tables-{key}.json", os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or not _owned(st) or st.st_size > 16 << 20:
                return None
            data = json.loads(f.read())
        return data if _valid(data, key) else None
    except (OSError, ValueError):
        return None


def _write(folder: Path, key: str, data: dict) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _owned(os.stat(folder, follow_symlinks=False)):
            return
        fd, tmp = tempfile.mkstemp(prefix=".tables-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, separators=(",", ":"))
            os.replace(tmp, folder / f"tables-{key}.json")
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def _valid(d, key: str) -> bool:
    """The shape of the tables (the cache is trusted to be ours, not to be intact)."""
    try:
        if not isinstance(d, dict) or d.get("format") != FORMAT or d.get("key") != key:
            return False
        states, rules = d["states"], d["rules"]
        n, m = len(states), len(rules)
        for row in states:
            for sym, code in row.items():
                if not isinstance(sym, str) or type(code) is not int or not -m <= code < n:
                    return False
        for origin, size, kind, name, include, append_none in rules:
            if not (isinstance(origin, str) and isinstance(name, str) and type(size) is int
                    and size >= 0 and kind in (NODE, INLINE, PASS, UNIT) and type(append_none) is int
                    and append_none >= 0):
                return False
            for i, mode, nones in include:
                if not (type(i) is int and 0 <= i < size and mode in (CHILD, TOKEN, SPLICE)
                        and type(nones) is int and nones >= 0):
                    return False
        return (all(isinstance(t, str) and isinstance(r, str) for t, r in d["terminals"])
                and all(isinstance(w, dict) for w in d["keywords"].values())
                and type(d["start"]) is int and 0 <= d["start"] < n
                and type(d["end"]) is int and 0 <= d["end"] < n
                and isinstance(d["ignore"], list) and isinstance(d["newline"], list))
    except (KeyError, TypeError, ValueError):
        return False
