"""Small helpers that write reStructuredText, and the escaping of every text
that comes from a spec.

A spec is untrusted: its title, summaries, cites, names, strings, data
values and file names reach a page only through the helpers below.
``clean`` makes any text one line without control characters; ``esc``
writes it as plain text in a paragraph, a table cell, a heading or a
caption (every character that could start markup is backslash-escaped);
``code`` and ``lit`` write it as inline code; ``code_block`` indents a whole
block so that nothing in it can end the block; ``slug`` and ``label`` make
names for files and targets. The Sphinx extension also parses generated
text with raw HTML and file insertion switched off (``atoll.sphinx``), so a
missed escape still cannot run or read anything.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Optional

# Characters left as they are in plain text: they start no markup (and
# Sphinx may curl the quotes). Letters, digits and spaces stay too; any
# other character is escaped.
_KEEP = frozenset("'\"")


def clean(text) -> str:
    """``text`` on one line: every run of whitespace (line breaks of any
    kind included) becomes one space; control characters and lone
    surrogates are dropped."""
    kept = "".join(c for c in str(text) if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs"))
    return " ".join(kept.split())


def esc(text) -> str:
    """Plain text made safe anywhere reST takes inline text."""
    out = "".join(c if c.isalnum() or c == " " or c in _KEEP else "\\" + c for c in clean(text))
    if len(set(out)) == 1 and not out[0].isalnum():
        # one punctuation character repeated would read as a transition or
        # an underline: an escaped space (which shows nothing) goes first
        out = "\\ " + out
    return out


def emph(text) -> str:
    """Plain text in italics (nothing when it is empty)."""
    body = esc(text)
    return f"*{body}*" if body else ""


def _role(role: str, text) -> str:
    body = clean(text) or "(empty)"
    return f":{role}:`" + body.replace("\\", "\\\\").replace("`", "\\`") + "`"


def code(text) -> str:
    """Inline code shown as it is (a name, a value, a file name)."""
    body = clean(text)
    if body and "`" not in body and "\\" not in body:
        return f"``{body}``"
    return _role("literal", text)


def lit(text) -> str:
    """Inline code in the spec's notation, highlighted (the ``atoll`` role)."""
    return _role("atoll", text)


def heading(text: str, char: str) -> list[str]:
    """A section title; ``text`` is plain text (escaped here)."""
    title = esc(text) or "(untitled)"
    return [title, char * max(2 * len(title), 3), ""]


def indent(lines: list[str], n: int) -> list[str]:
    pad = " " * n
    return [pad + l if l.strip() else "" for l in lines]


def table(header: list[str], rows: list[list[str]], widths: Optional[list[int]] = None,
          classes: str = "") -> list[str]:
    """A list-table; cells are reST inline text (escaped by the caller)."""
    out = [".. list-table::", "   :header-rows: 1"]
    if widths:
        out.append(f"   :widths: {' '.join(map(str, widths))}")
    if classes:
        out.append(f"   :class: {classes}")
    out.append("")
    for row in [header] + rows:
        for i, cell in enumerate(row):
            cell = " ".join(str(cell).split())
            out.append(f"   {'* -' if i == 0 else '  -'}" + (f" {cell}" if cell else ""))
    out.append("")
    return out


def _block_line(line: str) -> str:
    return "".join(c for c in line if c == "\t" or unicodedata.category(c) not in ("Cc", "Cs"))


def code_block(text: str, language: str = "atoll", force: bool = False) -> list[str]:
    """A highlighted block of verbatim text; ``force`` highlights text that
    is not valid code. Every line is indented, so none can end the block."""
    head = [f".. code-block:: {language}"] + (["   :force:"] if force else [])
    return head + [""] + indent([_block_line(l) for l in str(text).splitlines()], 3) + [""]


def slug(text) -> str:
    """A name made of letters, digits, ``_`` and ``-`` (for a file or a page)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", str(text)).strip("-") or "spec"


def label(*parts: str) -> str:
    """A reference target: lower case letters, digits and ``-``."""
    return "-".join(re.sub(r"[^a-z0-9]+", "-", str(p).lower()).strip("-") for p in parts if p)
