"""No file can freeze Moraine, and reading one keeps memory bounded. Real files, real processes.

- OpenCode databases whose schema runs SQL of its own (a column named by a never-ending query, a
  table that is a view over an endless recursive CTE, a virtual table, a computed column of 1e9
  bytes a row, a huge recursive trigger, no index and thousands of sessions): `moraine index` in
  a subprocess ends within seconds, reading what is safe to read and reporting the rest as
  "cannot read: …" in `moraine status` (the reader before this hung forever on five of them).
  The issue stays through passes that do not look at the file, and the database is tried again
  later; a query that runs too long is stopped by SQLite itself (a progress handler).
- OpenCode's older JSON tree with a session whose session file is missing: the session is made
  of its messages.
- Cursor transcripts opening with a UTF-8 byte order mark, or breaking lines with CR alone (or
  CRLF): read as the LF transcript is, the same events, nothing quarantined.
- Gemini CLI legacy documents are streamed: the same records as a whole parse (a `summary`
  after the messages included), a document nested 100 000 deep is refused without memory
  growth, and an 80 MB document is indexed with peak RSS a small multiple of its size (slow).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _hostile_files import REFUSED, VARIANTS, gemini_legacy, opencode_db
from cli_harness import SAMPLES, Workspace, make_workspace

from moraine.config import load_config
from moraine.ingest.pipeline import ingest_once
from moraine.ingest.whole import CHUNK_EVENTS
from moraine.sources import _opencode_db, gemini_cli, opencode
from moraine.store.contents import TEXT
from moraine.store.engine import Store

WORD = "zqhostileprompt"


def _opencode_root(ws: Workspace) -> Path:
    return ws.root / "xdg-data" / "opencode"


def _store(ws: Workspace) -> Store:
    return Store(load_config({"home": str(ws.state)}, env=ws.env()))


def _texts(store: Store) -> dict[str, str]:
    """Every live event: its ID → its text."""
    catalog = store.catalog
    return {catalog.uid.view[doc].decode(): catalog.content.row(doc)[TEXT]
            for doc in np.flatnonzero(catalog.alive.view).tolist()}


# -- OpenCode: hostile databases -------------------------------------------------------------------

@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_hostile_opencode_database_is_indexed_in_bounded_time(tmp_path: Path, variant: str) -> None:
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    db = _opencode_root(ws) / "opencode.db"
    opencode_db(db, variant, WORD)
    started = time.monotonic()
    result = ws.run("index", timeout=120)
    elapsed = time.monotonic() - started
    print(f"{variant}: `moraine index` took {elapsed:.2f}s ({VARIANTS[variant]})")
    assert result.returncode == 0, result
    assert elapsed < 30, f"{variant}: indexing took {elapsed:.1f}s"
    status = ws.run("status", "--json").json()
    unreadable = status["unreadable_files"]
    found = ws.run("search", WORD, "--json").json()["data"]["results"]
    if variant in REFUSED:
        assert unreadable.get(str(db), "").startswith("cannot read: "), unreadable
        assert not found
        assert ws.run("status").stdout.count("cannot read: ") == 1  # shown to the user
    else:  # nothing of the file's own SQL runs: what it holds is read
        assert not unreadable, unreadable
        assert sorted(hit["event"]["type"] for hit in found) == ["assistant_response", "user_input"], found
    again = time.monotonic()
    assert ws.run("index", timeout=120).returncode == 0
    assert time.monotonic() - again < 30
    assert ws.run("status", "--json").json()["unreadable_files"] == unreadable  # unchanged: not read again


def test_the_issue_stays_until_the_database_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass that does not look at the database (the watcher names another file) leaves its issue;
    it is tried again after RETRY_S, and once the database is fixed the issue goes."""
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    db = _opencode_root(ws) / "opencode.db"
    opencode_db(db, "view-part", WORD)
    other = ws.codex / "sessions" / "2026" / "03" / "12" / "rollout-2026-03-12T10-00-00-0195a1b2.jsonl"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({"timestamp": "2026-03-12T10:00:00.000Z", "type": "session_meta",
                                 "payload": {"id": "0195a1b2-0000-7000-8000-000000000001", "cwd": "/w"}}) + "\n")
    store = _store(ws)
    ingest_once(store)
    assert store.file_issues[str(db)].startswith("cannot read: ")
    with other.open("a") as fh:
        fh.write(json.dumps({"timestamp": "2026-03-12T10:00:01.000Z", "type": "event_msg",
                             "payload": {"type": "user_message", "message": "hello"}}) + "\n")
    ingest_once(store, only={str(other)})
    assert store.file_issues[str(db)].startswith("cannot read: ")  # not looked at: the issue stays
    checks: list[str] = []
    real_check = _opencode_db.Db.check

    def counting(db_: Any) -> None:
        checks.append(db_.path)
        real_check(db_)

    monkeypatch.setattr(_opencode_db.Db, "check", counting)
    ingest_once(store)
    assert checks == []  # unchanged: not read again at once
    monkeypatch.setattr(opencode, "RETRY_S", 0.2)
    time.sleep(0.3)
    ingest_once(store)
    assert checks == [str(db)]  # tried again later
    assert store.file_issues[str(db)].startswith("cannot read: ")
    fixed = sqlite3.connect(db, isolation_level=None)  # the view replaced by a table
    fixed.execute("DROP VIEW part")
    fixed.execute("ALTER TABLE part_t RENAME TO part")
    fixed.close()
    ingest_once(store)
    assert str(db) not in store.file_issues
    assert any(WORD in text for text in _texts(store).values())


def test_a_refused_database_is_not_read_again_by_the_next_process(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Each CLI command is a new process: a database already reported stays reported, unread, until
    it changes (before, every command re-read it and said it was reading its whole size)."""
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    db = _opencode_root(ws) / "opencode.db"
    opencode_db(db, "view-part", WORD)
    checks: list[str] = []
    real_check = _opencode_db.Db.check

    def counting(db_: Any) -> None:
        checks.append(db_.path)
        real_check(db_)

    monkeypatch.setattr(_opencode_db.Db, "check", counting)
    for _ in range(3):
        monkeypatch.setattr(opencode, "_RETRY", opencode._Retry())  # what a new process starts with
        store = _store(ws)
        ingest_once(store)
        assert store.file_issues[str(db)].startswith("cannot read: ")
    assert checks == [str(db)]
    (ws.root / "xdg-data" / "opencode" / "opencode.db").touch()  # changed: read again
    ingest_once(_store(ws))
    assert checks == [str(db)] * 2


def test_a_database_locked_by_its_writer_is_passed_over_not_waited_on(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer holding an exclusive lock (a database not in WAL mode) costs a pass BUSY_MS, not
    seconds under the writer lock: the database is reported busy and read once the lock is gone."""
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    db = _opencode_root(ws) / "opencode.db"
    opencode_db(db, "plain", WORD)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE session SET title = title")
    store = _store(ws)
    started = time.monotonic()
    ingest_once(store)
    waited = time.monotonic() - started
    assert store.file_issues[str(db)].startswith("busy: the database is locked"), store.file_issues
    assert waited < 1.5, f"a pass over a locked database took {waited:.2f}s (BUSY_MS {_opencode_db.BUSY_MS})"
    holder.execute("COMMIT")
    holder.close()
    monkeypatch.setattr(opencode, "RETRY_S", 0.0)
    ingest_once(store)
    assert str(db) not in store.file_issues
    assert any(WORD in text for text in _texts(store).values())


def test_a_query_that_runs_too_long_is_stopped_by_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline is enforced inside SQLite: a never-ending statement is interrupted after
    SLICE_S, whichever query runs it, and the database is reported, never waited on."""
    path = tmp_path / "opencode.db"
    opencode_db(path, "column", WORD)
    db = _opencode_db.Db(str(path))
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="interrupt"):
        db.one(f"SELECT {'(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c)'}")
    assert time.monotonic() - started < _opencode_db.SLICE_S + 1.5
    db.close()

    def forever(self: Any, *args: Any) -> Any:
        return self.one("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c")

    monkeypatch.setattr(_opencode_db, "SLICE_S", 0.3)
    for place in ("scan", "session"):  # the change scan, and the read of one session (the lazy part)
        with monkeypatch.context() as patch:
            patch.setattr(_opencode_db.Db, place, forever)
            ws = make_workspace(tmp_path / place, copy_logs=False)
            _opencode_root(ws).mkdir(parents=True)
            shutil.copy(path, _opencode_root(ws) / "opencode.db")
            store = _store(ws)
            started = time.monotonic()
            ingest_once(store)
            assert time.monotonic() - started < 10
            issue = store.file_issues[str(_opencode_root(ws) / "opencode.db")]
            assert issue.startswith("cannot read: a query on the database ran over 0.3 s"), issue


def test_a_database_is_opened_read_only_and_untrusted(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    opencode_db(path, "column", WORD)
    db = _opencode_db.Db(str(path))
    assert db.one("PRAGMA query_only") == (1,)
    assert db.one("PRAGMA trusted_schema") == (0,)
    with pytest.raises(sqlite3.OperationalError):
        db.con.execute("CREATE TABLE t (x)")
    db.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    list(opencode.read(str(path), str(path), {}).groups)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no file of Moraine's beside it


# -- OpenCode: the JSON tree of older releases without its session file ------------------------------

LEGACY = "ses_3219eb1f9ffeHPZwiJ2zqwXebM"


def test_a_tree_session_without_its_session_file_is_made_of_its_messages(tmp_path: Path) -> None:
    def indexed(name: str, drop_session_file: bool) -> Store:
        ws = make_workspace(tmp_path / name, copy_logs=False)
        shutil.copytree(SAMPLES / "opencode", _opencode_root(ws))
        (_opencode_root(ws) / "opencode.db").unlink()  # the tree is read only where the database is not
        if drop_session_file:
            [session_file] = _opencode_root(ws).glob(f"storage/session/*/{LEGACY}.json")
            session_file.unlink()
        store = _store(ws)
        ingest_once(store)
        assert not store.file_issues and not store.stats.issues
        return store

    whole, orphan = indexed("whole", False), indexed("orphan", True)
    assert set(whole.catalog.by_key) == set(orphan.catalog.by_key)  # the same sessions, that one included
    assert f"opencode:{LEGACY}" in orphan.catalog.by_key
    [session_file] = (SAMPLES / "opencode").glob(f"storage/session/*/{LEGACY}.json")
    title = json.loads(session_file.read_text())["title"]
    expected = sorted("" if text == title else text for text in _texts(whole).values())
    assert sorted(_texts(orphan).values()) == expected  # the same events; only the title was the file's
    logs = {Path(k).name for k in orphan.checkpoints}
    assert len(logs) == 2 and not any(name == f"{LEGACY}.json" for name in logs)  # its first message file


# -- Cursor: byte order mark, CR-only and CRLF line breaks -----------------------------------------

FLAT = "1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b"


@pytest.mark.parametrize("form", ["bom", "cr", "crlf", "bom-cr"])
def test_cursor_transcripts_with_a_bom_or_cr_line_breaks_are_read(tmp_path: Path, form: str) -> None:
    source = SAMPLES / "cursor" / "projects" / "work-cursor-demo" / "agent-transcripts" / f"{FLAT}.jsonl"
    lines = source.read_bytes().splitlines()

    def indexed(name: str, data: bytes) -> tuple[Store, Path]:  # a workspace holding only this transcript
        ws = make_workspace(tmp_path / name, copy_logs=False)
        path = ws.root / "cursor" / "projects" / "work-cursor-demo" / "agent-transcripts" / f"{FLAT}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        os.utime(path, ns=(source.stat().st_mtime_ns, source.stat().st_mtime_ns))
        store = _store(ws)
        ingest_once(store)
        return store, path

    end = {"bom": b"\n", "cr": b"\r", "crlf": b"\r\n", "bom-cr": b"\r"}[form]
    bom = b"\xef\xbb\xbf" if form.startswith("bom") else b""
    baseline, baseline_path = indexed("lf", b"\n".join(lines[:-1]) + b"\n")
    store, path = indexed(form, bom + end.join(lines[:-1]) + end)
    assert not store.stats.issues, store.stats.issues  # nothing quarantined
    assert _texts(store) == _texts(baseline)  # the same events, the same IDs
    with path.open("ab") as fh:  # a line appended later: read on from the checkpoint, same line breaks
        fh.write(lines[-1] + end)
    with baseline_path.open("ab") as fh:
        fh.write(lines[-1] + b"\n")
    ingest_once(store)
    ingest_once(baseline)
    assert not store.stats.issues
    assert _texts(store) == _texts(baseline)


# -- Gemini CLI: legacy documents streamed ---------------------------------------------------------

def test_a_legacy_document_streams_the_records_a_whole_parse_gives(tmp_path: Path) -> None:
    paths = [*sorted((SAMPLES / "gemini").glob(".gemini/tmp/*/chats/session-*.json"))]
    for summary_last in (True, False):
        path = tmp_path / f"last-{summary_last}" / "chats" / "session-2026-03-12T09-00-beef.json"
        gemini_legacy(path, 300_000, summary_last=summary_last)
        paths.append(path)
    bom = tmp_path / "bom" / "chats" / "session-bom.json"
    bom.parent.mkdir(parents=True)
    bom.write_bytes(b"\xef\xbb\xbf" + paths[-1].read_bytes())
    for path in [*paths, bom]:
        document = json.loads(path.read_bytes().decode("utf-8-sig"))
        messages = document.pop("messages")
        read = gemini_cli.read(str(path), str(path), {})
        assert read.problem is None, (path, read.problem)
        [group] = list(read.groups)
        records = list(group)
        assert records[0] == document and list(records[0]) == list(document)  # the header first, summary in it
        assert records[1:] == messages


def test_odd_legacy_documents_are_read_or_refused_quickly(tmp_path: Path) -> None:
    """What the streaming parser refuses takes the lenient reader (small documents): a lone
    surrogate escape, invalid UTF-8, an integer beyond 64 bits; JSON nested 100 000 deep is
    refused at once (the streaming parser's own path tracking would take memory quadratic in
    the depth), and a document cut short is reported until it is whole."""
    chats = tmp_path / "chats"
    chats.mkdir()
    header = '{"sessionId": "s-1", "projectHash": "p", "startTime": "2026-03-12T09:00:00.000Z", '
    cases = {
        "surrogate": header + '"messages": [{"id": "m1", "type": "user", "content": "a \\ud83d b"}]}',
        "utf8": header + '"messages": [{"id": "m1", "type": "user", "content": "a \udcff b"}]}',
        "bigint": header + '"messages": [{"id": "m1", "type": "user", "content": "x", "n": 123456789012345678901234}]}',
        "deep": header + '"messages": [' + "[" * 100_000 + "]" * 100_000 + "]}",
        "cut": header + '"messages": [{"id": "m1", "type": "user", "content": "x"}',
        "array": "[1, 2]",
    }
    for name, text in cases.items():
        path = chats / f"session-{name}.json"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))  # "utf8": a raw 0xFF byte in a string
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.monotonic()
        read = gemini_cli.read(str(path), str(path), {})
        groups = [list(g) for g in read.groups] if read.problem is None else []
        assert time.monotonic() - started < 5, name
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000, name  # KB
        if name in ("surrogate", "utf8", "bigint"):
            assert read.problem is None and groups[0][1]["id"] == "m1", (name, read.problem)
        else:
            assert read.problem is not None, name


def test_a_large_document_is_committed_in_pieces_and_what_it_no_longer_holds_is_retired(tmp_path: Path) -> None:
    """Over CHUNK_EVENTS events, a document is handed over in pieces; rewritten without some
    messages (a rewind) from the first and the last piece, exactly those are retired, and the
    rest keep their events (the same IDs); rewritten the same, nothing is applied again."""
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    path = ws.root / "gemini" / ".gemini" / "tmp" / "proj" / "chats" / "session-2026-03-12T09-00-c4a1.json"
    path.parent.mkdir(parents=True)
    n = CHUNK_EVENTS + 1000

    def write(keep: range | list[int]) -> None:
        messages = [{"id": f"m{i}", "timestamp": f"2026-03-12T09:{i // 600:02d}:{i // 10 % 60:02d}.000Z",
                     "type": "user", "content": f"prompt number {i}"} for i in keep]
        path.write_text(json.dumps({"sessionId": "c4a1", "projectHash": "proj", "startTime": "2026-03-12T09:00:00.000Z",
                                    "messages": messages}, indent=2))

    write(range(n))
    store = _store(ws)
    ingest_once(store)
    before = _texts(store)
    assert len(before) == n + 1 and not store.file_issues  # the header's event and one per message
    applied = store.stats.events
    write(range(n))  # rewritten the same: read again, every piece, and nothing applied again
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    ingest_once(store)
    assert store.stats.events == applied and _texts(store) == before
    kept = [i for i in range(n) if not (i < 10 or i >= n - 10)]
    write(kept)
    ingest_once(store)
    after = _texts(store)
    assert len(after) == n + 1 - 20
    assert {uid: before[uid] for uid in after} == after  # the rest kept, under the same IDs
    assert not {f"prompt number {i}" for i in range(n) if i not in kept} & set(after.values())


def _peak_rss_mb(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run a command in a child of a small Python process; the child's peak RSS (MB), its wall
    time and its output."""
    probe = ("import resource, subprocess, sys, time, json\n"
             "t = time.monotonic()\n"
             "p = subprocess.run(json.loads(sys.argv[1]), env=json.loads(sys.argv[2]), capture_output=True,\n"
             "                   text=True)\n"
             "print(json.dumps([resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "
             "time.monotonic() - t, p.returncode, p.stdout + p.stderr]))\n")
    out = subprocess.run([sys.executable, "-c", probe, json.dumps(argv), json.dumps(env)], capture_output=True,
                         text=True, timeout=1800, check=True).stdout
    peak, seconds, code, text = json.loads(out)
    assert code == 0, text
    return peak, seconds, text


@pytest.mark.slow
def test_a_large_legacy_document_is_indexed_in_bounded_memory(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    path = ws.root / "gemini" / ".gemini" / "tmp" / "gull-repo" / "chats" / "session-2026-03-12T09-00-beef.json"
    messages = gemini_legacy(path, 80 * 1024 * 1024)  # the reader's peak is a constant: 80 MB shows it as 200 MB did
    size_mb = path.stat().st_size / 2**20
    # The reader alone (stream, normalize, pack; nothing kept): a constant, whatever the size.
    reader = ("import sys\nfrom moraine.ingest.normalize import whole_parts\nfrom moraine.model import Checkpoint\n"
              "n = sum(len(p.batch) for p in whole_parts(sys.argv[1], sys.argv[1], 'gemini-cli', "
              "Checkpoint('gemini-cli', 0, 0, 1, 0, 0, {})))\nprint(n)\n")
    read_peak, read_s, out = _peak_rss_mb([sys.executable, "-c", reader, str(path)], dict(os.environ))
    events = int(out.split()[0])
    # The whole of `moraine index`: the reader plus the index it builds.
    index_peak, index_s, _ = _peak_rss_mb([str(Path(sys.executable).parent / "moraine"), "index"], ws.env())
    print(f"{size_mb:.0f} MB document, {messages} messages, {events} events: reader peak {read_peak:.0f} MB "
          f"in {read_s:.0f}s; `moraine index` peak {index_peak:.0f} MB ({index_peak / size_mb:.1f}x) in {index_s:.0f}s")
    assert read_peak < 200, read_peak  # a constant: before, the document parsed whole took 14x its size
    # What indexing adds is the index being built (the same messages as a JSONL chat take as much):
    # 3.5-4x the document here, where reading it whole made 13.5x.
    assert index_peak < 2 * size_mb + 500, index_peak
    status = ws.run("status", "--json").json()
    assert status["live_events"] == events and not status["unreadable_files"] and not status["quarantined"]


def test_an_oversized_part_leaves_the_rest_of_its_session_readable(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A part larger than SQLite may load (MAX_VALUE_BYTES: a tool output of hundreds of MB) is
    left out; the session's other parts and the database's other sessions are read (an outside
    attacker's 144 MB part made the whole database unreadable)."""
    monkeypatch.setattr(_opencode_db, "MAX_VALUE_BYTES", 100_000)
    ws = make_workspace(tmp_path / "w", copy_logs=False)
    db_path = _opencode_root(ws) / "opencode.db"
    opencode_db(db_path, "column", WORD)
    db = sqlite3.connect(db_path, isolation_level=None)
    sid = db.execute("SELECT id FROM session").fetchone()[0]
    huge = json.dumps({"type": "text", "text": "zqhugepart " + "x" * 300_000})
    db.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
               "VALUES ('prt_zzz_huge', ?, ?, 1, 1, ?)", (f"msg_{sid}_1", sid, huge))
    db.close()
    store = _store(ws)
    ingest_once(store)
    texts = _texts(store)
    assert not store.file_issues, store.file_issues
    assert any(WORD in text for text in texts.values())
    assert any(f"answer {WORD}" in text for text in texts.values())
    assert not any("zqhugepart" in text for text in texts.values())
