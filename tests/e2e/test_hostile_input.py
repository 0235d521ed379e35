"""Hostile and unlucky input through the real CLI: no log line, log file or old WAL frame can
stop ingest or make the state unusable.

Every case plants its bad input between good lines that carry unique words, then checks:
`moraine index` completes (exit 0, no traceback), each good word is found exactly once, the
bad line is quarantined with its coordinates (or its file reported), and the state keeps
working across a restart (a new process), `moraine reindex` and `moraine doctor`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_harness import MORAINE, Workspace, make_workspace, mcp_calls

SID = "019ceb9d-0000-7000-8000-00000000beef"
CLAUDE_SID = "8913b891-0000-41db-821f-0000000000aa"
TS = "2026-03-14T09:12:03.000Z"


def _codex(kind: str, payload: dict[str, Any], ts: Any = TS) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def _claude(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "sessionId": CLAUDE_SID, "timestamp": TS, "cwd": "/home/dev/hostile", **fields}


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


# (name, raw line, word that must stay findable when the line is kept, or None when quarantined whole)
CODEX_POISON: list[tuple[str, str, str | None]] = [
    ("timestamp 1e19", json.dumps(_codex("event_msg", {"type": "agent_message", "message": "poisonts alpha"}, 1e19)),
     "poisonts"),
    ("timestamp NaN", '{"timestamp":NaN,"type":"event_msg","payload":{"type":"agent_message","message":"poisonnan"}}',
     "poisonnan"),
    ("model as a list", json.dumps(_codex("turn_context", {"model": ["x"], "cwd": ["a"]})), None),
    ("phase as a number", json.dumps(_codex("event_msg", {"type": "agent_message", "message": "poisonphase",
                                                          "phase": 1})), "poisonphase"),
    ("exit code past 64 bits", json.dumps(_codex("response_item", {
        "type": "function_call_output", "call_id": "c1",
        "output": "Exit code 99999999999999999999999\npoisonexit"})), "poisonexit"),
    ("argument integer past 64 bits", '{"timestamp":"' + TS + '","type":"response_item","payload":{"type":'
     '"function_call","name":"shell","call_id":"c2","arguments":{"n":123456789012345678901234567890,'
     '"cmd":"poisonbigarg"}}}', "poisonbigarg"),
    ("arguments nested 600 deep", json.dumps(_codex("response_item", {
        "type": "function_call", "name": "shell", "call_id": "c3",
        "arguments": {"cmd": "poisondeeparg", "x": json.loads(_deep(600))}})), "poisondeeparg"),
    ("JSON nested 1100 deep", _deep(1100), None),
    ("name as an object", json.dumps(_codex("response_item", {
        "type": "function_call", "name": {"a": 1}, "call_id": ["c4"], "arguments": "poisonname"})), "poisonname"),
    ("session id as a number", json.dumps(_codex("session_meta", {"id": 12345678901234567890123})), None),
    ("not an object", "[1, 2, 3]", None),
    ("lone surrogate", '{"timestamp":"' + TS + '","type":"event_msg","payload":{"type":"agent_message",'
     '"message":"poisonsurrogate \\ud800 end"}}', "poisonsurrogate"),
    ("invalid UTF-8", None, None),  # written as raw bytes below
]
CLAUDE_POISON: list[tuple[str, str, str | None]] = [
    ("cwd as a list", json.dumps(_claude("user", cwd=["a"], message={"role": "user", "content": "poisoncwd"})),
     "poisoncwd"),
    ("model as a list", json.dumps(_claude("assistant", message={"role": "assistant", "model": ["x"], "content": [
        {"type": "text", "text": "poisonmodel"}]})), "poisonmodel"),
    ("session id as a huge integer", '{"type":"user","sessionId":123456789012345678901234567890,"timestamp":"'
     + TS + '","message":{"role":"user","content":"poisonsid"}}', "poisonsid"),
    ("tool input nested 200 deep", json.dumps(_claude("assistant", message={"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "poisontooldeep",
                                                                   "x": json.loads(_deep(200))}}]})),
     "poisontooldeep"),
    ("title as a map", json.dumps(_claude("custom-title", customTitle={"t": "poisontitle"})), "poisontitle"),
    ("content as a number", json.dumps(_claude("user", message={"role": "user", "content": 10**30})), None),
]


def _write_log(path: Path, cases: list[tuple[str, str | None, str | None]], prefix: str) -> dict[str, int]:
    """Good lines (one unique word each) around every bad one; returns bad case → line number."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[bytes] = []
    where: dict[str, int] = {}
    for i, (name, raw, _) in enumerate(cases):
        lines.append(_good(prefix, i).encode())
        where[name] = len(lines) + 1
        lines.append(raw.encode("utf-8") if raw is not None else b'{"type":"user","message":"\xff\xfe broken"}')
    lines.append(_good(prefix, len(cases)).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")
    return where


def _good(prefix: str, i: int) -> str:
    word = f"{prefix}good{i:02d}"
    if prefix == "codex":
        return json.dumps(_codex("event_msg", {"type": "user_message", "message": f"{word} please"}))
    return json.dumps(_claude("user", message={"role": "user", "content": f"{word} please"}))


@pytest.fixture
def poisoned(tmp_path: Path) -> tuple[Workspace, dict[str, dict[str, int]]]:
    ws = make_workspace(tmp_path / "ws")
    codex = ws.codex / "sessions/2026/03/14" / f"rollout-2026-03-14T09-12-03-{SID}.jsonl"
    claude = ws.claude / "projects/-home-dev-hostile" / f"{CLAUDE_SID}.jsonl"
    where = {"codex": _write_log(codex, CODEX_POISON, "codex"), "claude": _write_log(claude, CLAUDE_POISON, "claude")}
    return ws, {"paths": {"codex": str(codex), "claude": str(claude)}, **where}  # type: ignore[dict-item]


def _hits(ws: Workspace, word: str) -> list[dict[str, Any]]:
    kinds = ("user_input", "assistant_response", "tool_call", "tool_response", "system")
    types = [a for t in kinds for a in ("--type", t)]
    result = ws.run("search", word, "--json", "-n", "50", *types)
    assert result.returncode == 0, result
    return [h for h in result.json()["data"]["results"] if word in json.dumps(h)]


def _assert_usable(ws: Workspace, words: list[str]) -> None:
    """Each word found once and its event opened, by a new process (`moraine mcp`, one for the
    searches and one for the opens: a CLI process per call made this test minutes long)."""
    kinds = ["user_input", "assistant_response", "tool_call", "tool_response", "system"]
    found = mcp_calls(ws, ws.env(), [("search_sessions", {"query": word, "n_hits": 50, "event_types": kinds})
                                     for word in words])
    event_ids = []
    for word, envelope in zip(words, found, strict=True):
        hits = [h for h in envelope["data"]["results"] if word in json.dumps(h)]
        assert len(hits) == 1, f"{word}: {len(hits)} hits"
        event_ids.append(hits[0]["open"]["event_id"])
    opened = mcp_calls(ws, ws.env(), [("open", {"id": event_id}) for event_id in event_ids])
    assert all("error" not in envelope and envelope["data"]["kind"] == "event" for envelope in opened), opened
    status = ws.run("status", "--json")
    assert status.returncode == 0, status


def test_poison_lines_never_break_the_state(poisoned: tuple[Workspace, dict[str, Any]]) -> None:
    ws, where = poisoned
    first = ws.run("index", "--json")
    assert first.returncode == 0, first
    good = [f"codexgood{i:02d}" for i in range(len(CODEX_POISON) + 1)]
    good += [f"claudegood{i:02d}" for i in range(len(CLAUDE_POISON) + 1)]
    kept = [word for _, _, word in CODEX_POISON + CLAUDE_POISON if word]
    _assert_usable(ws, good + kept)

    status = ws.run("status", "--json").json()
    by_line = {(q["file"], q["line"]): q for q in status["quarantined"]}
    for harness, cases in (("codex", CODEX_POISON), ("claude", CLAUDE_POISON)):
        path = where["paths"][harness]
        for name, _, _ in cases:
            line = where[harness][name]
            if name in ("lone surrogate", "invalid UTF-8"):
                continue  # repaired on read (U+FFFD), as the log's own text would show it
            assert (path, line) in by_line, f"{harness} {name!r} (line {line}) not reported: {status['quarantined']}"
            assert by_line[(path, line)]["offset"] > 0
    assert status["skipped_wal_frames"] == []

    # The state keeps working in new processes, after a reindex and under the doctor.
    reindexed = ws.run("reindex", "--json")
    assert reindexed.returncode == 0, reindexed
    _assert_usable(ws, good + kept)
    doctor = ws.run("doctor", "--json")
    assert doctor.returncode == 0 and doctor.json()["healthy"], doctor


def test_poison_appended_to_a_live_log_is_absorbed(poisoned: tuple[Workspace, dict[str, Any]]) -> None:
    """A second pass over appended poison (the daemon's path) works the same as a first."""
    ws, where = poisoned
    assert ws.run("index").returncode == 0
    path = Path(where["paths"]["codex"])
    with path.open("a") as fh:
        for _name, raw, _ in CODEX_POISON:
            if raw is not None:
                fh.write(raw + "\n")
        fh.write(_good("codex", 99) + "\n")
    assert ws.run("index").returncode == 0
    _assert_usable(ws, ["codexgood99", "codexgood00"])


def _old_frame(ws: Workspace, rows: list[list[Any]]) -> None:
    """Append a frame as a version without screening wrote them."""
    wal_dir = ws.state / "wal"
    newest = sorted(wal_dir.glob("*.log"))[-1]
    from moraine.store.wal import Wal

    Wal(newest).append({"events": rows, "issues": [], "checkpoints": {}, "at": 1})


def _row(uid: str, **over: Any) -> list[Any]:
    fields = {"uid": uid, "key": "codex:poisoned", "source": "codex", "type": "assistant_response",
              "ts": 1_773_480_000_000, "text": "frameword", "tool": None, "call": None, "args": None, "exit": None,
              "model": None, "starts": False, "terminal": 0, "excluded": False, "phase": None,
              "file": "/old/log.jsonl", "line": 7, "offset": 99, "sub": 0, "meta": {}}
    fields.update(over)
    return list(fields.values())


def test_an_old_poisoned_wal_frame_is_quarantined_not_fatal(fresh: Workspace) -> None:
    ws = fresh
    assert ws.run("index").returncode == 0
    _old_frame(ws, [
        _row("a" * 26, ts=10**19),
        _row("b" * 26, model=["x"], line=8),
        _row("c" * 26, meta={"cwd": ["a"]}, line=9),
        _row("d" * 26, text="goodframeword", line=10),
    ])
    status = ws.run("status", "--json")
    assert status.returncode == 0, status
    reasons = {(q["file"], q["line"]): q["reason"] for q in status.json()["quarantined"]}
    for line in (7, 8, 9):
        assert reasons[("/old/log.jsonl", line)].startswith("rejected_event"), reasons
    assert len(_hits(ws, "goodframeword")) == 1  # the good row of the same frame applied
    assert "error" not in ws.run("search", "migration", "--json").json()
    doctor = ws.run("doctor", "--json")
    assert doctor.returncode == 0, doctor
    assert sum(len(w["rejected"]) for w in doctor.json()["wal"]) == 3
    snap = ws.run("snapshot", "--json")  # a snapshot covers the frame: the WAL no longer holds it
    assert snap.returncode == 0, snap
    assert ws.run("reindex").returncode == 0
    assert ws.run("status").returncode == 0


def test_unreadable_and_odd_files_are_reported_and_the_rest_indexed(fresh: Workspace, tmp_path: Path) -> None:
    ws = fresh
    projects = ws.claude / "projects" / "-home-dev-odd"
    projects.mkdir(parents=True)
    good = projects / f"{CLAUDE_SID}.jsonl"
    good.write_text(_good("claude", 1) + "\n")
    bad_name = os.fsencode(str(projects)) + b"/bad-\xff\xfe-name.jsonl"
    with open(bad_name, "wb") as fh:
        fh.write((_good("claude", 2) + "\n").encode())
    (projects / "loop.jsonl").symlink_to(projects / "loop.jsonl")
    (projects / "passwd.jsonl").symlink_to("/etc/passwd")
    (projects / "dangling.jsonl").symlink_to(projects / "gone.jsonl")
    os.mkfifo(projects / "fifo.jsonl")
    inside = projects / "inside-link.jsonl"
    target = ws.claude / "projects" / "-home-dev-webapp" / "8913b891-d960-41db-821f-22cd6e66f0d2.jsonl"
    inside.symlink_to(target)
    result = ws.run("index", "--json")
    assert result.returncode == 0, result
    assert len(_hits(ws, "claudegood01")) == 1
    status = ws.run("status", "--json").json()
    unreadable = status["unreadable_files"]
    assert any("bad-" in p and "UTF-8" in r for p, r in unreadable.items()), unreadable
    assert "symlink loop" in unreadable[str(projects / "loop.jsonl")]
    assert "outside the source root" in unreadable[str(projects / "passwd.jsonl")]
    assert "dangling" in unreadable[str(projects / "dangling.jsonl")]
    assert "not a regular file" in unreadable[str(projects / "fifo.jsonl")]
    assert str(inside) in {f["path"] for f in status["files"]["claude-code"]}  # a link inside the root is read
    warned = mcp_calls(ws, ws.env(), [("index_status", {})])[0]["warnings"]  # an agent is told, by name
    assert any(f"{len(unreadable)} log file(s) cannot be read: " in w for w in warned), warned
    passwd = Path("/etc/passwd").read_bytes().split(b"\n")[0]
    assert all(passwd not in data for data in ws.state_bytes().values()), "a line of /etc/passwd was stored"
    # Once the problem is gone, so is its report.
    (projects / "loop.jsonl").unlink()
    assert ws.run("index").returncode == 0
    assert str(projects / "loop.jsonl") not in ws.run("status", "--json").json()["unreadable_files"]


def test_an_unreadable_log_is_retried_until_it_can_be_read(fresh: Workspace) -> None:
    """chmod 000 stops the owner only without CAP_DAC_OVERRIDE: as root, the CLI runs under
    `setpriv` with those capabilities dropped, as an ordinary user would be."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is None:
        pytest.skip("running as root and setpriv is missing: cannot make a file unreadable to this process")
    prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    ws = fresh
    log = ws.claude / "projects" / "-home-dev-locked" / f"{CLAUDE_SID}.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(_good("claude", 5) + "\n")
    log.chmod(0)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*prefix, str(MORAINE), *args], env=ws.env(), capture_output=True, text=True,
                              timeout=120, check=False)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    first = run("index", "--json")
    assert first.returncode == 0, first.stderr
    status = json.loads(run("status", "--json").stdout)
    assert "cannot read" in status["unreadable_files"][str(log)]
    assert "error" not in json.loads(run("search", "migration", "--json").stdout)  # the rest was indexed
    log.chmod(0o600)
    assert run("index").returncode == 0
    assert len(_hits(ws, "claudegood05")) == 1
    assert str(log) not in json.loads(run("status", "--json").stdout)["unreadable_files"]


def test_an_oversized_line_is_quarantined_in_bounded_memory(fresh: Workspace) -> None:
    ws = fresh
    log = ws.codex / "sessions/2026/03/14" / f"rollout-2026-03-14T09-12-03-{SID}.jsonl"
    big = json.dumps(_codex("event_msg", {"type": "agent_message", "message": "x" * (17 * 1024 * 1024)}))
    log.write_text(_good("codex", 1) + "\n" + big + "\n" + _good("codex", 2) + "\n")
    result = ws.run("index", "--json")
    assert result.returncode == 0, result
    assert len(_hits(ws, "codexgood01")) == 1 and len(_hits(ws, "codexgood02")) == 1
    quarantined = ws.run("status", "--json").json()["quarantined"]
    too_large = [q for q in quarantined if q["file"] == str(log)]
    assert len(too_large) == 1 and too_large[0]["line"] == 2 and "line_too_large" in too_large[0]["reason"]

