"""Fuzzing the toolchain: whatever text it is given, the pipeline must answer
with a compiled spec or a ``SpecError`` (diagnostics), and a game built from
a spec must play or stop with a ``ModelError``; any other exception is a bug.

Two sources of input:

* programs generated from the grammar itself (``hypothesis.extra.lark``),
  with small fixed vocabularies for names, numbers and strings so that they
  parse; whole files, and declarations put into a small valid frame so that
  they reach the later phases (collect, check, flow, lowering, play);
* random mutations of the shipped ``spec/masterislands.atoll``, which keep
  most of a real game and so reach instantiation and play.

Runs are reproducible (``derandomize=True``, no example database).

Crashes that are already reported are listed in ``KNOWN_BUGS`` with a minimal
spec each; each has a strict-xfail regression test below (it starts failing,
that is passing, once the bug is fixed: then delete its entry). The fuzzers
tolerate only those exact crash signatures, so a new kind of crash still fails.
"""
from __future__ import annotations

import itertools
import json
import random
import re
import shutil
import traceback
from importlib import resources
from pathlib import Path

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

import atoll

ROOT = Path(__file__).resolve().parent.parent
MASTER = ROOT / "spec" / "masterislands.atoll"
MASTER_TEXT = MASTER.read_text(encoding="utf-8")

# ---------------------------------------------------------------- grammar

GRAMMAR_TEXT = resources.files("atoll.grammar").joinpath("atoll.lark").read_text()
GRAMMAR = lark.Lark(GRAMMAR_TEXT, parser="lalr", lexer="basic")
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")

# Keyword terminals (anonymous string terminals that look like names) and
# punctuation: every terminal is emitted with spaces around it, so that two
# adjacent keywords (`end phase`, `not in`) never run together.
_TERMINALS, _RULES, _ = GRAMMAR.grammar.compile(["start"], ())
KEYWORDS = sorted(t.pattern.value for t in _TERMINALS
                  if t.pattern.type == "str" and _NAME_RE.match(t.pattern.value))

# Names: declared-looking identifiers, built-in values, types, stdlib
# functions, and the names masterislands uses, none of them a keyword.
NAMES = ["x", "y", "n", "p", "q", "hand", "pile", "Card", "Colour", "red", "blue", "value",
         "colour", "go", "me", "players", "seats", "player_count", "current_round",
         "int", "bool", "str", "list", "set", "bag", "map", "Pos", "Player",
         "size", "pos", "orth", "range", "sum", "count", "any", "remove", "can", "team_of"]
assert not set(NAMES) & set(KEYWORDS), set(NAMES) & set(KEYWORDS)


def _explicit() -> dict:
    out = {}
    for t in _TERMINALS:
        if t.pattern.type == "str":
            out[t.name] = st.just(f" {t.pattern.value} ")
    out.update(
        NAME=st.sampled_from(NAMES).map(lambda s: f" {s} "),
        INT=st.sampled_from(["0", "1", "2", "3", "10"]).map(lambda s: f" {s} "),
        STRING=st.sampled_from(['"a"', '""', '"two words"', '"data/masterislands_cards.json"',
                                '"cards"']).map(lambda s: f" {s} "),
        CMP_OP=st.sampled_from(["==", "!=", "<=", ">=", "<", ">"]).map(lambda s: f" {s} "),
        MUL_OP=st.sampled_from(["*", "/", "%"]).map(lambda s: f" {s} "),
        WS=st.sampled_from([" ", "\n"]),
        COMMENT=st.just(" # a comment\n"),
    )
    return out


PROGRAMS = from_lark(GRAMMAR, start="start", explicit=_explicit())


def _lark(start: str):
    """Text generated from one rule of the grammar."""
    terminals, _, ignored = GRAMMAR.grammar.compile([start], ())
    names = {t.name for t in terminals} | set(ignored)
    return from_lark(GRAMMAR, start=start,
                     explicit={k: v for k, v in _explicit().items() if k in names})


# Whole generated files almost always stop at `collect` (no game block, no
# flow): to reach the checker, the flow checks and the lowering, generated
# declarations are also put into a frame that is a valid spec on its own.
FRAME = ('game fuzz { title: "Fuzz" players: 2..3 }\n'
         "flow { round { turns in seats: main_phase } }\n"
         "phase main_phase { action main_act() { end phase } }\n")
# Every kind of top-level declaration but those the frame provides or that
# need another file (read from the grammar, so new kinds are fuzzed too).
DECLARATIONS = sorted({r.expansion[0].name for r in _RULES if r.origin.name == "item"}
                      - {"game_decl", "flow_decl", "extends_decl", "override_decl"})
assert {"const_decl", "phase_decl", "state_decl"} <= set(DECLARATIONS), DECLARATIONS
# deferred: the per-rule generators are built when first drawn (about 3 s),
# not when the suite is collected
FRAMED_PROGRAMS = st.deferred(lambda: st.lists(st.one_of([_lark(r) for r in DECLARATIONS]), min_size=1,
                                               max_size=4).map(lambda items: FRAME + "\n".join(items) + "\n"))

# ---------------------------------------------------------------- known bugs

# (exception type name, message regex) -> the bug, with a minimal spec that
# reproduces it. See the regression tests at the end of this file.
KNOWN_BUGS: dict = {}   # none open; fixed ones live on in REGRESSIONS below

# Crashes the fuzzers found, now fixed: (the bug, its minimal spec, what it
# must give now: "plays" or the main diagnostic code).
REGRESSIONS = {
    ("IndexError", r"string index out of range"): (
        "lowering a field access on an expression of unknown type (the element of an empty "
        "literal) crashes compile_spec with IndexError",
        'game g { title: "G" players: 2..2 }\n'
        "const z: int = sum(r.a for r in [])\n"
        "flow { round { turns in seats: p } }\n"
        "phase p { action go() when z == 0 { end phase } }\n", "plays"),
    ("SyntaxError", r"duplicate argument"): (
        "two parameters of one action (or def) with the same name are accepted by the checker; "
        "atoll.load then fails with a Python SyntaxError from the generated module",
        'game g { title: "G" players: 2..2 }\n'
        "flow { round { turns in seats: p } }\n"
        "phase p { action go(x: int in [1], x: int in [2]) { end phase } }\n", "A0102"),
    ("TypeError", r"cannot unpack non-iterable NoneType object"): (
        "two variables of one phase with the same name are accepted; they share one slot and "
        "State.observation() fails with TypeError",
        'game g { title: "G" players: 2..2 }\n'
        "flow { round { turns in seats: p } }\n"
        "phase p { k: int = 0  k: int = 1  action go() { k = k + 1 end phase } }\n", "A0102"),
}


def _known(exc: BaseException) -> str | None:
    for (kind, pattern), (what, *_) in KNOWN_BUGS.items():
        if type(exc).__name__ == kind and re.search(pattern, str(exc)):
            return what
    return None


def _fail(exc: BaseException, text: str) -> None:
    tb = "".join(traceback.format_exception(exc, limit=-6))
    pytest.fail(f"the toolchain raised {type(exc).__name__} (not SpecError/ModelError) "
                f"for this spec:\n{text}\n{tb}")


# ---------------------------------------------------------------- helpers

_counter = itertools.count()


def _write(workdir: Path, text: str) -> Path:
    # A fresh name per example: atoll.load caches compiled specs by path and mtime.
    path = workdir / f"fuzz_{next(_counter)}.atoll"
    path.write_text(text, encoding="utf-8")
    return path


def _compile(path: Path, text: str):
    """compile_spec; None on SpecError; fail the test on any other exception."""
    try:
        return atoll.compile_spec(path)
    except atoll.SpecError as e:
        assert e.diagnostics, "a SpecError must carry at least one diagnostic"
        assert all(d.code in atoll.diagnostics.CODES for d in e.diagnostics)
        str(e)   # rendering must not fail either
        return None
    except Exception as e:   # noqa: BLE001 - the point of the test
        if _known(e) is None:
            _fail(e, text)
        return None


def _playout(path: Path, text: str, seed: int, steps: int) -> str:
    """Load for two players and play ``steps`` random actions. Returns how it
    went: "load error" (a SpecError on load, e.g. a requirement that fails
    for 2 players), "model error", "deadlock", "played" (the steps, or to the
    end); a crash fails the test."""
    try:
        game = atoll.load(path, players=2)
    except atoll.SpecError:
        return "load error"
    except Exception as e:   # noqa: BLE001
        if _known(e) is None:
            _fail(e, text)
        return "known crash"
    rng = random.Random(seed)
    try:
        state = game.new_initial_state(seed)
        for _ in range(steps):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if not legal:            # a deadlock of the mutated rules: not a crash
                return "deadlock"
            state.apply_action(rng.choice(legal))
            state.returns()
            state.scores()
            state.observation(state.current_player() if state.current_player() >= 0 else 0)
            str(state)
    except atoll.ModelError:
        return "model error"
    except Exception as e:   # noqa: BLE001
        if _known(e) is None:
            _fail(e, text)
        return "known crash"
    return "played"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(MASTER.parent / "data", d / "data")   # masterislands' data file
    return d


# ---------------------------------------------------------------- 1. grammar fuzzing

@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much, HealthCheck.large_base_example])
@given(program=PROGRAMS)
def test_generated_programs_compile_or_report(workdir, program):
    _compile(_write(workdir, program), program)


def test_generated_declarations_compile_or_report(workdir):
    outcomes = []

    @settings(max_examples=70, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much, HealthCheck.large_base_example])
    @given(program=FRAMED_PROGRAMS, seed=st.integers(0, 2**16))
    def run(program, seed):
        path = _write(workdir, program)
        if _compile(path, program) is not None:
            outcomes.append(_playout(path, program, seed, steps=10))

    run()
    # the frame makes some generated declarations valid: they must reach play
    assert outcomes.count("played") >= 3, outcomes


def test_frame_is_a_valid_spec(workdir):
    assert _compile(_write(workdir, FRAME), FRAME) is not None


def test_generated_programs_parse(workdir):
    """The vocabularies above keep the generated programs grammatical, so the
    fuzzer reaches the checker: the lark parser must accept them all."""
    parser = lark.Lark(GRAMMAR_TEXT, parser="lalr", lexer="basic")
    seen = []

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(program=PROGRAMS)
    def collect(program):
        parser.parse(program)   # raises if the strategy produced a non-program
        seen.append(program)

    collect()
    assert seen


# ---------------------------------------------------------------- 2. mutations of masterislands

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z][A-Za-z0-9_]*|[0-9]+|==|!=|<=|>=|=>|\.\.|\S')
_SPEC_NAMES = sorted(set(re.findall(r"\b[A-Za-z][A-Za-z0-9_]*\b",
                                    re.sub(r'"[^"\n]*"|#[^\n]*', " ", MASTER_TEXT))))


@st.composite
def mutations(draw):
    """The shipped spec with one to three random edits."""
    text = MASTER_TEXT
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        op = draw(st.sampled_from(["delete_char", "delete_line", "duplicate_line",
                                   "swap_tokens", "replace_name", "insert_keyword"]))
        if op == "delete_char" and text:
            i = draw(st.integers(0, len(text) - 1))
            text = text[:i] + text[i + 1:]
        elif op == "delete_line":
            i = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[:i] + lines[i + 1:])
        elif op == "duplicate_line":
            i = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[:i + 1] + lines[i:])
        elif op == "swap_tokens":
            toks = list(_TOKEN.finditer(text))
            i, j = sorted(draw(st.lists(st.integers(0, len(toks) - 1), min_size=2, max_size=2,
                                        unique=True)))
            a, b = toks[i], toks[j]
            text = (text[:a.start()] + b.group() + text[a.end():b.start()] + a.group()
                    + text[b.end():])
        elif op == "replace_name":
            toks = [m for m in _TOKEN.finditer(text) if _NAME_RE.match(m.group())]
            m = toks[draw(st.integers(0, len(toks) - 1))]
            text = text[:m.start()] + draw(st.sampled_from(_SPEC_NAMES)) + text[m.end():]
        elif op == "insert_keyword":
            toks = list(_TOKEN.finditer(text))
            m = toks[draw(st.integers(0, len(toks) - 1))]
            kw = draw(st.sampled_from(KEYWORDS))
            text = text[:m.start()] + kw + " " + text[m.start():]
    return text


def test_mutated_masterislands(workdir):
    outcomes = []

    @settings(max_examples=80, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(text=mutations(), seed=st.integers(0, 2**16))
    def run(text, seed):
        path = _write(workdir, text)
        if _compile(path, text) is not None:
            outcomes.append(_playout(path, text, seed, steps=40))

    run()
    # many small edits keep a playable game: the fuzzer must reach play
    assert outcomes.count("played") >= 10, outcomes


def test_unmutated_masterislands_plays(workdir):
    """The baseline of the mutation fuzzer: the shipped spec compiles and plays."""
    path = _write(workdir, MASTER_TEXT)
    assert _compile(path, MASTER_TEXT) is not None
    game = atoll.load(path, players=2)
    state = game.new_initial_state(7)
    rng = random.Random(7)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))


# ---------------------------------------------------------------- known bugs, as regressions

@pytest.mark.parametrize("key", list(REGRESSIONS), ids=lambda k: k[0])
def test_known_crash(tmp_path, key):
    """Each crash the fuzzers found, on its minimal spec: the pipeline gives
    the diagnostic it should, or the game loads and plays 10 steps (showing
    its observations and text)."""
    _, text, expected = REGRESSIONS[key]
    path = tmp_path / "bug.atoll"
    path.write_text(text)
    if expected != "plays":
        with pytest.raises(atoll.SpecError) as info:
            atoll.compile_spec(path)
        assert info.value.diagnostics[0].code == expected, str(info.value)
        return
    comp = atoll.compile_spec(path)
    game = atoll.load(path, players=comp.program.player_range[0])
    state = game.new_initial_state(0)
    for _ in range(10):
        json.dumps(state.observation(0))
        assert str(state)
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
    assert len(state.history) == 10   # the minimal spec has no ending: it plays on
