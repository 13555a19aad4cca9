"""The cache of `atoll mutate`: each mutant's record, and its kills kept
across edits of the properties.

A record is kept under the key of the mutant's whole text (and of every
file the spec reads, the configurations, the budget and the toolchain's
source): any edit anywhere checks every mutant again.

A kill is also kept under the key of the mutant's **rules** alone: the
text without the declarations of properties and examples, nor the
constants and functions only they read. It is read back for the same
rules only while the property (or example) that killed it is still there,
word for word with what it reads, and the original still satisfies it:
its verdict on the same rules, with the same budget, is the same real
counterexample (or failed proof). So adding a property or an example
checks again only the mutants that were not killed. A mutant found
equivalent (the same lowered code) is kept the same way: that depends on
the rules alone.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Optional

CACHE_VERSION = "atoll-mutant-2"
RULES_VERSION = "atoll-mutant-rules-2"
# Words that open a declaration of the whole spec: a line that starts with
# one (or any line that starts in its first column, but a comment or a
# brace) starts a new declaration.
TOP = frozenset(("game", "extends", "override", "unmodelled", "enum", "record", "data", "option", "house",
                 "require", "const", "def", "teams", "state", "setup", "flow", "phase", "ending", "score",
                 "property", "example"))
_WORD = re.compile(r"[A-Za-z_]+")


def mutant_key(bundle, text: str, configs, st, toolchain: str = "") -> str:
    """The key of a mutant's record; ``toolchain``: the toolchain's digest
    taken when the run began (the code that runs), else read now."""
    from atoll.verify.cache import toolchain_digest
    files = [(rel, text if rel == bundle.root else body) for rel, body in bundle.files]
    data = [CACHE_VERSION, bundle.root, files, toolchain or toolchain_digest(), configs,
            [st.games, st.seed, st.timeout_ms, st.cap]]
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _starts(text: str) -> list[int]:
    """Offsets of the lines that start a declaration."""
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        s = line.lstrip()
        w = _WORD.match(s)
        if s and ((line[0] not in " \t#{}\r\n") or (w is not None and w.group() in TOP)):
            out.append(at)
        at += len(line)
    return out


class Segments:
    """The spec's text cut into declarations: which belong to the checks
    (properties, examples, and the constants and functions only they read)."""

    def __init__(self, prog, text: str, file: str):
        from atoll.verify.mutants import Text, used_by_rules
        self.text = text
        tx = Text(text)
        starts = _starts(text)
        ends = starts[1:] + [len(text)]
        by_line = {}
        for a, b in zip(starts, ends):
            by_line[text.count("\n", 0, a) + 1] = (a, b)
        rules = used_by_rules(prog)
        self.checks: dict = {}   # name -> (start, end) of its declaration
        named = [(n, d) for n, d in list(prog.consts.items()) + list(prog.defs.items()) if n not in rules]
        named += list(prog.properties.items()) + list(prog.examples.items())
        for name, decl in named:
            sp = getattr(decl, "span", None)
            if not _in_file(sp, file) or sp.line not in by_line:
                continue
            a, b = by_line[sp.line]
            if tx.offset(sp.line, sp.column) < a:
                continue
            self.checks[name] = (a, b)

    def rules_text(self, edits: tuple) -> Optional[str]:
        """The mutant's text without the checks' declarations; None when an
        edit falls inside one (then no kill is shared)."""
        holes = sorted(set(self.checks.values()))
        for a, b, _ in edits:
            if any(a < hb and b > ha for ha, hb in holes):
                return None
        allx = sorted([(a, b, new) for a, b, new in edits] + [(a, b, "") for a, b in holes])
        out, at = [], 0
        for a, b, new in allx:
            if a < at:
                return None
            out.append(self.text[at:a])
            out.append(new)
            at = b
        out.append(self.text[at:])
        return "".join(out)

    def check_text(self, prog, name: str) -> Optional[str]:
        """The text of a property or example, and of the checks' constants
        and functions it reads."""
        from atoll.verify.mutants import reads
        if name not in self.checks:
            return None
        decl = prog.properties.get(name) or prog.examples.get(name)
        if decl is None:
            return None
        a, b = self.checks[name]
        parts = [self.text[a:b]]
        for n in sorted(reads(prog, decl)):
            if n in self.checks and n not in prog.properties and n not in prog.examples:
                x, y = self.checks[n]
                parts.append(self.text[x:y])
        # its words, without the blank lines and whole-line comments around them
        return "\n".join(x.rstrip() for part in parts for x in part.splitlines()
                         if x.strip() and not x.lstrip().startswith("#"))


def _in_file(sp, file: str) -> bool:
    return sp is not None and str(getattr(sp, "file", file)) == file


def rules_key(bundle, rules_text: str, configs, st, toolchain: str = "") -> str:
    from atoll.verify.cache import toolchain_digest
    files = [(rel, rules_text if rel == bundle.root else body) for rel, body in bundle.files]
    data = [RULES_VERSION, bundle.root, files, toolchain or toolchain_digest(), configs,
            [st.games, st.seed, st.timeout_ms, st.cap]]
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def read(path: Path) -> Optional[dict]:
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def write(path: Path, rec: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(rec, f, default=str)
    os.replace(tmp, path)
