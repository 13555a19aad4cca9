"""Compile time: a text parsed without diagnostics is parsed once per
process (compiler/pipeline._parse_kept), a broken one every time (its
diagnostics each time); A.walk (a stack, field names kept per class) visits
the nodes in the order of the recursive definition."""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

import atoll
from atoll.compiler import names as N, pipeline
from atoll.diagnostics import SpecError
from atoll.grammar import ast as A

ROOT = Path(__file__).resolve().parent.parent
COUNTDOWN = ROOT / "tests" / "golden" / "countdown.atoll"


def test_the_same_text_is_parsed_once(tmp_path, monkeypatch):
    calls = []
    real = pipeline.parse
    monkeypatch.setattr(pipeline, "parse", lambda *a: calls.append(1) or real(*a))
    spec = tmp_path / "g.atoll"
    text = COUNTDOWN.read_text()
    spec.write_text(text)
    a, b = atoll.compile_spec(spec), atoll.compile_spec(spec)
    assert len(calls) == 1 and a.source == b.source
    spec.write_text(text + "\n# changed\n")   # another text: parsed again
    atoll.compile_spec(spec)
    assert len(calls) == 2
    spec.write_text(text + "\nphase {{\n")   # broken: parsed, and reported, each time
    for n in (3, 4):
        with pytest.raises(SpecError):
            atoll.compile_spec(spec)
        assert len(calls) == n


def _recursive(node):
    if is_dataclass(node):
        yield node
        for f in fields(node):
            if f.name not in A._NOT_NODES:
                yield from _recursive(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for x in node:
            yield from _recursive(x)


@pytest.mark.parametrize("spec", [ROOT / "spec" / "kanaloa.atoll", COUNTDOWN], ids=lambda p: p.stem)
def test_walk_visits_in_the_recursive_order(spec):
    prog = atoll.compile_spec(spec).program
    items = tuple(prog.phases.values()) + tuple(prog.endings.values())
    assert [id(n) for n in A.walk(items)] == [id(n) for n in _recursive(items)]
    assert len(list(A.walk(items))) > 30


def test_a_compile_runs_without_full_collections_and_puts_the_thresholds_back(tmp_path, monkeypatch):
    import gc
    seen = []
    real = pipeline._lowered
    monkeypatch.setattr(pipeline, "_lowered", lambda *a: seen.append(gc.get_threshold()) or real(*a))
    spec = tmp_path / "g.atoll"
    spec.write_text(COUNTDOWN.read_text())
    before = gc.get_threshold()
    atoll.compile_spec(spec)
    assert seen == [(before[0], before[1], pipeline._NO_FULL_COLLECTION)] and gc.get_threshold() == before
    broken = tmp_path / "broken.atoll"
    broken.write_text("phase {{\n")
    with pytest.raises(SpecError):
        atoll.compile_spec(broken)
    assert gc.get_threshold() == before          # back after a refused spec as well
    gc.set_threshold(500, 5, 7)                  # a caller's own thresholds are kept
    try:
        atoll.compile_spec(spec)
        assert seen[-1] == (500, 5, pipeline._NO_FULL_COLLECTION) and gc.get_threshold() == (500, 5, 7)
    finally:
        gc.set_threshold(*before)


@pytest.mark.parametrize("players, options, refused", [
    (2, {}, None), (4, {"mode": "cooperative"}, None),
    (3, {"mode": "cooperative"}, "A0303"), (9, {}, "A0302"), (2, {"mode": "nonsense"}, "A0302"),
    (2, {"no_such_option": 1}, "A0302")])
def test_a_configuration_holds_its_games_values_and_refuses_what_the_game_refuses(players, options, refused):
    """``configure`` (the docs' tables of constants) evaluates what
    ``instantiate`` evaluates before specialising the rules: the same values
    of every option and constant, the same refusals."""
    comp = atoll.compile_spec(ROOT / "spec" / "masterislands.atoll")
    if refused:
        with pytest.raises(SpecError) as e:
            pipeline.configure(comp, players, options)
        assert [d.code for d in e.value.diagnostics] == [refused]
        return
    game = pipeline.instantiate(comp, players, options)
    c = pipeline.configure(comp, players, options)
    names = [N.value(k) for k in (*comp.program.consts, *comp.program.options)]
    assert names and {n: c.ns[n] for n in names} == {n: game.ns[n] for n in names}
    assert c.players == game.num_players and c.options == game.options


def test_what_the_program_alone_decides_is_computed_once_per_compile(monkeypatch):
    calls = []
    real = pipeline.const_order
    monkeypatch.setattr(pipeline, "const_order", lambda prog: calls.append(1) or real(prog))
    comp = atoll.compile_spec(ROOT / "spec" / "masterislands.atoll")
    for n in (2, 3, 4):
        pipeline.configure(comp, n)
    pipeline.instantiate(comp, 4, {"mode": "cooperative"})
    assert len(calls) == 1
    pipeline.configure(atoll.compile_spec(COUNTDOWN))
    assert len(calls) == 2   # another compile: its own
