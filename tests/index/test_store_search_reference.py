"""Store.search end to end against the naive BM25 reference.

Random Codex and Claude Code logs are ingested by `ingest_once` into a real Store (small
batches and a low seal threshold, so there are several WAL frames and segments); the
reference is recomputed from the catalog alone (event text, type, excluded flag,
timestamp, uid, alive flag). Checked again after logs grow, after a log is rewritten in
place (a new generation replaces events: tombstones), and after a WAL replay.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from _agentlogs import SEARCHABLE, LogWriter, TextMaker, grow, populate
from _bm25_reference import RefDoc, assert_hits_match, ref_doc, reference_search

from moraine.index.tokenize import query_terms
from moraine.ingest.pipeline import ingest_once
from moraine.model import TYPE_CODE
from moraine.store.engine import Store


def reference_docs(store: Store) -> tuple[list[RefDoc], dict[str, set[int]]]:
    """Live documents and each session's docs, from catalog events only."""
    catalog = store.catalog
    live: list[RefDoc] = []
    by_session: dict[str, set[int]] = {}
    for doc in range(len(catalog.content)):
        event = catalog.event(doc)
        # the metadata columns the searcher ranks with agree with the stored event
        assert catalog.uid.view[doc] == event.uid.encode("ascii")
        assert int(catalog.ts.view[doc]) == event.ts_ms
        assert int(catalog.type_code.view[doc]) == TYPE_CODE[event.type]
        if not catalog.alive.view[doc]:
            continue
        by_session.setdefault(event.session_key, set()).add(doc)
        if event.type == "unknown" or event.excluded:
            continue
        ref = ref_doc(doc, event.text, TYPE_CODE[event.type], event.ts_ms, event.uid.encode("ascii"))
        if ref is not None:
            live.append(ref)
    return live, by_session


def check_store(store: Store, rng: random.Random, texts: TextMaker, n_queries: int) -> list[tuple]:
    """Compare random searches (global, per-session, per-turn scopes); return the results."""
    live, by_session = reference_docs(store)
    assert store.index.n_docs == len(live)
    cfg = store.config.bm25
    catalog = store.catalog
    sessions = [s for s in catalog.sessions if s.docs]
    results = []
    with_hits = 0
    for i in range(n_queries):
        query = texts.query()
        types = rng.sample(SEARCHABLE, rng.randint(1, len(SEARCHABLE))) if rng.random() < 0.7 else list(SEARCHABLE)
        k = rng.randint(1, 50) if rng.random() < 0.85 else 10**6
        roll = rng.random()
        scope = ref_scope = None
        if roll < 0.25:
            session = rng.choice(sessions)
            assert set(session.docs) == by_session[session.key]
            scope, ref_scope = np.asarray(session.docs, dtype=np.int64), by_session[session.key]
        elif roll < 0.4:
            session = rng.choice(sessions)
            turn = rng.choice(catalog.turns(session))
            docs = session.docs[turn.start : turn.end]
            scope, ref_scope = np.asarray(docs, dtype=np.int64), set(docs)
        terms = query_terms(query, cfg.max_query_terms)
        hits = store.search(terms, k, types, scope, None)
        ref = reference_search(live, terms, k, k1=cfg.k1, b=cfg.b,
                               allowed_codes={TYPE_CODE[t] for t in types}, scope=ref_scope)
        assert_hits_match(hits, ref, f"(query {i}: {query!r} types={types} k={k} scoped={scope is not None})")
        with_hits += bool(ref.docs)
        results.append((query, tuple(types), k, None if scope is None else tuple(scope.tolist()),
                         hits.docs.tolist(), hits.raw.tolist(), hits.total))
    assert with_hits >= n_queries // 3
    return results


def _rewrite_in_place(path: Path, keep_lines: int, writer: LogWriter) -> None:
    """Truncate a log to its first lines, then write new records: the tailer starts a new
    generation and the re-read lines replace (tombstone) the events they had produced."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:keep_lines]))
    log = next(f for f in writer.files if f.path == path)
    log.n = keep_lines
    writer.extend(log, 3)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> LogWriter:
    writer = LogWriter(tmp_path_factory.mktemp("logs"), seed=314)
    populate(writer, n_codex=5, n_claude=5, records_per_file=(60, 150))
    return writer


def _live_uids(store: Store) -> set[bytes]:
    return set(store.catalog.uid.view[store.catalog.alive.view].tolist())


def test_store_search_matches_reference_through_growth_rewrite_and_replay(logs: LogWriter, tmp_path: Path) -> None:
    rng = random.Random(27)
    texts = TextMaker(random.Random(28), logs.texts.vocab)
    config = logs.config(tmp_path / "state", store={"fsync": "never", "seal_events": 150},
                         ingest={"batch_events": 97})
    store = Store(config)
    summary = ingest_once(store)
    assert summary.issues == 0 and summary.events > 1000
    assert store.stats.frames >= 8
    assert len(store.index.segments) >= 3
    check_store(store, rng, texts, 60)

    # logs grow and new sessions appear: ingest again, compare again
    grow(logs, n_new_files=2, records=(10, 40))
    summary = ingest_once(store)
    assert summary.issues == 0 and summary.events > 100
    assert len(store.index.mem) > 0, "the comparison should also cover an unsealed memtable"
    check_store(store, rng, texts, 40)

    # a log rewritten in place: a new generation, its re-read lines replace older events
    victim = next(f.path for f in logs.files if f.harness == "codex" and f.n > 30)
    before_alive = int(np.count_nonzero(store.catalog.alive.view))
    _rewrite_in_place(victim, 12, logs)
    ingest_once(store)
    dead = len(store.catalog.content) - int(np.count_nonzero(store.catalog.alive.view))
    assert dead >= 12 and int(np.count_nonzero(store.catalog.alive.view)) < before_alive
    # the old generation's events are replaced, not kept beside the new: live events equal a
    # clean index of the logs as they are now
    fresh = Store(logs.config(tmp_path / "fresh", store={"fsync": "never"}))
    ingest_once(fresh)
    assert _live_uids(store) == _live_uids(fresh)
    after = check_store(store, random.Random(5), TextMaker(random.Random(6), logs.texts.vocab), 40)

    # a second Store on the same state directory replays the WAL to the same answers
    reopened = Store(config)
    assert reopened.stats.events == store.stats.events
    again = check_store(reopened, random.Random(5), TextMaker(random.Random(6), logs.texts.vocab), 40)
    assert again == after


def test_store_search_uses_configured_bm25_parameters(logs: LogWriter, tmp_path: Path) -> None:
    config = logs.config(tmp_path / "state", bm25={"k1": 1.7, "b": 0.4, "max_query_terms": 3},
                         store={"fsync": "never", "seal_events": 100}, ingest={"batch_events": 211})
    store = Store(config)
    ingest_once(store)
    assert store.config.bm25.k1 == 1.7 and store.config.bm25.b == 0.4
    check_store(store, random.Random(8), TextMaker(random.Random(9), logs.texts.vocab), 50)


def test_store_search_without_searchable_terms_is_empty(logs: LogWriter, tmp_path: Path) -> None:
    store = Store(logs.config(tmp_path / "state"))
    ingest_once(store)
    hits = store.search(query_terms("a . ; - x", 16), 10, list(SEARCHABLE), None, None)
    assert hits.total == 0 and len(hits.docs) == 0
    hits = store.search(query_terms("zzqx-nowhere-at-all", 16), 10, list(SEARCHABLE), None, None)
    assert hits.total == 0 and len(hits.docs) == 0
