"""Every shipped spec (games and variants) checks clean and verifies: each
verdict is the one the spec expects."""
import pytest

from atoll.verify.runner import run
from helpers import SPEC

SPECS = sorted(SPEC.rglob("*.atoll"))


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_shipped_spec_verifies(path):
    results = run(str(path))   # the same settings as `atoll verify`
    assert results, "every shipped game states properties"
    bad = [(r.property, r.verdict, r.expected) for r in results if not r.ok]
    assert not bad
