"""What happens to a log file's events when the file is appended to, truncated, rotated,
deleted, written in two halves or carries a malformed line — seen end to end through
`search_sessions` and `open`, and again after a restart.

Why: the issue's item 3 promises per-file tracking (inode, size, generation, offset, line):
only complete lines are consumed; a file that shrinks or changes inode starts a new
generation whose events *replace* the old ones (never duplicates); a deleted file's
sessions stay searchable until the user forgets them; a malformed line is quarantined with
its file, line, offset and reason and ingest goes on. Unit tests check the tailer and the
checkpoints; only real files, real ingest passes and the agent-facing tools show that an
agent holding an event ID gets the right answer after each of these file-system events.

Every scenario runs for a Codex rollout and a Claude Code transcript. Each line carries one
unique word (so `search_sessions` finds exactly that line) and a shared marker word (so the
total of live searchable lines can be counted). After each step, the same answers must come
from a Store reopened from disk (snapshot + WAL replay) and after `publish()` (snapshot
only). The append scenario goes through the real `moraine index` / `search` / `open` CLI.

Event IDs derive from (source, session, file basename, line number, index within line): a
new generation's line N therefore gets the same ID the old generation's line N had — the
old event is replaced by the new line's content; lines past the new end stop opening.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from moraine.config import Config, load_config
from moraine.index.tokenize import query_terms
from moraine.ingest.pipeline import IngestSummary, ingest_once
from moraine.mcp_server.tools import open as open_tool
from moraine.mcp_server.tools import search_sessions
from moraine.model import SEARCHABLE_TYPES
from moraine.store.engine import Store

MORAINE = Path(sys.executable).parent / "moraine"
HARNESSES = ("codex", "claude-code")
MARKER = "lifecyclemark"  # in every word line: its hit total counts the live searchable lines
SIDS = {"codex": "0c0dee00-0000-4000-8000-00000000c0de", "claude-code": "c1a0de00-0000-4000-8000-00000000c1de"}


# -- logs ---------------------------------------------------------------------------------


@dataclass
class Log:
    """One real log file of a harness, written line by line with known words."""

    harness: str
    path: Path
    sid: str

    def header(self) -> list[str]:
        """Lines every file of this harness starts with (a Codex rollout opens with session_meta)."""
        if self.harness == "codex":
            return [json.dumps({"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
                                "payload": {"id": self.sid, "cwd": "/repo"}})]
        return []

    def line(self, word: str, second: int = 1, extra: str = "") -> str:
        """A user prompt whose text is `MARKER word extra` (one event, one turn)."""
        text = f"{MARKER} {word}{extra}"
        ts = f"2026-03-01T10:{second // 60 % 60:02d}:{second % 60:02d}.000Z"
        if self.harness == "codex":
            record: dict[str, Any] = {"timestamp": ts, "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}
        else:
            record = {"type": "user", "sessionId": self.sid, "uuid": f"uuid-{word}", "timestamp": ts,
                      "cwd": "/repo", "message": {"role": "user", "content": text}}
        return json.dumps(record, ensure_ascii=False)

    def lines(self, words: Iterable[str], first_second: int = 1) -> list[str]:
        return [self.line(w, first_second + i) for i, w in enumerate(words)]

    def write(self, lines: Sequence[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes("".join(f"{ln}\n" for ln in lines).encode("utf-8"))

    def append(self, lines: Sequence[str]) -> None:
        with self.path.open("ab") as fh:
            fh.write("".join(f"{ln}\n" for ln in lines).encode("utf-8"))

    def append_raw(self, data: bytes) -> None:
        with self.path.open("ab") as fh:
            fh.write(data)

    @property
    def first_word_line(self) -> int:
        """The 1-based line number of the first word line (after the header)."""
        return len(self.header()) + 1


@dataclass
class Lab:
    """Two harness homes and a Moraine state directory below one temporary root."""

    root: Path

    @property
    def codex_home(self) -> Path:
        return self.root / "codex-home"

    @property
    def claude_home(self) -> Path:
        return self.root / "claude-home"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def env(self) -> dict[str, str]:
        return {"CODEX_HOME": str(self.codex_home), "CLAUDE_CONFIG_DIR": str(self.claude_home)}

    def config(self) -> Config:
        return load_config({"home": str(self.state), "store": {"fsync": "never"}}, env=self.env())

    def log(self, harness: str) -> Log:
        sid = SIDS[harness]
        if harness == "codex":
            path = self.codex_home / "sessions" / "2026" / "03" / "01" / f"rollout-2026-03-01T10-00-00-{sid}.jsonl"
        else:
            path = self.claude_home / "projects" / "-repo" / f"{sid}.jsonl"
        (self.codex_home / "sessions").mkdir(parents=True, exist_ok=True)
        (self.claude_home / "projects").mkdir(parents=True, exist_ok=True)
        return Log(harness, path, sid)

    def store(self) -> Store:
        store = Store(self.config())
        store._check()
        return store

    # the real console script
    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**self.env(), "MORAINE_HOME": str(self.state), "HOME": str(self.root / "home")}
        if "PATH" in os.environ:
            env["PATH"] = os.environ["PATH"]
        proc = subprocess.run([str(MORAINE), *args], env=env, capture_output=True, text=True, timeout=120,
                              check=False)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    def cli_json(self, *args: str, ok: bool = True) -> dict[str, Any]:
        proc = self.cli(*args, "--json")
        if ok:
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return json.loads(proc.stdout)


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path)


# -- the agent-facing answers -------------------------------------------------------------


def ingest(store: Store) -> IngestSummary:
    summary = ingest_once(store, parallel=False)
    store._check()
    return summary


def hits(store: Store, word: str) -> list[str]:
    """Event IDs `search_sessions` returns for one word (every hit: n_hits above any count here)."""
    env = search_sessions.run(store, {"query": word, "n_hits": 50}).structured
    assert "error" not in env, env
    return [r["id"] for r in env["data"]["results"]]


def the_hit(store: Store, word: str) -> str:
    found = hits(store, word)
    assert len(found) == 1, f"{word!r} should be found exactly once, got {found}"
    return found[0]


def open_event(store: Store, eid: str) -> tuple[str, str, int]:
    """("ok", full text, source line) or ("error", code, 0)."""
    env = open_tool.run(store, {"id": eid}).structured
    if "error" in env:
        return "error", env["error"]["code"], 0
    data = env["data"]
    assert data["event"]["id"] == eid
    return "ok", data["content"]["text"], data["source"]["line"]


def marker_total(store: Store) -> int:
    """Live searchable lines carrying the marker (exact total, any event type)."""
    return store.search(query_terms(MARKER, 16), 1000, list(SEARCHABLE_TYPES), None, None).total


def live_lines(store: Store, path: Path) -> list[int]:
    """Line numbers of the live events read from `path`, with repeats (a duplicate shows twice)."""
    catalog = store.catalog
    lines = []
    for doc in range(len(catalog.content)):
        if catalog.alive.view[doc]:
            event = catalog.event(doc)
            if event.file == str(path):
                lines.append(event.line)
    return sorted(lines)


def answers(store: Store, log: Log, words: Iterable[str], ids: Iterable[str]) -> dict[str, Any]:
    """Everything these tests assert, as one comparable value."""
    return {
        "hits": {w: hits(store, w) for w in sorted(set(words))},
        "open": {i: open_event(store, i) for i in sorted(set(ids))},
        "session": session_answer(store, log),
        "issues": [(i.file, i.generation, i.line, i.offset, i.reason) for i in store.stats.issues],
        "live_lines": live_lines(store, log.path),
        "marker_total": marker_total(store),
        "checkpoint": checkpoint_answer(store, log),
    }


def session_answer(store: Store, log: Log) -> Any:
    """The session's event count as `open` reports it, or the error code."""
    sid = session_sid(store, log)
    if sid is None:
        return None
    env = open_tool.run(store, {"id": f"session:ses_{sid}"}).structured
    return ("error", env["error"]["code"]) if "error" in env else env["data"]["session"]["event_count"]


def checkpoint_answer(store: Store, log: Log) -> tuple[int, int, int] | None:
    cp = store.checkpoints.get(str(log.path))
    return None if cp is None else (cp.generation, cp.offset, cp.line)


def session_sid(store: Store, log: Log) -> str | None:
    """The session's public hash, whether or not it still has live events."""
    key = f"{log.harness}:{log.sid}"
    ix = store.catalog.by_key.get(key)
    return None if ix is None else store.catalog.sessions[ix].sid


def assert_survives_restart(lab: Lab, store: Store, log: Log, words: Iterable[str], ids: Iterable[str]) -> None:
    """The same answers from a Store reopened from disk (snapshot + WAL replay), and from the
    published snapshot alone (after `publish()`, which retires the WAL it covers)."""
    words, ids = list(words), list(ids)
    expected = answers(store, log, words, ids)
    assert answers(lab.store(), log, words, ids) == expected, "reopened store (WAL replay) differs"
    with store.writer():
        store.publish()
    store._check()
    assert answers(store, log, words, ids) == expected, "publish changed the answers"
    reopened = lab.store()
    assert answers(reopened, log, words, ids) == expected, "store reopened from the snapshot differs"
    assert ingest(reopened).events == 0, "a restart must not re-read lines it already has"


def words(tag: str, n: int) -> list[str]:
    return [f"{tag}{i:03d}" for i in range(n)]


# -- append (through the real CLI) --------------------------------------------------------


def _cli_ids(lab: Lab) -> dict[str, str]:
    """word → event ID of every marker line, from one `moraine search` (which catches up first)."""
    env = lab.cli_json("search", MARKER, "-n", "50")
    out: dict[str, str] = {}
    for result in env["data"]["results"]:
        word = next(t for t in result["snippet"]["text"].replace("…", " ").split() if t != MARKER)
        assert word not in out, f"{word} found twice"
        out[word] = result["id"]
    return out


def _cli_open_all(lab: Lab, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
    ids = list(ids)
    with ThreadPoolExecutor(max_workers=4) as pool:
        envs = list(pool.map(lambda i: lab.cli_json("open", i, ok=False), ids))
    return {i: (("ok", e["data"]["content"]["text"]) if "data" in e else ("error", e["error"]["code"]))
            for i, e in zip(ids, envs, strict=True)}


@pytest.mark.parametrize("harness", HARNESSES)
def test_append_keeps_old_ids_and_opens_new_events_via_cli(lab: Lab, harness: str) -> None:
    """Appended lines become new events; the events already indexed keep their IDs and content."""
    log = lab.log(harness)
    first, later = words("first", 4), words("later", 3)
    log.write([*log.header(), *log.lines(first)])
    summary = lab.cli_json("index")
    assert summary["events"] == len(log.header()) + len(first) and summary["issues"] == 0

    before = _cli_ids(lab)
    assert sorted(before) == first
    assert _cli_open_all(lab, [before[first[1]]]) == {before[first[1]]: ("ok", f"{MARKER} {first[1]}")}

    log.append(log.lines(later, first_second=10))
    summary = lab.cli_json("index")
    assert summary["events"] == len(later), "only the appended lines are read"
    after = _cli_ids(lab)
    assert sorted(after) == sorted(first + later), "every line found exactly once"
    assert {w: after[w] for w in first} == before, "old IDs unchanged by an append"
    # one old and one new event, each a separate process (a restart) that catches up first
    sample = [first[1], later[-1]]
    assert _cli_open_all(lab, [after[w] for w in sample]) == {after[w]: ("ok", f"{MARKER} {w}") for w in sample}

    # the CLI's state, opened in-process, gives the same answers, and after restarts
    store = lab.store()
    assert {w: the_hit(store, w) for w in first + later} == after
    assert live_lines(store, log.path) == list(range(1, len(log.header()) + len(first) + len(later) + 1))
    assert_survives_restart(lab, store, log, first + later, after.values())


@pytest.mark.parametrize("harness", HARNESSES)
def test_append_in_process_across_restarts(lab: Lab, harness: str) -> None:
    """Appends ingested by different Store instances (a restart between them) still give one
    event per line and stable IDs."""
    log = lab.log(harness)
    first, later = words("first", 5), words("later", 4)
    log.write([*log.header(), *log.lines(first)])
    store = lab.store()
    ingest(store)
    before = {w: the_hit(store, w) for w in first}
    log.append(log.lines(later, first_second=20))
    store = lab.store()  # restart before the next pass
    assert ingest(store).events == len(later)
    after = {w: the_hit(store, w) for w in first + later}
    assert {w: after[w] for w in first} == before
    assert all(open_event(store, after[w])[:2] == ("ok", f"{MARKER} {w}") for w in after)
    assert marker_total(store) == len(first) + len(later)
    assert_survives_restart(lab, store, log, first + later, after.values())


# -- truncate -----------------------------------------------------------------------------


@pytest.mark.parametrize("harness", HARNESSES)
def test_truncate_starts_a_new_generation_replacing_old_events(lab: Lab, harness: str) -> None:
    """A log cut shorter (then written on) is re-read as a new generation: lines that no longer
    exist stop opening, kept lines keep their IDs, nothing is duplicated."""
    log = lab.log(harness)
    old = words("orig", 8)
    log.write([*log.header(), *log.lines(old)])
    store = lab.store()
    ingest(store)
    old_ids = {w: the_hit(store, w) for w in old}
    old_size = log.path.stat().st_size
    inode = log.path.stat().st_ino

    kept, dropped, new = old[:3], old[3:], words("fresh", 2)
    keep_lines = len(log.header()) + len(kept)
    data = log.path.read_bytes().splitlines(keepends=True)
    with log.path.open("r+b") as fh:  # truncated in place: same inode, fewer bytes
        fh.truncate(sum(len(x) for x in data[:keep_lines]))
    log.append(log.lines(new, first_second=30))
    assert log.path.stat().st_size < old_size and log.path.stat().st_ino == inode

    summary = ingest(store)
    assert summary.issues == 0
    checkpoint = store.checkpoints[str(log.path)]
    assert checkpoint.generation == 2 and checkpoint.line == keep_lines + len(new)

    # surviving lines: same IDs, same content
    assert {w: the_hit(store, w) for w in kept} == {w: old_ids[w] for w in kept}
    # the old tail is gone from search; its lines past the new end do not open any more
    for w in dropped:
        assert hits(store, w) == [], f"{w} was truncated away but is still found"
    new_ids = {w: the_hit(store, w) for w in new}
    # the new lines sit where dropped[0] and dropped[1] were: same line numbers, same IDs, new content
    assert [new_ids[w] for w in new] == [old_ids[w] for w in dropped[: len(new)]]
    for w in new:
        assert open_event(store, new_ids[w])[:2] == ("ok", f"{MARKER} {w}")
    for w in dropped[len(new):]:
        assert open_event(store, old_ids[w]) == ("error", "not_found", 0)
    # no duplicates: one live event per line, one marker hit per word line
    assert live_lines(store, log.path) == list(range(1, keep_lines + len(new) + 1))
    assert marker_total(store) == len(kept) + len(new)
    assert_survives_restart(lab, store, log, old + new, [*old_ids.values(), *new_ids.values()])


@pytest.mark.parametrize("harness", HARNESSES)
def test_truncate_to_empty_retires_every_event(lab: Lab, harness: str) -> None:
    """A log truncated to nothing: every event of the file stops opening and being found."""
    log = lab.log(harness)
    old = words("orig", 4)
    log.write([*log.header(), *log.lines(old)])
    store = lab.store()
    ingest(store)
    old_ids = {w: the_hit(store, w) for w in old}
    log.path.write_bytes(b"")
    ingest(store)
    assert store.checkpoints[str(log.path)].generation == 2
    assert live_lines(store, log.path) == [] and marker_total(store) == 0
    assert all(hits(store, w) == [] for w in old)
    assert all(open_event(store, i) == ("error", "not_found", 0) for i in old_ids.values())
    assert_survives_restart(lab, store, log, old, old_ids.values())


@pytest.mark.parametrize("harness", HARNESSES)
def test_emptied_log_written_again_is_whole(lab: Lab, harness: str) -> None:
    """Truncated to nothing, then the same lines written again (a harness rewriting its log):
    the session is whole again, listed and openable, with the same IDs."""
    log = lab.log(harness)
    old = words("orig", 3)
    log.write([*log.header(), *log.lines(old)])
    content = log.path.read_bytes()
    store = lab.store()
    ingest(store)
    old_ids = {w: the_hit(store, w) for w in old}
    log.path.write_bytes(b"")
    ingest(store)
    log.path.write_bytes(content)
    ingest(store)  # _check() inside
    assert {w: the_hit(store, w) for w in old} == old_ids
    assert session_answer(store, log) == len(log.header()) + len(old)


@pytest.mark.parametrize("harness", HARNESSES)
def test_rewritten_log_session_title_matches_a_fresh_index(lab: Lab, harness: str) -> None:
    """After a log is rewritten (truncated, new first prompt), the session's title comes from
    the lines that exist now — as a fresh index of the same log says."""
    log = lab.log(harness)
    log.write([*log.header(), *log.lines(words("alpha", 3))])
    store = lab.store()
    ingest(store)
    with log.path.open("r+b") as fh:
        fh.truncate(0)
    log.append([*log.header(), *log.lines(["beta000"], first_second=30)])
    ingest(store)
    fresh = Store(load_config({"home": str(lab.root / "fresh"), "store": {"fsync": "never"}}, env=lab.env()))
    ingest(fresh)

    def title(s: Store) -> str:
        env = open_tool.run(s, {"id": f"session:ses_{session_sid(s, log)}"}).structured
        return env["data"]["session"]["title"]

    assert title(fresh) == f"{MARKER} beta000"
    assert title(store) == title(fresh)


# -- rotate -------------------------------------------------------------------------------


@pytest.mark.parametrize("harness", HARNESSES)
def test_rotate_new_file_at_same_path_replaces_old_generation(lab: Lab, harness: str) -> None:
    """Rotation: the log is renamed out of the glob (`x.jsonl.1`) and a new file is created at
    its path. The new inode starts generation 2 of that path; its events replace the old
    generation's (the old events stop being found; their IDs either open the new line now at
    that position or are not_found). The rotated copy is not indexed, nothing is duplicated."""
    log = lab.log(harness)
    old, new = words("orig", 6), words("rota", 3)
    log.write([*log.header(), *log.lines(old)])
    store = lab.store()
    ingest(store)
    old_ids = {w: the_hit(store, w) for w in old}
    old_inode = log.path.stat().st_ino

    rotated = log.path.with_name(log.path.name + ".1")
    log.path.rename(rotated)
    log.write([*log.header(), *log.lines(new, first_second=50)])
    assert log.path.stat().st_ino != old_inode
    summary = ingest(store)
    assert summary.issues == 0 and summary.events == len(log.header()) + len(new)
    assert store.checkpoints[str(log.path)].generation == 2
    assert str(rotated) not in store.checkpoints

    new_ids = {w: the_hit(store, w) for w in new}
    for w in new:
        assert open_event(store, new_ids[w])[:2] == ("ok", f"{MARKER} {w}")
    for w in old:
        assert hits(store, w) == [], f"{w} belongs to the replaced generation but is still found"
    assert [new_ids[w] for w in new] == [old_ids[w] for w in old[: len(new)]], "IDs follow line positions"
    for w in old[len(new):]:
        assert open_event(store, old_ids[w]) == ("error", "not_found", 0)
    assert live_lines(store, log.path) == list(range(1, len(log.header()) + len(new) + 1))
    assert live_lines(store, rotated) == []
    assert marker_total(store) == len(new)
    assert_survives_restart(lab, store, log, old + new, [*old_ids.values(), *new_ids.values()])


# -- delete, then forget ------------------------------------------------------------------


@pytest.mark.parametrize("harness", HARNESSES)
def test_deleted_log_stays_searchable_until_forgotten(lab: Lab, harness: str) -> None:
    """A deleted log may have been rotated away: its session keeps opening and being found.
    `forget` (the user's explicit request) retires its events; then they are not_found."""
    log = lab.log(harness)
    old = words("kept", 5)
    log.write([*log.header(), *log.lines(old)])
    store = lab.store()
    ingest(store)
    ids = {w: the_hit(store, w) for w in old}
    sid = session_sid(store, log)
    assert sid is not None

    log.path.unlink()
    summary = ingest(store)
    assert summary.files_seen == 0 and summary.events == 0
    assert {w: the_hit(store, w) for w in old} == ids
    assert all(open_event(store, ids[w])[:2] == ("ok", f"{MARKER} {w}") for w in old)
    session = open_tool.run(store, {"id": f"session:ses_{sid}"}).structured
    assert "error" not in session and session["data"]["session"]["event_count"] == len(log.header()) + len(old)
    assert_survives_restart(lab, store, log, old, ids.values())

    with store.writer():
        retired = store.forget([str(log.path)])
    store._check()
    assert retired == len(log.header()) + len(old)
    assert str(log.path) not in store.checkpoints
    for w in old:
        assert hits(store, w) == []
        assert open_event(store, ids[w]) == ("error", "not_found", 0)
    assert live_lines(store, log.path) == [] and marker_total(store) == 0
    assert ingest(store).events == 0
    assert_survives_restart(lab, store, log, old, ids.values())


@pytest.mark.parametrize("harness", HARNESSES)
def test_forgotten_session_is_not_found(lab: Lab, harness: str) -> None:
    """After `forget`, the session itself should answer not_found like its events do."""
    log = lab.log(harness)
    log.write([*log.header(), *log.lines(words("gone", 2))])
    store = lab.store()
    ingest(store)
    sid = session_sid(store, log)
    log.path.unlink()
    with store.writer():
        store.forget([str(log.path)])
    env = open_tool.run(store, {"id": f"session:ses_{sid}"}).structured
    assert env.get("error", {}).get("code") == "not_found", env


@pytest.mark.parametrize("harness", HARNESSES)
def test_deleted_and_recreated_log_is_a_new_generation(lab: Lab, harness: str) -> None:
    """A log deleted and created again is a different file: its content replaces the old one."""
    log = lab.log(harness)
    old, new = words("orig", 4), words("reborn", 6)
    log.write([*log.header(), *log.lines(old)])
    store = lab.store()
    ingest(store)
    log.path.unlink()
    log.write([*log.header(), *log.lines(new, first_second=30)])  # often gets the same inode number back
    summary = ingest(store)
    assert summary.issues == 0
    assert all(hits(store, w) == [] for w in old)
    assert all(len(hits(store, w)) == 1 for w in new)


@pytest.mark.parametrize("harness", HARNESSES)
def test_log_rewritten_in_place_and_longer_is_a_new_generation(lab: Lab, harness: str) -> None:
    """The same inode and a size past the old offset, but different first bytes (what a
    deleted-and-recreated log looks like when the file system reuses the inode number): a new
    generation whose content replaces the old, not a read from the old offset."""
    log = lab.log(harness)
    old, new = words("first", 3), words("second", 8)
    log.write([*log.header(), *log.lines(old)])
    store = lab.store()
    ingest(store)
    inode, size = log.path.stat().st_ino, log.path.stat().st_size
    body = "".join(f"{line}\n" for line in [*log.header(), *log.lines(new, first_second=40)]).encode()
    with open(log.path, "r+b") as fh:  # overwrite in place: the inode stays
        fh.write(body)
    assert log.path.stat().st_ino == inode and log.path.stat().st_size > size
    summary = ingest(store)
    assert summary.issues == 0
    assert store.checkpoints[str(log.path)].generation == 2
    assert all(hits(store, w) == [] for w in old)
    assert all(len(hits(store, w)) == 1 for w in new)
    store._check()


# -- a line written in two halves ---------------------------------------------------------


SPLITS = ("mid_json", "mid_utf8_char", "before_newline")


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("harness", HARNESSES)
def test_half_written_line_waits_for_its_newline(lab: Lab, harness: str, split: str) -> None:
    """A last line without its newline is not consumed (not parsed half, not quarantined, not
    lost): once the rest arrives — even after a restart — it is exactly one event with the
    full text. Split points include the middle of a multi-byte UTF-8 character."""
    log = lab.log(harness)
    head = words("whole", 2)
    log.write([*log.header(), *log.lines(head)])
    store = lab.store()
    ingest(store)
    head_ids = {w: the_hit(store, w) for w in head}

    extra = " naïve 東京都 データベース"
    full = (log.line("halfword", 9, extra) + "\n").encode("utf-8")
    if split == "mid_json":
        cut = len(full) // 2
    elif split == "mid_utf8_char":
        cut = full.index("東".encode()) + 1
    else:
        cut = len(full) - 1
    log.append_raw(full[:cut])
    size_before = log.path.stat().st_size - cut

    summary = ingest(store)
    assert summary.events == 0 and summary.issues == 0
    assert hits(store, "halfword") == [] and store.stats.issues == []
    assert store.checkpoints[str(log.path)].offset == size_before, "the checkpoint stops before the half line"
    assert_survives_restart(lab, store, log, [*head, "halfword"], head_ids.values())
    reopened = lab.store()
    assert ingest(reopened).events == 0, "still waiting after a restart"

    log.append_raw(full[cut:])
    summary = ingest(reopened)  # the rest is read by another instance than the one that saw the half
    assert summary.events == 1 and summary.issues == 0
    eid = the_hit(reopened, "halfword")
    assert open_event(reopened, eid) == ("ok", f"{MARKER} halfword{extra}", len(log.header()) + len(head) + 1)
    assert reopened.stats.issues == []
    # the first instance catches up through the WAL to the same single event
    assert ingest(store).events == 0
    store._check()
    assert the_hit(store, "halfword") == eid and {w: the_hit(store, w) for w in head} == head_ids
    assert live_lines(store, log.path) == list(range(1, len(log.header()) + len(head) + 2))
    assert_survives_restart(lab, store, log, [*head, "halfword"], [*head_ids.values(), eid])


# -- a malformed line ---------------------------------------------------------------------


MALFORMED = {"broken_json": ('{"type": "user", "message": {"role": "user", "content": "cut', "json_parse_error"),
             "not_an_object": ('["lifecyclemark", "arrayword"]', "not_an_object")}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
@pytest.mark.parametrize("harness", HARNESSES)
def test_malformed_line_is_quarantined_and_ingest_goes_on(lab: Lab, harness: str, kind: str) -> None:
    """A malformed line in the middle becomes one ingest issue (file, line, offset, reason); the
    lines after it are ingested; the issue is reported once and survives restarts."""
    log = lab.log(harness)
    bad, reason = MALFORMED[kind]
    before, after = words("good", 2), words("after", 3)
    lines = [*log.header(), *log.lines(before), bad, *log.lines(after, first_second=10)]
    log.write(lines)
    bad_line = len(log.header()) + len(before) + 1
    bad_offset = sum(len(f"{ln}\n".encode()) for ln in lines[: bad_line - 1])

    store = lab.store()
    summary = ingest(store)
    assert summary.issues == 1 and summary.events == len(lines) - 1
    [issue] = store.stats.issues
    assert (issue.file, issue.generation, issue.line, issue.offset) == (str(log.path), 1, bad_line, bad_offset)
    assert issue.reason.startswith(reason), issue.reason
    assert log.path.read_bytes()[issue.offset:].startswith(bad.encode())
    ids = {w: the_hit(store, w) for w in before + after}
    assert all(open_event(store, ids[w])[:2] == ("ok", f"{MARKER} {w}") for w in ids)
    assert hits(store, "arrayword") == []
    expected_lines = [n for n in range(1, len(lines) + 1) if n != bad_line]
    assert live_lines(store, log.path) == expected_lines

    # more lines later: read, and the old issue is not reported again
    log.append(log.lines(["late000"], first_second=30))
    summary = ingest(store)
    assert summary.issues == 0 and summary.events == 1
    ids["late000"] = the_hit(store, "late000")
    assert len(store.stats.issues) == 1
    assert_survives_restart(lab, store, log, ids, ids.values())

    # `moraine status` reports the quarantined line with its coordinates
    status = lab.cli_json("status")
    assert status["quarantined"] == [{"file": str(log.path), "generation": 1, "line": bad_line,
                                      "offset": bad_offset, "reason": issue.reason}]
