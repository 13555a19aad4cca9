import importlib.util, os, sys, pathlib; sys.path.insert(0, str(pathlib.Path(__file__).parent))
from collections import Counter

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
    """One verification cache for the whole run: the docs build shows the
    verdicts that test_specs computes (same specs, same budget), so each
    configuration is checked once. Under xdist the workers share it (the
    folder above each worker's own): a result one worker is computing, the
    other waits for and reads (verify/cache.py locks each key)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "verify-cache"
        folder.mkdir(exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("verify-cache")


# Run in parallel (README: `pytest -n auto --dist loadfile`), the tests of a
# module stay in one process, so that a module's fixtures are built once.
# The shipped specs' verification (test_specs) is the longest piece of work:
# each spec is a unit of its own, so that both workers share it, and these
# units go first, then the docs site that shows their verdicts (it reads
# them from the shared cache), then the modules that hold one long test
# (measured with --durations; a stale entry only changes the order), then
# the other modules, most tests first: short units are left to fill the end.
_SPECS, _SITE = "test_specs.py", "test_sphinx_site.py"
_LONG = ("test_play.py", "test_fuzz.py", "test_players_prose.py", "test_induction.py", "test_fuzz_specs.py")


def _scope(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return nodeid if pathlib.Path(path).name == _SPECS else path


def pytest_collection_modifyitems(config, items):
    sizes = Counter(_scope(item.nodeid) for item in items)

    def rank(item):
        name = item.path.name
        first = 0 if name == _SPECS else 1 if name == _SITE else 2 if name in _LONG else 3
        return (first, -sizes[_scope(item.nodeid)], _scope(item.nodeid))
    items.sort(key=rank)   # stable: the tests of a unit keep their order


if importlib.util.find_spec("xdist") is not None:
    @pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist: fine when it is disabled
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling
        # units in the order above, not re-sorted by xdist (by size alone)
        config.option.loadscopereorder = False

        class SpecsApartThenFiles(LoadFileScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return _scope(nodeid)
        return SpecsApartThenFiles(config, log)
