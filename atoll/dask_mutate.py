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

import logging

from atoll.dask_sim import DaskSetupError, _import_distributed, probe
from atoll.verify import mutate as MU

__all__ = ["DaskSetupError", "execute_dask"]


def execute_dask(p: MU.Plan, address: str, on_result=None, workers=None, timeout: float = 10.0) -> list:
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
        threads = max(1, sum(w.get("nthreads", 1) for w in
                             client.scheduler_info().get("workers", {}).values()))
        return MU.execute(p, threads, submit_pool=_Pool(client, distributed), on_result=on_result)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


class _Pool:
    """Dask's client with the face of a concurrent.futures pool: ``submit``
    returns a future that ``concurrent.futures.wait`` understands."""

    def __init__(self, client, distributed):
        self.client = client
        self.distributed = distributed

    def submit(self, fn, task):
        from concurrent.futures import Future
        out = Future()
        fut = self.client.submit(fn, task, pure=False)

        def done(f):
            try:
                out.set_result(f.result())
            except ImportError as e:
                out.set_exception(DaskSetupError(f"a Dask worker cannot import atoll ({e}); install "
                                                 "the same atoll on every worker"))
            except BaseException as e:   # noqa: BLE001 - handed to the caller
                out.set_exception(e)
        fut.add_done_callback(done)
        return out
