"""Worker process pools that end with the process that started them.

Moraine's pools (log normalizing in `ingest.pipeline`, history scans in `index.grep_pool`) are
`ProcessPoolExecutor`s of spawned processes. When their parent is killed (SIGKILL, the OOM
killer), CPython's workers do not notice: each holds both ends of the pool's result pipe, so a
worker writing a large result blocks forever on a pipe its sibling keeps open, and the sibling
waits on the queue's lock — two processes left behind for good, holding memory. Every worker
here therefore watches its parent: a thread checks the parent's pid each second and ends the
worker once it changed (the orphan was adopted). Not `PR_SET_PDEATHSIG`: it fires when the
thread that forked the worker ends, and the daemon starts its pools from short-lived threads.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

WATCH_S = 1.0


def executor(workers: int, initializer: Callable[..., object] | None = None,
             initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A pool of `workers` spawned processes (the daemon has threads: no fork), each ending with
    this process, each running `initializer(*initargs)` first."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker, initargs=(os.getpid(), initializer, initargs))


def _start_worker(parent: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    end_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def end_with_parent(parent: int) -> None:
    """End this process when `parent` (its parent's pid) is gone."""
    if os.getppid() != parent:  # it died before the watch began
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="moraine-parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_S)
    os._exit(1)
