"""The documentation keeps up with the code it describes."""
import re

from atoll.compiler import stdlib
from helpers import ROOT

LANGUAGE = (ROOT / "docs" / "language.md").read_text()
GRAMMAR = (ROOT / "grammar" / "atoll.lark").read_text()


def test_every_stdlib_function_is_in_the_language_reference():
    for name, (_, _, doc) in stdlib.FUNCTIONS.items():
        signature = doc.partition(": ")[0]
        assert f"| `{signature}` |" in LANGUAGE, f"{name} is missing from docs/language.md"


def test_every_keyword_is_listed_as_reserved():
    keywords = set(re.findall(r'"([a-z_]{2,})"', GRAMMAR))
    block = LANGUAGE[LANGUAGE.index("```\naction after_round") + 4:]
    listed = set(block.split("```", 1)[0].split())
    assert keywords <= listed, sorted(keywords - listed)


def test_the_readme_first_spec_checks_and_verifies(tmp_path):
    """The README's example game, run as its text says."""
    from atoll.verify import verdicts as V
    from atoll.verify.runner import run
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Your first spec", 1)[1]
    code = section.split("```\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "nim.atoll"
    path.write_text(code)
    results = run(str(path), games=20)
    assert [(r.property, r.verdict, r.method) for r in results] == [
        ("heap_empties", V.PROVED, "z3 abstraction")]
    assert "at most 9 actions" in results[0].detail["bound"]


def test_whole_games_in_the_docs_compile_and_play(tmp_path):
    """Every ```atoll block of docs/ that is a whole game (it has a game block
    and a flow) compiles and plays to its end."""
    import random

    import atoll
    found = 0
    for md in sorted((ROOT / "docs").rglob("*.md")):
        for i, block in enumerate(md.read_text().split("```atoll\n")[1:]):
            code = block.split("```", 1)[0]
            if not re.search(r"^game \w+", code, re.M) or "flow" not in code or "PROPOSED" in code:
                continue
            found += 1
            path = tmp_path / f"{md.stem}_{i}.atoll"
            path.write_text(code)
            game = atoll.load(path)
            state = game.new_initial_state(seed=1)
            rng = random.Random(1)
            for _ in range(2000):
                if state.is_terminal():
                    break
                state.apply_action(rng.choice(state.legal_actions()))
            assert state.is_terminal(), f"{md.name} block {i} does not end"
    assert found >= 1


def test_the_readme_excerpt_is_the_spec():
    readme = (ROOT / "README.md").read_text()
    spec = (ROOT / "spec" / "masterislands.atoll").read_text()
    excerpt = readme.split("```\nphase conquest", 1)[1].split("```", 1)[0]
    for line in ("phase conquest" + excerpt).splitlines():
        if line.strip() and line.strip() != "..." and line.strip() != "}":
            assert line in spec, f"README excerpt line not in the spec: {line!r}"
