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
from atoll.grammar import parse

parse._parser()
