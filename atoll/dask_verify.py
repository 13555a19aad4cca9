"""``atoll verify --matrix --dask``: the configurations of a matrix checked
on Dask, one task each.

A task carries the spec and every file it reads (:func:`atoll.simulation.spec_bundle`,
as for ``simulate --dask``): the worker compiles it in a folder of its own
and checks the configuration's properties with the same seeds and budgets as
a local run (:func:`atoll.verify.runner.run_task`), so the verdicts are the
same. Results come back as configurations finish, for the progress bar.

Dask is optional (``pip install "atoll[dask]"``); this module imports it
only when called. Workers of a remote cluster need atoll installed.
"""
from __future__ import annotations

from atoll.dask_sim import DaskSetupError, dask_pool

__all__ = ["DaskSetupError", "dask_pool"]
