"""The cyclic garbage collector's policy in a process holding a store.

A store is millions of small, long-lived objects (sessions, names, checkpoints) next to a
stream of short-lived ones (records, batches, query temporaries). The collector's defaults
rescan the long-lived ones again and again; here they are frozen once they are held, and the
young generation is collected sparsely while a pass applies batches.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

YOUNG_THRESHOLD = 20_000  # allocations between collections of the youngest generation during a pass (default 700)


@contextmanager
def sparse_collections() -> Iterator[None]:
    """The cyclic GC, tuned for a pass. Applying a batch allocates objects that die young (by
    reference count, almost never in a cycle) and objects that live as long as the store
    (sessions, names, checkpoints). With the defaults, building the 100k corpus ran 1,070
    collections for 0.7-1.0 s of the indexing process's ~11 s, eight of them full ones
    rescanning everything the store held (a full collection grows with the store: the cost of
    a build grew faster than the build). During a pass the young generation is collected every
    YOUNG_THRESHOLD allocations, and each flush freezes what the store then holds (as the end
    of a pass already did): at 1M, 10,510 collections for 10.9 s became 475 for 0.68 s (most of
    them `freeze_held`'s, one a flush).

    The threshold is the process's: passes of several stores in one process (tests) overlap,
    so the first to start saves it and the last to end puts it back."""
    with _collector.lock:
        if _collector.passes == 0:
            _collector.saved = gc.get_threshold()
            gc.set_threshold(YOUNG_THRESHOLD, _collector.saved[1], _collector.saved[2])
        _collector.passes += 1
    try:
        yield
    finally:
        with _collector.lock:
            _collector.passes -= 1
            if _collector.passes == 0:
                gc.set_threshold(*_collector.saved)


@contextmanager
def loading() -> Iterator[None]:
    """Loading a state allocates millions of small containers that live as long as it: the
    collector is off meanwhile (it would rescan them again and again), and they are frozen once
    loaded (see `freeze_held`; the collection it starts with would scan them all here)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
    gc.freeze()


def freeze_held() -> None:
    """Move every object alive now out of the collector's reach (a frozen object is never
    scanned again, nor collected if it later dies in a cycle). What died since the last freeze
    is collected first: reading a .npy header (np.load -> ast.literal_eval) leaves a cycle of
    closures each time, and a daemon that froze them at every pass would keep them for good.
    After a 100k build, unfreezing and collecting found 1,257 such objects frozen without this
    collection, 5 with it (71 before passes froze at each flush). It sees only what the last
    freeze left out: ~1 ms a flush. Not for a store just loaded with the collector disabled:
    there it would scan the whole store."""
    gc.collect(1)
    gc.freeze()


@dataclass
class _Collector:
    lock: threading.Lock = field(default_factory=threading.Lock)
    passes: int = 0  # passes running in this process
    saved: tuple[int, int, int] = (700, 10, 10)  # the thresholds before the first of them


_collector = _Collector()
