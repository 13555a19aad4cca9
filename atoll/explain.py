"""`atoll explain CODE`: the whole explanation of a diagnostic code, as its
docs page gives it (what it means, what to do, an example with what
`atoll check` reports for it), in the terminal."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from atoll.diagnostics import CODES, DEFAULT_HINTS, printable, render_all

# The bad specs the docs pages take their examples from (a0101_*.atoll...):
# present in a checkout of atoll, absent from an installed wheel.
EXAMPLES = Path(__file__).resolve().parent.parent / "tests" / "bad"


def example(code: str, folder: Optional[Path] = EXAMPLES) -> Optional[tuple[str, str, str]]:
    """(file name, its text, what `atoll check` reports) for the first bad
    spec of ``folder`` that shows ``code``, or None."""
    from atoll.docgen.codes import check_report
    if folder is None or not folder.is_dir():
        return None
    for path in sorted(folder.glob("*.atoll")):
        if code.lower() not in path.stem.split("_"):
            continue
        diags, sources = check_report(path)
        mine = [d for d in diags if d.code == code]
        if mine:
            report = render_all(mine, sources).replace(str(path), path.name)
            text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                             if not re.match(r"# (expect|line):", line))   # the tests' own notes
            return path.name, text.strip(), report
    return None


def explanation(code: str, folder: Optional[Path] = EXAMPLES) -> str:
    severity, title, text = CODES[code]
    out = [f"{code} ({severity}): {title}", "",
           "What it means:", f"  {text}", "",
           "What to do:", f"  {DEFAULT_HINTS.get(code, 'see the message and its hint').capitalize()}."]
    ex = example(code, folder)
    if ex is not None:
        name, spec, report = ex
        out += ["", f"Example ({name}):"] + ["  " + printable(line) for line in spec.splitlines()]
        out += ["", "`atoll check` reports:"] + ["  " + line for line in report.splitlines()]
    else:
        out += ["", f"Examples: the page {code} of the diagnostic codes in the docs (`atoll docs`)."]
    return "\n".join(out)
