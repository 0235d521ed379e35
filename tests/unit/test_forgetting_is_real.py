"""Forgetting is real: what `forget` and `cleanup` drop, and the copies a rewritten event
supersedes, leave every byte of the state at the next publish — content chunks (zstd frames
decoded, not grepped raw), the term dictionary of the segments, quarantined fragments, the
WAL — and a forgotten log that still exists stays forgotten. A real Store, real logs, the real
pipeline."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import zstandard

from moraine.config import load_config
from moraine.index.tokenize import query_terms
from moraine.ingest.pipeline import ingest_once
from moraine.model import EVENT_TYPES
from moraine.redaction.structured import path_key
from moraine.store.engine import Store
from moraine.store.retention import cleanup

SID = "019d9999-0000-7000-8000-0000000000f1"


def at_rest(home: Path) -> bytes:
    """Every file of the state as bytes, each content chunk's zstd frames decompressed with its
    dictionary (compressed rows would hide a word from a raw grep)."""
    out = []
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".zst":
            stem = path.with_suffix("")
            raw_dict = stem.with_suffix(".dict").read_bytes()
            offsets = np.load(stem.with_suffix(".zoff.npy"))
            decompressor = zstandard.ZstdDecompressor(
                dict_data=zstandard.ZstdCompressionDict(raw_dict)) if raw_dict else zstandard.ZstdDecompressor()
            data = b"".join(decompressor.decompress(data[int(a):int(b)]) for a, b in itertools.pairwise(offsets))
        out.append(data)
    return b"\n".join(out)


def _codex_log(root: Path, words: list[str], day: str = "2026-03-02") -> Path:
    lines: list[dict[str, Any]] = [{"timestamp": f"{day}T09:00:00.000Z", "type": "session_meta",
                                    "payload": {"id": SID, "cwd": "/w"}}]
    lines += [{"timestamp": f"{day}T09:0{i + 1}:00.000Z", "type": "event_msg",
               "payload": {"type": "user_message", "message": word}} for i, word in enumerate(words)]
    path = root / "sessions" / day.replace("-", "/") / f"rollout-{day}T09-00-00-{SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _store(tmp_path: Path) -> Store:
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(tmp_path / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "none")}
    return Store(load_config({"home": str(tmp_path / "state")}, env=env))


def _hits(store: Store, word: str) -> int:
    return len(store.search(query_terms(word, 32), 10, list(EVENT_TYPES), None, None).docs)


def test_forget_purges_the_log_and_it_stays_forgotten(tmp_path: Path) -> None:
    log = _codex_log(tmp_path / "codex", ["wombatword and more", "second prompt keeps"])
    with log.open("a") as fh:
        fh.write('{"timestamp": "2026-03-02T09:09:00.000Z", "type": "event_msg", "payload": [wombatquarantined\n')
    store = _store(tmp_path)
    ingest_once(store, snapshot=True)
    assert _hits(store, "wombatword") == 1 and b"wombatword" in at_rest(store.home)
    assert b"wombatquarantined" in at_rest(store.home)
    with store.writer():
        retired = store.forget([path_key(str(log)) or ""])
        store.publish()
    assert retired >= 2  # the two prompts (and what the session_meta record gave)
    rest = at_rest(store.home)
    assert b"wombatword" not in rest and b"keeps" not in rest and b"wombatquarantined" not in rest
    ingest_once(store)  # the log is still there: a catch-up must not bring it back
    with log.open("a") as fh:
        fh.write(json.dumps({"timestamp": "2026-03-02T09:30:00.000Z", "type": "event_msg",
                             "payload": {"type": "user_message", "message": "wombatlater"}}) + "\n")
    ingest_once(store)
    assert _hits(store, "wombatword") == 0 and _hits(store, "wombatlater") == 0
    reopened = _store(tmp_path)
    ingest_once(reopened)
    assert _hits(reopened, "wombatword") == 0 and _hits(reopened, "wombatlater") == 0


def test_cleanup_purges_and_frees_what_its_dry_run_said(tmp_path: Path) -> None:
    _codex_log(tmp_path / "codex", ["numbatword " * 50, "a reply to keep"], day="2026-01-05")
    store = _store(tmp_path)
    ingest_once(store, snapshot=True)
    dry = cleanup(store, 30, True, delete_logs=False)
    assert dry["total_deleted"] == 1 and dry["bytes_freed"] > 500
    done = cleanup(store, 30, False, delete_logs=False)
    assert done["bytes_freed"] == dry["bytes_freed"] and done["deleted_sessions"] == dry["deleted_sessions"]
    assert b"numbatword" not in at_rest(store.home)
    assert cleanup(store, 30, True, delete_logs=False)["total_deleted"] == 0


def test_a_rewritten_event_leaves_no_superseded_copy(tmp_path: Path) -> None:
    """A log read whole (Gemini's legacy document) rewrites a message: the old copy is retired,
    and at the next publish its text is gone from the chunks and the dictionary."""
    home = tmp_path / "gemini-home"
    path = home / ".gemini" / "tmp" / "proj" / "chats" / "session-2026-03-12T09-00-5e55i0n0.json"
    path.parent.mkdir(parents=True)

    def write(text: str) -> None:
        doc = {"sessionId": "5e55i0n0-aaaa-4bbb-8ccc-000000000001", "projectHash": "proj",
               "startTime": "2026-03-12T09:00:00.000Z", "lastUpdated": "2026-03-12T09:30:00.000Z",
               "messages": [{"id": "m1", "timestamp": "2026-03-12T09:01:00.000Z", "type": "user", "content": "hi"},
                            {"id": "m2", "timestamp": "2026-03-12T09:02:00.000Z", "type": "gemini", "content": text}]}
        path.write_text(json.dumps(doc))
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))

    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(tmp_path / "none"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "none"), "GEMINI_CLI_HOME": str(home)}
    store = Store(load_config({"home": str(tmp_path / "state")}, env=env))
    write("draft with quollpartial")
    ingest_once(store, snapshot=True)
    assert _hits(store, "quollpartial") == 1
    write("final answer with quollfinal")
    ingest_once(store, snapshot=True)
    assert _hits(store, "quollpartial") == 0 and _hits(store, "quollfinal") == 1
    rest = at_rest(store.home)
    assert b"quollpartial" not in rest and b"quollfinal" in rest


def test_a_forgotten_sessions_title_leaves_the_shared_sessions_base(tmp_path: Path) -> None:
    """Among many sessions, one forgotten changes too little to rewrite the sessions' shared base
    by size alone: its title and first prompt stayed in the old base's records.npy, which the
    next generations kept referring to."""
    logs = []
    for i in range(12):
        day = f"2026-03-{i + 1:02d}"
        sid = f"019d9999-0000-7000-8000-0000000001{i:02d}"
        path = tmp_path / "codex" / "sessions" / day.replace("-", "/") / f"rollout-{day}T09-00-00-{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [{"timestamp": f"{day}T09:00:00.000Z", "type": "session_meta", "payload": {"id": sid, "cwd": "/w"}},
                 {"timestamp": f"{day}T09:01:00.000Z", "type": "event_msg",
                  "payload": {"type": "user_message", "message": f"title{i}aardvark of session {i}"}}]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        logs.append(path)
    store = _store(tmp_path)
    ingest_once(store, snapshot=True)
    assert b"title3aardvark" in at_rest(store.home)
    with store.writer():
        store.forget([path_key(str(logs[3])) or ""])
        store.publish()
    rest = at_rest(store.home)
    assert b"title3aardvark" not in rest
    assert b"title4aardvark" in rest  # the others' titles are still there
