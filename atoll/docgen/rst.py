"""Small helpers that write reStructuredText."""
from __future__ import annotations

from typing import Optional

_SPECIAL = str.maketrans({c: "\\" + c for c in "\\*`_|"})


def esc(text: str) -> str:
    """Plain text made safe inside a reST paragraph."""
    return " ".join(str(text).split()).translate(_SPECIAL)


def lit(code: str) -> str:
    """Inline code: the spec's own notation."""
    code = " ".join(str(code).split())
    if not code:
        return "``(empty)``"
    if "``" in code or code[0] == " " or code[-1] == " ":   # pragma: no cover - not Atoll syntax
        return esc(code)
    return f":atoll:`{code}`"


def heading(text: str, char: str) -> list[str]:
    return [text, char * max(len(text), 3), ""]


def indent(lines: list[str], n: int) -> list[str]:
    pad = " " * n
    return [pad + l if l.strip() else "" for l in lines]


def table(header: list[str], rows: list[list[str]], widths: Optional[list[int]] = None,
          classes: str = "") -> list[str]:
    """A list-table; cells are reST inline text."""
    out = [".. list-table::", "   :header-rows: 1"]
    if widths:
        out.append(f"   :widths: {' '.join(map(str, widths))}")
    if classes:
        out.append(f"   :class: {classes}")
    out.append("")
    for row in [header] + rows:
        for i, cell in enumerate(row):
            cell = cell if str(cell).strip() else "\\ "
            out.append(f"   {'* -' if i == 0 else '  -'} {cell}")
    out.append("")
    return out


def code_block(text: str, language: str = "atoll", force: bool = False) -> list[str]:
    """A highlighted block; ``force`` highlights text that is not valid code."""
    head = [f".. code-block:: {language}"] + (["   :force:"] if force else [])
    return head + [""] + indent(text.splitlines(), 3) + [""]


def label(*parts: str) -> str:
    return "-".join(p.replace("_", "-").lower() for p in parts if p)
