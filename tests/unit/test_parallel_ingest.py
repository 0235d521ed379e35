"""The parse workers run ahead of the indexer by a bound in log bytes, and using them changes
nothing: a pass with the worker pool builds the state a pass without it builds.

Real spawned worker processes and real logs; only the bound is made small, so that a few
small logs exercise it.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _agentlogs import LogWriter, grow, populate

from moraine import collector
from moraine.ingest import normalize, pipeline
from moraine.ingest.pipeline import ingest_once
from moraine.model import DEFAULT_SEARCH_TYPES, Checkpoint
from moraine.sources import ADAPTERS
from moraine.store.engine import Store


def _logs(tmp_path: Path, seed: int, files: int) -> LogWriter:
    writer = LogWriter(tmp_path / "logs", seed=seed)
    populate(writer, n_codex=files // 2, n_claude=files // 2, records_per_file=(5, 40))
    return writer


def _tasks(writer: LogWriter) -> tuple[list[normalize.Task], list[int]]:
    tasks, sizes = [], []
    for log in writer.files:
        adapter = "codex" if log.harness == "codex" else "claude-code"
        key = str(log.path)
        checkpoint = Checkpoint(adapter, 0, 0, 1, 0, 0, ADAPTERS[adapter].initial_state(key))
        tasks.append(normalize.Task(key, key, adapter, checkpoint, 5000))
        sizes.append(log.path.stat().st_size)
    return tasks, sizes


def test_workers_run_ahead_by_at_most_the_byte_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = _logs(tmp_path, seed=7, files=60)
    tasks, sizes = _tasks(writer)
    groups = [sum(sizes[i : i + normalize.GROUP]) for i in range(0, len(tasks), normalize.GROUP)]
    bound = 3 * max(groups)
    monkeypatch.setattr(normalize, "AHEAD", 1)
    monkeypatch.setattr(normalize, "RUN_AHEAD_BYTES", bound)
    submitted: list[int] = []
    real_submit = ProcessPoolExecutor.submit

    def counting_submit(self: ProcessPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        submitted.append(len(submitted))
        return real_submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", counting_submit)
    parts: list[normalize.Part] = []
    for consumed_files, file_parts in enumerate(normalize.normalize_tasks(tasks, sizes, True, 2), start=1):
        parts.extend(file_parts)
        consumed_groups = consumed_files // normalize.GROUP
        # Unconsumed groups in flight: their bytes stay within the bound plus the one group
        # that crossed it.
        in_flight = sum(groups[consumed_groups : len(submitted)])
        assert in_flight <= bound + max(groups)
        # And the workers do run ahead: past the two groups a count bound would allow.
        if len(submitted) < len(groups):
            assert len(submitted) - consumed_groups >= 3
    assert len(submitted) == len(groups)
    assert [p.key for p in parts] == [t.key for t in tasks]  # in task order
    assert parts == [p for task in tasks for p in normalize.normalize_file(task)]  # as parsed in-process


def _doc_rows(store: Store) -> list[tuple[str, int, str]]:
    return [(store.read.event_id(doc), store.read.event_time(doc), store.read.event(doc).text)
            for doc in range(len(store.catalog.content))]


def _search(store: Store, terms: list[str]) -> tuple[list[int], list[float], int]:
    hits = store.search(terms, 10, list(DEFAULT_SEARCH_TYPES), None, None)
    return hits.docs.tolist(), hits.raw.tolist(), hits.total


def _same_index(store: Store, other: Store, rng: random.Random, *, exact: bool,
                reopened: Store | None = None) -> None:
    """40 terms' postings equal, and 30 queries of 1-4 terms the same hits and totals: raw scores
    the same bit for bit when `exact`, else to 1e-12 (another split into segments sums in another
    order). `reopened` (the state `store` published) answers as `store` does."""
    vocabulary = sorted(other.index.vocab.terms)
    for term in rng.sample(vocabulary, 40):
        for got, want in zip(store.index.postings(term), other.index.postings(term), strict=True):
            assert np.array_equal(got, want), term
    for _ in range(30):
        terms = rng.sample(vocabulary, rng.randint(1, 4))
        if reopened is not None:
            assert _search(reopened, terms) == _search(store, terms)
        docs, raw, total = _search(store, terms)
        want_docs, want_raw, want_total = _search(other, terms)
        assert docs == want_docs and total == want_total, terms
        assert raw == want_raw if exact else np.allclose(raw, want_raw, rtol=1e-12), terms


def test_a_pass_with_workers_builds_the_state_a_pass_without_them_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Also: the pooled pass built the whole index, so it ends merged into one published
    segment, where the serial pass (seals every 100 docs) keeps the usual tiers."""
    writer = _logs(tmp_path, seed=11, files=40)
    monkeypatch.setattr(normalize, "AHEAD", 1)
    monkeypatch.setattr(normalize, "RUN_AHEAD_BYTES", 64 * 1024)
    small = {"ingest": {"batch_events": 50}, "store": {"seal_events": 100, "snapshot_events": 400, "fsync": "never"}}
    pooled = Store(writer.config(tmp_path / "pooled", **small))
    serial = Store(writer.config(tmp_path / "serial", **small))
    assert ingest_once(pooled, parallel=True).events == ingest_once(serial, parallel=False).events > 500
    assert _doc_rows(pooled) == _doc_rows(serial)
    assert len(pooled.index.segments) == 1 and len(pooled.index.mem) == 0
    assert len(serial.index.segments) + (len(serial.index.mem) > 0) > 1, [s.n_postings for s in serial.index.segments]
    reopened = Store(writer.config(tmp_path / "pooled", **small), create=False)  # what was published
    assert len(reopened.index.segments) == 1 and reopened.counts() == pooled.counts()
    _same_index(pooled, serial, random.Random(3), reopened=reopened, exact=False)


def test_a_pass_that_adds_a_little_keeps_the_usual_merges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = _logs(tmp_path, seed=13, files=40)
    store = Store(writer.config(tmp_path / "state", store={"seal_events": 100, "fsync": "never"}))
    merges: list[int] = []
    real = Store.merge_all
    monkeypatch.setattr(Store, "merge_all", lambda self: (merges.append(self.index.n_docs), real(self))[1])
    ingest_once(store, parallel=True)
    assert len(merges) == 1 and len(store.index.segments) == 1
    grow(writer, n_new_files=2, records=(5, 20))  # far less than the index holds
    assert ingest_once(store, parallel=True).events > 0
    assert len(merges) == 1


def test_a_pass_building_the_index_defers_its_merges_and_ends_with_the_same_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass with at least as many new bytes as the index holds lets segments accumulate (up to
    BULK_SEGMENTS) before a publish merges any, since it ends merging them all: the published
    generations on the way hold more segments, and the end is the state the usual merges build."""
    from moraine.index.searcher import InvertedIndex

    writer = _logs(tmp_path, seed=17, files=80)
    small = {"ingest": {"batch_events": 50}, "store": {"seal_events": 100, "snapshot_events": 200, "fsync": "never"}}
    seen: list[tuple[int, int]] = []  # (segments before, merges) at each publish's merge
    real = InvertedIndex.merge_segments

    def recording(self: InvertedIndex, directory_for: Any = None, defer_below: int = 0, guard: Any = None) -> int:
        before = len(self.segments)
        merges = real(self, directory_for, defer_below, guard)
        seen.append((before, merges))
        return merges

    monkeypatch.setattr(InvertedIndex, "merge_segments", recording)
    monkeypatch.setattr(pipeline, "BULK_SEGMENTS", 6)
    deferred = Store(writer.config(tmp_path / "deferred", **small))
    assert ingest_once(deferred, parallel=True).events > 500
    during = list(seen)
    assert any(before >= 6 and merges for before, merges in during), during  # it merges once there are enough
    assert all(before >= 6 for before, merges in during if merges), during  # and never below
    assert deferred.defer_merges == 0 and len(deferred.index.segments) == 1

    seen.clear()
    monkeypatch.setattr(pipeline, "BULK_SEGMENTS", 0)  # the usual tiers on the way
    usual = Store(writer.config(tmp_path / "usual", **small))
    ingest_once(usual, parallel=True)
    assert any(merges and before < 6 for before, merges in seen), seen
    assert _doc_rows(deferred) == _doc_rows(usual) and len(usual.index.segments) == 1
    _same_index(deferred, usual, random.Random(5), exact=True)
    reopened = Store(writer.config(tmp_path / "deferred", **small), create=False)
    assert reopened.counts() == deferred.counts() and len(reopened.index.segments) == 1


def test_a_pass_collects_young_objects_sparsely_and_restores_the_collector(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """During a pass the youngest generation is collected every YOUNG_THRESHOLD allocations and
    each flush freezes what the store holds; afterwards the process's thresholds are its own
    again (a daemon's queries run beside passes)."""
    import gc

    writer = _logs(tmp_path, seed=5, files=20)
    seen: list[tuple[int, int, int]] = []
    frozen: list[int] = []
    real_commit = Store.commit

    def commit(self: Store, *args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold())
        frozen.append(gc.get_freeze_count())
        return real_commit(self, *args, **kwargs)

    monkeypatch.setattr(Store, "commit", commit)
    before = gc.get_threshold()
    store = Store(writer.config(tmp_path / "state", ingest={"batch_events": 50}, store={"fsync": "never"}))
    gc.unfreeze()  # opening a store freezes what it loaded
    summary = ingest_once(store, parallel=False)
    assert summary.events > 200 and len(seen) > 3
    assert all(t[0] == collector.YOUNG_THRESHOLD for t in seen)
    assert frozen[0] == 0 and all(n > 0 for n in frozen[1:])  # each flush froze what the store held
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() > 0
    gc.unfreeze()


def test_overlapping_passes_of_two_stores_put_the_collector_back(tmp_path: Path) -> None:
    """Two stores in one process, each passing in its own thread: whichever ends last restores
    the thresholds the process had before either started."""
    import gc
    import threading

    writers = [_logs(tmp_path / f"w{i}", seed=20 + i, files=16) for i in range(2)]
    stores = [Store(w.config(tmp_path / f"state{i}", ingest={"batch_events": 40})) for i, w in enumerate(writers)]
    before = gc.get_threshold()
    during: list[int] = []
    threads = [threading.Thread(target=lambda s=s: during.append(ingest_once(s, parallel=False).events))
               for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(during) == 2 and all(n > 100 for n in during)
    assert gc.get_threshold() == before


@pytest.mark.parametrize("collect_first", [True, False])
def test_a_pass_freezes_no_garbage_cycles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          collect_first: bool) -> None:
    """Reading a .npy header leaves a cycle of closures (ast.literal_eval's). Frozen, a cycle is
    never collected: each freeze of a pass first collects what died since the last, so none of
    them stays frozen (shown failing with a bare freeze)."""
    import gc

    if not collect_first:
        monkeypatch.setattr(pipeline, "freeze_held", gc.freeze)
    writer = _logs(tmp_path, seed=6, files=20)
    store = Store(writer.config(tmp_path / "state", ingest={"batch_events": 50}))
    gc.unfreeze()  # what earlier tests and the store's opening froze, dead or alive
    gc.collect()  # only the pass's own cycles can be found below
    ingest_once(store, parallel=False, snapshot=True)  # publishes, then loads what it wrote
    gc.collect()  # what is dead and not frozen (another thread's, say) is not the pass's doing
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        kept = [o for o in gc.garbage if getattr(o, "__qualname__", "").startswith("literal_eval.")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert (len(kept) == 0) == collect_first, len(kept)
