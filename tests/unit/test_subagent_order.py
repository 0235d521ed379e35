"""A subagent's lines read before its parent's (a crash's lost frame re-read later, a watcher
naming the child first) still link it under its parent, as reading them in order does; and the
link survives a restart from the snapshot taken in between."""

from __future__ import annotations

from pathlib import Path

from _agentlogs import LogWriter

from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store


def test_child_first_links_like_parent_first(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "logs", seed=3)
    parent = writer.new_claude()
    writer.extend(parent, 12)
    child = writer.new_claude(subagent_of=parent)
    writer.extend(child, 8)
    clean = Store(writer.config(tmp_path / "clean"))
    ingest_once(clean)
    store = Store(writer.config(tmp_path / "child-first"))
    ingest_once(store, only={str(child.path)}, snapshot=True)
    store = Store(writer.config(tmp_path / "child-first"))  # restart between the two
    ingest_once(store)
    for state in (clean, store):
        parents = [s for s in state.catalog.sessions if s.children]
        assert len(parents) == 1 and len(parents[0].children) == 1, [s.children for s in state.catalog.sessions]
    assert {s.key: s.children for s in store.catalog.sessions} == {s.key: s.children for s in clean.catalog.sessions}
