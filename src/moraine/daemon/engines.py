"""The optional engines a daemon starts in the background, each on a thread of its own: the
compiled window search and the history scan's worker processes. Neither is needed to answer:
until one is ready the calls are answered without it (the numpy path, a scan in the daemon),
with the same answers; one that cannot start is logged and left out."""

from __future__ import annotations

import time
from collections.abc import Callable

from moraine.config import Config
from moraine.store.engine import Store


def start_history_workers(config: Config, store: Store, log: Callable[[str], None]) -> None:
    """search_session_history's worker processes start once the backfill is done, when the
    state holds enough text for its scans to use them: its first call would wait for them."""
    search = config.search
    if search.history_workers < 2 or store.read.text_bytes() < search.history_parallel_bytes:
        return
    from moraine.index import grep_pool

    try:
        pids = grep_pool.pool(search.history_workers).start()
        log(f"history search workers started (pids {', '.join(map(str, sorted(pids)))})")
    except Exception as exc:  # the first history call starts them instead
        log(f"history search workers did not start: {type(exc).__name__}: {exc}")


def start_kernel(config: Config, store: Store, first_pass_done: Callable[[], object],
                 log: Callable[[str], None]) -> None:
    """The compiled window search, loaded from its cache under the state (or compiled, in a child
    process) in the background. It loads once `first_pass_done` returns: loading takes this
    process's CPU, and the first pass is what the first calls wait for."""
    backend = config.search.backend
    if backend == "numpy":
        return
    from moraine.index import compiled

    started = time.monotonic()
    try:
        kernel = compiled.prepare(config.home / "cache" / "numba", first_pass_done)
        if kernel is None:
            if backend == "numba":
                log("search backend numba: numba is not installed (pip install 'moraine[fast]'); numpy serves")
            return
    except Exception as exc:  # a broken numba install must not stop the daemon: numpy serves
        log(f"the compiled search did not load ({type(exc).__name__}: {exc}); numpy serves")
        return
    store.use_kernel(kernel)
    log(f"compiled search ready in {time.monotonic() - started:.1f} s")
