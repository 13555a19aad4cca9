"""Every shipped spec (games and variants) checks clean and verifies: each
verdict is the one the spec expects."""
import pytest

from atoll.verify.cache import Budget, ResultCache
from helpers import SPEC

SPECS = sorted(SPEC.rglob("*.atoll"))


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_shipped_spec_verifies(path, verify_cache):
    # the same settings as `atoll verify`; kept for the docs build (test_sphinx_site)
    results = ResultCache(verify_cache, Budget()).results(path)
    assert results, "every shipped game states properties"
    bad = [(r.property, r.verdict, r.expected) for r in results if not r.ok]
    assert not bad
