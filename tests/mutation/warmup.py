"""Imported once by mutmut's fork server (benchmarks/mutation.py), before it
forks one worker per mutant: the toolchain's modules and the lark parser are
then ready in every worker. Nothing here runs a function of the toolchain on a
spec, so no result computed with the original code is cached for a mutant."""
import atoll  # noqa: F401
import atoll.cli  # noqa: F401
import atoll.simulation  # noqa: F401
import atoll.verify.runner  # noqa: F401
import atoll.verify.termination  # noqa: F401
import atoll.verify.z3sem  # noqa: F401
from atoll.grammar import lalr, parse

parse._parser()
lalr.grammar()

# For a module that compiling does not use (the runtime, the simulation, the
# verifier), benchmarks/mutation.py sets ATOLL_MUTATION_WARM=1: every spec the
# tests load from the repository is then compiled here once (compiling reads
# no mutated function; a game is instantiated, under the mutant, by each load).
import os  # noqa: E402

if os.environ.get("ATOLL_MUTATION_WARM") == "1":
    from pathlib import Path

    from atoll.compiler import files, pipeline

    root = Path(__file__).resolve().parents[2]
    # trusted as tests/conftest.py trusts them, so that the cache keys agree
    with files.trusted([root / "spec", root / "tests" / "good"]):
        for spec in sorted([*root.glob("spec/**/*.atoll"), *root.glob("tests/good/*.atoll")]):
            try:
                pipeline.load(spec)
            except Exception:   # one that does not load at its default: its test loads it
                pass
