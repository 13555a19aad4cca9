"""La Isla: the rulebook's five worked examples pass on the model, and each
fails when any number it plays or expects is changed by one (the mutation
check of the examples themselves)."""
from __future__ import annotations

import pytest

from atoll.compiler import pipeline
from atoll.grammar import ast as A
from atoll.verify.examples import run_example
from helpers import SPEC

LA_ISLA = SPEC / "la_isla.atoll"
FIVE = ["anna_pays_yellow", "lena_moves_the_dodo", "paul_claims_two_regions", "karen_scores_57",
        "peter_uses_three_cards"]


@pytest.fixture(scope="module")
def comp():
    return pipeline.compile_spec(LA_ISLA)


def _numbers(ex: A.ExampleDecl) -> list:
    nodes = [s for s in ex.steps
             if isinstance(s, A.ExPlay) or (isinstance(s, A.ExExpect) and s.kind != "illegal")]
    return [n for n in A.walk(nodes) if isinstance(n, A.IntLit)]


@pytest.mark.parametrize("name", FIVE)
def test_a_worked_example_passes_and_each_of_its_numbers_is_pinned(comp, name):
    ex = comp.program.examples[name]
    games: dict = {}
    assert run_example(comp, ex, games).ok
    numbers = _numbers(ex)
    assert numbers
    survived = []
    for n in numbers:
        old = n.value
        object.__setattr__(n, "value", old + 1)
        try:
            if run_example(comp, ex, games).ok:
                survived.append((n.span.line, old))
        finally:
            object.__setattr__(n, "value", old)
    assert not survived, f"{name}: changing these numbers (line, value) still passes: {survived}"


def test_the_rules_examples_show_fail_when_a_rule_changes(tmp_path):
    """The examples pin the rules: an explorer costing 3, not 2, breaks Anna's;
    a large tile worth 1, not 2, breaks Lena's and Karen's."""
    text = LA_ISLA.read_text()
    (tmp_path / "data").mkdir()
    for f in (SPEC / "data").glob("la_isla_*.json"):
        (tmp_path / "data" / f.name).write_text(f.read_text())
    for old, new, broken in [
            ('def cost(p: Player, s: str, crowded: bool): int = 2', 'def cost(p: Player, s: str, crowded: bool): int = 3',
             {"anna_pays_yellow", "paul_claims_two_regions", "peter_uses_three_cards"}),
            ('(if a in large[p] then 2 else 0)', '(if a in large[p] then 1 else 0)',
             {"lena_moves_the_dodo", "karen_scores_57"})]:
        assert old in text
        p = tmp_path / "la_isla.atoll"
        p.write_text(text.replace(old, new))
        c = pipeline.compile_spec(p)
        failed = {n for n in FIVE if not run_example(c, c.program.examples[n]).ok}
        assert failed == broken
