import sys, pathlib; sys.path.insert(0, str(pathlib.Path(__file__).parent))

import pytest


@pytest.fixture(scope="session")
def verify_cache(tmp_path_factory):
    """One verification cache for the session: the docs build shows the
    verdicts that test_specs computes (same specs, same budget), so each
    configuration is checked once."""
    return tmp_path_factory.mktemp("verify-cache")
