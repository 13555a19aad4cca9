import importlib.util, sys, pathlib; sys.path.insert(0, str(pathlib.Path(__file__).parent))

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


# Run in parallel (README: `pytest -n auto --dist loadfile`), the tests of a
# module stay in one process, so that a module's fixtures are built once; and
# the shipped specs' verification (test_specs) and the docs site that shows
# its verdicts (test_sphinx_site) share one process, hence one
# `verify_cache`. That pair is the longest piece of work: it goes first.
_SHARE_VERIFY = {"test_specs.py", "test_sphinx_site.py"}


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.path.name not in _SHARE_VERIFY)   # stable: the rest keep their order


if importlib.util.find_spec("xdist") is not None:
    @pytest.hookimpl(optionalhook=True)   # a hook of pytest-xdist: fine when it is disabled
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class FilesAndTheVerifyPair(LoadFileScheduling):
            def _split_scope(self, nodeid: str) -> str:
                path = nodeid.split("::", 1)[0]
                return "verify" if pathlib.Path(path).name in _SHARE_VERIFY else path
        return FilesAndTheVerifyPair(config, log)
