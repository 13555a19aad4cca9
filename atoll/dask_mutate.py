"""``atoll mutate --dask``: the mutants checked on Dask, one task each.

A task carries the mutant's text and the other files of the spec (as
:mod:`atoll.dask_sim` does for games): the worker compiles it in a folder of
its own with the normal compiler and returns a plain record, merged here
exactly as a local run merges them. About two tasks per worker thread are in
flight, so that the checks of later mutants start with the properties that
killed the earlier ones. A worker thread cannot take signals: on Dask, the
checks' own budgets (z3 timeouts, play's time budget) bound a mutant, not
``--mutant-timeout``.
"""
from __future__ import annotations

from atoll.dask_sim import DaskSetupError, dask_pool
from atoll.verify import mutate as MU

__all__ = ["DaskSetupError", "execute_dask"]


def execute_dask(p: MU.Plan, address: str, on_result=None, workers=None, timeout: float = 10.0) -> list:
    with dask_pool(address, workers, timeout) as pool:
        threads = max(1, sum(w.get("nthreads", 1) for w in
                             pool.client.scheduler_info().get("workers", {}).values()))
        return MU.execute(p, threads, submit_pool=pool, on_result=on_result)
