"""``atoll simulate --dask``: the same games as the local run, on Dask.

The seeds are cut into chunks (:func:`atoll.simulation.chunks`); each chunk
is one task, :func:`atoll.simulation.play_chunk`, which compiles the spec on
the worker from its text (compiled games hold generated functions that do
not pickle) and returns one record per game. The records are merged by
:func:`atoll.simulation.summarize`, exactly as in the local run, so the same
seed gives the same summary.

Dask is optional (``pip install "atoll[dask]"``); this module imports it
only when called. Workers of a remote cluster need atoll installed.
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
import math
import time
from typing import Optional

from atoll import simulation


class DaskSetupError(Exception):
    """Dask is missing, or the cluster cannot be reached or used. The message
    says what to do; the command line prints it without a traceback."""


def _import_distributed():
    try:
        import distributed
    except ImportError as e:
        raise DaskSetupError(f"--dask needs Dask distributed, which is not installed ({e}); "
                             "install atoll[dask]: pip install \"atoll[dask]\"") from None
    return distributed


def probe(address: str, timeout: float) -> None:
    """Make sure a Dask scheduler answers at ``address`` within ``timeout``
    seconds, before a ``Client`` exists (a client that failed to connect
    prints a traceback when it is collected, and waits twice the timeout to
    close). Raises DaskSetupError saying what answered, if anything."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect
    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend
    try:
        scheme, loc = parse_address(address)   # no scheme: tcp, as for a Client
        get_backend(scheme)
        if scheme in ("tcp", "tls"):
            get_address_host_port(f"{scheme}://{loc}", strict=True)
    except (ValueError, TypeError) as e:
        raise DaskSetupError(f"cannot reach the Dask scheduler at {address}: that is not an "
                             f"address ({e}); write it as tcp://HOST:8786") from None

    async def ask():
        comm = await connect(f"{scheme}://{loc}", timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    def run():
        return asyncio.run(asyncio.wait_for(ask(), timeout))
    try:
        with ThreadPoolExecutor(1) as pool:   # its own event loop, whatever runs here
            reply = pool.submit(run).result()
    except (TimeoutError, asyncio.TimeoutError, OSError) as e:
        raise DaskSetupError(f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
                             f"({str(e) or type(e).__name__}). Check the address (e.g. tcp://HOST:8786) "
                             "and that the scheduler is running") from None
    except Exception as e:   # garbage on the line: msgpack, overflow, protocol errors...
        raise DaskSetupError(f"something answers at {address}, but not a Dask scheduler "
                             f"({type(e).__name__}: {e})") from None
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        raise DaskSetupError(f"something answers at {address}, but not a Dask scheduler")


def auto_chunk(n: int, workers: int) -> int:
    """Games per task: about 16 tasks per worker thread, so that progress moves and
    the load balances, but at least 10 and at most 500 games a task, so that
    the cost of a task (a few milliseconds) stays far below its work."""
    return max(10, min(500, math.ceil(n / (16 * max(1, workers)))))


def simulate_dask(spec, game, n: int, seed: int = 0, *, address: str = "local",
                  players: Optional[int] = None, options: Optional[dict] = None,
                  progress=None, max_steps: int = 100_000, chunk: Optional[int] = None, check: bool = False,
                  workers: Optional[int] = None, timeout: float = 10.0) -> dict:
    """Play ``n`` random games of ``spec`` on Dask and summarise them.

    ``game`` is the game as loaded here (with ``players`` and ``options``); it
    names the summary and checked the options before any work is sent.
    ``address`` is ``"local"`` for a new ``LocalCluster`` of ``workers``
    processes (default: one per core), or a scheduler address such as
    ``tcp://host:8786``. ``timeout`` bounds the wait for the scheduler and
    for a first worker.
    """
    distributed = _import_distributed()
    bundle = simulation.spec_bundle(spec)
    cluster = client = None
    t0 = time.perf_counter()
    try:
        if address == "local":
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None,
                                               silence_logs=logging.ERROR)
            client = distributed.Client(cluster, timeout=timeout, set_as_default=False)
            where = "a local cluster"
        else:
            where = f"the Dask scheduler at {address}"
            probe(address, timeout)
            try:
                client = distributed.Client(address, timeout=timeout, set_as_default=False)
            except Exception as e:   # it answered the probe, then failed
                raise DaskSetupError(f"cannot use {where}: {type(e).__name__}: {e}") from None
            try:
                client.wait_for_workers(1, timeout=timeout)
            except (TimeoutError, OSError) as e:
                raise DaskSetupError(f"{where} has no worker (waited {timeout:g} s): {e}") from None
        info = client.scheduler_info().get("workers", {})
        nworkers = len(info)
        nthreads = max(1, sum(w.get("nthreads", 1) for w in info.values()))
        size = chunk or auto_chunk(n, nthreads)
        pieces = simulation.chunks(seed, n, size)
        [shared] = client.scatter([bundle], broadcast=True)
        futures = [client.submit(simulation.play_chunk, shared, players, options, first, count,
                                 max_steps, check)
                   for first, count in pieces]
        records, done = [], 0
        if progress:
            progress.update(0)
        for fut in distributed.as_completed(futures, loop=client.loop):
            try:
                part = fut.result()
            except ImportError as e:
                raise DaskSetupError(f"a worker of {where} cannot import atoll ({e}); install "
                                     "the same atoll on every worker") from None
            records.extend(part)
            done += len(part)
            if progress:
                progress.update(done)
        engine = {"name": "dask", "scheduler": "local" if cluster else address,
                  "workers": nworkers, "threads": nthreads, "chunks": len(pieces),
                  "chunk_size": size}
        return simulation.summarize(game, records, n, seed, time.perf_counter() - t0, engine)
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
