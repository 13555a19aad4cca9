"""Limits, not crashes or hangs (issue 10 §1.6).

A spec that goes past what the toolchain handles gets a diagnostic with a
code and a position: never an internal error (a raw SyntaxError or
RecursionError from Python, from the generated code or from the compiler's
own recursion), never a hang. What is plausible in a real spec (a sum of a
few hundred terms, a `cases` with hundreds of arms) simply works: the
generated code does not depend on Python's nesting limits.

The limits are in ``atoll.compiler.limits`` and docs/language.md.
"""
from __future__ import annotations

import json
import sys
import time

import pytest

import atoll
from atoll.cli import main
from atoll.compiler import limits, pipeline

BASE = """game g { title: "G" players: 2..2 }
state { x: int = 0 }
flow { round { turns in seats: p } }
phase p { action go() { x = x + 1 end phase } }
ending over immediately when x >= 2 => tie
"""


def write(tmp_path, text: str, name: str = "g.atoll"):
    path = tmp_path / name
    path.write_text(text)
    return path


def codes(call) -> list[str]:
    with pytest.raises(atoll.SpecError) as info:
        call()
    for d in info.value.diagnostics:
        assert d.span is not None, f"{d.code} without a position: {info.value}"
    return [d.code for d in info.value.diagnostics]


def play(game, steps: int = 50):
    state = game.new_initial_state(0)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
    return state


# ---------------------------------------------------------------- long chains work

def test_brackets_around_a_sum_cost_nothing(tmp_path):
    """200 nested brackets around additions: one chain of `+`, regrouped."""
    text = BASE + "const c: int = " + "(1 + " * 200 + "0" + ")" * 200 + "\n"
    text += "const d: int = " + "(" * 300 + "7" + ")" * 300 + "\n"
    game = atoll.load(write(tmp_path, text), players=2)
    assert (game.ns["k_c"], game.ns["k_d"]) == (200, 7)


@pytest.mark.parametrize("n", [250, 1000])
def test_a_long_sum_works(tmp_path, n):
    text = BASE.replace("x = x + 1", "x = x + " + " + ".join(["1"] * n) + " - " + str(n - 1))
    text += "const c: int = " + " + ".join(str(i) for i in range(n)) + "\n"
    text += "const d: bool = " + " or ".join(f"c == {i}" for i in range(n)) + "\n"
    text += "property q invariant not d and x <= 2\n"
    game = atoll.load(write(tmp_path, text), players=2)
    assert game.ns["k_c"] == n * (n - 1) // 2
    assert game.ns["k_d"] is False
    assert play(game).S[1] == 2


def test_long_cases_and_match_work(tmp_path):
    n = 400
    arms = "".join(f"  a{i}: x == {i} => {i}\n" for i in range(n))
    match = "".join(f"{i} => {i * 2}, " for i in range(n))
    text = BASE + f"def f(v: int): int = cases {{\n{arms}  other: true => -1\n}}\n".replace("x ==", "v ==")
    text += f"def g(v: int): int = match v {{ {match} _ => 0 }}\n"
    text += "const c: int = f(399) + g(7)\n"
    game = atoll.load(write(tmp_path, text), players=2)
    assert game.ns["k_c"] == 399 + 14


def test_moderate_nesting_works(tmp_path):
    depth = limits.MAX_NESTING - 10
    expr = "(1 - " * depth + "0" + ")" * depth
    sets = "size({" * 30 + "1" + "})" * 30
    ifs = "".join("if x >= 0 { " for _ in range(30)) + "x = x + 1" + " }" * 30
    text = BASE.replace("x = x + 1", ifs) + f"const c: int = {expr}\nconst e: int = {sets}\n"
    text += "def k(v: int): int = " + "if v == 0 then 0 else " * 40 + "1\n"
    text += "const kk: int = k(3)\n"
    game = atoll.load(write(tmp_path, text), players=2)
    assert game.ns["k_c"] == depth % 2 and game.ns["k_e"] == 1 and game.ns["k_kk"] == 1
    assert play(game).S[1] == 2


def test_a_deep_expression_sees_the_variables_in_scope(tmp_path):
    """An expression nested deeper than Python's parser allows (in the
    generated text) still reads the choice, the loop variables and the state."""
    d = 70
    deep = "(v - " * d + "k" + ")" * d          # = k when d is even, v - k when odd
    text = BASE.replace("action go()", "action go(k: int in [1, 2])")
    text = text.replace("x = x + 1", f"x = x + sum({deep} + w for v in [5, 7] for w in [x])")
    text += "def h(v: int, k: int): int = " + deep + "\n"
    text += "const c: int = h(9, 4) + size([" + "[" * 60 + "1" + "]" * 60 + "])\n"
    path = write(tmp_path, text)
    comp = atoll.compile_spec(path)
    assert "def _h" in comp.source   # hoisted: the test is about that path
    game = pipeline.instantiate(comp, 2)
    assert game.ns["k_c"] == 4 + 1
    state = game.new_initial_state(0)
    state.apply_action(next(a for a in state.legal_actions() if a.params == (2,)))
    assert state.S[1] == 2 + 2   # k + x(0), for v = 5 and v = 7


def test_deep_inlining_of_defs_is_not_a_crash(tmp_path):
    """A chain of defs that each call the next (the lowering inlines some)."""
    n = 300
    text = BASE + "def f0(v: int): int = " + "(" * 30 + "v + 1" + ")" * 30 + "\n"
    text += "".join(f"def f{i}(v: int): int = f{i - 1}(v) + 1\n" for i in range(1, n))
    text += f"const c: int = f{n - 1}(0)\n"
    text = text.replace("x = x + 1 end phase", f"x = x + f{n - 1}(0) - {n - 1} end phase")
    game = atoll.load(write(tmp_path, text), players=2)
    assert game.ns["k_c"] == n
    assert play(game).is_terminal()


# ---------------------------------------------------------------- past a limit: a diagnostic

def test_very_deep_nesting_is_a_diagnostic_not_a_recursion_error(tmp_path):
    for depth in (limits.MAX_NESTING + 5, 3_000):
        text = BASE + "const c: int = " + "(1 - " * depth + "0" + ")" * depth + "\n"
        assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0005"]
        lists = BASE + "const c: list[int] = " + "[" * depth + "1" + "]" * depth + "\n"
        assert codes(lambda: atoll.compile_spec(write(tmp_path, lists))) == ["A0005"]


def test_99_nested_ifs_are_a_diagnostic(tmp_path):
    ifs = "".join("if x >= 0 { " for _ in range(99)) + "x = x + 1" + " }" * 99
    text = BASE.replace("x = x + 1", ifs)
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0005"]


def test_loops_nested_past_pythons_block_limit_are_a_diagnostic(tmp_path):
    fors = "".join(f"for i{k} in [1] {{ " for k in range(limits.MAX_LOOPS + 1)) + "x = x + 1" + \
        " }" * (limits.MAX_LOOPS + 1)
    text = BASE.replace("x = x + 1", fors)
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0005"]
    params = ", ".join(f"v{k}: int in [1]" for k in range(limits.MAX_LOOPS + 1))
    text = BASE.replace("action go()", f"action go({params})")
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0005"]


def test_the_most_loops_allowed_compile(tmp_path):
    k = limits.MAX_LOOPS
    fors = "".join(f"for i{j} in [1] {{ " for j in range(k - 1)) + "deal 1 from pile to got" + " }" * (k - 1)
    text = BASE.replace("state { x: int = 0 }", "state { x: int = 0  pile: bag[int] = bag([1, 2])  "
                                                 "got: bag[int] = bag([]) }")
    text = text.replace("x = x + 1", fors + " x = x + 1")
    # each choice ranges over a comprehension of two loops (the test of `can` may walk them as loops)
    params = ", ".join(f"v{j}: int in [a{j} + b{j} for a{j} in [1] for b{j} in [0]]" for j in range(k))
    text = text.replace("action go()", f"action go({params})")
    game = atoll.load(write(tmp_path, text), players=2)
    assert play(game).is_terminal()


def test_a_5000_digit_number_is_a_diagnostic(tmp_path):
    text = BASE + "const c: int = " + "9" * 5000 + "\n"
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0005"]
    text = BASE.replace("players: 2..2", "players: 2.." + "9" * 5000)
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0005"]


def test_a_constant_past_the_integer_limit_is_a_diagnostic(tmp_path):
    big = "9" * limits.MAX_INT_DIGITS
    text = BASE + f"const a: int = {big}\nconst b: int = a * a\nconst u: bool = b > 0\n" \
                  "property q invariant u\n"
    path = write(tmp_path, text)
    atoll.compile_spec(path)
    assert codes(lambda: atoll.load(path, players=2)) == ["A0305"]
    # a def that squares its way past the limit, inside one constant
    text = BASE + "def sq(v: int): int = v * v\nconst c: int = " + "sq(" * 40 + "2" + ")" * 40 + "\n"
    t = time.perf_counter()
    assert codes(lambda: atoll.load(write(tmp_path, text), players=2)) == ["A0305"]
    assert time.perf_counter() - t < 120   # unbounded, it would never end: this tells a hang, not a speed


def test_an_option_past_the_integer_limit_is_refused(tmp_path):
    path = write(tmp_path, BASE + "option n: int = 1\nconst c: int = n * 2\n")
    with pytest.raises(atoll.SpecError) as info:
        atoll.load(path, players=2, options={"n": 10 ** 5000})
    assert [d.code for d in info.value.diagnostics] == ["A0302"]
    assert atoll.load(path, players=2, options={"n": 10 ** 4000}).ns["k_c"] == 2 * 10 ** 4000
    with pytest.raises(atoll.SpecError, match="digits"):
        atoll.load(path, players=10 ** 5000)


def test_an_absurd_player_range_is_a_diagnostic(tmp_path):
    text = BASE.replace("players: 2..2", "players: 2..99999999999999999999")
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0108"]
    text = BASE.replace("players: 2..2", f"players: {limits.MAX_PLAYERS + 1}")
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0108"]


def test_check_instantiates_a_bounded_sample_of_player_counts(tmp_path, monkeypatch, capsys):
    text = BASE.replace("players: 2..2", f"players: 2..{limits.MAX_PLAYERS}")
    path = write(tmp_path, text)
    seen = []
    real = pipeline.instantiate

    def counting(comp, players=None, options=None):
        seen.append(players)
        return real(comp, players, options)

    monkeypatch.setattr(pipeline, "instantiate", counting)
    assert main(["check", str(path)]) == 0
    assert 2 in seen and limits.MAX_PLAYERS in seen
    assert len(seen) <= limits.CHECK_PLAYER_COUNTS
    seen.clear()
    small = write(tmp_path, BASE.replace("players: 2..2", "players: 1..6"), "small.atoll")
    assert main(["check", str(small)]) == 0
    assert sorted(seen) == [1, 2, 3, 4, 5, 6]   # a real range: every count


def test_a_constant_that_never_ends_runs_out_of_budget(tmp_path):
    text = BASE + "const c: int = sum(x * y for x in range(100000) for y in range(100000))\n"
    path = write(tmp_path, text)
    atoll.compile_spec(path)
    t = time.perf_counter()
    assert codes(lambda: atoll.load(path, players=2)) == ["A0305"]
    assert time.perf_counter() - t < 120   # 10^10 steps unbounded: this tells a hang, not a speed
    # one step of Python that would build 10^12 items: a standard function refuses it
    huge = BASE + "const c: int = size(range(1000000000000))\n"
    with pytest.raises(atoll.SpecError, match="too long") as info:
        atoll.load(write(tmp_path, huge), players=2)
    assert [d.code for d in info.value.diagnostics] == ["A0304"]


def test_the_budget_leaves_an_outer_tracer_in_place(tmp_path):
    calls = []

    def tracer(frame, event, arg):
        calls.append(event)
        return None

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        atoll.load(write(tmp_path, BASE + "const c: int = 1\n"), players=2)
        after = sys.gettrace()
    finally:
        sys.settrace(old)
    assert after is tracer


def test_constants_are_evaluated_once_each_in_dependency_order(tmp_path):
    """2,000 constants declared in reverse order: each is evaluated once (the
    old loop retried every pending constant after each NameError)."""
    n = 2000
    text = BASE + "".join(f"const c{i}: int = c{i + 1} + 1\n" for i in range(n)) + f"const c{n}: int = 0\n"
    path = write(tmp_path, text)
    comp = atoll.compile_spec(path)
    counted = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name.startswith("c_"):
            counted.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        game = pipeline.instantiate(comp, 2)
    finally:
        sys.setprofile(None)
    assert game.ns["k_c0"] == n
    assert len(counted) == n + 1


def test_a_cycle_of_constants_is_named(tmp_path):
    text = BASE + "const a: int = b + 1\nconst b: int = f(1)\ndef f(v: int): int = a + v\n"
    path = write(tmp_path, text)
    with pytest.raises(atoll.SpecError) as info:
        atoll.load(path, players=2)
    assert [d.code for d in info.value.diagnostics] == ["A0304"]
    assert "cycle" in str(info.value) and "`a`" in str(info.value)


def test_data_nested_100000_deep_is_a_diagnostic(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    text = BASE + 'data d: list[int] from "deep.json"\n'
    assert codes(lambda: atoll.compile_spec(write(tmp_path, text))) == ["A0504"]


# ---------------------------------------------------------------- the command line

def test_check_reports_limits_without_an_internal_error(tmp_path, capsys):
    path = write(tmp_path, BASE + "const c: int = " + "(1 - " * 5000 + "0" + ")" * 5000 + "\n")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr()
    assert "A0005" in out.out and "internal error" not in out.err


def test_debug_prints_the_traceback_of_an_internal_error(tmp_path, monkeypatch, capsys):
    def broken(path, *args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(pipeline, "compile_spec", broken)
    path = write(tmp_path, BASE)
    assert main(["check", str(path)]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "bug" in err and "Traceback" not in err and "--debug" in err
    assert main(["--debug", "check", str(path)]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" in err and "ZeroDivisionError" in err


def test_a_deep_option_default_is_evaluated(tmp_path):
    d = 80
    text = BASE + "option n: int = " + "(1 - " * d + "3" + ")" * d + "\nconst c: int = n\n"
    text += "def h(v: int): int = " + "(v - " * 60 + "1" + ")" * 60 + "\nconst e: int = h(n)\n"
    game = atoll.load(write(tmp_path, text), players=2)
    assert game.options["n"] == 3 and game.ns["k_c"] == 3 and game.ns["k_e"] == 1


def test_the_depth_of_generated_text_skips_string_literals():
    import ast
    from atoll.compiler.lower_limits import _free_names, _nesting
    assert _nesting("f((1, 2), [x for x in (y)])") == 3
    assert _nesting("('((((', [1], \"]]\", '\\\\'')") == 2
    tree = ast.parse("[l_a + l_b for l_a in S[l_c] for l_b in l_a if me] + [l_a]", mode="eval").body
    assert _free_names(tree) == {"S", "l_c", "me", "l_a"}


def test_should_python_refuse_the_generated_code_it_is_a_diagnostic(tmp_path, monkeypatch):
    """The last line of defence: with hoisting switched off and the nesting
    limit raised, Python's parser refuses the module; the refusal is A0005 at
    the declaration whose function it refused."""
    from atoll.compiler import lower_limits
    monkeypatch.setattr(lower_limits, "HOIST_DEPTH", 10 ** 6)
    monkeypatch.setattr(limits, "MAX_NESTING", 400)
    d = 220
    text = BASE + "\n\nconst deep: int = " + "(1 - " * d + "0" + ")" * d + "\n"
    with pytest.raises(atoll.SpecError) as info:
        atoll.compile_spec(write(tmp_path, text))
    (diag,) = info.value.diagnostics
    assert diag.code == "A0005" and "Python refused" in diag.message
    assert diag.span.line == text.splitlines().index(text.splitlines()[-1]) + 1


# ---------------------------------------------------------------- found by the 10,000-spec fuzz run

def test_a_chain_of_variants_past_the_limit_is_a_diagnostic(tmp_path):
    """Each variant extends the next; past limits.MAX_EXTENDS files it is
    A0401 (it was a RecursionError in the parser at about 950)."""
    write(tmp_path, BASE, "v0.atoll")
    n = limits.MAX_EXTENDS + 5
    for i in range(1, n + 1):
        write(tmp_path, f'extends "v{i - 1}.atoll"\n', f"v{i}.atoll")
    assert "A0401" in codes(lambda: atoll.compile_spec(tmp_path / f"v{n}.atoll"))
    # a chain within the limit still compiles
    atoll.compile_spec(tmp_path / f"v{limits.MAX_EXTENDS - 1}.atoll")


def test_a_win_naming_no_seat_is_a_model_error(tmp_path):
    """`win [2]` in a 2-player game: a ModelError naming the ending, not a
    finished state that saves but no longer loads."""
    path = write(tmp_path, BASE.replace("=> tie", "=> win [2]"))
    state = atoll.load(path, players=2).new_initial_state(seed=1)
    with pytest.raises(atoll.ModelError, match=r"ending `over`.*winner 2.*not a seat"):
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])


def test_a_state_with_too_many_legal_actions_is_a_model_error(tmp_path, monkeypatch):
    from atoll.compiler import runtime
    monkeypatch.setattr(runtime, "MAX_LEGAL", 1000)
    path = write(tmp_path, BASE.replace("action go()", "action go(a: int in range(40), b: int in range(40))"))
    state = atoll.load(path, players=2).new_initial_state(seed=1)
    with pytest.raises(atoll.ModelError, match="more than 1,000 legal actions"):
        state.legal_actions()
    monkeypatch.setattr(runtime, "MAX_LEGAL", 1600)
    assert len(state.legal_actions()) == 1600


def test_a_choice_space_too_large_to_list_is_refused_at_once(tmp_path):
    """27 million candidate choices: refused as soon as the loops have
    examined more than MAX_CHOICES, with or without a `when` that thins
    them (it used to list 200,001 actions first, seconds per state); the
    state is unchanged and a smaller space still lists completely."""
    from atoll.compiler import limits
    params = "a: int in range(300), b: int in range(300), c: int in range(300)"
    for guard in ("true", "a + b + c == 0"):
        path = write(tmp_path, BASE.replace("action go()", f"action go({params}) when {guard}"))
        state = atoll.load(path, players=2).new_initial_state(seed=1)
        before = state.to_json()
        with pytest.raises(atoll.ModelError, match=r"action `go`.*more than 1,000,000 candidate choices"):
            state.legal_actions()
        assert state.to_json() == before
    # a dependent domain is counted as it is met: b ranges over a's range
    path = write(tmp_path, BASE.replace("action go()", "action go(a: int in range(2000), b: int in range(a)) when b == 0"))
    with pytest.raises(atoll.ModelError, match="candidate choices"):
        atoll.load(path, players=2).new_initial_state(seed=1).legal_actions()
    path = write(tmp_path, BASE.replace("action go()", "action go(a: int in range(1000), b: int in range(a)) when b == 0"))
    assert len(atoll.load(path, players=2).new_initial_state(seed=1).legal_actions()) == 999
    assert limits.MAX_CHOICES >= 1000 * 999 // 2 + 1000


def test_an_initial_value_that_never_ends_is_a_diagnostic(tmp_path):
    """A state variable's initial value is evaluated within the budget when
    the game is built (it used to hang every new game)."""
    text = BASE.replace("state { x: int = 0 }",
                        "state { x: int = 0  y: int = sum(a * b for a in range(100000) for b in range(100000)) }")
    assert codes(lambda: atoll.load(write(tmp_path, text), players=2)) == ["A0305"]
