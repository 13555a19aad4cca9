"""Diagnostics, one case per code.

``tests/bad/*.atoll``: each file is a small broken spec that starts with
comment lines saying what the compiler must answer:

    # expect: A0201, A0203     the exact set of codes reported (first one = the main one)
    # line: 11                 the line the first expected code points at
    # did-you-mean: hand_size  (optional) the hint an A0101 must give
    # hint: TEXT               (optional) words the message must contain
    # xfail: BUG - ...         (optional) a known toolchain bug: strict xfail

``tests/good/*.atoll``: small valid specs. Each compiles (warnings only) and
random play ends every game. Header lines: ``# players: 2, 3`` (the player
counts to play, default the smallest allowed), ``# warnings: A0203`` (the
warnings it must produce, default none) and ``# xfail:`` as above.

``tests/bad/load/*.atoll``: specs that compile but cannot be loaded for the
player count and options of their ``# load: players=N key=value ...`` line
(A0302-A0306); ``# line: -`` when the diagnostic has no position (a player
count or an option given on load is not in the spec's text).

Every code of ``atoll.diagnostics.CODES`` must be the main code of a bad file
(a warning: be given by a good spec's ``# warnings:``), but those of
``API_ONLY`` (a case that cannot be a file kept in the repository), which are
checked by ``API_CASES`` with the other API paths.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import atoll
from atoll.diagnostics import CODES, render_all
from contracts import check_outcome

TESTS = Path(__file__).resolve().parent
BAD = sorted((TESTS / "bad").glob("*.atoll"))
BAD_LOAD = sorted((TESTS / "bad" / "load").glob("*.atoll"))
GOOD = sorted((TESTS / "good").glob("*.atoll"))
DRAW = TESTS / "good" / "draw.atoll"

CARET = re.compile(r"^\s*\|\s*\^+\s*$", re.M)


def header(path: Path) -> dict[str, str]:
    """The ``# key: value`` lines at the top of a spec (until the first non-comment line)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#\s*([a-z-]+):\s*(.*)$", line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2).strip()
    return out


def codes_of(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def cases(paths):
    out = []
    for p in paths:
        h = header(p)
        marks = [pytest.mark.xfail(reason=h["xfail"], strict=True)] if "xfail" in h else []
        out.append(pytest.param(p, id=p.stem, marks=marks))
    return out


# ---------------------------------------------------------------- 1. bad specs

def test_every_bad_file_has_a_header():
    assert BAD, "tests/bad has no cases"
    for p in BAD:
        h = header(p)
        assert "expect" in h and "line" in h, f"{p.name} lacks `# expect:` or `# line:`"
        assert set(codes_of(h["expect"])) <= set(CODES), f"{p.name}: unknown code"
        assert h["line"].isdigit()


@pytest.mark.parametrize("path", cases(BAD))
def test_bad_spec(path: Path):
    h = header(path)
    expected = codes_of(h["expect"])
    with pytest.raises(atoll.SpecError) as info:
        atoll.compile_spec(path)
    err = info.value
    got = [d.code for d in err.diagnostics]
    assert set(got) == set(expected), f"expected {expected}, got {got}:\n{err}"
    assert got[0] == expected[0], f"the main code {expected[0]} must come first, got {got}:\n{err}"

    main = err.diagnostics[0]
    assert main.span is not None, f"{main.code} has no position:\n{err}"
    assert main.span.line == int(h["line"]), f"{main.code} points at line {main.span.line}:\n{err}"

    text = str(err)
    assert path.name in text
    assert f"{path.name}:{main.span.line}:{main.span.column}" in text, text
    assert CARET.search(text), f"no caret line under the source:\n{text}"
    assert f"[{main.code}]" in text
    if "did-you-mean" in h:
        assert "A0101" in expected
        assert f"did you mean `{h['did-you-mean']}`?" in text, text
    if "hint" in h:
        assert h["hint"] in text, text


# ---------------------------------------------------------------- load-time cases

def load_args(h: dict) -> tuple[int, dict]:
    words = h["load"].split()
    players = int(words[0].removeprefix("players="))
    return players, dict(w.split("=", 1) for w in words[1:])


@pytest.mark.parametrize("path", cases(BAD_LOAD))
def test_bad_load_spec(path: Path):
    h = header(path)
    expected = codes_of(h["expect"])
    atoll.compile_spec(path)   # the spec itself is fine
    players, options = load_args(h)
    with pytest.raises(atoll.SpecError) as info:
        atoll.load(path, players=players, options=options)
    err = info.value
    got = [d.code for d in err.diagnostics]
    assert got[0] == expected[0] and set(got) == set(expected), f"expected {expected}, got {got}:\n{err}"
    main = err.diagnostics[0]
    if h["line"] == "-":
        assert main.span is None, f"{main.code} has a position, give its line:\n{err}"
    else:
        assert main.span is not None and main.span.line == int(h["line"]), f"{main.span}:\n{err}"
        assert f"{path.name}:{main.span.line}:{main.span.column}" in str(err) and CARET.search(str(err))
    assert f"[{main.code}]" in str(err)
    if "hint" in h:
        assert h["hint"] in str(err), str(err)


# ---------------------------------------------------------------- API cases

def _load(path, **kw):
    return atoll.load(path, **kw)


def _too_large():
    """A spec whose data file is one byte over the cap (a sparse file: no room taken)."""
    import tempfile
    from atoll.compiler import files
    with tempfile.TemporaryDirectory(prefix="atoll-a0503-") as name:
        folder = Path(name)
        with open(folder / "big.json", "wb") as f:
            f.truncate(files.MAX_DATA_BYTES + 1)
        (folder / "g.atoll").write_text((TESTS / "bad" / "a0301_missing_data_file.atoll").read_text()
                                        .replace("data/no_such_file.json", "big.json"))
        return atoll.compile_spec(folder / "g.atoll")


# code -> list of (description, callable raising SpecError, text the message must contain)
API_CASES = {
    "A0003": [("the spec file does not exist",
               lambda: atoll.compile_spec(TESTS / "bad" / "no_such_spec.atoll"), "no_such_spec")],
    "A0503": [("a data file over the size cap", _too_large, "16 MiB")],
    "A0302": [
        ("a player count outside the game's range",
         lambda: _load(DRAW, players=5), "2 to 3 players"),
        ("an unknown option, with a did-you-mean hint",
         lambda: _load(DRAW, players=2, options={"hand_sise": 2}), "did you mean `hand_size`?"),
        ("an int option given a word",
         lambda: _load(DRAW, players=2, options={"hand_size": "many"}), "hand_size"),
        ("an enum option given a non-member",
         lambda: _load(DRAW, players=2, options={"bonus_suit": "gren"}), "did you mean `green`?"),
    ],
    "A0303": [("a requirement that fails for the chosen options",
               lambda: _load(DRAW, players=2, options={"hand_size": 5}),
               "Every hand can be dealt")],
    "A0304": [("a constant that cannot be evaluated (a map lacks the key)",
               lambda: _load(DRAW, players=2, options={"bonus_level": 3}), "KeyError")],
}


@pytest.mark.parametrize("code,index", [(c, i) for c, cs in API_CASES.items() for i in range(len(cs))],
                         ids=lambda v: str(v))
def test_api_case(code, index):
    what, call, needle = API_CASES[code][index]
    with pytest.raises(atoll.SpecError) as info:
        call()
    got = [d.code for d in info.value.diagnostics]
    assert got == [code], f"{what}: expected [{code}], got {got}:\n{info.value}"
    assert needle in str(info.value), f"{what}:\n{info.value}"
    assert f"[{code}]" in str(info.value)


def test_options_as_text_are_accepted():
    """The command-line form of option values (the other side of A0302)."""
    game = atoll.load(DRAW, players=3, options={"hand_size": "1", "bonus_suit": "blue"})
    assert game.options["hand_size"] == 1 and game.options["bonus_suit"] == "blue"


# ---------------------------------------------------------------- 2. coverage of CODES

# Codes whose case cannot be a file kept in tests/bad, and why.
API_ONLY = {"A0503": "the data file must be over 16 MiB: it is made (sparse) at test time"}


def test_every_code_has_a_case():
    main = {codes_of(header(p)["expect"])[0] for p in BAD + BAD_LOAD}
    # a warning alone does not stop the compiler: its case is a good spec that must give it
    main |= {c for p in GOOD for c in codes_of(header(p).get("warnings", "")) if CODES[c][0] == "warning"}
    covered = {c for p in BAD + BAD_LOAD for c in codes_of(header(p).get("expect", ""))}
    missing = sorted(set(CODES) - main - set(API_ONLY))
    assert not missing, f"codes that are the main code of no case in tests/bad: {missing}"
    assert set(API_ONLY) <= set(API_CASES)
    unknown = sorted((covered | set(API_CASES)) - set(CODES))
    assert not unknown, f"cases expect codes that do not exist: {unknown}"


def test_every_load_case_has_a_header():
    assert BAD_LOAD
    for p in BAD_LOAD:
        h = header(p)
        assert {"expect", "line", "load"} <= set(h), p.name
        assert h["line"] == "-" or h["line"].isdigit(), p.name


def _type_rules() -> list[str]:
    """The fixed words of each type rule's message (A0103) in the checker."""
    import inspect
    from atoll.compiler import check, check_chance, check_effects, check_maybe, check_records, check_with
    out = []
    for mod in (check, check_with, check_chance, check_maybe, check_records, check_effects):
        src = inspect.getsource(mod)
        for m in re.finditer(r'add\("A0103",\s*(f?)"((?:[^"\\]|\\.)*)"', src):
            words = max(re.split(r"\{[^}]*\}", m.group(2)), key=len).strip()
            out.append(words)
    return out


def test_every_type_rule_has_a_bad_case():
    """Each message of A0103 the checker can give is the main diagnostic of
    some case of tests/bad (a rule whose case was lost is a rule nobody tests)."""
    rules = _type_rules()
    assert len(rules) >= 30, rules
    messages = []
    for p in BAD:
        if codes_of(header(p)["expect"])[0] == "A0103":
            with pytest.raises(atoll.SpecError) as info:
                atoll.compile_spec(p)
            messages.append(info.value.diagnostics[0].message)
    missing = [r for r in rules if not any(r in m for m in messages)]
    assert not missing, f"type rules without a case in tests/bad: {missing}"


# ---------------------------------------------------------------- 3. warnings

def test_unused_option_is_a_warning_not_an_error():
    path = TESTS / "good" / "nim_unused_option.atoll"
    comp = atoll.compile_spec(path)            # does not raise
    warnings = [d for d in comp.diagnostics if d.code == "A0203"]
    assert len(warnings) == 1, comp.diagnostics
    w = warnings[0]
    assert w.severity == "warning" and CODES["A0203"][0] == "warning"
    assert "fast" in w.message
    line = 1 + [i for i, s in enumerate(path.read_text().splitlines()) if s.startswith("option fast")][0]
    assert w.span is not None and (w.span.line, w.span.column) == (line, 8)
    text = render_all(comp.diagnostics, comp.program.sources)
    assert text.startswith("warning[A0203]")
    assert f"{path.name}:{line}:8" in text and CARET.search(text)
    atoll.load(path, players=2)                # a warning does not stop loading either


def test_a_warning_is_kept_alongside_errors():
    """When an error stops the compiler, the warnings found so far travel with it."""
    path = TESTS / "bad" / "a0201_a0203_error_and_warning.atoll"
    with pytest.raises(atoll.SpecError) as info:
        atoll.compile_spec(path)
    sev = {d.code: d.severity for d in info.value.diagnostics}
    assert sev == {"A0201": "error", "A0203": "warning"}
    assert "warning[A0203]" in str(info.value)


# ---------------------------------------------------------------- good specs

def test_there_are_good_specs():
    assert len(GOOD) >= 3


@pytest.mark.parametrize("path", cases(GOOD))
def test_good_spec_compiles_and_plays_to_the_end(path: Path):
    h = header(path)
    comp = atoll.compile_spec(path)
    assert all(d.severity == "warning" for d in comp.diagnostics)
    assert sorted(d.code for d in comp.diagnostics) == sorted(codes_of(h.get("warnings", ""))), \
        render_all(comp.diagnostics, comp.program.sources)
    lo, hi = comp.program.player_range
    counts = [int(n) for n in codes_of(h["players"])] if "players" in h else [lo]
    for n in counts:
        assert lo <= n <= hi
        game = atoll.load(path, players=n)
        for seed in range(3):
            state = game.new_initial_state(seed)
            rng = random.Random(seed)
            for _ in range(5000):
                if state.is_terminal():
                    break
                legal = state.legal_actions()
                assert legal, f"{path.name}: no legal action and not over (players={n}, seed={seed})"
                state.apply_action(rng.choice(legal))
            assert state.is_terminal(), f"{path.name}: not over after 5000 actions"
            assert state.ending() is not None
            check_outcome(game, state)   # returns() agrees with winners() and the ending


def test_variant_overrides_its_base():
    base = atoll.load(TESTS / "good" / "nim.atoll", players=2).new_initial_state(0)
    variant = atoll.load(TESTS / "good" / "nim_variant.atoll", players=2).new_initial_state(0)
    names = atoll.load(TESTS / "good" / "nim.atoll", players=2).layout.names
    i = names.index("stones")
    assert (base.S[i], variant.S[i]) == (9, 15)


def test_every_code_has_a_default_hint():
    from atoll.diagnostics import CODES, DEFAULT_HINTS
    assert set(DEFAULT_HINTS) == set(CODES)
