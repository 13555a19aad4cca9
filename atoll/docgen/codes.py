"""Pages of the diagnostic codes, generated from the registry ``CODES`` in
``atoll.diagnostics`` (never a hand-kept table), each with the examples of
a folder of bad specs whose file names start with the code (``a0101_*.atoll``)
and what ``atoll check`` reports for them."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from atoll.compiler import pipeline
from atoll.diagnostics import CODES, DEFAULT_HINTS, SpecError, render_all
from atoll.docgen.rst import code_block, esc, heading, table


def check_report(path: Path):
    """The diagnostics ``atoll check`` gives for a file (every player count)."""
    try:
        comp = pipeline.compile_spec(path)
    except SpecError as e:
        return e.diagnostics, e.sources
    diags = list(comp.diagnostics)
    lo, hi = comp.program.player_range
    for n in range(lo, hi + 1):
        try:
            pipeline.instantiate(comp, n)
        except SpecError as e:
            diags += [d for d in e.diagnostics if d not in diags]
    return diags, comp.program.sources


def examples(code: str, folder: Optional[Path], limit: int = 2) -> list[str]:
    if folder is None or not folder.is_dir():
        return []
    out, shown = [], 0
    for path in sorted(folder.glob("*.atoll")):
        if shown >= limit or code.lower() not in path.stem.split("_"):
            continue
        diags, sources = check_report(path)
        mine = [d for d in diags if d.code == code]
        if not mine:
            continue
        shown += 1
        text = render_all(mine, sources).replace(str(path), path.name)
        out += heading(f"Example: {path.name}", "-")
        out += code_block(path.read_text(encoding="utf-8").rstrip(), "atoll", force=True)
        out += ["``atoll check`` reports:", ""] + code_block(text, "text")
    return out


def code_page(code: str, examples_folder: Optional[Path] = None) -> str:
    code = code.upper()
    severity, title, text = CODES[code]   # KeyError: no such code
    out = [f"**{esc(severity.capitalize())}**: {esc(text)}", "",
           f"What to do: {esc(DEFAULT_HINTS.get(code, ''))}.", "",
           f"``atoll explain {code}`` prints this explanation in the terminal.", ""]
    out += examples(code, examples_folder)
    return "\n".join(out) + "\n"


def index_table() -> str:
    rows = [[f":doc:`{code}`", esc(sev), esc(title), esc(text)]
            for code, (sev, title, text) in sorted(CODES.items())]
    return "\n".join(table(["code", "severity", "title", "meaning"], rows, [10, 10, 20, 60])) + "\n"
