"""Shared harness of the contract suite: a real `moraine mcp` subprocess over a small corpus.

Nothing is mocked. Each test module gets its own temporary corpus (Codex rollouts and Claude
Code transcripts written below), its own state directory and its own `moraine mcp` server,
driven through the official MCP SDK client (`mcp.client.stdio` + `ClientSession`) from a
blocking anyio portal, so the tests themselves stay synchronous.

The corpus is designed so that queries have known answers:

    S1 codex  "alpha"   2026-03-10 09:00:00.000Z → 09:20:00.000Z  tool_calling, 3 turns, last incomplete
    S2 claude "beta"    2026-03-10 10:00:00.000Z → 10:30:00.000Z  web_search,   2 turns, completed
    S3 codex  "gamma"   2026-03-10 11:00:00.000Z → 11:05:00.000Z  chat,         1 turn, one huge reply
    S5 claude "epsilon" 2026-03-10 11:01:00.000Z → 11:05:00.000Z  chat,         1 turn (updated_at tie with S3)
    S4 claude "delta"   2026-03-10 12:00:00.000Z → 12:45:00.000Z  chat,         8 turns, 16 "pelican" events
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

MORAINE = Path(sys.executable).parent / "moraine"
CALL_TIMEOUT_S = 60.0

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$")
SESSION_ID_RE = re.compile(r"^session:")
TURN_ID_RE = re.compile(r"^turn:")
EVENT_ID_RE = re.compile(r"^event:")

CANONICAL_TYPES = [
    "user_input",
    "assistant_response",
    "reasoning",
    "tool_call",
    "tool_response",
    "compaction",
    "system",
    "runtime",
]
DEFAULT_TYPES = ["user_input", "assistant_response", "tool_response"]

DAY_START = "2026-03-10T00:00:00Z"
DAY_END = "2026-03-11T00:00:00Z"

# Well-formed IDs (by this implementation's ID grammar) that name nothing in the corpus.
UNKNOWN_SESSION = "session:ses_" + "a" * 26
UNKNOWN_TURN = "turn:trn_" + "a" * 26 + "_1"
UNKNOWN_EVENT = "event:evt_" + "a" * 26


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(path: Path, records: list[dict[str, Any]], mode: str = "w") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode, encoding="utf-8") as handle:
        for record in records:
            handle.write(_line(record) + "\n")


def cx(ts: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """One Codex rollout record."""
    return {"timestamp": ts, "type": kind, "payload": payload}


def cx_user(ts: str, text: str, mirror_first: bool = False) -> list[dict[str, Any]]:
    """A genuine Codex prompt: the response_item message and its event_msg mirror (one event)."""
    pair = [
        cx(ts, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
        cx(ts, "event_msg", {"type": "user_message", "message": text, "images": []}),
    ]
    return pair[::-1] if mirror_first else pair


def cx_assistant(ts: str, text: str, mirror_first: bool = False) -> list[dict[str, Any]]:
    """A Codex reply: the response_item message and its event_msg agent_message mirror."""
    pair = [
        cx(
            ts,
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]},
        ),
        cx(ts, "event_msg", {"type": "agent_message", "message": text}),
    ]
    return pair[::-1] if mirror_first else pair


def cx_call(ts: str, call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return cx(
        ts,
        "response_item",
        {"type": "function_call", "name": name, "call_id": call_id, "arguments": json.dumps(arguments)},
    )


def cx_output(ts: str, call_id: str, output: str) -> dict[str, Any]:
    return cx(ts, "response_item", {"type": "function_call_output", "call_id": call_id, "output": output})


def cx_complete(ts: str, last: str | None) -> dict[str, Any]:
    return cx(ts, "event_msg", {"type": "task_complete", "last_agent_message": last})


def cx_header(ts: str, sid: str, cwd: str) -> list[dict[str, Any]]:
    return [
        cx(
            ts,
            "session_meta",
            {
                "id": sid,
                "timestamp": ts,
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.46.0",
                "instructions": None,
            },
        ),
        cx(
            ts,
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n"
                        "  <approval_policy>on-request</approval_policy>\n"
                        "</environment_context>",
                    }
                ],
            },
        ),
        cx(
            ts, "turn_context", {"cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex", "summary": "auto"}
        ),
    ]


class Claude:
    """Builds one Claude Code transcript with a parent-uuid chain."""

    def __init__(self, sid: str, cwd: str) -> None:
        self.sid, self.cwd, self.records, self.n = sid, cwd, [], 0
        self.parent: str | None = None

    def _base(self, kind: str, ts: str) -> dict[str, Any]:
        self.n += 1
        uuid = f"{self.sid[:8]}-0000-4000-8000-{self.n:012d}"
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": "2.0.14",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": ts,
        }
        self.parent = uuid
        self.records.append(record)
        return record

    def user(self, ts: str, text: str) -> None:
        self._base("user", ts)["message"] = {"role": "user", "content": text}

    def assistant(self, ts: str, blocks: list[dict[str, Any]], stop: str | None, msg_id: str) -> None:
        record = self._base("assistant", ts)
        record["requestId"] = f"req_{msg_id}"
        record["message"] = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 40},
        }

    def tool_result(self, ts: str, tool_use_id: str, text: str, is_error: bool) -> None:
        record = self._base("user", ts)
        record["message"] = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": text, "is_error": is_error}],
        }
        record["toolUseResult"] = {"stdout": text, "stderr": "", "interrupted": False}

    def system(self, ts: str, subtype: str, **extra: Any) -> None:
        record = self._base("system", ts)
        record.update({"subtype": subtype, **extra})


# Distinctive words and texts with known answers.
S1_PROMPT1 = (
    "The ClickHouse schema migration failure happens after adding the event ordinal column. "
    "Please find the issue and fix it."
)
S1_FINAL1 = (
    "Updated the migration ordering and verified the ClickHouse schema applies cleanly; "
    "the migration failure is resolved."
)
S1_REASONING = "**Considering xylophonic ordering**\n\nThe migration list might be applied out of order."
S1_CALL1_ARGS = {"cmd": "ocelotscript --check db && cargo test -p store", "workdir": "/repo/alpha"}
S1_OUTPUT1 = (
    "Exit code: 101\nWall time: 3.2 seconds\nOutput:\nrunning 3 tests\n"
    "test ordinal_column_added ... ok\ntest rollback_is_clean ... FAILED\n"
    "cargo test failed: 1 failed, 2 passed\n"
)
S1_PROMPT2 = "Now document the quokka service rollback procedure."
S1_FINAL2 = "The quokka rollback procedure is documented in docs/rollback.md."
S1_COMPACTION = "Compacted summary: capybara checkpoint of the rollback work."
S1_PROMPT3 = "Check whether the wombat monitor starts after the latest config change."

S2_PROMPT1 = "Research the latest narwhal protocol release notes and run the lint suite."
S2_THINKING = "The user wants the narwhal notes first; marmalade heuristics suggest searching the web."
S2_SEARCH_RESULT = "Narwhal protocol 4.2 released with streaming support and a new codec."
S2_LINT_OUTPUT = "Exit code 2\nlint: 3 errors in src/narwhal/codec.py"
S2_FINAL1 = "Narwhal 4.2 adds streaming; the lint suite reports 3 errors in the narwhal codec."
S2_PROMPT2 = "Summarize the narwhal lint errors in one sentence."
S2_FINAL2 = "Three lint errors remain in the narwhal codec module."

S3_PROMPT = "Write a long field report about albatross flight over the southern ocean."
S3_MARKER = "thermal soaring lattice"
_ESSAY = [
    "The wandering albatross covers thousands of kilometres on a single foraging trip.",
    "Dynamic soaring lets the albatross extract energy from the wind gradient above the waves.",
    "Observers on the survey vessel logged every albatross that crossed the wake.",
    f"Our notes call the repeating arc pattern a {S3_MARKER}, lacking a better name.",
    "Juvenile birds spend years at sea before returning to the colony to breed.",
    "Satellite tags show the albatross circling the southern ocean more than once a year.",
]
S3_TAIL_WORD = "petrel"
S3_FINAL = (
    " ".join(_ESSAY[i % len(_ESSAY)] + f" (observation {i})" for i in range(90))
    + f" The survey closed with a sighting of a lone {S3_TAIL_WORD}."
)

S4_TURNS = 8
S4_TWIN = "Cormorant reminder: cormorants dive deep."
S5_PROMPT = "Quick question about the heron nesting season."
S5_FINAL = "Herons usually nest from late winter through early summer."


@dataclass
class Corpus:
    root: Path
    codex_home: Path
    claude_home: Path
    moraine_home: Path
    files: dict[str, Path] = field(default_factory=dict)
    harness_env: dict[str, str] = field(default_factory=dict)  # roots of more harnesses (default: none)
    # The known session windows: name -> (started_at, updated_at, mode, turn_count)
    sessions: dict[str, tuple[str, str, str, int]] = field(default_factory=dict)


def build_corpus(root: Path) -> Corpus:
    corpus = Corpus(root, root / "codex", root / "claude", root / "moraine-home")
    corpus.moraine_home.mkdir(parents=True)

    # S1: Codex, tool calling, three turns, the last one incomplete.
    sid1 = "0195a1b2-0000-7000-8000-00000000a001"
    s1 = [
        *cx_header("2026-03-10T09:00:00.000Z", sid1, "/repo/alpha"),
        cx("2026-03-10T09:00:02.000Z", "event_msg", {"type": "task_started", "model_context_window": 272000}),
        *cx_user("2026-03-10T09:00:02.500Z", S1_PROMPT1),
        cx(
            "2026-03-10T09:00:04.000Z",
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": S1_REASONING}],
                "content": None,
                "encrypted_content": "gAAAAABo-opaque-ciphertext",
            },
        ),
        cx("2026-03-10T09:00:04.000Z", "event_msg", {"type": "agent_reasoning", "text": S1_REASONING}),
        cx_call("2026-03-10T09:00:05.000Z", "call_a1", "exec_command", S1_CALL1_ARGS),
        cx_output("2026-03-10T09:00:09.000Z", "call_a1", S1_OUTPUT1),
        cx("2026-03-10T09:00:10.000Z", "event_msg", {"type": "token_count", "info": None, "rate_limits": None}),
        *cx_assistant("2026-03-10T09:00:12.000Z", S1_FINAL1),
        cx_complete("2026-03-10T09:00:12.500Z", S1_FINAL1),
        # turn 2
        cx("2026-03-10T09:05:00.000Z", "event_msg", {"type": "task_started", "model_context_window": 272000}),
        *cx_user("2026-03-10T09:05:00.500Z", S1_PROMPT2),
        cx(
            "2026-03-10T09:05:03.000Z",
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_a2",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Add File: docs/rollback.md\n+Rollback steps\n*** End Patch\n",
            },
        ),
        cx(
            "2026-03-10T09:05:04.000Z",
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "call_a2",
                "output": json.dumps(
                    {
                        "output": "Success. Updated the following files:\nA docs/rollback.md\n",
                        "metadata": {"exit_code": 0, "duration_seconds": 0.1},
                    }
                ),
            },
        ),
        *cx_assistant("2026-03-10T09:05:06.000Z", S1_FINAL2),
        cx_complete("2026-03-10T09:05:06.500Z", S1_FINAL2),
        # a context compaction between turns (searchable only when asked for)
        cx(
            "2026-03-10T09:10:00.000Z",
            "compacted",
            {
                "message": S1_COMPACTION,
                "replacement_history": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": S1_PROMPT1}]}
                ],
            },
        ),
        # turn 3: still running (no output, no task_complete)
        cx("2026-03-10T09:19:50.000Z", "event_msg", {"type": "task_started", "model_context_window": 272000}),
        *cx_user("2026-03-10T09:19:50.500Z", S1_PROMPT3),
        cx_call("2026-03-10T09:20:00.000Z", "call_a3", "exec_command", {"cmd": "bin/monitor status"}),
    ]
    corpus.files["S1"] = corpus.codex_home / "sessions/2026/03/10" / f"rollout-2026-03-10T09-00-00-{sid1}.jsonl"
    write_jsonl(corpus.files["S1"], s1)
    corpus.sessions["S1"] = ("2026-03-10T09:00:00.000Z", "2026-03-10T09:20:00.000Z", "tool_calling", 3)

    # S2: Claude Code, web search + Bash, two completed turns.
    sid2 = "7c666c01-d38e-4658-8650-0000000000b2"
    c2 = Claude(sid2, "/repo/beta")
    c2.user("2026-03-10T10:00:00.000Z", S2_PROMPT1)
    c2.assistant(
        "2026-03-10T10:00:03.000Z", [{"type": "thinking", "thinking": S2_THINKING, "signature": "sig"}], None, "msg_b1"
    )
    c2.assistant(
        "2026-03-10T10:00:04.000Z",
        [
            {
                "type": "tool_use",
                "id": "toolu_b1",
                "name": "WebSearch",
                "input": {"query": "narwhal protocol release notes"},
            }
        ],
        "tool_use",
        "msg_b1",
    )
    c2.tool_result("2026-03-10T10:00:06.000Z", "toolu_b1", S2_SEARCH_RESULT, False)
    c2.assistant(
        "2026-03-10T10:00:08.000Z",
        [
            {
                "type": "tool_use",
                "id": "toolu_b2",
                "name": "Bash",
                "input": {"command": "make lint", "description": "Run linter"},
            }
        ],
        "tool_use",
        "msg_b2",
    )
    c2.tool_result("2026-03-10T10:00:12.000Z", "toolu_b2", S2_LINT_OUTPUT, True)
    c2.assistant("2026-03-10T10:00:15.000Z", [{"type": "text", "text": S2_FINAL1}], "end_turn", "msg_b3")
    c2.system("2026-03-10T10:00:16.000Z", "turn_duration", durationMs=16000, isMeta=False)
    c2.user("2026-03-10T10:25:00.000Z", S2_PROMPT2)
    c2.assistant("2026-03-10T10:30:00.000Z", [{"type": "text", "text": S2_FINAL2}], "end_turn", "msg_b4")
    corpus.files["S2"] = corpus.claude_home / "projects/-repo-beta" / f"{sid2}.jsonl"
    write_jsonl(corpus.files["S2"], c2.records)
    corpus.sessions["S2"] = ("2026-03-10T10:00:00.000Z", "2026-03-10T10:30:00.000Z", "web_search", 2)

    # S3: Codex chat with one huge reply.
    sid3 = "0195a1b2-0000-7000-8000-00000000c003"
    s3 = [
        *cx_header("2026-03-10T11:00:00.000Z", sid3, "/repo/gamma"),
        # this rollout writes the event_msg mirror before the response_item (both orders occur)
        *cx_user("2026-03-10T11:00:01.000Z", S3_PROMPT, mirror_first=True),
        *cx_assistant("2026-03-10T11:04:59.000Z", S3_FINAL, mirror_first=True),
        cx_complete("2026-03-10T11:05:00.000Z", S3_FINAL[:200]),
    ]
    corpus.files["S3"] = corpus.codex_home / "sessions/2026/03/10" / f"rollout-2026-03-10T11-00-00-{sid3}.jsonl"
    write_jsonl(corpus.files["S3"], s3)
    corpus.sessions["S3"] = ("2026-03-10T11:00:00.000Z", "2026-03-10T11:05:00.000Z", "chat", 1)

    # S4: Claude Code chat, eight turns, "pelican" in every prompt and reply (16 events).
    sid4 = "7c666c01-d38e-4658-8650-0000000000d4"
    c4 = Claude(sid4, "/repo/delta")
    for i in range(S4_TURNS):
        minute = 5 * i
        c4.user(
            f"2026-03-10T12:{minute:02d}:00.000Z",
            f"Pelican question {i + 1}: how does a pelican carry fish number {i + 1}?",
        )
        c4.assistant(
            f"2026-03-10T12:{minute + 1:02d}:00.000Z",
            [
                {
                    "type": "text",
                    "text": f"Pelican answer {i + 1}: the pelican uses its throat pouch to hold fish number {i + 1}.",
                }
            ],
            "end_turn",
            f"msg_d{i}",
        )
    c4.user("2026-03-10T12:44:00.000Z", "Thanks, that is all about the birds.")
    # Two identical blocks of one reply: same text, same timestamp, so equal scores (id tie-break).
    c4.assistant(
        "2026-03-10T12:45:00.000Z",
        [
            {"type": "text", "text": S4_TWIN},
            {"type": "text", "text": S4_TWIN},
            {"type": "text", "text": "You are welcome."},
        ],
        "end_turn",
        "msg_dz",
    )
    corpus.files["S4"] = corpus.claude_home / "projects/-repo-delta" / f"{sid4}.jsonl"
    write_jsonl(corpus.files["S4"], c4.records)
    corpus.sessions["S4"] = ("2026-03-10T12:00:00.000Z", "2026-03-10T12:45:00.000Z", "chat", S4_TURNS + 1)

    # S5: Claude Code chat whose updated_at ties with S3's.
    sid5 = "7c666c01-d38e-4658-8650-0000000000e5"
    c5 = Claude(sid5, "/repo/epsilon")
    c5.user("2026-03-10T11:01:00.000Z", S5_PROMPT)
    c5.assistant("2026-03-10T11:05:00.000Z", [{"type": "text", "text": S5_FINAL}], "end_turn", "msg_e1")
    # a record type this Moraine has never seen: an `unknown` event, openable, never searched
    c5._base("agent-telemetry", "2026-03-10T11:05:00.000Z")["data"] = {"note": "tapir telemetry"}
    corpus.files["S5"] = corpus.claude_home / "projects/-repo-epsilon" / f"{sid5}.jsonl"
    write_jsonl(corpus.files["S5"], c5.records)
    corpus.sessions["S5"] = ("2026-03-10T11:01:00.000Z", "2026-03-10T11:05:00.000Z", "chat", 1)
    return corpus


# --------------------------------------------------------------------------------------------
# MCP client harness
# --------------------------------------------------------------------------------------------


def stop_daemon(home: Path) -> None:
    """`moraine mcp` started a daemon for this state: stop it with the test."""
    subprocess.run([str(MORAINE), "--home", str(home), "stop"], capture_output=True, timeout=120, check=False)


def wait_backfilled(home: Path, timeout_s: float = 120.0) -> None:
    """Until the daemon serving `home` has read every log once: the contract is about answers,
    and a first pass slowed by a busy machine answers the first calls with a warning instead."""
    deadline = time.monotonic() + timeout_s
    status = home / "run" / "daemon.json"
    while time.monotonic() < deadline:
        try:
            if json.loads(status.read_text()).get("backfilled"):
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"the daemon of {home} did not finish its first pass in {timeout_s:.0f} s")


class McpServer:
    """`moraine mcp` as a subprocess, driven by the MCP SDK client through a blocking portal."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        env = {
            "MORAINE_HOME": str(corpus.moraine_home),
            "CODEX_HOME": str(corpus.codex_home),
            "CLAUDE_CONFIG_DIR": str(corpus.claude_home),
            "PI_CODING_AGENT_DIR": str(corpus.root / "no-pi"),  # never the machine's own Pi or Qwen sessions
            "QWEN_HOME": str(corpus.root / "no-qwen"),
            "KIMI_SHARE_DIR": str(corpus.root / "no-kimi"),
            "CURSOR_HOME": str(corpus.root / "no-cursor"),
            "COPILOT_HOME": str(corpus.root / "no-copilot"),
            "GEMINI_CLI_HOME": str(corpus.root / "no-gemini"),
            "XDG_DATA_HOME": str(corpus.root / "no-xdg-data"),  # never the machine's own OpenCode store
            "HOME": str(corpus.root / "home"),  # the SDK passes the outer HOME on otherwise
            "MORAINE_DAEMON_IDLE_EXIT_S": "30",  # a daemon a test forgot to stop goes away by itself
            **corpus.harness_env,
        }
        self.params = StdioServerParameters(command=str(MORAINE), args=["mcp"], env=env, cwd=str(corpus.root))
        self.errlog = (corpus.root / "server-stderr.log").open("w")
        self._stack: list[Any] = []
        portal_cm = anyio.from_thread.start_blocking_portal("asyncio")
        self.portal = portal_cm.__enter__()
        self._stack.append(portal_cm)
        try:
            client_cm = self.portal.wrap_async_context_manager(stdio_client(self.params, errlog=self.errlog))
            read, write = client_cm.__enter__()
            self._stack.append(client_cm)
            session_cm = self.portal.wrap_async_context_manager(ClientSession(read, write))
            self.session: ClientSession = session_cm.__enter__()
            self._stack.append(session_cm)
            self.portal.call(self.session.initialize)
            wait_backfilled(corpus.moraine_home)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        while self._stack:
            cm = self._stack.pop()
            with contextlib.suppress(Exception):  # a broken server's teardown must not hide the result
                cm.__exit__(None, None, None)
        self.errlog.close()
        stop_daemon(self.corpus.moraine_home)

    def stderr(self) -> str:
        if not self.errlog.closed:
            self.errlog.flush()
        return (self.corpus.root / "server-stderr.log").read_text(errors="replace")[-4000:]

    def list_tools(self) -> Any:
        return self.portal.call(self.session.list_tools)

    def raw(self, tool: str, arguments: dict[str, Any] | None) -> Any:
        """The raw `CallToolResult` (the SDK client has validated structured_content already)."""

        async def _call() -> Any:
            with anyio.fail_after(CALL_TIMEOUT_S):
                return await self.session.call_tool(tool, arguments)

        return self.portal.call(_call)

    def call(self, tool: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Call a tool and return its structured content, checking the result wrapper rules."""
        result = self.raw(tool, arguments)
        check_wrapper(result)
        return result.structured_content

    def ok(self, tool: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """A call that must succeed: returns the success envelope."""
        envelope = self.call(tool, arguments)
        assert "error" not in envelope, f"{tool}({arguments}) failed: {envelope.get('error')}"
        assert envelope["schema_version"] == f"moraine.mcp.{tool}.v1"
        check_success_envelope(envelope, tool)
        return envelope

    def err(self, tool: str, arguments: dict[str, Any] | None, code: str, message: str | None = None) -> dict[str, Any]:
        """A call that must fail in-band with `code` (and `message` when given): the error envelope."""
        envelope = self.call(tool, arguments)
        assert envelope.get("schema_version") == "moraine.mcp.error.v1", (
            f"{tool}({arguments}) expected error {code}, got {json.dumps(envelope)[:600]}"
        )
        check_error_envelope(envelope, tool)
        assert envelope["error"]["code"] == code, envelope["error"]
        if message is not None:
            assert envelope["error"]["message"] == message, envelope["error"]
        return envelope

    # Lookup helpers over the corpus --------------------------------------------------------

    def session_ids(self) -> dict[str, str]:
        """Corpus name → session ID, found through list_sessions (one day covers the corpus)."""
        data = self.ok("list_sessions", {"start_datetime": DAY_START, "end_datetime": DAY_END, "limit": 50})["data"]
        by_start = {item["session"]["started_at"]: item["id"] for item in data["sessions"]}
        return {
            name: by_start[started] for name, (started, *_rest) in self.corpus.sessions.items() if started in by_start
        }


def check_wrapper(result: Any) -> None:
    """Every tool result: in-band (isError false), structured content, non-empty text beside it."""
    assert result.is_error is False, f"tool result has isError={result.is_error!r}"
    assert isinstance(result.structured_content, dict), "structuredContent missing"
    texts = [c for c in result.content if getattr(c, "type", None) == "text"]
    assert texts, "no TextContent beside structuredContent"
    assert texts[0].text.strip(), "empty TextContent"


def check_performance(envelope: dict[str, Any]) -> None:
    perf = envelope["performance"]
    assert set(perf) >= {"elapsed_ms", "sla_target_ms", "met_sla"}
    assert isinstance(perf["elapsed_ms"], int | float) and not isinstance(perf["elapsed_ms"], bool)
    assert perf["elapsed_ms"] >= 0
    assert isinstance(perf["sla_target_ms"], int) and not isinstance(perf["sla_target_ms"], bool)
    assert perf["sla_target_ms"] > 0
    assert isinstance(perf["met_sla"], bool)
    assert perf["met_sla"] == (perf["elapsed_ms"] <= perf["sla_target_ms"])


def check_success_envelope(envelope: dict[str, Any], tool: str) -> None:
    assert envelope["schema_version"] == f"moraine.mcp.{tool}.v1"
    assert envelope["tool"] == tool
    assert isinstance(envelope["request"], dict)
    assert isinstance(envelope["data"], dict)
    assert isinstance(envelope["warnings"], list)
    check_performance(envelope)


def check_error_envelope(envelope: dict[str, Any], tool: str) -> None:
    assert envelope["schema_version"] == "moraine.mcp.error.v1"
    assert envelope["tool"] == tool
    assert isinstance(envelope["request"], dict)
    assert "data" not in envelope
    error = envelope["error"]
    assert error["code"] in (
        "invalid_request",
        "invalid_id",
        "not_found",
        "unsupported_event_type",
        "deadline_exceeded",
        "internal_error",
    )
    assert isinstance(error["message"], str) and error["message"].strip()
    assert isinstance(error["details"], dict)
    assert isinstance(envelope["warnings"], list)
    check_performance(envelope)


def walk_ids(node: Any) -> set[str]:
    """Every string in a JSON tree that looks like a Moraine ID."""
    found: set[str] = set()
    if isinstance(node, dict):
        for value in node.values():
            found |= walk_ids(value)
    elif isinstance(node, list):
        for value in node:
            found |= walk_ids(value)
    elif isinstance(node, str) and re.match(r"^(session|turn|event):\S+$", node):
        found.add(node)
    return found


def walk_timestamps(node: Any, key: str = "") -> list[tuple[str, Any]]:
    """(key, value) of every field whose name says it is a time."""
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for k, value in node.items():
            if k in ("timestamp", "started_at", "updated_at") and value is not None:
                out.append((k, value))
            out.extend(walk_timestamps(value, k))
    elif isinstance(node, list):
        for value in node:
            out.extend(walk_timestamps(value, key))
    return out
