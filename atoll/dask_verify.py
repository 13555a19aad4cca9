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

import logging
from contextlib import contextmanager

from atoll.dask_mutate import _Pool
from atoll.dask_sim import DaskSetupError, _import_distributed, probe

__all__ = ["DaskSetupError", "dask_pool"]


@contextmanager
def dask_pool(address: str, workers=None, timeout: float = 10.0):
    """A pool whose ``submit(fn, task)`` runs ``fn(task)`` on Dask and gives
    a ``concurrent.futures.Future``: a new local cluster of ``workers``
    processes for ``"local"``, or the scheduler at ``address``."""
    distributed = _import_distributed()
    cluster = client = None
    try:
        if address == "local":
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=logging.ERROR)
            client = distributed.Client(cluster, timeout=timeout, set_as_default=False)
        else:
            probe(address, timeout)
            try:
                client = distributed.Client(address, timeout=timeout, set_as_default=False)
                client.wait_for_workers(1, timeout=timeout)
            except Exception as e:   # it answered the probe, then failed
                raise DaskSetupError(f"cannot use the Dask scheduler at {address}: "
                                     f"{type(e).__name__}: {e}") from None
        yield _Pool(client, distributed)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
