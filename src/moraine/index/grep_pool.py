"""Regex scans of content chunks in worker processes, so a search uses every core.

RE2's Python binding holds the GIL while it matches, and a scan of a large history is a few
calls per matching line, so threads would take turns: two cores need two processes. A worker
maps a chunk's texts and newline index by path (both immutable once written) and keeps the
last few mapped; it returns the same `LineHits` as `grep.matching_lines_in` in this process.
Texts not yet in a chunk file (held in memory) are scanned by the calling process meanwhile.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

from moraine.index.grep import LineHits, Pattern, compile_pattern, matching_lines_in
from moraine.pool import executor as pool_executor

_KEEP_MAPPED = 32  # chunk files a worker keeps mapped between tasks
_mapped: OrderedDict[str, tuple[mmap.mmap | bytes, np.ndarray | None]] = OrderedDict()


def _open(text_path: str) -> tuple[mmap.mmap | bytes, np.ndarray | None]:
    if text_path in _mapped:
        _mapped.move_to_end(text_path)
        return _mapped[text_path]
    path = Path(text_path)
    data: mmap.mmap | bytes = b""
    if path.stat().st_size:
        with open(path, "rb") as fh:
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    index = path.with_suffix(".nl.npy")
    newlines = np.load(index, mmap_mode="r", allow_pickle=False) if index.exists() else None
    _mapped[text_path] = (data, newlines)
    while len(_mapped) > _KEEP_MAPPED:
        _mapped.popitem(last=False)
    return data, newlines


@lru_cache(maxsize=16)
def _pattern(query: str) -> Pattern:
    return compile_pattern(query)


def _ready() -> int:
    """A worker's first task: it has started and imported what a scan needs."""
    return os.getpid()


def _scan(query: str, text_path: str, starts: np.ndarray, ends: np.ndarray, deadline: float | None) -> LineHits:
    data, newlines = _open(text_path)
    return matching_lines_in(_pattern(query), data, starts, ends, newlines, deadline)


class GrepPool:
    """A lazily started pool of `workers` processes (spawned: the daemon has threads)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = pool_executor(self.workers)
            return self._pool

    def start(self) -> set[int]:
        """Start the workers now (the daemon does once its state is open): the first search then
        finds them running instead of spawning them (0.4-0.9 s on the 1M state). Their pids."""
        executor = self._executor()
        return {future.result() for future in [executor.submit(_ready) for _ in range(self.workers)]}

    def submit(self, query: str, text_path: Path, starts: np.ndarray, ends: np.ndarray,
               deadline: float | None = None) -> Future[LineHits]:
        """A scan in a worker; past `deadline` (monotonic, shared by every process) it stops within
        a slice and raises DeadlineExceeded, so an expired search never keeps a worker busy."""
        return self._executor().submit(_scan, query, str(text_path), starts, ends, deadline)

    def shutdown(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None


_pools: dict[int, GrepPool] = {}


def pool(workers: int) -> GrepPool:
    """The process's pool of that many workers (started on its first task)."""
    if workers not in _pools:
        _pools[workers] = GrepPool(workers)
    return _pools[workers]
