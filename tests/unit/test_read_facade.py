"""The tools and commands read the state through the Store's facade (`store.read`, a `Reader`), never
the catalog's columns: no module outside `store/` and ingest (the write side) names `.catalog`.
And the facade's doc sets equal what the columns say, on a real ingested state."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
from _agentlogs import LogWriter, populate

from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SRC = Path(__file__).resolve().parents[2] / "src" / "moraine"
WRITE_SIDE = {"store", "ingest"}


def test_no_reader_outside_the_store_names_the_catalog() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] in WRITE_SIDE:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "catalog":
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not offenders, offenders
    assert len(list(SRC.rglob("mcp_server/tools/*.py"))) >= 8  # the walk saw the tools


def test_doc_sets_equal_the_columns(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "logs", seed=5)
    populate(writer, n_codex=4, n_claude=4, records_per_file=(20, 40))
    store = Store(writer.config(tmp_path / "state"))
    ingest_once(store, snapshot=True)
    catalog = store.catalog
    alive = catalog.alive.view
    assert store.read.live_event_count() == int(alive.sum()) > 0
    newest = store.read.sessions_newest_first()
    assert [s.updated_ms for s in newest] == sorted((s.updated_ms for s in newest), reverse=True)
    counts = store.read.harness_counts()
    assert store.read.session_count() == len(newest) == sum(counts[h][0] for h in counts)
    assert sum(events for _, events in store.read.harness_counts().values()) == int(alive.sum())
    since = int(np.median(catalog.ts.view[alive]))
    everything = store.read.transcript_docs(None, since, None)
    assert everything.tolist() == np.flatnonzero(alive & (catalog.nlines.view != 0)
                                                 & (catalog.ts.view >= since)).tolist()
    session = newest[0]
    own = store.read.transcript_docs(session, None, since + 1)
    assert set(own.tolist()) == {d for d in session.docs if catalog.nlines.view[d] != 0 and catalog.ts.view[d] <= since}
    sources = [newest[-1].source]
    mask = store.read.session_mask(sources, None)
    assert {s.key for s in catalog.sessions if mask[store.read.session_index(s)]} == \
        {s.key for s in catalog.sessions if s.source in sources}
    scoped = store.read.docs_in_scope(mask, since, None, None)
    assert all(store.read.session_of(d).source in sources and catalog.ts.view[d] >= since for d in scoped.tolist())
    assert len(scoped) == int(np.count_nonzero(mask[catalog.session_ix.view] & (catalog.ts.view >= since)))
    read = store.read
    assert read.sessions_of(scoped).tolist() == [read.session_index(read.session_of(d)) for d in scoped.tolist()]
    page = list(store.read.sessions_updated(0, None, newest_first=True))
    assert [s.key for s in page] == [s.key for s in newest]
    after = (page[1].updated_ms, page[1].id)
    assert [s.key for s in store.read.sessions_updated(0, after, newest_first=True)] == [s.key for s in page[2:]]
    assert [s.key for s in store.read.sessions_updated(0, after, newest_first=False)] == [s.key for s in page[:1][::-1]]
