"""Logs rewritten in place (Gemini CLI's legacy `session-*.json`): read whole when they change;
unchanged events keep their IDs (and their docs: nothing is re-applied), changed ones replace
their copies, removed ones are retired, a half-written document waits, and all of it survives
a restart and a reindex. Real files, a real Store, the real pipeline."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moraine.cli_state import reindex
from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.ingest.pipeline import ingest_once
from moraine.store.engine import Store

SID = "5e55i0n0-aaaa-4bbb-8ccc-000000000001"


def _message(i: int, kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"m{i}", "timestamp": f"2026-03-12T09:{i:02d}:00.000Z", "type": kind, "content": text, **extra}


def _shell(result: str | None) -> dict[str, Any]:
    call: dict[str, Any] = {"id": "sh-1", "name": "run_shell_command", "args": {"command": "pytest -q"}}
    if result is None:
        call["status"] = "executing"
    else:
        call["status"] = "success"
        call["result"] = [{"functionResponse": {"id": "sh-1", "name": "run_shell_command",
                                                "response": {"output": f"Output: {result}\nExit Code: 0"}}}]
    return call


class Chat:
    """A legacy chat document, rewritten whole (in place, same inode) as Gemini CLI did."""

    def __init__(self, home: Path) -> None:
        self.path = home / ".gemini" / "tmp" / "proj" / "chats" / "session-2026-03-12T09-00-5e55i0n0.json"
        self.path.parent.mkdir(parents=True)
        (self.path.parent.parent / ".project_root").write_text("/work/proj\n")
        self.messages: list[dict[str, Any]] = []

    def write(self, raw: str | None = None) -> None:
        doc = {"sessionId": SID, "projectHash": "proj", "startTime": "2026-03-12T09:00:00.000Z",
               "lastUpdated": "2026-03-12T09:30:00.000Z", "messages": self.messages}
        text = json.dumps(doc, indent=2) if raw is None else raw
        with self.path.open("r+" if self.path.exists() else "w") as fh:  # writeFileSync: truncate, write
            fh.truncate(0)
            fh.write(text)
        stat = self.path.stat()
        os.utime(self.path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a coarse clock still moves


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Chat, dict[str, str]]:
    home = tmp_path / "home"
    chat = Chat(home)
    env = {"CODEX_HOME": str(tmp_path / "none"), "CLAUDE_CONFIG_DIR": str(tmp_path / "none"),
           "GEMINI_CLI_HOME": str(home)}
    return chat, env


def _store(tmp_path: Path, env: dict[str, str], name: str = "state") -> Store:
    return Store(load_config({"home": str(tmp_path / name)}, env=env))


def _live(store: Store) -> dict[str, tuple[int, str, str]]:
    """Live events by ID: (doc, type, text)."""
    catalog = store.catalog
    out = {}
    for doc in np.flatnonzero(catalog.alive.view).tolist():
        event = catalog.event(doc)
        out[event.uid] = (doc, event.type, event.text)
    return out


def _texts(store: Store) -> list[tuple[str, str]]:
    session = next(s for s in store.catalog.sessions if s.key == f"gemini-cli:{SID}")
    return [(store.catalog.event(d).type, store.catalog.event(d).text) for d in session.docs]


def _found(store: Store, query: str) -> int:
    types = ["user_input", "assistant_response", "tool_response"]
    return store.search(query_terms(query, 16), 10, types, None, None).total


def test_rewrites_keep_unchanged_events_replace_changed_and_retire_removed(tmp_path: Path, setup: Any) -> None:
    chat, env = setup
    chat.messages = [_message(1, "user", "run the heron tests"),
                     _message(2, "gemini", "Running them now.", toolCalls=[_shell(None)])]
    chat.write()
    store = _store(tmp_path, env)
    ingest_once(store)
    first = _live(store)
    assert [t for t, _ in _texts(store)] == ["system", "user_input", "assistant_response", "tool_call"]

    # the tool finished: the same message rewritten with its result, and a new message
    chat.messages[1]["toolCalls"] = [_shell("11 passed kestrel")]
    chat.messages.append(_message(3, "gemini", "All eleven pass."))
    chat.write()
    ingest_once(store)
    second = _live(store)
    for uid, (doc, _, text) in first.items():  # nothing lost; the unchanged kept their docs
        assert uid in second
        if text != "Running them now.":
            assert second[uid][0] == doc, f"unchanged event {uid} was applied again"
    assert [t for t, _ in _texts(store)] == ["system", "user_input", "assistant_response", "tool_call",
                                             "tool_response", "assistant_response"]
    assert len(second) == len(first) + 2 and len(set(second)) == len(second)
    assert _found(store, "kestrel") == 1

    # a same-size rewrite that changes only a word is still seen
    chat.messages[2]["content"] = "All eleven PASS."
    chat.write()
    ingest_once(store)
    assert ("assistant_response", "All eleven PASS.") in _texts(store)
    assert len(_live(store)) == len(second)

    # a rewind: the document loses its last two messages
    chat.messages = chat.messages[:1]
    chat.write()
    ingest_once(store)
    assert [t for t, _ in _texts(store)] == ["system", "user_input"]
    assert _found(store, "kestrel") == 0 and _found(store, "eleven") == 0
    store._check()

    # half-written: the old events stay, the file is reported, then read when complete
    chat.messages.append(_message(4, "gemini", "Second try: plover"))
    chat.write(json.dumps({"sessionId": SID, "messages": chat.messages})[:-20])
    ingest_once(store)
    assert [t for t, _ in _texts(store)] == ["system", "user_input"]
    assert any("json_parse_error" in reason for reason in store.file_issues.values())
    chat.write()
    ingest_once(store)
    assert [t for t, _ in _texts(store)] == ["system", "user_input", "assistant_response"]
    assert not store.file_issues and _found(store, "plover") == 1
    store._check()
    final = _live(store)
    del store

    reopened = _store(tmp_path, env)  # replayed from the WAL
    assert _live(reopened) == final
    reopened._check()
    with reopened.writer():
        reopened.publish()
    del reopened
    assert _live(_store(tmp_path, env)) == final  # from the snapshot

    clean = _store(tmp_path, env, "clean")  # one read of the final document: the same events, same IDs
    ingest_once(clean)
    assert {uid: v[1:] for uid, v in _live(clean).items()} == {uid: v[1:] for uid, v in final.items()}


def test_reindex_reads_documents_to_the_same_ids(tmp_path: Path, setup: Any) -> None:
    chat, env = setup
    chat.messages = [_message(1, "user", "why is the sandpiper flaky"), _message(2, "gemini", "A race.")]
    chat.write()
    store = _store(tmp_path, env)
    ingest_once(store)
    before = {uid: v[1:] for uid, v in _live(store).items()}
    with store.writer():
        store.publish()
    config = store.config
    del store
    assert reindex(config, argparse.Namespace(json=True)) == 0
    after = _store(tmp_path, env)
    assert {uid: v[1:] for uid, v in _live(after).items()} == before
