"""The compile's shortcuts give what the long way gave: the described `if`
branches and the examples' choices found by walking statements only come in
the order of a walk of every node; the lowering's bracket count bounds the
depth it stands for."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import atoll
from atoll.compiler import check_examples, lower_limits
from atoll.grammar import ast as A

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "spec").rglob("*.atoll")) + sorted((ROOT / "tests" / "good").glob("*.atoll"))


def _branch_notes_by_walk(prog) -> list:
    out, seen = [], set()
    for n in A.walk((prog.setup, tuple(prog.phases.values()))):
        if isinstance(n, A.If) and n.notes.summary and id(n) not in seen:
            seen.add(id(n))
            out.append((n, n.notes.summary))
    return out


def _choices_by_walk(prog) -> dict:
    found: dict = {t.name: A.TypeRef("bool", ()) for t in prog.triggers.values() if t.optional}
    parts = list(prog.procs.values()) + [d for _, d in prog.actions.values()] + list(prog.phases.values())
    for n in A.walk(parts):
        if isinstance(n, A.Choose):
            found.setdefault(n.name, n.type)
    return found


@pytest.fixture(scope="module")
def programs():
    out = []
    for path in SPECS:
        try:
            out.append(atoll.compile_spec(path, allow=[ROOT / "spec"]).program)
        except atoll.SpecError:   # a good spec that needs options or files: not this test's business
            continue
    assert len(out) >= 20
    return out


def test_described_branches_come_in_walk_order(programs):
    assert any(p.branch_notes() for p in programs)
    for p in programs:
        assert [(id(n), w) for n, w in p.branch_notes()] == \
            [(id(n), w) for n, w in _branch_notes_by_walk(p)], p.file


def test_example_choices_are_those_a_walk_finds(programs):
    assert any(check_examples._choices(p) for p in programs)
    for p in programs:
        assert list(check_examples._choices(p).items()) == list(_choices_by_walk(p).items()), p.file


def test_the_bracket_count_bounds_the_depth():
    rng = random.Random(15)
    for _ in range(3000):
        text = "".join(rng.choice("()[]{}x '\"") for _ in range(rng.randrange(0, 120)))
        assert lower_limits._opening(text) >= lower_limits._nesting(text), text


def _calls_itself_by_walk(prog, name: str) -> bool:
    """The long way: walk each def reached for its calls."""
    todo, seen = [name], set()
    while todo:
        for n in A.walk(prog.defs[todo.pop()].body):
            ref = prog.refs.get(id(n)) if isinstance(n, A.Call) else None
            if ref is not None and ref[0] == "def":
                if ref[1] == name:
                    return True
                if ref[1] not in seen:
                    seen.add(ref[1])
                    todo.append(ref[1])
    return False


RECURSIVE = '''
def even(n: int): bool = if n == 0 then true else odd(n - 1)
def odd(n: int): bool = if n == 0 then false else even(n - 1)
def loop(n: int): int = if n <= 0 then 0 else loop(n - 1) + 1
def twice(n: int): int = 2 * n
def uses(n: int): bool = even(twice(n))
'''


def test_calls_itself_on_the_map_of_calls_is_the_walk(programs, tmp_path):
    """``Lowerer._calls_itself`` (on ``def_calls``, found once) says what a
    walk of every def reached says, for every def of every spec, and for
    defs that recur directly, through another def, or not at all."""
    from atoll.compiler.lower import Lowerer
    spec = tmp_path / "r.atoll"
    spec.write_text((ROOT / "tests" / "golden" / "countdown.atoll").read_text() + RECURSIVE)
    try:
        extra = [atoll.compile_spec(spec).program]
    except atoll.SpecError as e:   # pragma: no cover - the spec above must compile
        raise AssertionError(str(e))
    seen = {True: 0, False: 0}
    for prog in [p for p in programs] + extra:
        lw = Lowerer(prog, None)
        for name in prog.defs:
            want = _calls_itself_by_walk(prog, name)
            assert lw._calls_itself(name) == want, (prog.file, name)
            seen[want] += 1
    assert seen[True] >= 3 and seen[False] >= 3
    lw = Lowerer(extra[0], None)
    assert [n for n in extra[0].defs if lw._calls_itself(n)] == ["even", "odd", "loop"]
    assert not lw._calls_itself("uses") and not lw._calls_itself("twice")


def test_a_context_binds_a_name_as_replace_does():
    """``check.Ctx.bind`` (a copy of the instance's fields) gives what
    ``dataclasses.replace`` gives, every field included, and leaves the
    context it was asked on as it was."""
    from dataclasses import fields, replace
    from atoll.compiler.check import Ctx
    assert not hasattr(Ctx, "__post_init__") and all(f.init for f in fields(Ctx))
    ctx = Ctx("phase `p`", state=False, me=True, phase="p", phase_refs=True, locals={"a": "int"})
    got = ctx.bind("b", "bool")
    want = replace(ctx, locals={"a": "int", "b": "bool"})
    assert type(got) is Ctx and got == want
    assert [getattr(got, f.name) for f in fields(Ctx)] == [getattr(want, f.name) for f in fields(Ctx)]
    assert ctx.locals == {"a": "int"} and got.bind("a", "str").locals == {"a": "str", "b": "bool"}
