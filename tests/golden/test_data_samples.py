"""Golden normalization tests: data_samples/ indexed for real, checked against its oracle.

The oracle (data_samples/expected.json, written with the samples) states for every line
what event it must produce, in which turn, and for every session its turns, completion,
title and mode. Regenerate the samples only on purpose (data_samples/build_samples.py).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import search_sessions
from moraine.model import format_ts
from moraine.store.engine import Store

SAMPLES = Path(__file__).resolve().parents[2] / "data_samples"
ORACLE: dict[str, Any] = json.loads((SAMPLES / "expected.json").read_text())
FILES = {f["key"]: f for f in ORACLE["files"]}
FINISH = {"task_complete", "end_turn", "turn_duration", "followed_by_prompt"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, make_samples_store: Callable[[Path], Store]
            ) -> tuple[Store, Path]:
    root = tmp_path_factory.mktemp("samples")
    return make_samples_store(root), root


def _path(root: Path, key: str) -> str:
    rel = FILES[key]["path"]
    return str(root / rel)


def _docs_by_line(store: Store, path: str) -> dict[int, list[int]]:
    by_line: dict[int, list[int]] = {}
    for doc in range(len(store.catalog.content)):
        if not store.catalog.alive.view[doc]:
            continue
        event = store.catalog.event(doc)
        if event.file == path:
            by_line.setdefault(event.line, []).append(doc)
    return by_line


@pytest.mark.parametrize("key", sorted(FILES))
def test_every_line_normalizes_as_the_oracle_says(indexed: tuple[Store, Path], key: str) -> None:
    store, root = indexed
    path = _path(root, key)
    by_line = _docs_by_line(store, path)
    issues = {(i.line, i.offset) for i in store.stats.issues if i.file == path}
    for line in FILES[key]["lines"]:
        where = f"{key}:{line['line']}"
        docs = by_line.get(line["line"], [])
        if line["status"] == "malformed":
            assert (line["line"], line["offset"]) in issues, f"{where} must be quarantined with its offset"
            assert not docs
            continue
        assert (line["line"], line["offset"]) not in issues, f"{where} wrongly quarantined"
        if line["status"] in ("blank", "partial") or line.get("event") is False:
            assert not docs, f"{where} must produce no event ({line.get('note') or line['status']})"
            continue
        assert docs, f"{where} must produce an event of type {line['type']}"
        event = store.catalog.event(docs[0])
        assert event.type == line["type"], f"{where}: {event.type} != {line['type']} ({line.get('note')})"
        _, turn, _ = store.catalog.turn_of(docs[0])
        assert turn.ordinal == line["turn"], f"{where}: turn {turn.ordinal} != {line['turn']}"
        if "tool_name" in line:
            assert event.tool_name == line["tool_name"], where
        if "exit_code" in line:
            assert event.exit_code == line["exit_code"], where
        if line.get("self_traffic"):
            assert event.excluded, f"{where}: Moraine's own tool traffic must be excluded from search"
    assert len(issues) == sum(1 for ln in FILES[key]["lines"] if ln["status"] == "malformed")


@pytest.mark.parametrize("key", sorted(FILES))
def test_sessions_and_turns_match_the_oracle(indexed: tuple[Store, Path], key: str) -> None:
    store, root = indexed
    expected = FILES[key]["session"]
    docs = [d for ds in _docs_by_line(store, _path(root, key)).values() for d in ds]
    session = store.catalog.session_of(docs[0])
    line_of = {d: store.catalog.event(d).line for d in session.docs}
    turns = store.catalog.turns(session)
    title = expected["title"] or expected.get("title_first_line")
    assert session.title is not None and title is not None
    assert title.startswith(session.title.rstrip("…")), (session.title, title)
    assert session.mode == expected["mode"]
    assert session.cwd == expected["cwd"]
    assert format_ts(session.started_ms) == expected["started_at"]
    assert format_ts(session.updated_ms) == expected["updated_at"]
    assert len(turns) == expected["turn_count"]
    assert len(session.docs) == expected["event_count"]
    assert turns[-1].completed == expected["completed"]
    parent = store.catalog.sessions[store.catalog.by_key[session.parent_key]] if session.parent_key else None
    assert (parent is not None) == (expected["parent_session_id"] is not None)
    for turn, want in zip(turns, expected["turns"], strict=True):
        where = f"{key} turn {want['ordinal']}"
        assert turn.completed == want["completed"], where
        assert line_of.get(turn.user_doc) == want.get("prompt_line"), where
        # The contract's own example points a finished turn at its final response (the
        # `task_complete` / `end_turn` / `turn_duration` marker only proves it finished).
        reasons = {t["reason"] for t in want.get("terminal_lines", [])}
        finished = want.get("terminal_lines") and want["terminal_lines"][-1]["reason"] in FINISH
        terminal = want.get("final_response_line") if finished and want.get("final_response_line") else \
            want.get("terminal_event_line")
        assert line_of.get(turn.terminal_doc) == terminal, (where, reasons)
        assert line_of.get(turn.final_doc) == want.get("final_response_line"), where


def test_secrets_and_image_bytes_never_reach_the_state(indexed: tuple[Store, Path]) -> None:
    store, _ = indexed
    wal = b"".join(p.read_bytes() for p in store.home.rglob("*") if p.is_file())  # WAL, snapshot, contents
    texts = [store.catalog.event(d).text for d in range(len(store.catalog.content))]
    for secret in ORACLE["secrets"]:
        for value in secret["must_never_appear"]:
            assert value.encode() not in wal, f"{secret['key']} leaked into the state"
            assert not any(value in t for t in texts), f"{secret['key']} leaked into an event"
    for fragment in ORACLE["image_base64_must_never_appear"]:
        assert fragment.encode() not in wal, "image bytes reached the state"
        assert not any(fragment in t for t in texts), "image bytes must not be indexed"


@pytest.mark.parametrize("probe", ORACLE["search_probes"], ids=lambda p: p["query"])
def test_search_probes(indexed: tuple[Store, Path], probe: dict[str, Any]) -> None:
    store, root = indexed
    result = search_sessions.run(store, {"query": probe["query"], "event_types": probe["event_types"],
                                         "n_hits": 50}).structured
    assert "data" in result, result
    found = set()
    for hit in result["data"]["results"]:
        doc = store.read.doc_by_uid(hit["id"].removeprefix("event:evt_"))
        assert doc is not None
        event = store.catalog.event(doc)
        found.add((event.file, event.line, event.type))
    expected = {(_path(root, e["file"]), e["line"], e["type"]) for e in probe["expect"]}
    if probe["match"] == "exact":
        assert found == expected, probe["why"]
    else:
        assert expected <= found, probe["why"]


def test_half_written_lines_are_consumed_once_completed(tmp_path: Path,
                                                      make_samples_store: Callable[[Path], Store]) -> None:
    store = make_samples_store(tmp_path)
    for key, spec in FILES.items():
        for line in spec["lines"]:
            if line["status"] != "partial":
                continue
            path = _path(tmp_path, key)
            before = len(_docs_by_line(store, path))
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(spec["extra"]["partial_remainder"])
            ingest_once(store)
            after = _docs_by_line(store, path)
            assert line["line"] in after, f"{key}:{line['line']} must be read once its newline arrives"
            assert len(after) == before + 1
            assert not [i for i in store.stats.issues if i.file == path and i.line == line["line"]]


def _session_of_key(store: Store, root: Path, key: str):
    docs = [d for ds in _docs_by_line(store, _path(root, key)).values() for d in ds]
    return store.catalog.session_of(docs[0])


def test_open_session_links_subagents_and_project_neighbours(indexed: tuple[Store, Path]) -> None:
    from moraine.mcp_server.tools import open as open_tool

    store, root = indexed
    parent = _session_of_key(store, root, "claude-subagent-parent")
    child = _session_of_key(store, root, "claude-subagent-child")
    data = open_tool.run(store, {"id": parent.id}).structured["data"]
    assert data["subagent_session_ids"] == [child.id]
    child_data = open_tool.run(store, {"id": child.id}).structured["data"]
    assert child_data["session"]["parent_session_id"] == parent.id
    # Neighbours: sessions of the same cwd ordered by start time, each pointing at the next.
    same = sorted((s for s in store.catalog.sessions if s.cwd == parent.cwd), key=lambda s: (s.started_ms, s.sid))
    assert len(same) >= 3
    for before, after in itertools.pairwise(same):
        forward = open_tool.run(store, {"id": before.id}).structured["data"]["traversal"]
        backward = open_tool.run(store, {"id": after.id}).structured["data"]["traversal"]
        assert forward["next_session_id"] == after.id
        assert backward["previous_session_id"] == before.id
    first = open_tool.run(store, {"id": same[0].id}).structured["data"]["traversal"]
    assert first["previous_session_id"] is None
