"""The secrets corpus end to end, nothing mocked: logs of both harnesses hold every credential of
`_secret_corpus` in every place a value can appear (prompt, reasoning, assistant text, tool
arguments, tool output, tool name, a quarantined line, cwd, git branch, the log's path); after
`moraine index` no secret is retrievable through any tool or the CLI, and no secret byte is in
$MORAINE_HOME. The lookalike corpus, in the same places, comes back verbatim and unredacted.

Each (place, harness) gets its own seed, so every placement holds a distinct secret value and a
leak names its kind, place and harness exactly.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import re2
from _secret_corpus import lookalikes, secrets
from cli_harness import MORAINE, Workspace, make_workspace

from moraine.index.tokenize import query_terms

EVENT_PLACES = ("prompt", "reasoning", "assistant", "tool_args", "tool_output", "tool_name", "quarantine")
SESSION_PLACES = ("cwd", "branch", "path")
PLACES = EVENT_PLACES + SESSION_PLACES
HARNESSES = ("codex", "claude-code")
SEARCHABLE = ["user_input", "assistant_response", "reasoning", "tool_call", "tool_response", "compaction",
              "system", "runtime"]
SECRET_SEED = 1000
LOOKALIKE_SEED = 7
START = datetime(2026, 3, 2, tzinfo=UTC)
WINDOW_HOURS = 40  # one session per hour: a list window of 40 hours holds at most 40 (< 50) sessions
MAX_NAME_BYTES = 180  # a file or folder name holds at most 255 bytes, with the rest of the name around it


@dataclass(frozen=True)
class Placement:
    kind: str
    place: str
    harness: str
    text: str  # what is written in the log
    secret: str  # what must never come back ("" for a lookalike)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _path_parts(text: str, secret: str) -> list[str] | None:
    """The text as a folder name for the `path` place (Claude names a project folder after its
    cwd; a Codex rollout may sit in any folder below its root). Only texts without "/" are placed
    (and none with a newline or NUL: PEM blocks, multi-line config files; nor one too long for a
    file name): a URI or a path split at its slashes no longer reads as the credential it was."""
    if "/" in text or "\n" in text or "\0" in text or len(text.encode()) > MAX_NAME_BYTES:
        return None
    return [text] if secret in text else None


class _Logs:
    """Writes Codex rollouts and Claude Code transcripts into a workspace, one session an hour."""

    def __init__(self, ws: Workspace, seed: int) -> None:
        self.ws = ws
        self.hour = 0
        self.seed = seed
        self.n = 0

    def _uuid(self) -> str:
        self.n += 1
        return str(uuid.UUID(int=(self.seed << 64) + self.n, version=4))

    def _start(self) -> datetime:
        self.hour += 1
        return START + timedelta(hours=self.hour)

    # -- Claude Code -------------------------------------------------------------------------

    def claude(self, items: list[Placement], place: str, folder: str = "-home-dev-corpus",
               cwd: str = "/home/dev/corpus", branch: str = "main") -> None:
        sid, start = self._uuid(), self._start()
        path = self.ws.claude / "projects" / folder / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines: list[str] = []
        clock = iter(start + timedelta(seconds=s) for s in range(100_000))

        def record(type_: str, message: dict[str, Any]) -> dict[str, Any]:
            return {"type": type_, "sessionId": sid, "cwd": cwd, "gitBranch": branch, "uuid": self._uuid(),
                    "timestamp": _iso(next(clock)), "message": message}

        def add(type_: str, message: dict[str, Any]) -> None:
            lines.append(json.dumps(record(type_, message)))

        if place != "prompt":
            add("user", {"role": "user", "content": "corpus items"})
        for i, item in enumerate(items):
            t, call = item.text, f"toolu_{i:04d}"
            if place == "prompt":
                add("user", {"role": "user", "content": t})
            elif place == "reasoning":
                add("assistant", {"role": "assistant", "model": "claude-opus-4-5", "content": [
                    {"type": "thinking", "thinking": t, "signature": "c2ln"}]})
            elif place == "assistant":
                add("assistant", {"role": "assistant", "model": "claude-opus-4-5", "content": [
                    {"type": "text", "text": t}]})
            elif place in ("tool_args", "tool_name", "tool_output"):
                name = t if place == "tool_name" else "Bash"
                command = t if place == "tool_args" else f"cat item{i}.txt"
                add("assistant", {"role": "assistant", "model": "claude-opus-4-5", "stop_reason": "tool_use",
                                  "content": [{"type": "tool_use", "id": call, "name": name,
                                               "input": {"command": command}}]})
                if place == "tool_output":
                    add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call,
                                                              "content": [{"type": "text", "text": t}],
                                                              "is_error": False}]})
            elif place == "quarantine":  # a torn write: the record without its closing brace
                lines.append(json.dumps(record("user", {"role": "user", "content": f"quarantined {i}: {t}"}))[:-1])
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    # -- Codex -------------------------------------------------------------------------------

    def codex(self, items: list[Placement], place: str, parts: tuple[str, ...] = (),
              cwd: str = "/home/dev/corpus", branch: str = "main") -> None:
        sid, start = self._uuid(), self._start()
        folder = self.ws.codex.joinpath("sessions", start.strftime("%Y/%m/%d"), *parts)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
        clock = iter(start + timedelta(seconds=s) for s in range(100_000))
        lines: list[str] = []

        def record(type_: str, payload: dict[str, Any]) -> dict[str, Any]:
            return {"timestamp": _iso(next(clock)), "type": type_, "payload": payload}

        def add(type_: str, payload: dict[str, Any]) -> None:
            lines.append(json.dumps(record(type_, payload)))

        add("session_meta", {"id": sid, "timestamp": _iso(start), "cwd": cwd, "originator": "codex_cli_rs",
                             "cli_version": "0.50.0", "git": {"branch": branch, "commit_hash": "0" * 40}})
        if place != "session":  # a session of its own for a branch or path: the meta record is enough
            add("turn_context", {"cwd": cwd, "model": "gpt-5.3-codex", "approval_policy": "on-request"})
        if place != "prompt":
            add("event_msg", {"type": "user_message", "message": "corpus items"})
        for i, item in enumerate(items):
            t, call = item.text, f"call_{i:04d}"
            if place == "prompt":
                add("event_msg", {"type": "user_message", "message": t})
            elif place == "reasoning":
                add("event_msg", {"type": "agent_reasoning", "text": t})
            elif place == "assistant":
                add("event_msg", {"type": "agent_message", "message": t})
            elif place in ("tool_args", "tool_name", "tool_output"):
                name = t if place == "tool_name" else "shell"
                command = ["bash", "-lc", t] if place == "tool_args" else ["cat", f"item{i}.txt"]
                add("response_item", {"type": "function_call", "name": name, "call_id": call,
                                      "arguments": json.dumps({"command": command, "workdir": "/repo"})})
                if place == "tool_output":
                    add("response_item", {"type": "function_call_output", "call_id": call, "output": t})
            elif place == "quarantine":  # a torn write: the record without its closing brace
                lines.append(json.dumps(record("event_msg", {"type": "user_message",
                                                             "message": f"quarantined {i}: {t}"}))[:-1])
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    # -- every placement ---------------------------------------------------------------------

    def write(self, corpus: dict[tuple[str, str], list[Placement]]) -> None:
        for (place, harness), items in corpus.items():
            if place in EVENT_PLACES:
                (self.codex if harness == "codex" else self.claude)(items, place)
                continue
            for item in items:
                one = [Placement(item.kind, "session", harness, "corpus item 1", "")]
                if place == "cwd":  # the cwd also goes into Codex's turn_context
                    (self.codex if harness == "codex" else self.claude)(one, "prompt", cwd=item.text)
                elif place == "branch":
                    (self.codex if harness == "codex" else self.claude)(one, "session", branch=item.text)
                else:
                    parts = _path_parts(item.text, item.secret) or []
                    if harness == "codex":
                        self.codex(one, "session", parts=tuple(parts))
                    else:
                        self.claude(one, "session", folder="-home-dev-" + "-".join(parts))


def _secret_corpus() -> dict[tuple[str, str], list[Placement]]:
    corpus: dict[tuple[str, str], list[Placement]] = {}
    for p, place in enumerate(PLACES):
        for h, harness in enumerate(HARNESSES):
            items = []
            for s in secrets(SECRET_SEED + 2 * p + h):
                if place == "path" and _path_parts(s.text, s.secret) is None:
                    continue
                items.append(Placement(s.kind, place, harness, s.text, s.secret))
            corpus[(place, harness)] = items
    return corpus


def _lookalike_corpus() -> dict[tuple[str, str], list[Placement]]:
    corpus: dict[tuple[str, str], list[Placement]] = {}
    for place in PLACES:
        for harness in HARNESSES:
            items = [Placement(item.kind, place, harness, item.text, "") for item in lookalikes(LOOKALIKE_SEED)]
            if place == "path":
                items = [i for i in items if _path_parts(i.text, "") is not None]
            corpus[(place, harness)] = items
    return corpus


# -- MCP over one `moraine mcp --standalone` process, calls pipelined ---------------------------


class _Mcp:
    def __init__(self, ws: Workspace) -> None:
        self.proc = subprocess.Popen([str(MORAINE), "mcp", "--standalone"], env=ws.env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.next_id = 1
        self._send([{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "secret-corpus-test", "version": "1"}}}])
        self._read({0})
        self._send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
        self.calls = 0

    def _send(self, messages: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        self.proc.stdin.flush()

    def _read(self, ids: set[int]) -> dict[int, dict[str, Any]]:
        assert self.proc.stdout is not None
        replies: dict[int, dict[str, Any]] = {}
        while len(replies) < len(ids):
            line = self.proc.stdout.readline()
            assert line, "moraine mcp closed stdout before answering every call"
            reply = json.loads(line)
            if reply.get("id") in ids:
                replies[reply["id"]] = reply
        return replies

    def batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Each call's result (structuredContent, plus the text blocks under `_text`); written by a
        thread while the replies are read, so neither pipe fills up."""
        if not calls:
            return []
        first = self.next_id
        self.next_id += len(calls)
        messages = [{"jsonrpc": "2.0", "id": first + i, "method": "tools/call",
                     "params": {"name": name, "arguments": args}} for i, (name, args) in enumerate(calls)]
        writer = threading.Thread(target=self._send, args=(messages,))
        writer.start()
        replies = self._read(set(range(first, first + len(calls))))
        writer.join()
        self.calls += len(calls)
        out = []
        for i in range(first, first + len(calls)):
            reply = replies[i]
            assert "result" in reply, reply
            result = reply["result"]
            structured = dict(result.get("structuredContent") or {})
            structured["_text"] = [c.get("text", "") for c in result.get("content", [])]
            out.append(structured)
        return out

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()


class _Pool:
    """A few `moraine mcp --standalone` processes answering one batch together (read-only calls)."""

    def __init__(self, ws: Workspace, size: int = 2) -> None:
        self.members = [_Mcp(ws) for _ in range(size)]

    @property
    def calls(self) -> int:
        return sum(m.calls for m in self.members)

    def batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        n = len(self.members)
        parts: list[list[dict[str, Any]]] = [[] for _ in range(n)]

        def run(k: int) -> None:
            parts[k] = self.members[k].batch(calls[k::n])

        threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        out: list[dict[str, Any]] = [{}] * len(calls)
        for k in range(n):
            out[k::n] = parts[k]
        return out

    def close(self) -> None:
        for member in self.members:
            member.close()


def _shown(reply: dict[str, Any]) -> str:
    """What a reply tells the caller, less the echo of the caller's own request (a search echoes
    its query, which here is the secret itself)."""
    body = {k: v for k, v in reply.items() if k not in ("request", "_text")}
    texts = list(reply.get("_text", []))
    query = (reply.get("request") or {}).get("query")
    if isinstance(query, str) and query:
        texts = [t.replace(query, "<query>") for t in texts]
    return json.dumps(body, ensure_ascii=False) + "\n" + "\n".join(texts)


def _windows() -> Iterator[tuple[str, str]]:
    moment = START
    while moment < START + timedelta(days=29):
        yield _iso(moment), _iso(moment + timedelta(hours=WINDOW_HOURS))
        moment += timedelta(hours=WINDOW_HOURS)


@dataclass
class _Walk:
    outputs: list[tuple[str, str]]  # (what was asked, what came back)
    sessions: dict[str, dict[str, Any]]  # session ID -> open(session) replies merged
    events: dict[str, dict[str, Any]]  # event ID -> open(event) reply (content pages joined)
    session_of_event: dict[str, str]


def _walk(mcp: _Pool) -> _Walk:
    """index_status, list_sessions over the whole window, then open every session, every turn,
    every event (every page of each)."""
    outputs: list[tuple[str, str]] = []
    status, *listed = mcp.batch([("index_status", {}), *[
        ("list_sessions", {"start_datetime": a, "end_datetime": b, "limit": 50}) for a, b in _windows()]])
    outputs.append(("index_status", _shown(status)))
    session_ids: list[str] = []
    for reply in listed:
        outputs.append(("list_sessions", _shown(reply)))
        assert not reply["data"]["truncated"], "a list window holds more than 50 sessions"
        session_ids += [s["id"] for s in reply["data"]["sessions"]]
    sessions: dict[str, dict[str, Any]] = {}
    turn_ids: list[str] = []
    pending = [(sid, None) for sid in session_ids]
    while pending:
        replies = mcp.batch([("open", {"id": sid, **({"cursor": c} if c else {})}) for sid, c in pending])
        nxt = []
        for (sid, _), reply in zip(pending, replies, strict=True):
            outputs.append((f"open {sid}", _shown(reply)))
            data = reply["data"]
            sessions.setdefault(sid, data)
            turn_ids += [t["id"] for t in data["turns"]]
            if data.get("next_cursor"):
                nxt.append((sid, data["next_cursor"]))
        pending = nxt
    event_ids: list[str] = []
    session_of_event: dict[str, str] = {}
    pending = [(tid, None) for tid in turn_ids]
    while pending:
        replies = mcp.batch([("open", {"id": tid, **({"cursor": c} if c else {})}) for tid, c in pending])
        nxt = []
        for (tid, _), reply in zip(pending, replies, strict=True):
            outputs.append((f"open {tid}", _shown(reply)))
            data = reply["data"]
            for event in data["events"]:
                event_ids.append(event["id"])
                session_of_event[event["id"]] = data["session"]["id"]
            if data.get("next_cursor"):
                nxt.append((tid, data["next_cursor"]))
        pending = nxt
    events: dict[str, dict[str, Any]] = {}
    pending_events = [(eid, 0) for eid in event_ids]
    while pending_events:
        replies = mcp.batch([("open", {"id": eid, "offset": off}) for eid, off in pending_events])
        nxt_events = []
        for (eid, off), reply in zip(pending_events, replies, strict=True):
            outputs.append((f"open {eid}@{off}", _shown(reply)))
            data = reply["data"]
            if eid in events:
                events[eid]["content"]["text"] += data["content"]["text"]
            else:
                events[eid] = data
            if data["content"].get("next_offset") is not None:
                nxt_events.append((eid, data["content"]["next_offset"]))
        pending_events = nxt_events
    return _Walk(outputs, sessions, events, session_of_event)


def _literal(value: str) -> str:
    """An RE2 pattern matching `value` literally (every punctuation character escaped)."""
    return "".join(c if c.isalnum() or c == "_" else "\\" + c for c in value)


def _forms(secret: str) -> list[str]:
    return sorted({secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]})


class _Finder:
    """Finds which of many secrets occur in a text: RE2 alternations of at most 64 literals each
    (a bigger one outgrows RE2's DFA memory and falls back to a slow matcher)."""

    def __init__(self, placements: list[Placement]) -> None:
        self.owner: dict[str, list[Placement]] = {}
        for p in placements:
            for form in _forms(p.secret):
                self.owner.setdefault(form, []).append(p)
        forms = sorted(self.owner, key=len, reverse=True)
        chunks = ["|".join(_literal(f) for f in forms[i: i + 64]) for i in range(0, len(forms), 64)]
        self.patterns = [re2.compile(c) for c in chunks]
        self.bytes_patterns = [re2.compile(c.encode()) for c in chunks]

    def find(self, text: str) -> set[Placement]:
        return {p for pattern in self.patterns for m in pattern.finditer(text) for p in self.owner[m.group(0)]}

    def find_bytes(self, data: bytes) -> set[Placement]:
        return {p for pattern in self.bytes_patterns for m in pattern.finditer(data)
                for p in self.owner[m.group(0).decode()]}


def _packed(values: list[str], fits: Callable[[list[str]], bool]) -> list[list[str]]:
    """`values` in consecutive groups, each as large as `fits` allows (at least one value)."""
    groups: list[list[str]] = []
    for value in values:
        if groups and fits([*groups[-1], value]):
            groups[-1].append(value)
        else:
            groups.append([value])
    return groups


def _index(ws: Workspace) -> None:
    result = ws.run("index", "--json", timeout=300)
    assert result.returncode == 0, result


def _report(title: str, found: set[Placement]) -> str:
    by_kind: dict[str, set[str]] = {}
    for p in found:
        by_kind.setdefault(p.kind, set()).add(f"{p.place}/{p.harness}")
    return f"{title}: {len(found)} placement(s), {len(by_kind)} kind(s)\n" + "\n".join(
        f"  {kind}: {sorted(where)}" for kind, where in sorted(by_kind.items()))


def test_no_secret_of_the_corpus_is_retrievable_or_stored(tmp_path: Path) -> None:
    began = time.monotonic()
    laps: dict[str, float] = {}

    def lap(name: str) -> None:
        laps[name] = round(time.monotonic() - began - sum(laps.values()), 1)

    ws = make_workspace(tmp_path / "ws", copy_logs=False)
    corpus = _secret_corpus()
    _Logs(ws, SECRET_SEED).write(corpus)
    placements = [p for items in corpus.values() for p in items]
    assert len({p.kind for p in placements}) >= 45
    expected_sessions = sum(1 if place in EVENT_PLACES else len(items) for (place, _), items in corpus.items())
    _index(ws)
    lap("index")
    finder = _Finder(placements)
    leaks: dict[Placement, set[str]] = {}

    def scan(where: str, text: str) -> None:
        for p in finder.find(text):
            leaks.setdefault(p, set()).add(where)

    mcp = _Pool(ws)
    try:
        walk = _walk(mcp)
        lap("walk")
        grouped: dict[str, list[str]] = {}
        for where, text in walk.outputs:
            grouped.setdefault(where.split()[0], []).append(text)
        for where, texts in grouped.items():
            scan(where, "\n\0\n".join(texts))
        lap("scan")
        missing_sessions = expected_sessions - len(walk.sessions)
        calls: list[tuple[str, dict[str, Any]]] = []
        # search_sessions by value: several secrets per query (each is its own rare terms, so a hit
        # is an event holding one of them), within the 32 terms a query uses.
        values = [p.secret for p in placements]
        for group in _packed(values, lambda g: len(query_terms(" ".join(g), 10_000)) <= 32):
            calls.append(("search_sessions", {"query": " ".join(group), "event_types": SEARCHABLE, "n_hits": 50}))
        # search_session_history: an alternation of literal secrets per call (patterns of at most
        # 2,000 characters); any match is a leak.
        for group in _packed(values, lambda g: len("|".join(map(_literal, g))) <= 2000):
            calls.append(("search_session_history", {"query": "|".join(map(_literal, group)), "max_results": 100,
                                                     "context_lines": 1}))
        for (name, args), reply in zip(calls, mcp.batch(calls), strict=True):
            if name == "search_sessions" and "error" not in reply:
                assert "data" in reply, reply
            if name == "search_session_history":
                assert "error" not in reply, reply
                shown = json.dumps({k: v for k, v in reply.items() if k != "_text"}) + "\n".join(reply["_text"])
                shown = shown.replace(json.dumps(args["query"])[1:-1], "<query>").replace(args["query"], "<query>")
                scan(name, shown)
            else:
                scan(name, _shown(reply))
        calls_made = mcp.calls
    finally:
        mcp.close()
    lap("search + history")
    # The CLI: status (text and JSON), list, and search by value (packed queries, as above) for a
    # sample of the secrets (each CLI call costs a process start; MCP above searched every one).
    cli = ws.run_many([["status", "--json"], ["status"],
                       ["list", "--since", "2026-03-01", "--until", "2026-04-01", "--json"]])
    for result in cli:
        assert result.returncode == 0, result
        scan("cli " + result.args[0], result.stdout + result.stderr)
    types = [arg for t in SEARCHABLE for arg in ("--type", t)]
    values = [p.secret for p in corpus[("prompt", "codex")][::4] + corpus[("tool_output", "claude-code")][1::4]]
    queries = [" ".join(g) for g in _packed(values, lambda g: len(query_terms(" ".join(g), 10_000)) <= 32)]
    for result in ws.run_many([["search", q, "--json", "-n", "50", *types] for q in queries], workers=4):
        body = result.json() if result.returncode == 0 else {"stderr": result.stderr}
        body.pop("request", None)
        scan("cli search", json.dumps(body, ensure_ascii=False))
    lap("cli")
    # Every byte of the state.
    files = ws.state_bytes()
    everything = b"".join(files.values())
    assert b"corpus item 1" in everything, "expected plain event text in the state"
    for path, data in files.items():
        for p in finder.find_bytes(data):
            leaks.setdefault(p, set()).add(f"state:{path.relative_to(ws.state).parts[0]}")
    lap("state")
    elapsed = time.monotonic() - began
    print(f"\nsecret placements: {len(placements)} ({len({p.kind for p in placements})} kinds x {len(PLACES)} places"
          f" x {len(HARNESSES)} harnesses), MCP calls: {calls_made}, leaked: {len(leaks)}, {elapsed:.1f} s {laps}")
    if leaks:
        for p, where in sorted(leaks.items(), key=lambda kv: (kv[0].kind, kv[0].place, kv[0].harness)):
            print(f"  {p.kind} {p.place}/{p.harness}: {sorted(where)}")
    assert not missing_sessions, f"{missing_sessions} session(s) missing from list_sessions"
    assert not leaks, _report("secrets retrievable or stored", set(leaks))


def _holds(walk: _Walk, p: Placement, session: dict[str, Any], events: list[dict[str, Any]]) -> bool:
    """The lookalike comes back verbatim where it was written (decoded structured content)."""
    brief = session["session"]
    if p.place == "cwd":
        return brief["cwd"] == p.text
    if p.place == "branch":
        return brief["git_branch"] == p.text
    if p.place == "path":
        parts = _path_parts(p.text, "") or []
        return any(("-".join(parts) if p.harness == "claude-code" else "/".join(parts)) in path
                   for path in session["log_paths"])
    for event in events:
        ev, content = event["event"], event["content"]
        if p.place == "tool_name" and ev.get("tool_name") == p.text:
            return True
        if p.place == "tool_args" and ev["type"] == "tool_call":
            arguments = json.dumps(content.get("arguments"), ensure_ascii=False)
            if p.text in content["text"] or json.dumps(p.text, ensure_ascii=False)[1:-1] in arguments:
                return True
        if p.place in ("prompt", "reasoning", "assistant", "tool_output") and content["text"] == p.text:
            return True
    return False


def test_no_lookalike_is_redacted(tmp_path: Path) -> None:
    began = time.monotonic()
    ws = make_workspace(tmp_path / "ws", copy_logs=False)
    corpus = _lookalike_corpus()
    logs = _Logs(ws, LOOKALIKE_SEED)
    logs.write(corpus)
    placements = [p for items in corpus.values() for p in items]
    _index(ws)
    mcp = _Pool(ws)
    try:
        walk = _walk(mcp)
    finally:
        mcp.close()
    redacted: dict[Placement, str] = {}
    cli = ws.run_many([["status", "--json"], ["status"]])
    state = ws.state_bytes()
    # Which session holds which placement: event-level places have one session per (place, harness)
    # with the items in order; session-level places one session per item. Sessions are an hour apart.
    by_start: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    events_of: dict[str, list[dict[str, Any]]] = {}
    for eid, event in walk.events.items():
        events_of.setdefault(walk.session_of_event[eid], []).append(event)
    for sid, session in walk.sessions.items():
        by_start[session["session"]["started_at"][:13]] = (session, events_of.get(sid, []))
    hour = 0
    for (place, _harness), items in corpus.items():
        groups = [items] if place in EVENT_PLACES else [[p] for p in items]
        for group in groups:
            hour += 1
            key = _iso(START + timedelta(hours=hour))[:13]
            if key not in by_start:
                for p in group:
                    redacted[p] = "session not found"
                continue
            session, events = by_start[key]
            for i, p in enumerate(group):
                if place == "quarantine":
                    # No tool shows a quarantined line's text: its stored fragment (the raw line,
                    # redacted) must hold the lookalike as the line had it, JSON-escaped.
                    fragment = f"quarantined {i}: {json.dumps(p.text)[1:-1]}".encode()
                    if not any(fragment in data for data in state.values()):
                        redacted[p] = "quarantined fragment differs"
                elif not _holds(walk, p, session, events):
                    redacted[p] = "not found verbatim"
    marked = sorted({where.split()[0] for where, text in walk.outputs if "[REDACTED" in text})
    marked += [f"cli {r.args[0]} {' '.join(r.args[1:])}" for r in cli if "[REDACTED" in r.stdout]
    marked += sorted({f"state:{path.relative_to(ws.state).parts[0]}" for path, data in state.items()
                      if b"[REDACTED" in data})
    elapsed = time.monotonic() - began
    print(f"\nlookalike placements: {len(placements)} ({len({p.kind for p in placements})} kinds), "
          f"redacted: {len(redacted)}, outputs with [REDACTED: {len(marked)}, {elapsed:.1f} s")
    if redacted:
        print(_report("redacted or altered", set(redacted)))
    assert not redacted and not marked, _report("lookalikes redacted", set(redacted)) + f"\n[REDACTED in: {marked}"
