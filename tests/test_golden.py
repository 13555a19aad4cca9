"""Golden files per stage: the AST dump and the lowered Python module of
small specs and of every shipped game. Regenerate with
``ATOLL_UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review with git diff."""
import json
import os
import sys
from pathlib import Path

import pytest

import atoll
from atoll.diagnostics import Reporter
from atoll.grammar.ast import to_data
from atoll.grammar.parse import parse
from helpers import ROOT

GOLDEN = Path(__file__).parent / "golden"
CASES = [GOLDEN / "countdown.atoll", ROOT / "spec" / "masterislands.atoll"]
UPDATE = os.environ.get("ATOLL_UPDATE_GOLDEN") == "1"


def check(path: Path, text: str):
    """Compare ``text`` with the golden file; write it only when asked (UPDATE).
    A missing golden file fails: it is made only by the explicit command."""
    if UPDATE:
        path.write_text(text)
    assert path.exists(), (f"{path.name} is missing: create it with "
                           f"ATOLL_UPDATE_GOLDEN=1 pytest tests/test_golden.py and review it")
    assert path.read_text() == text, f"{path.name} changed: regenerate and review it"


@pytest.mark.parametrize("spec", CASES, ids=lambda p: p.stem)
def test_ast_golden(spec):
    r = Reporter()
    tree = parse(spec.read_text(), spec.name, r)
    assert not r.items
    check(GOLDEN / f"{spec.stem}.ast.json", json.dumps(to_data(tree.items), indent=1) + "\n")


@pytest.mark.parametrize("spec", CASES, ids=lambda p: p.stem)
def test_lowering_golden(spec):
    comp = atoll.compile_spec(spec)
    text = comp.source.replace(str(spec), spec.name)
    check(GOLDEN / f"{spec.stem}.lowered.py.txt", text)


def test_a_missing_golden_file_fails(tmp_path, monkeypatch):
    """Without the explicit command, a golden file is never made up (it would
    then be compared with itself and pass)."""
    monkeypatch.setattr(sys.modules[__name__], "UPDATE", False)
    missing = tmp_path / "nothing.txt"
    with pytest.raises(AssertionError, match="missing"):
        check(missing, "text\n")
    assert not missing.exists()


def test_countdown_plays_as_expected():
    g = atoll.load(GOLDEN / "countdown.atoll", players=2, options={"start": 5})
    s = g.new_initial_state()
    for n in (3, 2):
        s.apply_action(next(a for a in s.legal_actions() if a.params == (n,)))
    assert s.is_terminal() and s.winners() == (1,) and s.scores() == [3, 2]
    s = g.new_initial_state()
    s.apply_action(next(a for a in s.legal_actions() if a.params == (3,)))
    assert [a.params for a in s.legal_actions()] == [(1,), (2,)]
    with pytest.raises(atoll.IllegalAction, match="cannot take more"):
        probe = g.new_initial_state()
        s.apply_action(next(a for a in probe.legal_actions() if a.params == (3,)))
