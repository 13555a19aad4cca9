import sys, pathlib; sys.path.insert(0, str(pathlib.Path(__file__).parent))

import pytest

from atoll.compiler import files

# A spec reads files only in its own folder tree (docs/trust.md). The shipped
# variants (spec/variants/) extend the games in the folder above, and some bad
# specs of tests/bad extend games of tests/good: the suite trusts those
# folders, as `atoll check spec` trusts the folder it is given.
_ROOT = pathlib.Path(__file__).resolve().parent.parent
files.trust(_ROOT / "spec", _ROOT / "tests" / "good")


@pytest.fixture(scope="session")
def verify_cache(tmp_path_factory):
    """One verification cache for the session: the docs build shows the
    verdicts that test_specs computes (same specs, same budget), so each
    configuration is checked once."""
    return tmp_path_factory.mktemp("verify-cache")


# Run in parallel (README: `pytest -n auto --dist loadgroup`), the tests of a
# module stay together, so that a module's fixtures are built once; and the
# shipped specs' verification (test_specs) and the docs site that shows its
# verdicts (test_sphinx_site) share one worker, hence one `verify_cache`.
_SHARE_VERIFY = {"test_specs.py", "test_sphinx_site.py"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            name = item.path.name
            item.add_marker(pytest.mark.xdist_group("verify" if name in _SHARE_VERIFY else name))
