"""Build the hand-made sample logs in data_samples/ and their oracle.

Run:  python3 data_samples/build_samples.py          (writes the .jsonl files, expected.json, README.md)
      python3 data_samples/build_samples.py --check  (rebuilds in memory and verifies the files on disk)

Everything is deterministic: fixed UUIDs (derived from fixed seeds), fixed timestamps (2026-03, UTC,
milliseconds, "Z"), JSON written compactly with raw UTF-8 like the harnesses do. Each record is written
together with its *annotation* (the expected normalized facts), and expected.json / README.md are derived
from those annotations, so line numbers and byte offsets in the oracle cannot drift from the files.

Edit the session builders below, rerun, and review the diff of README.md / expected.json.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import struct
import sys
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# --------------------------------------------------------------------------- deterministic ids / time


def _h(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()


def uuid4(seed: str) -> str:
    b = bytearray(_h("u4:" + seed)[:16])
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


def uuid7(dt: datetime, seed: str) -> str:
    ms = int(dt.timestamp() * 1000)
    b = bytearray(ms.to_bytes(6, "big") + _h("u7:" + seed)[:10])
    b[6] = (b[6] & 0x0F) | 0x70
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


def rstr(seed: str, n: int, alphabet: str = B62) -> str:
    r = random.Random(seed)
    return "".join(r.choice(alphabet) for _ in range(n))


def b64blob(seed: str, nbytes: int) -> str:
    r = random.Random(seed)
    return base64.b64encode(bytes(r.getrandbits(8) for _ in range(nbytes))).decode()


def ts(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def at(s: str) -> datetime:
    return datetime.strptime(s.removesuffix("Z"), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=UTC)


class Clock:
    def __init__(self, start: datetime):
        self.now = start

    def tick(self, seconds: float = 0.0) -> str:
        self.now = self.now + timedelta(seconds=seconds)
        return ts(self.now)

    def peek(self) -> str:
        return ts(self.now)


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- file builder + annotations


@dataclass
class Line:
    text: str
    status: str  # ok | malformed | blank | partial
    ann: dict


@dataclass
class SampleFile:
    relpath: str
    harness: str  # codex | claude-code
    key: str  # short name used in README
    covers: list[str]
    session: dict = field(default_factory=dict)  # expected session facts (filled by builder)
    lines: list[Line] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def add(self, obj, **ann) -> int:
        ann.setdefault("record", _record_kind(obj))
        if isinstance(obj, dict) and "timestamp" in obj:
            ann.setdefault("ts", obj["timestamp"])
        self.lines.append(Line(dumps(obj), "ok", ann))
        return len(self.lines)

    def raw(self, text: str, status: str, **ann) -> int:
        self.lines.append(Line(text, status, ann))
        return len(self.lines)

    def content(self) -> bytes:
        out = []
        for ln in self.lines:
            out.append(ln.text.encode())
            if ln.status != "partial":
                out.append(b"\n")
        return b"".join(out)


def _record_kind(obj) -> str:
    if not isinstance(obj, dict):
        return type(obj).__name__
    t = obj.get("type")
    p = obj.get("payload")
    if isinstance(p, dict) and "type" in p:
        extra = ""
        if p.get("type") == "message":
            extra = f" role={p.get('role')}"
        if p.get("type") in ("function_call", "custom_tool_call"):
            extra = f" name={p.get('name')}"
        return f"{t}/{p['type']}{extra}"
    if t in ("user", "assistant"):
        c = obj.get("message", {}).get("content")
        if isinstance(c, list):
            kinds = ",".join(b.get("type", "?") + (f":{b['name']}" if b.get("type") == "tool_use" else "")
                             for b in c)
            return f"{t}[{kinds}]"
        return f"{t}(string)"
    if t == "system":
        return f"system/{obj.get('subtype')}"
    if t in ("message", "function_call", "function_call_output", "reasoning") and "payload" not in obj:
        extra = f" role={obj.get('role')}" if t == "message" else ""
        return f"legacy {t}{extra}"
    if t is None and "record_type" in obj:
        return f"legacy record_type={obj['record_type']}"
    if t is None and "id" in obj and "instructions" in obj:
        return "legacy session header"
    return str(t)


# --------------------------------------------------------------------------- Codex helpers


CODEX_CLI = "0.111.0"
CODEX_MODEL = "gpt-5.3-codex"

PERMISSIONS_DEV = (
    "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. "
    "`sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` "
    "and `writable_roots`. Editing files in other directories requires approval. Network access is "
    "restricted.\nApprovals are your mechanism to get user consent to run shell commands without the "
    "sandbox. `approval_policy` is `on-request`: Commands will be run in the sandbox by default, and you "
    "can specify in your tool call if you want to escalate a command to run without sandboxing.\n"
    "</permissions instructions>"
)


def env_context(cwd: str) -> str:
    return (
        "<environment_context>\n"
        f"  <cwd>{cwd}</cwd>\n"
        "  <approval_policy>on-request</approval_policy>\n"
        "  <sandbox_mode>workspace-write</sandbox_mode>\n"
        "  <network_access>restricted</network_access>\n"
        "  <shell>bash</shell>\n"
        "</environment_context>"
    )


def enc(seed: str) -> str:
    return "gAAAAABp" + b64blob("enc:" + seed, 240).replace("\n", "")


class CodexSession:
    """Writes modern Codex rollout records (timestamp/type/payload envelope)."""

    def __init__(self, f: SampleFile, start: str, cwd: str, seed: str):
        self.f = f
        self.clock = Clock(at(start))
        self.cwd = cwd
        self.seed = seed
        self.sid = uuid7(self.clock.now, seed)
        self.turn_id: str | None = None
        self.turn_no = 0
        self.call_no = 0
        self.total_in = 0
        self.total_out = 0
        self.calls: dict[str, str] = {}

    # -- envelope
    def rec(self, typ: str, payload: dict, dt: float = 0.0, **ann) -> int:
        return self.f.add({"timestamp": self.clock.tick(dt), "type": typ, "payload": payload}, **ann)

    def session_meta(self, instructions=None, **ann) -> int:
        payload = {
            "id": self.sid,
            "timestamp": self.clock.peek(),
            "cwd": self.cwd,
            "originator": "codex_cli_rs",
            "cli_version": CODEX_CLI,
            "instructions": instructions,
            "source": "cli",
            "model_provider": "openai",
            "git": {
                "commit_hash": hashlib.sha1(self.seed.encode()).hexdigest(),
                "branch": "main",
                "repository_url": "git@github.com:acme/" + self.cwd.rsplit("/", 1)[-1] + ".git",
            },
        }
        return self.rec("session_meta", payload, type="system", note="session header", **ann)

    def developer(self, text: str = PERMISSIONS_DEV) -> int:
        return self.rec("response_item", {"type": "message", "role": "developer",
                                          "content": [{"type": "input_text", "text": text}]},
                        0.001, type="system", note="developer-role message")

    def injected(self, text: str, what: str, dt: float = 0.001) -> int:
        return self.rec("response_item", {"type": "message", "role": "user",
                                          "content": [{"type": "input_text", "text": text}]},
                        dt, type="system", note=f"injected context ({what}), NOT a prompt")

    def task_started(self, dt: float = 0.01) -> int:
        self.turn_no += 1
        self.turn_id = uuid7(self.clock.now, f"{self.seed}:turn:{self.turn_no}")
        return self.rec("event_msg", {"type": "task_started", "turn_id": self.turn_id,
                                      "model_context_window": 258400,
                                      "collaboration_mode_kind": "default"}, dt, type="runtime")

    def turn_context(self, dt: float = 0.002) -> int:
        return self.rec("turn_context", {
            "turn_id": self.turn_id,
            "cwd": self.cwd,
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False,
                               "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
            "model": CODEX_MODEL,
            "effort": "medium",
            "summary": "auto",
        }, dt, type="system")

    def prompt(self, text: str, dt: float = 0.05, **ann) -> int:
        n = self.rec("response_item", {"type": "message", "role": "user",
                                       "content": [{"type": "input_text", "text": text}]},
                     dt, type="user_input", prompt=True, prompt_text=text,
                     note="genuine prompt (response_item form)", **ann)
        self.rec("event_msg", {"type": "user_message", "message": text, "images": [],
                               "local_images": [], "text_elements": []},
                 0.0, type="user_input", mirror_of=n, note=f"event_msg mirror of L{n}: same prompt, ONE event",
                 **ann)
        return n

    def token_count(self, inp: int, out: int, dt: float = 0.3) -> int:
        self.total_in += inp
        self.total_out += out
        cached = inp // 3 * 2
        return self.rec("event_msg", {
            "type": "token_count",
            "info": {
                "total_token_usage": {"input_tokens": self.total_in, "cached_input_tokens": self.total_in // 3 * 2,
                                      "output_tokens": self.total_out, "reasoning_output_tokens": self.total_out // 4,
                                      "total_tokens": self.total_in + self.total_out},
                "last_token_usage": {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
                                     "reasoning_output_tokens": out // 4, "total_tokens": inp + out},
                "model_context_window": 258400,
            },
            "rate_limits": {
                "primary": {"used_percent": 6.0, "window_minutes": 300, "resets_at": 1773500000},
                "secondary": {"used_percent": 21.0, "window_minutes": 10080, "resets_at": 1773900000},
                "credits": None,
                "plan_type": None,
            },
        }, dt, type="system")

    def reasoning(self, text: str, dt: float = 1.2, event_first: bool = False) -> int:
        ri = {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}], "content": None,
              "encrypted_content": enc(f"{self.seed}:{self.clock.now}:{text[:20]}")}
        em = {"type": "agent_reasoning", "text": text}
        if event_first:
            n = self.rec("event_msg", em, dt, type="reasoning")
            self.rec("response_item", ri, 0.0, type="reasoning", mirror_of=n,
                     note=f"mirror of L{n}: ONE reasoning event (summary searchable, encrypted_content not)")
            return n
        n = self.rec("response_item", ri, dt, type="reasoning",
                     note="summary text is the content; encrypted_content is opaque, never indexed")
        self.rec("event_msg", em, 0.0, type="reasoning", mirror_of=n, note=f"agent_reasoning mirror of L{n}")
        return n

    def say(self, text: str, phase: str = "final_answer", dt: float = 1.5, event_first: bool = False,
            **ann) -> int:
        ri = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
              "phase": phase}
        em = {"type": "agent_message", "message": text, "phase": phase}
        note = "assistant reply" + (" (phase commentary: not the turn's final_response)" if phase == "commentary"
                                    else "")
        if event_first:
            n = self.rec("event_msg", em, dt, type="assistant_response", note=note + " (event_msg form first)",
                         **ann)
            self.rec("response_item", ri, 0.0, type="assistant_response", mirror_of=n,
                     note=f"mirror of L{n}: ONE event")
            return n
        n = self.rec("response_item", ri, dt, type="assistant_response", note=note, **ann)
        self.rec("event_msg", em, 0.0, type="assistant_response", mirror_of=n,
                 note=f"agent_message mirror of L{n}: ONE event")
        return n

    def new_call_id(self) -> str:
        self.call_no += 1
        return "call_" + rstr(f"{self.seed}:call:{self.call_no}", 24)

    def function_call(self, name: str, args: dict, dt: float = 0.8, **ann) -> tuple[int, str]:
        cid = self.new_call_id()
        self.calls[cid] = name
        n = self.rec("response_item", {"type": "function_call", "name": name, "arguments": dumps(args),
                                       "call_id": cid}, dt, type="tool_call", tool_name=name, **ann)
        return n, cid

    def function_output(self, cid: str, output: str, exit_code, dt: float = 0.5, **ann) -> int:
        return self.rec("response_item", {"type": "function_call_output", "call_id": cid, "output": output},
                        dt, type="tool_response", tool_name=self.calls[cid], exit_code=exit_code, **ann)

    def exec_text(self, cmd: str, code: int, wall: float, out: str, dt_call: float = 0.8,
                  dt_out: float | None = None, **ann) -> tuple[int, int]:
        n, cid = self.function_call("exec_command", {"cmd": cmd, "workdir": self.cwd}, dt_call)
        text = f"Exit code: {code}\nWall time: {wall} seconds\nOutput:\n{out}"
        m = self.function_output(cid, text, code, wall if dt_out is None else dt_out,
                                 note=f"output text begins 'Exit code: {code}'", **ann)
        return n, m

    def shell_json(self, script: str, code: int, dur: float, out: str, **ann) -> tuple[int, int]:
        n, cid = self.function_call("shell", {"command": ["bash", "-lc", script], "workdir": self.cwd,
                                              "timeout_ms": 10000}, 0.7)
        text = dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": dur}})
        m = self.function_output(cid, text, code, dur,
                                 note=f"output is a JSON string; metadata.exit_code={code}", **ann)
        return n, m

    def apply_patch(self, patch: str, out: str, dt: float = 1.0) -> tuple[int, int]:
        cid = self.new_call_id()
        self.calls[cid] = "apply_patch"
        n = self.rec("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": cid,
                                       "name": "apply_patch", "input": patch}, dt,
                     type="tool_call", tool_name="apply_patch", note="custom_tool_call (freeform patch input)")
        m = self.rec("response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                       "output": dumps({"output": out, "metadata": {"exit_code": 0,
                                                                                   "duration_seconds": 0.0}})},
                     0.2, type="tool_response", tool_name="apply_patch", exit_code=0)
        return n, m

    def task_complete(self, last: str | None, dt: float = 0.05) -> int:
        return self.rec("event_msg", {"type": "task_complete", "turn_id": self.turn_id,
                                      "last_agent_message": last}, dt, type="runtime",
                        terminal="task_complete")

    def begin_turn(self, first: bool = False):
        self.task_started()
        self.turn_context()


# --------------------------------------------------------------------------- Claude helpers


CLAUDE_VERSION = "2.1.76"
CLAUDE_MODEL = "claude-opus-4-6"


class ClaudeSession:
    def __init__(self, f: SampleFile, start: str, cwd: str, seed: str, sid: str | None = None,
                 agent_id: str | None = None, branch: str = "main"):
        self.f = f
        self.clock = Clock(at(start))
        self.cwd = cwd
        self.seed = seed
        self.sid = sid or uuid4(seed)
        self.agent_id = agent_id
        self.branch = branch
        self.parent: str | None = None
        self.n = 0
        self.msg_no = 0
        self.tool_no = 0
        self.tools: dict[str, str] = {}
        self.model = CLAUDE_MODEL

    def _uuid(self) -> str:
        self.n += 1
        return uuid4(f"{self.seed}:rec:{self.n}")

    def base(self, typ: str, dt: float) -> dict:
        d = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None, "userType": "external",
             "cwd": self.cwd, "sessionId": self.sid, "version": CLAUDE_VERSION, "gitBranch": self.branch}
        if self.agent_id:
            d["agentId"] = self.agent_id
        d["type"] = typ
        return d

    def _finish(self, d: dict, dt: float) -> dict:
        u = self._uuid()
        d["uuid"] = u
        d["timestamp"] = self.clock.tick(dt)
        self.parent = u
        return d

    def last_uuid(self) -> str | None:
        return self.parent

    def user(self, content, dt: float = 2.0, extra: dict | None = None, **ann) -> int:
        d = self.base("user", dt)
        if extra:
            d.update(extra)
        d["message"] = {"role": "user", "content": content}
        return self.f.add(self._finish(d, dt), **ann)

    def prompt(self, text, dt: float = 5.0, blocks=None, **ann) -> int:
        content = blocks if blocks is not None else text
        return self.user(content, dt, extra={"permissionMode": "default"}, type="user_input", prompt=True,
                         prompt_text=text, **ann)

    def new_msg_id(self) -> str:
        self.msg_no += 1
        return "msg_01" + rstr(f"{self.seed}:msg:{self.msg_no}", 22)

    def assistant(self, msg_id: str, block: dict, stop_reason=None, dt: float = 1.0, extra=None, model=None,
                  **ann) -> int:
        d = self.base("assistant", dt)
        d["message"] = {
            "model": model or self.model, "id": msg_id, "type": "message", "role": "assistant",
            "content": [block], "stop_reason": stop_reason, "stop_sequence": None,
            "usage": {"input_tokens": 6, "cache_creation_input_tokens": 1432, "cache_read_input_tokens": 21876,
                      "output_tokens": 212, "service_tier": "standard"},
        }
        d["requestId"] = "req_011C" + rstr(f"{self.seed}:req:{msg_id}", 18)
        if extra:
            d.update(extra)
        return self.f.add(self._finish(d, dt), **ann)

    def thinking(self, msg_id: str, text: str, dt: float = 2.0) -> int:
        return self.assistant(msg_id, {"type": "thinking", "thinking": text,
                                       "signature": "Eq" + b64blob(f"sig:{self.seed}:{text[:16]}", 90)},
                              dt=dt, type="reasoning")

    def text(self, msg_id: str, text: str, stop_reason=None, dt: float = 1.0, **ann) -> int:
        if stop_reason == "end_turn":
            ann.setdefault("terminal", "end_turn")
        return self.assistant(msg_id, {"type": "text", "text": text}, stop_reason, dt,
                              type="assistant_response", **ann)

    def tool_use(self, msg_id: str, name: str, inp: dict, dt: float = 0.8, **ann) -> tuple[int, str]:
        self.tool_no += 1
        tid = "toolu_01" + rstr(f"{self.seed}:tool:{self.tool_no}", 22)
        self.tools[tid] = name
        n = self.assistant(msg_id, {"type": "tool_use", "id": tid, "name": name, "input": inp}, "tool_use", dt,
                           type="tool_call", tool_name=name, **ann)
        return n, tid

    def tool_result(self, tid: str, content, result, is_error: bool = False, dt: float = 1.5,
                    exit_code=None, **ann) -> int:
        assistant_uuid = self.parent
        block = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error or self.tools[tid] == "Bash":
            block["is_error"] = is_error
        d = self.base("user", dt)
        d["message"] = {"role": "user", "content": [block]}
        d["toolUseResult"] = result
        d["sourceToolAssistantUUID"] = assistant_uuid
        return self.f.add(self._finish(d, dt), type="tool_response", tool_name=self.tools[tid],
                          exit_code=exit_code, is_error=is_error, **ann)

    def system(self, subtype: str, fields: dict, dt: float = 0.1, **ann) -> int:
        d = self.base("system", dt)
        d["subtype"] = subtype
        d.update(fields)
        return self.f.add(self._finish(d, dt), **ann)

    def turn_duration(self, ms: int) -> int:
        return self.system("turn_duration", {"durationMs": ms, "isMeta": False}, 0.05, type="system",
                           terminal="turn_duration")

    # records outside the uuid chain
    def meta(self, obj: dict, **ann) -> int:
        ann.setdefault("type", "system")
        return self.f.add(obj, **ann)

    def file_history_snapshot(self, message_uuid_hint: str) -> int:
        mid = uuid4(f"{self.seed}:fhs:{message_uuid_hint}")
        return self.meta({"type": "file-history-snapshot", "messageId": mid,
                          "snapshot": {"messageId": mid, "trackedFileBackups": {}, "timestamp": self.clock.peek()},
                          "isSnapshotUpdate": False},
                         note="no sessionId/cwd/top-level timestamp (real shape)")


def sidecar_uuid(seed: str) -> str:
    return uuid4(seed)


# --------------------------------------------------------------------------- sample content: secrets


def _aws_key() -> str:
    return "AKIA" + rstr("aws-key-1", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def _gh_token() -> str:
    return "ghp_" + rstr("gh-token-1", 36)


def _openai_key() -> str:
    return "sk-proj-" + rstr("openai-key-1", 40, B62 + "_-")


def _pem() -> str:
    body = "MIIEpAIBAAKCAQEA" + b64blob("pem-1", 8 * 48)[16:]
    rows = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(rows) + "\n-----END RSA PRIVATE KEY-----"


AWS_KEY = _aws_key()
GH_TOKEN = _gh_token()
OPENAI_KEY = _openai_key()
PEM = _pem()
PEM_BODY_LINES = PEM.split("\n")[1:-1]


# --------------------------------------------------------------------------- a small deterministic PNG


def tiny_png(w: int = 24, h: int = 16) -> bytes:
    raw = b"".join(b"\x00" + bytes(v for x in range(w)
                                   for v in ((x * 11 + y * 7) % 256, (x * 3) % 256, (200 - y * 9) % 256))
                   for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


PNG_B64 = base64.b64encode(tiny_png()).decode()


# =========================================================================== Codex sessions


def codex_path(start: str, sid: str) -> str:
    d = at(start)
    return (f"codex/sessions/{d:%Y}/{d:%m}/{d:%d}/rollout-{d:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl")


def build_codex_normal() -> SampleFile:
    start = "2026-03-14T09:12:03.117"
    f = SampleFile("", "codex", "codex-normal",
                   ["1: normal two-turn session", "injected context (AGENTS.md, environment_context) + developer msg",
                    "prompt / reply / reasoning mirrors", "exec_command with 'Exit code: 1' text output",
                    "shell with JSON output + metadata.exit_code", "apply_patch custom_tool_call",
                    "web_search_call (mode web_search)", "commentary vs final_answer phases", "token_count",
                    "task_started / task_complete"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-normal")
    s.session_meta()
    s.developer()
    s.injected("# AGENTS.md instructions for /home/dev/webapp\n\n<INSTRUCTIONS>\n## Conventions\n"
               "- Python 3.12; run `pytest -q` before you finish.\n"
               "- Migrations live in app/db/migrations and must be idempotent.\n"
               "- Never commit directly to main.\n</INSTRUCTIONS>", "AGENTS.md")
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    p1 = ("Fix the failing migration test.\n\n`pytest tests/test_migrations.py` fails on CI with "
          "`DuplicateColumn: column \"email_normalized\" of relation \"users\" already exists`. "
          "Make migration 0042 idempotent.")
    s.prompt(p1)
    s.token_count(9214, 0, 0.2)
    s.reasoning("**Reproducing the migration failure**\n\nRunning the migration test first to see the exact "
                "error before touching migration 0042.")
    s.exec_text("pytest tests/test_migrations.py -x -q", 1, 2.4,
                "..F\n=================================== FAILURES ===================================\n"
                "______________________________ test_upgrade_head _______________________________\n"
                "E   psycopg.errors.DuplicateColumn: column \"email_normalized\" of relation \"users\" "
                "already exists\n\napp/db/migrations/0042_add_email_normalized.py:18: DuplicateColumn\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_migrations.py::test_upgrade_head - psycopg.errors.DuplicateColumn\n"
                "1 failed, 2 passed in 2.31s\n")
    s.shell_json("sed -n '1,40p' app/db/migrations/0042_add_email_normalized.py", 0, 0.5,
                 '"""add users.email_normalized"""\nfrom alembic import op\nimport sqlalchemy as sa\n\n'
                 'revision = "0042"\ndown_revision = "0041"\n\n\ndef upgrade():\n'
                 '    op.add_column("users", sa.Column("email_normalized", sa.String(320), nullable=True))\n'
                 '    op.create_index("ix_users_email_normalized", "users", ["email_normalized"], unique=True)\n'
                 '\n\ndef downgrade():\n    op.drop_index("ix_users_email_normalized", table_name="users")\n'
                 '    op.drop_column("users", "email_normalized")\n')
    s.rec("response_item", {"type": "web_search_call", "status": "completed",
                            "action": {"type": "search",
                                       "query": "alembic add_column if not exists postgresql idempotent migration"}},
          1.8, type="tool_call", tool_name="web_search", web=True,
          note="web_search_call: query text must be searchable; makes mode web_search")
    s.say("Migration 0042 adds the column unconditionally, and 0039 already created it on databases that ran "
          "the hotfix. I'll guard both operations with an inspector check.", phase="commentary")
    s.apply_patch(
        "*** Begin Patch\n*** Update File: app/db/migrations/0042_add_email_normalized.py\n@@\n def upgrade():\n"
        "-    op.add_column(\"users\", sa.Column(\"email_normalized\", sa.String(320), nullable=True))\n"
        "-    op.create_index(\"ix_users_email_normalized\", \"users\", [\"email_normalized\"], unique=True)\n"
        "+    insp = sa.inspect(op.get_bind())\n"
        "+    if not any(c[\"name\"] == \"email_normalized\" for c in insp.get_columns(\"users\")):\n"
        "+        op.add_column(\"users\", sa.Column(\"email_normalized\", sa.String(320), nullable=True))\n"
        "+    if \"ix_users_email_normalized\" not in {i[\"name\"] for i in insp.get_indexes(\"users\")}:\n"
        "+        op.create_index(\"ix_users_email_normalized\", \"users\", [\"email_normalized\"], unique=True)\n"
        "*** End Patch\n",
        "Success. Updated the following files:\nM app/db/migrations/0042_add_email_normalized.py\n")
    s.exec_text("pytest tests/test_migrations.py -x -q", 0, 2.1, "...\n3 passed in 2.02s\n")
    final1 = ("Fixed. Migration 0042 now checks `users` with the SQLAlchemy inspector and only adds "
              "`email_normalized` and its unique index when they are missing, so it is idempotent on databases "
              "that already ran the 0039 hotfix. `pytest tests/test_migrations.py` passes (3 passed).")
    s.say(final1)
    s.token_count(14120, 812)
    s.task_complete(final1)
    # turn 2
    s.clock.tick(95)
    s.begin_turn()
    s.prompt("Now run the full test suite and summarize what changed.")
    s.reasoning("**Running the full suite**\n\nChecking nothing else depended on the old migration behaviour.")
    s.exec_text("pytest -q", 0, 38.4, "........................................................................\n"
                "214 passed, 3 skipped in 38.12s\n", dt_out=38.5)
    final2 = ("Full suite is green: 214 passed, 3 skipped.\n\nWhat changed:\n"
              "- `app/db/migrations/0042_add_email_normalized.py`: `upgrade()` inspects the `users` table and "
              "skips `add_column` / `create_index` when the column or index already exists.\n"
              "- No other files were touched.")
    s.say(final2)
    s.token_count(15873, 233)
    s.task_complete(final2)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="web_search",
                     model=CODEX_MODEL)
    return f


def build_codex_interrupted() -> SampleFile:
    start = "2026-03-15T14:03:41.502"
    f = SampleFile("", "codex", "codex-interrupted",
                   ["2: turn_aborted (reason interrupted) is terminal",
                    "pending call answered with output 'aborted'",
                    "<turn_aborted> injected user-role note after the abort",
                    "<user_instructions> injected block"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-interrupted")
    s.session_meta()
    s.developer()
    s.injected("<user_instructions>\nAlways answer in English. Prefer `npm` scripts over calling tools "
               "directly. Ask before running anything that takes longer than a minute.\n</user_instructions>",
               "user_instructions")
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("Run the e2e suite and tell me which specs are flaky")
    s.reasoning("**Running e2e with repeats**\n\nRepeating each spec three times will surface flaky ones.")
    _n, cid = s.function_call("exec_command", {"cmd": "npm run test:e2e -- --repeat-each=3", "workdir": s.cwd,
                                              "yield_time_ms": 10000})
    s.function_output(cid, "aborted", None, 41.7,
                      note="the interrupted call's output is the literal 'aborted' (no exit code)")
    s.rec("event_msg", {"type": "turn_aborted", "turn_id": s.turn_id, "reason": "interrupted"}, 0.02,
          type="runtime", terminal="turn_aborted")
    s.injected("<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec "
               "processes were terminated. If any tools/commands were aborted, they may have partially executed; "
               "verify current state before retrying.\n</turn_aborted>", "<turn_aborted> note", 0.01)
    s.clock.tick(12)
    s.begin_turn()
    s.prompt("Skip e2e, it takes forever. Just run the unit tests for src/cart and stop there.")
    s.exec_text("npm test -- src/cart", 0, 6.2,
                "> webapp@2.4.0 test\n> vitest run src/cart\n\n ✓ src/cart/cart.test.ts (14 tests) 212ms\n"
                " ✓ src/cart/pricing.test.ts (9 tests) 98ms\n\n Test Files  2 passed (2)\n"
                "      Tests  23 passed (23)\n")
    final = "Unit tests for `src/cart` pass: 2 files, 23 tests. I did not run the e2e suite."
    s.say(final)
    s.token_count(11020, 96)
    s.task_complete(final)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


def build_codex_compaction() -> SampleFile:
    start = "2026-03-16T10:20:00.250"
    f = SampleFile("", "codex", "codex-compaction",
                   ["3: manual /compact: task_started + compacted (message + replacement_history) + "
                    "event_msg context_compacted + task_complete, with NO user_message",
                    "compaction events belong to the turn before (no genuine prompt opens a turn)",
                    "replacement_history items are not prompts and open no turns"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-compaction")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    p1 = "Refactor app/cache/session.py into an LRU cache with a per-entry TTL"
    s.prompt(p1)
    s.reasoning("**Reading the current cache**\n\nNeed to see how SessionCache is used before changing it.")
    s.exec_text("sed -n '1,80p' app/cache/session.py", 0, 0.1,
                "import time\n\n\nclass SessionCache:\n    def __init__(self):\n        self._data = {}\n\n"
                "    def get(self, key):\n        return self._data.get(key)\n\n    def put(self, key, value):\n"
                "        self._data[key] = (value, time.monotonic())\n")
    s.apply_patch("*** Begin Patch\n*** Update File: app/cache/session.py\n@@\n-import time\n+import time\n"
                  "+from collections import OrderedDict\n@@\n class SessionCache:\n-    def __init__(self):\n"
                  "-        self._data = {}\n+    def __init__(self, max_entries=1024, ttl_seconds=900.0):\n"
                  "+        self._data = OrderedDict()\n+        self._max = max_entries\n"
                  "+        self._ttl = ttl_seconds\n"
                  "*** End Patch\n",
                  "Success. Updated the following files:\nM app/cache/session.py\n")
    final1 = ("`SessionCache` is now an `OrderedDict`-backed LRU (default 1024 entries) with a per-entry TTL "
              "(default 900 s); `get` drops expired entries and refreshes recency.")
    s.say(final1)
    s.token_count(48210, 1532)
    s.task_complete(final1)
    # manual /compact: a task with no user_message
    s.clock.tick(40)
    s.task_started()
    summary = ("The user asked to refactor app/cache/session.py into an LRU with a per-entry TTL. Done: "
               "SessionCache now wraps an OrderedDict (max_entries=1024, ttl_seconds=900.0); get() evicts "
               "expired entries and moves hits to the end; put() evicts the oldest entry when full. Tests for "
               "the TTL expiry path are still missing.")
    prefix = ("Another language model started to solve this problem and produced a summary of its thinking "
              "process. You also have access to the state of the tools that were used by that language model. "
              "Use this to build on the work that has already been done and avoid duplicating work. Here is the "
              "summary produced by the other language model, use the information in this summary to assist with "
              "your own analysis:\n")
    s.rec("compacted", {"message": summary, "replacement_history": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": env_context(s.cwd)}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": p1}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prefix + summary}]},
    ]}, 6.3, type="compaction",
        note="ONE compaction event; searchable text = payload.message; the 3 replacement_history items are "
             "replayed copies: no turn starts, no extra user_input events")
    s.rec("event_msg", {"type": "context_compacted"}, 0.0, type="system")
    s.token_count(2310, 402, 0.01)
    s.task_complete(None, 0.01)
    # turn 2
    s.clock.tick(30)
    s.begin_turn()
    s.prompt("Add unit tests for the TTL expiry path")
    s.apply_patch("*** Begin Patch\n*** Add File: tests/cache/test_session_ttl.py\n"
                  "+from app.cache.session import SessionCache\n+\n+\n"
                  "+def test_expired_entry_is_dropped(monkeypatch):\n"
                  "+    now = [1000.0]\n+    monkeypatch.setattr(\"time.monotonic\", lambda: now[0])\n"
                  "+    cache = SessionCache(ttl_seconds=10)\n+    cache.put(\"a\", 1)\n+    now[0] += 11\n"
                  "+    assert cache.get(\"a\") is None\n*** End Patch\n",
                  "Success. Updated the following files:\nA tests/cache/test_session_ttl.py\n")
    s.exec_text("pytest tests/cache -q", 0, 0.9, "....\n4 passed in 0.41s\n")
    final2 = "Added `tests/cache/test_session_ttl.py` covering TTL expiry; `pytest tests/cache` passes (4 tests)."
    s.say(final2)
    s.token_count(6120, 188)
    s.task_complete(final2)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


def build_codex_live() -> SampleFile:
    start = "2026-03-20T17:41:09.804"
    f = SampleFile("", "codex", "codex-live",
                   ["4: live session: the latest turn has a prompt and a tool call with no output and no "
                    "terminal event -> completed false", "turn 1 is a tool-less chat turn (completed)"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-live")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("Why does `make dev` print a warning about NODE_OPTIONS?")
    final1 = ("`make dev` exports `NODE_OPTIONS=--openssl-legacy-provider`, which Node 22 no longer needs; "
              "Node warns because the flag is deprecated. Remove it from the `dev` target in the Makefile.")
    s.say(final1, dt=4.1)
    s.token_count(8800, 120)
    s.task_complete(final1)
    s.clock.tick(210)
    s.begin_turn()
    s.prompt("Upgrade vite to v7 and make sure the dev server still starts")
    s.reasoning("**Upgrading vite**\n\nInstalling vite 7 first, then checking the config for removed options.")
    s.function_call("exec_command", {"cmd": "npm install --save-dev vite@^7", "workdir": s.cwd,
                                     "yield_time_ms": 10000},
                    note="call still running: no function_call_output, no task_complete (end of file)")
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


def build_codex_legacy() -> SampleFile:
    start = "2026-03-02T16:20:11.482"
    sid = uuid4("codex-legacy")
    f = SampleFile(codex_path(start, sid), "codex", "codex-legacy",
                   ["5: old-format rollout: bare header {id,timestamp,instructions,git}, records with no payload "
                    "wrapper and NO per-record timestamp, {\"record_type\":\"state\"} lines",
                    "no event_msg at all: a non-injected role=user message is the genuine prompt",
                    "no terminal events: turn 1 completes because a new prompt follows; turn 2 stays open",
                    "old-style <environment_context> (prose, not XML children) gives the cwd"])
    cwd = "/home/dev/legacy-cli"
    f.add({"id": sid, "timestamp": ts(at(start)), "instructions": None,
           "git": {"commit_hash": hashlib.sha1(b"legacy").hexdigest(), "branch": "master",
                   "repository_url": "https://github.com/acme/legacy-cli.git"}},
          type="system", note="session header (no 'type' key); id = session id")
    f.add({"record_type": "state"}, type=None, note="state marker: no event")
    f.add({"type": "message", "id": None, "role": "user",
           "content": [{"type": "input_text", "text": "<environment_context>\nCurrent working directory: "
                        f"{cwd}\nApproval policy: on-request\nSandbox policy: workspace-write\n"
                        "Network access: restricted\nShell: bash\n</environment_context>"}]},
          type="system", note="injected context (old environment_context), NOT a prompt; carries the cwd")
    p1 = "Add a --verbose flag to the CLI parser in cli/main.py"
    f.add({"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": p1}]},
          type="user_input", prompt=True, prompt_text=p1, note="genuine prompt (no event_msg mirror in this format)")
    f.add({"type": "reasoning", "id": "rs_" + rstr("leg-rs1", 40, "0123456789abcdef"),
           "summary": [{"type": "summary_text", "text": "**Locating the argparse setup**"}],
           "encrypted_content": enc("legacy-1")}, type="reasoning")
    cid1 = "call_" + rstr("leg-call-1", 24)
    f.add({"type": "function_call", "id": "fc_" + rstr("leg-fc1", 40, "0123456789abcdef"), "name": "shell",
           "arguments": dumps({"command": ["bash", "-lc", "sed -n '1,40p' cli/main.py"], "workdir": cwd,
                               "timeout_ms": 10000}), "call_id": cid1},
          type="tool_call", tool_name="shell")
    f.add({"type": "function_call_output", "call_id": cid1,
           "output": dumps({"output": "import argparse\n\n\ndef build_parser():\n    p = argparse.ArgumentParser("
                                      "prog=\"legacy\")\n    p.add_argument(\"path\")\n    return p\n",
                            "metadata": {"exit_code": 0, "duration_seconds": 0.1}})},
          type="tool_response", tool_name="shell", exit_code=0)
    cid2 = "call_" + rstr("leg-call-2", 24)
    f.add({"type": "function_call", "id": "fc_" + rstr("leg-fc2", 40, "0123456789abcdef"), "name": "shell",
           "arguments": dumps({"command": ["apply_patch", "*** Begin Patch\n*** Update File: cli/main.py\n@@\n"
                                           "     p.add_argument(\"path\")\n+    p.add_argument(\"-v\", \"--verbose\", "
                                           "action=\"store_true\", help=\"print progress\")\n     return p\n"
                                           "*** End Patch\n"], "workdir": cwd}), "call_id": cid2},
          type="tool_call", tool_name="shell")
    f.add({"type": "function_call_output", "call_id": cid2,
           "output": dumps({"output": "Success. Updated the following files:\nM cli/main.py\n",
                            "metadata": {"exit_code": 0, "duration_seconds": 0.0}})},
          type="tool_response", tool_name="shell", exit_code=0)
    r1 = "Added `-v/--verbose` (store_true) to `build_parser()` in cli/main.py."
    f.add({"type": "message", "id": "msg_" + rstr("leg-msg1", 40, "0123456789abcdef"), "role": "assistant",
           "content": [{"type": "output_text", "text": r1}]},
          type="assistant_response", terminal="followed_by_prompt",
          note="last assistant response of turn 1, followed by a new genuine prompt -> terminal")
    f.add({"record_type": "state"}, type=None, note="state marker: no event")
    p2 = "Also document the flag in README.md"
    f.add({"type": "message", "id": None, "role": "user", "content": [{"type": "input_text", "text": p2}]},
          type="user_input", prompt=True, prompt_text=p2)
    cid3 = "call_" + rstr("leg-call-3", 24)
    f.add({"type": "function_call", "id": "fc_" + rstr("leg-fc3", 40, "0123456789abcdef"), "name": "shell",
           "arguments": dumps({"command": ["apply_patch", "*** Begin Patch\n*** Update File: README.md\n@@\n"
                                           " ## Usage\n+\n+Pass `--verbose` (`-v`) to print progress while "
                                           "scanning.\n*** End Patch\n"], "workdir": cwd}), "call_id": cid3},
          type="tool_call", tool_name="shell")
    f.add({"type": "function_call_output", "call_id": cid3,
           "output": dumps({"output": "Success. Updated the following files:\nM README.md\n",
                            "metadata": {"exit_code": 0, "duration_seconds": 0.0}})},
          type="tool_response", tool_name="shell", exit_code=0)
    f.add({"type": "message", "id": "msg_" + rstr("leg-msg2", 40, "0123456789abcdef"), "role": "assistant",
           "content": [{"type": "output_text", "text": "Documented `--verbose` under Usage in README.md."}]},
          type="assistant_response",
          note="last line: no terminal event and no later prompt -> turn 2 completed=false")
    f.add({"record_type": "state"}, type=None, note="state marker: no event")
    f.session = dict(native_session_id=sid, cwd=cwd, title_source="first_prompt", mode="tool_calling",
                     model=None,
                     cwd_note="no cwd field: derive it from the <environment_context> text (L3), else null")
    return f


def build_codex_mcp() -> SampleFile:
    start = "2026-03-18T11:05:27.640"
    f = SampleFile("", "codex", "codex-mcp-self",
                   ["6: Moraine self-traffic: function_call mcp__moraine__search_sessions and moraine__open, "
                    "their outputs, and event_msg mcp_tool_call_begin/end with invocation.server=moraine",
                    "mode mcp_internal", "an ordinary exec_command in the same turn stays searchable"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-mcp")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("Use moraine to find how we fixed the DuplicateColumn migration error last week, then check that "
             "the current migration file still has the guard.")
    args = {"query": "DuplicateColumn email_normalized migration fix", "n_hits": 5}
    _n, cid = s.function_call("mcp__moraine__search_sessions", args, self_traffic=True,
                             note="call to Moraine's own search tool: excluded from default search")
    inv = {"server": "moraine", "tool": "search_sessions", "arguments": args}
    s.rec("event_msg", {"type": "mcp_tool_call_begin", "call_id": cid, "invocation": inv}, 0.01,
          type="system", self_traffic=True)
    hits_text = ("Found 2 hits for \"DuplicateColumn email_normalized migration fix\".\n"
                 "1. event:evt_5mQ2rT8vK1 (score 1.00) session \"Fix the failing migration test.\" turn 1, "
                 "tool_response: psycopg.errors.DuplicateColumn: column \"email_normalized\" of relation "
                 "\"users\" already exists\n"
                 "2. event:evt_9pW3xL0cJ4 (score 0.71) session \"Fix the failing migration test.\" turn 1, "
                 "assistant_response: Fixed. Migration 0042 now checks `users` with the SQLAlchemy inspector\n"
                 "Open an id with moraine open.")
    s.rec("event_msg", {"type": "mcp_tool_call_end", "call_id": cid, "invocation": inv,
                        "duration": {"secs": 0, "nanos": 212000000},
                        "result": {"Ok": {"content": [{"type": "text", "text": hits_text}], "isError": False}}},
          0.22, type="system", self_traffic=True)
    s.function_output(cid, hits_text, None, 0.01, self_traffic=True,
                      note="result of Moraine's own search: excluded from default search")
    args2 = {"id": "event:evt_9pW3xL0cJ4"}
    _n2, cid2 = s.function_call("moraine__open", args2, self_traffic=True,
                               note="Codex-style qualified MCP name server__tool: Moraine's own open tool")
    inv2 = {"server": "moraine", "tool": "open", "arguments": args2}
    s.rec("event_msg", {"type": "mcp_tool_call_begin", "call_id": cid2, "invocation": inv2}, 0.01,
          type="system", self_traffic=True)
    open_text = ("event:evt_9pW3xL0cJ4 assistant_response 2026-03-14T09:13:02.481Z\nFixed. Migration 0042 now "
                 "checks `users` with the SQLAlchemy inspector and only adds `email_normalized` and its unique "
                 "index when they are missing.")
    s.rec("event_msg", {"type": "mcp_tool_call_end", "call_id": cid2, "invocation": inv2,
                        "duration": {"secs": 0, "nanos": 48000000},
                        "result": {"Ok": {"content": [{"type": "text", "text": open_text}], "isError": False}}},
          0.05, type="system", self_traffic=True)
    s.function_output(cid2, open_text, None, 0.01, self_traffic=True)
    s.exec_text("grep -n 'get_columns' app/db/migrations/0042_add_email_normalized.py", 0, 0.1,
                "11:    if not any(c[\"name\"] == \"email_normalized\" for c in insp.get_columns(\"users\")):\n")
    final = ("Last week's fix (session \"Fix the failing migration test.\") made migration 0042 check the "
             "`users` columns with the SQLAlchemy inspector before `add_column`. The guard is still there "
             "(line 11 of 0042_add_email_normalized.py).")
    s.say(final)
    s.token_count(10230, 164)
    s.task_complete(final)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="mcp_internal",
                     model=CODEX_MODEL)
    return f


def build_codex_unicode() -> SampleFile:
    start = "2026-03-17T08:30:55.019"
    f = SampleFile("", "codex", "codex-unicode",
                   ["7: Japanese, Chinese, French (accents), emoji in prompts and replies (raw UTF-8)",
                    "byte offsets differ from character offsets", "mode chat (no tool calls)",
                    "agent_message event_msg BEFORE its response_item mirror (order varies across versions)"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-unicode")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("データベースの移行が失敗しました。\n`alembic upgrade head` を実行すると "
             "\"duplicate key value violates unique constraint\" と表示されます。どうすればいいですか？")
    r1 = ("原因は、移行 0042 が既存のデータを正規化せずに一意インデックスを作成していることです。"
          "先に重複したメールアドレスを統合してから、インデックスを作成してください。手順:\n"
          "1. `SELECT lower(email), count(*) FROM users GROUP BY 1 HAVING count(*) > 1;` で重複を確認\n"
          "2. 重複を統合する移行を 0042 の前に追加\n3. `alembic upgrade head` を再実行")
    s.say(r1, dt=6.2, event_first=True)
    s.token_count(7400, 390)
    s.task_complete(r1)
    s.clock.tick(60)
    s.begin_turn()
    s.prompt("修复数据库迁移的步骤能用中文再总结一下吗？🙏")
    r2 = ("当然可以 ✅\n1. 先查出重复的邮箱（按 lower(email) 分组）。\n2. 新增一个迁移，合并重复用户。\n"
          "3. 再运行 `alembic upgrade head` 修复数据库迁移。🚀")
    s.say(r2, dt=4.0, event_first=True)
    s.token_count(7900, 160)
    s.task_complete(r2)
    s.clock.tick(45)
    s.begin_turn()
    s.prompt("Merci ! Peut-on aussi gérer les adresses « naïves » comme José.Núñez@exemple.fr ? 😅")
    r3 = ("Oui 👍 — normalisez avec `unicodedata.normalize(\"NFC\", email).casefold()` avant la comparaison ; "
          "« José.Núñez@exemple.fr » et « josé.núñez@exemple.fr » deviennent identiques. Café, crème brûlée "
          "et résumé sont aussi correctement gérés.")
    s.say(r3, dt=3.5, event_first=True)
    s.token_count(8300, 140)
    s.task_complete(r3)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="chat",
                     model=CODEX_MODEL)
    return f


LARGE_NEEDLE = "quokka_overflow_sentinel"


def big_log(target: int = 300_000) -> str:
    r = random.Random("ingest-log")
    t = at("2026-03-18T01:00:00.000")
    out: list[str] = []
    size = 0
    i = 0
    needle_done = False
    stall_done = False
    while size < target:
        t += timedelta(milliseconds=r.randint(40, 900))
        i += 1
        if not stall_done and size > target * 0.45:
            line = (f"{ts(t)} WARN  ingest.fsync     checkpoint fsync stalled 8123 ms "
                    "(segment=seg-000417 device=nvme0n1 queue_depth=64)")
            stall_done = True
        elif not needle_done and size > target * 0.9:
            line = (f"{ts(t)} ERROR ingest.compactor merge aborted: {LARGE_NEEDLE} generation=77 "
                    "reason=\"disk quota exceeded\" segments=seg-000410..seg-000417")
            needle_done = True
        else:
            kind = r.random()
            w = r.randint(0, 7)
            if kind < 0.80:
                line = (f"{ts(t)} INFO  ingest.worker[{w}] batch={i:06d} rows={r.randint(3000, 4000)} "
                        f"bytes={r.randint(400_000, 900_000)} flush_ms={r.randint(12, 95)} "
                        f"segment=seg-{400 + i // 700:06d}")
            elif kind < 0.95:
                line = (f"{ts(t)} DEBUG ingest.tailer    file=/var/log/app/events-{r.randint(1, 48):02d}.jsonl "
                        f"offset={r.randint(0, 2**31)} lines={r.randint(1, 5000)}")
            else:
                line = (f"{ts(t)} WARN  ingest.worker[{w}] slow batch={i:06d} flush_ms={r.randint(900, 2400)} "
                        "retrying=false")
        out.append(line)
        size += len(line) + 1
    return "\n".join(out) + "\n"


def build_codex_large() -> SampleFile:
    start = "2026-03-19T07:55:30.333"
    f = SampleFile("", "codex", "codex-large-output",
                   ["8: one function_call_output of ~300 KB (realistic log lines)",
                    f"needle '{LARGE_NEEDLE}' sits after character 270,000 of the output: it must be searchable "
                    "and open(event) must return the full output untruncated",
                    "first line of the first prompt is longer than 80 chars (title cut)"])
    s = CodexSession(f, start, "/home/dev/ingest-service", "codex-large")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("The nightly ingest job took 3 hours instead of 20 minutes last night, look at the log and tell me "
             "where the time went\n\nLog: logs/ingest-2026-03-18.log. Is it the fsync stall again?")
    s.reasoning("**Reading the nightly log**\n\nDumping the whole log; it is large but I need the timings.")
    log = big_log()
    f.extra["large_output_chars"] = None  # filled below
    _n, m = s.exec_text("cat logs/ingest-2026-03-18.log", 0, 0.3, log, dt_out=0.4)
    out_text = json.loads(f.lines[m - 1].text)["payload"]["output"]
    f.extra["large_line"] = m
    f.extra["large_output_chars"] = len(out_text)
    f.extra["needle_char_offset_in_output"] = out_text.index(LARGE_NEEDLE)
    f.lines[m - 1].ann["note"] = (f"~300 KB output ({len(out_text)} chars, ASCII); contains '{LARGE_NEEDLE}' at "
                                  f"char {out_text.index(LARGE_NEEDLE)} and 'fsync stalled 8123 ms'")
    s.reasoning("**Finding the gap**\n\nOne fsync stall of 8 s, then the compactor merge aborted on disk quota.")
    final = ("The time went into compaction retries, not the fsync stall. There is one `checkpoint fsync "
             "stalled 8123 ms` warning on seg-000417, but the real problem is later: the compactor's merge of "
             "seg-000410..seg-000417 aborted with \"disk quota exceeded\" (generation 77), so every later batch "
             "was written to small unmerged segments. Free space on the data volume or raise the quota.")
    s.say(final)
    s.token_count(96200, 410)
    s.task_complete(final)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


def build_codex_malformed() -> SampleFile:
    start = "2026-03-12T13:07:44.090"
    f = SampleFile("", "codex", "codex-malformed",
                   ["9: a line that is not JSON (truncated), a JSON line that is not an object ([1,2]), a blank "
                    "line; valid lines after each: ingest must record issues and continue",
                    "mode chat"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-malformed")
    s.session_meta()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    f.raw('{"timestamp": "2026-03-', "malformed", reason="not JSON (truncated object)")
    s.prompt("What's the difference between `git rebase --onto` and a plain rebase?")
    f.raw("[1,2]", "malformed", reason="valid JSON but not an object")
    f.raw("", "blank", reason="blank line: skipped silently, no issue, no event")
    r1 = ("A plain `git rebase main` replays every commit of your branch that is not on `main`. "
          "`git rebase --onto main A B` replays only the commits after `A` up to `B`, onto `main`: use it when "
          "your branch was cut from another feature branch.")
    s.say(r1, dt=5.0)
    s.token_count(5200, 98)
    s.task_complete(r1)
    s.clock.tick(50)
    s.begin_turn()
    s.prompt("Show me the --onto form for moving feature-b off feature-a onto main")
    r2 = ("`git rebase --onto main feature-a feature-b`: replays the commits of feature-b that are not in "
          "feature-a onto main.")
    s.say(r2, dt=2.5)
    s.token_count(5400, 54)
    s.task_complete(r2)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="chat",
                     model=CODEX_MODEL)
    return f


def build_codex_halfline() -> SampleFile:
    start = "2026-03-20T08:14:52.377"
    f = SampleFile("", "codex", "codex-half-written",
                   ["10: the last line is a half-written agent_message with NO trailing newline: a tailer must not "
                    "emit it (nor count it as malformed) until the newline arrives",
                    "the only turn has no terminal event -> completed false"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-half")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("Add rate limiting to the /api/login endpoint: 5 attempts per minute per IP")
    s.reasoning("**Finding the login route**\n\nLooking for the router before adding a limiter.")
    s.exec_text("rg -n \"login\" src/api", 0, 0.1,
                "src/api/routes.ts:12:router.post(\"/api/login\", loginHandler);\n"
                "src/api/login.ts:8:export async function loginHandler(req, res) {\n")
    full_text = ("I'll add an in-memory sliding-window limiter keyed by IP in src/api/rateLimit.ts and apply it "
                 "to POST /api/login (5 attempts per 60 s, 429 with Retry-After).")
    full = dumps({"timestamp": s.clock.tick(2.0), "type": "event_msg",
                  "payload": {"type": "agent_message", "message": full_text, "phase": "commentary"}})
    cut = full.index("sliding-window") + len("sliding-")
    f.raw(full[:cut], "partial", reason="half-written last line, no trailing newline")
    f.extra["partial_remainder"] = full[cut:] + "\n"
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


def build_codex_unknown() -> SampleFile:
    start = "2026-03-13T15:40:18.555"
    f = SampleFile("", "codex", "codex-unknown-types",
                   ["11: unknown top-level record type (future_record_kind)",
                    "unknown response_item payload type (ghost_snapshot) and another (future_item_kind)",
                    "unknown event_msg type (future_event_kind)",
                    "all are type unknown: openable, never searched; ingest continues normally"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-unknown")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("Rename the helpers in utils/dates.py to snake_case and update every import")
    s.rec("response_item", {"type": "ghost_snapshot", "ghost_commit": {
        "id": hashlib.sha1(b"ghost-1").hexdigest(), "parent": hashlib.sha1(b"ghost-0").hexdigest(),
        "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}}, 0.3, type="unknown",
        note="response_item payload type not modelled -> unknown")
    s.rec("future_record_kind", {"schema": 3, "text": "holographic checkpoint marker written by a newer Codex",
                                 "value": 7}, 0.1, type="unknown", note="unknown top-level type -> unknown")
    s.exec_text("rg -n \"parseDate|formatDate\" --type py", 0, 0.1,
                "utils/dates.py:4:def parseDate(s):\nutils/dates.py:11:def formatDate(d):\n"
                "app/views/report.py:3:from utils.dates import parseDate, formatDate\n")
    s.rec("event_msg", {"type": "future_event_kind", "detail": "tachyon relay handshake completed",
                        "turn_id": s.turn_id}, 0.1, type="unknown", note="unknown event_msg type -> unknown")
    s.rec("response_item", {"type": "future_item_kind", "status": "completed",
                            "text": "zeppelin annotation from a future item type"}, 0.1, type="unknown")
    s.apply_patch("*** Begin Patch\n*** Update File: utils/dates.py\n@@\n-def parseDate(s):\n+def parse_date(s):\n"
                  "@@\n-def formatDate(d):\n+def format_date(d):\n*** Update File: app/views/report.py\n@@\n"
                  "-from utils.dates import parseDate, formatDate\n+from utils.dates import format_date, parse_date\n"
                  "*** End Patch\n",
                  "Success. Updated the following files:\nM utils/dates.py\nM app/views/report.py\n")
    final = ("Renamed `parseDate` → `parse_date` and `formatDate` → `format_date`, and updated the one import "
             "in app/views/report.py.")
    s.say(final)
    s.token_count(9100, 140)
    s.task_complete(final)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


def build_codex_secrets() -> SampleFile:
    start = "2026-03-11T19:22:06.908"
    f = SampleFile("", "codex", "codex-secrets",
                   ["12: secrets in a prompt (and its mirror), in tool-call arguments and in command outputs: "
                    "AWS access key id, GitHub token, OpenAI project key, PEM private key block; all must be "
                    "redacted at ingest"])
    s = CodexSession(f, start, "/home/dev/webapp", "codex-secrets")
    s.session_meta()
    s.developer()
    s.injected(env_context(s.cwd), "environment_context")
    s.begin_turn()
    s.prompt("The deploy script fails with 403. These are the env vars it uses:\n"
             f"AWS_ACCESS_KEY_ID={AWS_KEY}\nGITHUB_TOKEN={GH_TOKEN}\nWhy does it fail?",
             secrets=["aws", "github"])
    s.reasoning("**Checking credentials**\n\nLooking at .env.production and testing the GitHub token.")
    s.exec_text("cat .env.production", 0, 0.1,
                "NODE_ENV=production\nDATABASE_URL=postgres://app@db.internal:5432/app\n"
                f"OPENAI_API_KEY={OPENAI_KEY}\nAWS_ACCESS_KEY_ID={AWS_KEY}\nAWS_REGION=eu-west-1\n",
                secrets=["openai", "aws"])
    s.exec_text("cat deploy/id_rsa", 0, 0.1, PEM + "\n", secrets=["pem"])
    _n, cid = s.function_call("exec_command", {
        "cmd": f"curl -s -H \"Authorization: token {GH_TOKEN}\" https://api.github.com/user", "workdir": s.cwd},
        secrets=["github"], note="secret inside the call arguments (searchable command line): must be redacted")
    s.function_output(cid, "Exit code: 0\nWall time: 0.4 seconds\nOutput:\n{\n  \"message\": \"Bad credentials\",\n"
                      "  \"documentation_url\": \"https://docs.github.com/rest\",\n  \"status\": \"401\"\n}\n", 0, 0.4)
    final = ("The GitHub token in GITHUB_TOKEN is revoked (the API answers 401 Bad credentials), so the deploy "
             "step that pushes the release tag gets 403. Create a new fine-grained token with `contents: write`, "
             "store it in the CI secret store, and rotate the AWS key and the deploy SSH key you pasted here and "
             "that are committed in .env.production and deploy/id_rsa.")
    s.say(final)
    s.token_count(12010, 220)
    s.task_complete(final)
    f.relpath = codex_path(start, s.sid)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CODEX_MODEL)
    return f


# =========================================================================== Claude Code sessions

CLAUDE_PROJECT = "claude/projects/-home-dev-webapp"
WEBAPP = "/home/dev/webapp"


def read_output(path: str, lines: list[str]) -> str:
    return "\n".join(f"{i:>6}→{t}" for i, t in enumerate(lines, 1))


SIGNUP_TS = [
    'import { Router } from "express";',
    'import { createUser } from "../services/users";',
    'import { isValidEmail } from "../lib/email";',
    "",
    "export const signup = Router();",
    "",
    'signup.post("/api/signup", async (req, res) => {',
    "  const params = new URLSearchParams(req.body);",
    '  const email = params.get("email")!;',
    "  if (!isValidEmail(email)) throw new Error(`invalid email: ${email}`);",
    "  const user = await createUser(email);",
    "  res.status(201).json({ id: user.id });",
    "});",
]


def build_claude_normal() -> SampleFile:
    f = SampleFile("", "claude-code", "claude-normal",
                   ["13: normal two-turn session; assistant replies split over several lines sharing message.id "
                    "(thinking, text, tool_use)", "Bash/Read/Edit tool_use; tool_result with toolUseResult "
                    "{stdout,stderr,interrupted,isImage}; one is_error:true result (Exit code 1)",
                    "stop_reason end_turn and system turn_duration (terminal)",
                    "summary, custom-title, ai-title, permission-mode, file-history-snapshot, queue-operation "
                    "(enqueue/dequeue), attachment, last-prompt",
                    "title = custom-title (wins over ai-title and summary)",
                    "prompt 2 is [typed text, <system-reminder> text] in one record: ONE turn"])
    s = ClaudeSession(f, "2026-03-14T15:02:10.412", WEBAPP, "claude-normal")
    f.relpath = f"{CLAUDE_PROJECT}/{s.sid}.jsonl"
    s.meta({"type": "summary", "summary": "Signup 500 with plus-addressed emails",
            "leafUuid": uuid4("claude-normal:leaf")},
           note="summary record at top: no sessionId, no timestamp; a title candidate (loses to custom-title)")
    s.meta({"type": "permission-mode", "permissionMode": "default", "sessionId": s.sid})
    s.file_history_snapshot("p1")
    p1 = ("The signup endpoint returns 500 when the email contains a plus sign (e.g. jane+test@acme.io). "
          "Find the cause and fix it.")
    s.prompt(p1, dt=0.2)
    m = s.new_msg_id()
    s.thinking(m, "A plus sign in form-encoded data decodes to a space. If the handler parses the body with "
                  "URLSearchParams, jane+test@acme.io becomes 'jane test@acme.io', fails validation and the throw "
                  "is unhandled. Reproduce first.")
    s.text(m, "I'll reproduce the 500 first.")
    _, t1 = s.tool_use(m, "Bash", {"command": "curl -s -o /dev/null -w '%{http_code}' -X POST "
                                              "localhost:3000/api/signup -H 'content-type: application/json' "
                                              "-d '{\"email\":\"jane+test@acme.io\"}'",
                                   "description": "Reproduce the 500 on signup"})
    s.tool_result(t1, "500", {"stdout": "500", "stderr": "", "interrupted": False, "isImage": False})
    m = s.new_msg_id()
    path = f"{WEBAPP}/src/api/signup.ts"
    _, t2 = s.tool_use(m, "Read", {"file_path": path})
    s.tool_result(t2, read_output(path, SIGNUP_TS),
                  {"type": "text", "file": {"filePath": path, "content": "\n".join(SIGNUP_TS),
                                            "numLines": len(SIGNUP_TS), "startLine": 1,
                                            "totalLines": len(SIGNUP_TS)}})
    m = s.new_msg_id()
    s.text(m, "`new URLSearchParams(req.body)` turns the `+` into a space, validation throws, and the throw is "
              "not caught, hence the 500. I'll read the JSON body directly and return 400 on invalid input.")
    old = ('  const params = new URLSearchParams(req.body);\n  const email = params.get("email")!;\n'
           "  if (!isValidEmail(email)) throw new Error(`invalid email: ${email}`);")
    new = ('  const email = String(req.body?.email ?? "");\n'
           '  if (!isValidEmail(email)) return res.status(400).json({ error: "invalid_email" });')
    _, t3 = s.tool_use(m, "Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False})
    s.tool_result(t3, f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of "
                      "the edited file:\n     7→signup.post(\"/api/signup\", async (req, res) => {\n"
                      "     8→  const email = String(req.body?.email ?? \"\");\n"
                      "     9→  if (!isValidEmail(email)) return res.status(400).json({ error: \"invalid_email\" });",
                  {"filePath": path, "oldString": old, "newString": new, "originalFile": "\n".join(SIGNUP_TS),
                   "structuredPatch": [{"oldStart": 8, "oldLines": 3, "newStart": 8, "newLines": 2,
                                        "lines": ["-" + x for x in old.split("\n")]
                                        + ["+" + x for x in new.split("\n")]}],
                   "userModified": False, "replaceAll": False})
    m = s.new_msg_id()
    _, t4 = s.tool_use(m, "Bash", {"command": "npm test -- src/api/signup", "description": "Run signup tests"})
    s.meta({"type": "queue-operation", "operation": "enqueue", "timestamp": s.clock.tick(3.0), "sessionId": s.sid,
            "content": "also add a regression test for this"}, type="runtime",
           note="text typed while the agent works: NOT a prompt and not a turn start")
    fail = ("Exit code 1\n FAIL  src/api/signup.test.ts\n  ✕ rejects malformed email with 500 (14 ms)\n\n"
            "  Expected: 500\n  Received: 400\n\nTests: 1 failed, 5 passed, 6 total")
    s.tool_result(t4, fail, "Error: " + fail, is_error=True, exit_code=1, dt=4.0,
                  note="content states 'Exit code 1'")
    m = s.new_msg_id()
    s.text(m, "One test pinned the old 500; it should expect 400 now.")
    tpath = f"{WEBAPP}/src/api/signup.test.ts"
    _, t5 = s.tool_use(m, "Edit", {"file_path": tpath,
                                    "old_string": "  it(\"rejects malformed email with 500\", async () => {\n"
                                                  "    expect(res.status).toBe(500);",
                                    "new_string": "  it(\"rejects malformed email with 400\", async () => {\n"
                                                  "    expect(res.status).toBe(400);", "replace_all": False})
    s.tool_result(t5, f"The file {tpath} has been updated.",
                  {"filePath": tpath, "userModified": False, "replaceAll": False})
    m = s.new_msg_id()
    _, t6 = s.tool_use(m, "Bash", {"command": "npm test -- src/api/signup", "description": "Re-run signup tests"})
    ok = (" PASS  src/api/signup.test.ts\n  ✓ creates a user (21 ms)\n  ✓ rejects malformed email with 400 (6 ms)\n\n"
          "Tests: 6 passed, 6 total")
    s.tool_result(t6, ok, {"stdout": ok, "stderr": "", "interrupted": False, "isImage": False}, dt=4.2)
    m = s.new_msg_id()
    s.text(m, "Fixed: the handler parsed the JSON body with `URLSearchParams`, which decodes `+` as a space, so "
              "`jane+test@acme.io` failed validation and the uncaught throw became a 500. It now reads "
              "`req.body.email` directly and answers 400 for invalid emails. Signup tests pass (6/6).",
           stop_reason="end_turn")
    s.turn_duration(61234)
    s.meta({"type": "queue-operation", "operation": "dequeue", "timestamp": s.clock.tick(0.2), "sessionId": s.sid},
           type="runtime")
    s.meta({"type": "custom-title", "customTitle": "Fix 500 on signup with plus-addressed emails",
            "sessionId": s.sid}, note="custom-title: THE title")
    s.meta({"type": "ai-title", "sessionId": s.sid, "aiTitle": "Signup endpoint plus-sign email bug"},
           note="ai-title (loses to custom-title)")
    d = s.base("attachment", 0.1)
    d["attachment"] = {"type": "edited_text_file", "filename": tpath,
                       "snippet": "     9→  it(\"rejects malformed email with 400\", async () => {"}
    s.f.add(s._finish(d, 0.1), type="system", note="attachment: context for the next prompt, NOT a prompt")
    p2 = "also add a regression test for this"
    s.prompt(p2, dt=0.3, blocks=[
        {"type": "text", "text": p2},
        {"type": "text", "text": "<system-reminder>\nThe user opened the file "
                                 f"{tpath} in the IDE. This may or may not be related to the current task.\n"
                                 "</system-reminder>"}],
        note="dequeued prompt; the appended <system-reminder> block is not a second prompt")
    m = s.new_msg_id()
    _, t7 = s.tool_use(m, "Edit", {"file_path": tpath, "old_string": "describe(\"signup\", () => {",
                                    "new_string": "describe(\"signup\", () => {\n  it(\"accepts plus-addressed "
                                                  "emails\", async () => {\n    const res = await post({ email: "
                                                  "\"jane+test@acme.io\" });\n    expect(res.status).toBe(201);\n  });",
                                    "replace_all": False}, dt=3.0)
    s.tool_result(t7, f"The file {tpath} has been updated.",
                  {"filePath": tpath, "userModified": False, "replaceAll": False})
    m = s.new_msg_id()
    s.text(m, "Added `accepts plus-addressed emails` to src/api/signup.test.ts: it posts jane+test@acme.io and "
              "expects 201.", stop_reason="end_turn", dt=2.0)
    s.turn_duration(9120)
    s.meta({"type": "last-prompt", "lastPrompt": p2, "sessionId": s.sid})
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="custom-title",
                     title="Fix 500 on signup with plus-addressed emails", mode="tool_calling",
                     model=CLAUDE_MODEL)
    return f


CAVEAT = ("Caveat: The messages below were generated by the user while running local commands. DO NOT respond "
          "to these messages or otherwise consider them in your response unless the user explicitly asks you to.")


def build_claude_injected() -> SampleFile:
    f = SampleFile("", "claude-code", "claude-injected",
                   ["14: isMeta caveat, <command-name>/clear</command-name>, <local-command-stdout>, a text that is "
                    "only a <system-reminder>: none of them start turns",
                    "'[Request interrupted by user for tool use]' and '[Request interrupted by user]': runtime, "
                    "terminal", "rejected tool_use (tool_result is_error true)",
                    "system api_error: terminal; then the synthetic isApiErrorMessage assistant text",
                    "title falls back to the first genuine prompt (not the caveat or /clear)"])
    s = ClaudeSession(f, "2026-03-15T09:40:00.120", WEBAPP, "claude-injected")
    f.relpath = f"{CLAUDE_PROJECT}/{s.sid}.jsonl"
    s.user(CAVEAT, 0.0, extra={"isMeta": True}, type="system", note="isMeta caveat: NOT a prompt")
    s.user("<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n"
           "            <command-args></command-args>", 0.01, type="system", note="slash-command echo: NOT a prompt")
    s.user("<local-command-stdout></local-command-stdout>", 0.01, type="system",
           note="local command output echo: NOT a prompt")
    s.prompt("Run the linter and fix whatever it complains about", dt=8.0)
    m = s.new_msg_id()
    _, t1 = s.tool_use(m, "Bash", {"command": "npm run lint", "description": "Run ESLint on the project"}, dt=2.2)
    s.tool_result(t1, "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
                      "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
                      "wait for the user to tell you how to proceed.", "User rejected tool use", is_error=True,
                  dt=3.1, note="rejected tool use (is_error, no exit code)")
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}], 0.01, type="runtime",
           terminal="interrupt", note="interrupt marker: runtime, terminal, NOT a prompt")
    s.prompt("Only lint src/components, the rest is generated code.", dt=6.0)
    m = s.new_msg_id()
    s.text(m, "Got it. I'll run ESLint on src/components only and then go through", dt=1.4,
           note="partial reply cut by the interrupt")
    s.user([{"type": "text", "text": "[Request interrupted by user]"}], 0.9, type="runtime", terminal="interrupt",
           note="interrupt marker: runtime, terminal, NOT a prompt")
    s.user([{"type": "text", "text": "<system-reminder>\nThe TodoWrite tool hasn't been used recently. If you're "
                                     "working on tasks that would benefit from tracking progress, consider using "
                                     "the TodoWrite tool to track progress.\n</system-reminder>"}], 0.3,
           type="system", note="text that is only a <system-reminder>: NOT a prompt")
    s.prompt("ok go ahead, src/components only", dt=4.0)
    m = s.new_msg_id()
    _, t2 = s.tool_use(m, "Bash", {"command": "npx eslint src/components --fix",
                                    "description": "Lint and autofix src/components"}, dt=1.8)
    out = ("/home/dev/webapp/src/components/Cart.tsx\n  41:7  warning  'total' is assigned a value but never used  "
           "@typescript-eslint/no-unused-vars\n\n/home/dev/webapp/src/components/Header.tsx\n  12:3  warning  React "
           "Hook useEffect has a missing dependency: 'user'  react-hooks/exhaustive-deps\n\n✖ 2 problems (0 errors, "
           "2 warnings)")
    s.tool_result(t2, out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}, dt=5.5)
    s.system("api_error", {"level": "error", "error": {"status": 529, "headers": {}, "requestID": "req_011C"
                                                                                          + rstr("api-err", 18),
                                                        "error": {"type": "error", "error": {
                                                            "type": "overloaded_error", "message": "Overloaded"}}},
                           "retryInMs": 0, "retryAttempt": 10, "maxRetries": 10}, dt=41.0, type="system",
             terminal="api_error", note="api_error after the last retry: terminal")
    m = s.new_msg_id()
    s.assistant(m, {"type": "text", "text": "API Error: Repeated 529 Overloaded errors · check status.anthropic.com"},
                "stop_sequence", 0.05, extra={"isApiErrorMessage": True}, model="<synthetic>",
                type="assistant_response", note="synthetic API error text (model <synthetic>), after the terminal")
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CLAUDE_MODEL)
    return f


def build_claude_compaction() -> SampleFile:
    f = SampleFile("", "claude-code", "claude-compaction",
                   ["15: /compact: system compact_boundary + isCompactSummary/isVisibleInTranscriptOnly user "
                    "record ('This session is being continued…'): compaction, NOT a prompt",
                    "the /compact command echo (caveat, <command-name>, <local-command-stdout>) is not a prompt",
                    "two ai-title records: the LATEST one is the title"])
    s = ClaudeSession(f, "2026-03-16T13:10:00.700", WEBAPP, "claude-compaction", branch="fix/ws-reconnect")
    f.relpath = f"{CLAUDE_PROJECT}/{s.sid}.jsonl"
    s.file_history_snapshot("p1")
    s.prompt("The websocket reconnect test in tests/ws/reconnect.spec.ts is flaky, find out why", dt=0.1)
    s.meta({"type": "ai-title", "sessionId": s.sid, "aiTitle": "Investigate flaky websocket reconnect test"},
           note="first ai-title (superseded)")
    m = s.new_msg_id()
    s.thinking(m, "Flaky reconnect tests usually race the real backoff timer. Check how the test waits.")
    tp = f"{WEBAPP}/tests/ws/reconnect.spec.ts"
    _, t1 = s.tool_use(m, "Read", {"file_path": tp})
    body = ['import { connect } from "../../src/ws/client";', "", 'test("reconnects after drop", async () => {',
            "  const c = connect(url);", "  server.dropAll();", "  await sleep(1000);",
            "  expect(c.state).toBe(\"open\");", "});"]
    s.tool_result(t1, read_output(tp, body), {"type": "text", "file": {"filePath": tp, "content": "\n".join(body),
                                                                       "numLines": 8, "startLine": 1, "totalLines": 8}})
    m = s.new_msg_id()
    _, t2 = s.tool_use(m, "Bash", {"command": "for i in $(seq 20); do npx vitest run tests/ws/reconnect.spec.ts "
                                              "--silent || echo FAIL; done | grep -c FAIL",
                                   "description": "Run the reconnect test 20 times"})
    s.tool_result(t2, "7", {"stdout": "7", "stderr": "", "interrupted": False, "isImage": False}, dt=48.0)
    m = s.new_msg_id()
    s.text(m, "It fails 7/20 times. The client's first reconnect delay is 500-1500 ms (random backoff without a "
              "cap on the first attempt), but the test waits a fixed 1000 ms. Fix: deterministic jitter bounds "
              "plus fake timers in the test.", stop_reason="end_turn")
    s.turn_duration(71520)
    leaf = s.last_uuid()
    s.parent = None
    s.system("compact_boundary", {"content": "Conversation compacted", "isMeta": False, "level": "info",
                                  "logicalParentUuid": leaf,
                                  "compactMetadata": {"trigger": "manual", "preTokens": 61234}}, dt=35.0,
             type="system", note="compact_boundary (parentUuid null, logicalParentUuid = previous leaf)")
    summary = ("This session is being continued from a previous conversation that ran out of context. The "
               "conversation is summarized below:\nAnalysis:\nThe user reported a flaky websocket reconnect test. "
               "I read tests/ws/reconnect.spec.ts and ran it 20 times: 7 failures.\n\nSummary:\n"
               "1. Primary Request and Intent: find why tests/ws/reconnect.spec.ts is flaky.\n"
               "2. Key Technical Concepts: exponential backoff with jitter, vitest fake timers.\n"
               "3. Root cause: the first reconnect delay is random in 500-1500 ms while the test sleeps a fixed "
               "1000 ms.\n4. Pending Tasks: implement bounded jitter and make the test use fake timers.")
    s.user(summary, 0.01, extra={"isCompactSummary": True, "isVisibleInTranscriptOnly": True}, type="compaction",
           note="compaction summary: searchable as compaction, NOT a prompt")
    s.user(CAVEAT, 0.01, extra={"isMeta": True}, type="system", note="isMeta caveat")
    s.user("<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n"
           "            <command-args></command-args>", 0.01, type="system", note="slash-command echo")
    s.user("<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>", 0.01,
           type="system", note="local command output echo")
    s.prompt("Now implement the fix: bounded jitter in the backoff, and make the test use fake timers", dt=20.0)
    s.meta({"type": "ai-title", "sessionId": s.sid, "aiTitle": "Fix websocket reconnect backoff and flaky test"},
           note="latest ai-title: THE title")
    cp = f"{WEBAPP}/src/ws/backoff.ts"
    m = s.new_msg_id()
    _, t3 = s.tool_use(m, "Edit", {"file_path": cp,
                                    "old_string": "  return base * 2 ** attempt * (0.5 + Math.random());",
                                    "new_string": "  const exp = Math.min(base * 2 ** attempt, maxDelay);\n"
                                                  "  return exp * (0.8 + 0.4 * random());", "replace_all": False},
                       dt=3.0)
    s.tool_result(t3, f"The file {cp} has been updated.", {"filePath": cp, "userModified": False,
                                                            "replaceAll": False})
    m = s.new_msg_id()
    _, t4 = s.tool_use(m, "Bash", {"command": "for i in $(seq 20); do npx vitest run tests/ws/reconnect.spec.ts "
                                              "--silent || echo FAIL; done | grep -c FAIL",
                                   "description": "Re-run the reconnect test 20 times"})
    s.tool_result(t4, "0", {"stdout": "0", "stderr": "", "interrupted": False, "isImage": False}, dt=45.0)
    m = s.new_msg_id()
    s.text(m, "Backoff jitter is now bounded to ±20% and capped by `maxDelay`, and the test advances fake timers "
              "instead of sleeping: 0 failures in 20 runs.", stop_reason="end_turn")
    s.turn_duration(52010)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="ai-title",
                     title="Fix websocket reconnect backoff and flaky test", mode="tool_calling", model=CLAUDE_MODEL)
    return f


SUBAGENT_ID = "a3f9c2e1"
TASK_PROMPT = ("Search /home/dev/webapp for SQL built with string formatting or concatenation (f-strings, "
               "% formatting, .format(), or + on query strings) passed to execute() or text().\n"
               "Report each call site as file:line with a one-line risk note. Do not modify files.")


def build_claude_subagent() -> tuple[SampleFile, SampleFile]:
    parent = SampleFile("", "claude-code", "claude-subagent-parent",
                        ["16: parent session calling tool_use Task {description, prompt, subagent_type}; the "
                         "tool_result toolUseResult names the agentId",
                         "title from the summary record (no custom-title / ai-title)"])
    s = ClaudeSession(parent, "2026-03-17T16:45:00.030", WEBAPP, "claude-subagent-parent")
    parent.relpath = f"{CLAUDE_PROJECT}/{s.sid}.jsonl"
    leaf = uuid4("claude-subagent-parent:rec:5")  # uuid of the final assistant record (5th chained record)
    s.meta({"type": "summary", "summary": "SQL string-formatting audit of query call sites", "leafUuid": leaf},
           note="summary record: THE title (no custom-title, no ai-title)")
    s.file_history_snapshot("p1")
    s.prompt("Audit the codebase for SQL built with string formatting or concatenation and list every call site",
             dt=0.1)
    m = s.new_msg_id()
    s.text(m, "I'll hand the search to a subagent so it can grep broadly without filling this context.")
    _, tid = s.tool_use(m, "Task", {"description": "Find SQL string formatting", "prompt": TASK_PROMPT,
                                    "subagent_type": "general-purpose"},
                        note="spawns the subagent whose transcript is subagents/agent-a3f9c2e1.jsonl")
    task_call_ts = s.clock.now

    child = SampleFile("", "claude-code", "claude-subagent-child",
                       ["16: subagent transcript: every record isSidechain:true, agentId a3f9c2e1, sessionId = the "
                        "PARENT's; indexed as a child session naming its parent",
                        "its events must NOT appear in the parent session or open turns there"])
    c = ClaudeSession(child, ts(task_call_ts + timedelta(milliseconds=420)), WEBAPP, "claude-subagent-child",
                      sid=s.sid, agent_id=SUBAGENT_ID)
    c.model = "claude-sonnet-4-6"
    child.relpath = f"{CLAUDE_PROJECT}/{s.sid}/subagents/agent-{SUBAGENT_ID}.jsonl"
    c.user(TASK_PROMPT, 0.0, type="user_input", prompt=True, prompt_text=TASK_PROMPT,
           note="the Task prompt: the child session's input; opens the child's only turn (never a parent turn)")
    cm = c.new_msg_id()
    _, g = c.tool_use(cm, "Grep", {"pattern": "(execute|text)\\((f\"|\".*\" ?%|.*\\.format\\(|.*\" ?\\+)",
                                   "path": f"{WEBAPP}/app", "output_mode": "content", "-n": True}, dt=2.5)
    grep_out = ("app/reports/sales.py:42:    db.execute(f\"SELECT * FROM orders WHERE region = '{region}'\")\n"
                "app/admin/search.py:17:    q = text(\"SELECT id FROM users WHERE name LIKE '%\" + term + \"%'\")\n"
                "app/jobs/cleanup.py:88:    conn.execute(\"DELETE FROM sessions WHERE user_id = %s\" % user_id)")
    c.tool_result(g, grep_out, {"mode": "content", "numFiles": 3, "filenames": [], "content": grep_out,
                                "numLines": 3}, dt=0.9)
    cm = c.new_msg_id()
    _, r = c.tool_use(cm, "Read", {"file_path": f"{WEBAPP}/app/admin/search.py", "offset": 10, "limit": 12},
                      dt=1.6)
    c.tool_result(r, "    10→def search_users(term: str):\n    17→    q = text(\"SELECT id FROM users WHERE name "
                     "LIKE '%\" + term + \"%'\")",
                  {"type": "text", "file": {"filePath": f"{WEBAPP}/app/admin/search.py", "content": "...",
                                            "numLines": 12, "startLine": 10, "totalLines": 40}}, dt=0.4)
    cm = c.new_msg_id()
    child_final = ("Found 3 call sites:\n1. app/reports/sales.py:42, f-string with `region` from the query "
                   "string: injectable.\n2. app/admin/search.py:17, `+` concatenation of `term` into LIKE: "
                   "injectable (admin only).\n3. app/jobs/cleanup.py:88, `%` formatting of `user_id`: an int from "
                   "the DB, low risk but should be a bound parameter.")
    c.text(cm, child_final, stop_reason="end_turn", dt=3.2)
    child_end = c.clock.now

    s.clock.now = child_end + timedelta(milliseconds=300)
    s.tool_result(tid, [{"type": "text", "text": child_final}],
                  {"status": "completed", "prompt": TASK_PROMPT, "agentId": SUBAGENT_ID,
                   "content": [{"type": "text", "text": child_final}], "totalDurationMs": 9876,
                   "totalTokens": 18234, "totalToolUseCount": 2,
                   "usage": {"input_tokens": 12, "output_tokens": 388, "cache_read_input_tokens": 17834}},
                  dt=0.0, note="Task result: carries the subagent's final text and agentId")
    m = s.new_msg_id()
    s.text(m, "Three call sites build SQL from strings:\n- app/reports/sales.py:42 (f-string, injectable)\n"
              "- app/admin/search.py:17 (concatenation, injectable)\n- app/jobs/cleanup.py:88 (% formatting, low "
              "risk)\nI'd fix the first two with bound parameters first.", stop_reason="end_turn", dt=2.0)
    assert s.last_uuid() == leaf
    s.turn_duration(14410)
    parent.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="summary",
                          title="SQL string-formatting audit of query call sites", mode="tool_calling",
                          model=CLAUDE_MODEL, children=[SUBAGENT_ID])
    child.session = dict(native_session_id=f"{s.sid}/agent-{SUBAGENT_ID}", agent_id=SUBAGENT_ID,
                         parent_session_id=s.sid, cwd=WEBAPP, title_source="first_prompt",
                         mode="tool_calling", model="claude-sonnet-4-6",
                         id_note=("records carry the parent's sessionId; the child's own identity is the agentId "
                                  f"'{SUBAGENT_ID}' (file stem agent-{SUBAGENT_ID}). The native id shown here is "
                                  "this README's convention, not a requirement."))
    return parent, child


def build_claude_multimodal() -> SampleFile:
    f = SampleFile("", "claude-code", "claude-image-unicode-web-mcp",
                   ["17: user message with an image block (base64 PNG) first, then Japanese text",
                    "Japanese and Chinese prompts/replies, emoji",
                    "mcp__moraine__search_sessions tool_use + tool_result (self-traffic, excluded by default)",
                    "WebSearch tool_use {query}: mode web_search (wins over mcp_internal)"])
    s = ClaudeSession(f, "2026-03-18T06:12:00.900", WEBAPP, "claude-multimodal")
    f.relpath = f"{CLAUDE_PROJECT}/{s.sid}.jsonl"
    s.file_history_snapshot("p1")
    p1 = ("このスクリーンショットのエラーを見てください。\n"
          "データベースの移行が失敗しました。前にも同じことがあった気がします。")
    s.prompt(p1, dt=0.1, blocks=[
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        {"type": "text", "text": p1}],
        note="one prompt (image + text); the base64 image bytes must never be indexed")
    m = s.new_msg_id()
    s.thinking(m, "The screenshot shows alembic failing with DuplicateColumn on users.email_normalized. The user "
                  "thinks it happened before: search history first.")
    s.text(m, "スクリーンショットを確認しました。`users.email_normalized` の DuplicateColumn エラーです。"
              "以前の対応を履歴から探します。")
    q = {"query": "データベース 移行 失敗 DuplicateColumn", "n_hits": 5}
    _, t1 = s.tool_use(m, "mcp__moraine__search_sessions", q, self_traffic=True,
                       note="Moraine's own search tool: excluded from default search")
    res = dumps({"schema": "moraine.mcp.search_sessions.v1", "hits": [
        {"rank": 1, "score": 1.0, "id": "event:evt_5mQ2rT8vK1", "snippet": {
            "text": "psycopg.errors.DuplicateColumn: column \"email_normalized\" of relation \"users\" already exists",
            "truncated": False}}], "truncated": False})
    s.tool_result(t1, [{"type": "text", "text": res}], [{"type": "text", "text": res}], self_traffic=True,
                  note="result of Moraine's own search: excluded from default search")
    m = s.new_msg_id()
    _, t2 = s.tool_use(m, "WebSearch", {"query": "alembic DuplicateColumn add_column if not exists postgres"},
                       web=True, note="WebSearch: query searchable; mode web_search")
    links = [{"title": "Alembic cookbook: conditional add_column", "url": "https://alembic.sqlalchemy.org/en/latest/cookbook.html"},
             {"title": "PostgreSQL ALTER TABLE ... ADD COLUMN IF NOT EXISTS", "url": "https://www.postgresql.org/docs/current/sql-altertable.html"}]
    s.tool_result(t2, "Web search results for query: \"alembic DuplicateColumn add_column if not exists postgres\"\n\n"
                      f"Links: {dumps(links)}\n\nUse ADD COLUMN IF NOT EXISTS (PostgreSQL 9.6+) or inspect the table "
                      "before op.add_column.",
                  {"query": "alembic DuplicateColumn add_column if not exists postgres",
                   "results": [{"tool_use_id": "srvtoolu_01" + rstr("ws1", 22), "content": links},
                               "Use ADD COLUMN IF NOT EXISTS (PostgreSQL 9.6+) or inspect the table first."],
                   "durationSeconds": 3.2}, dt=3.4)
    m = s.new_msg_id()
    s.text(m, "前回（3月14日）も同じエラーでした。原因は移行 0042 が `email_normalized` 列を無条件に追加していた"
              "ことです。修正方法: `op.add_column` の前に inspector で列の存在を確認してください 🙂",
           stop_reason="end_turn")
    s.turn_duration(22340)
    p2 = "修复数据库迁移，然后用中文总结一下改了什么 🙏"
    s.prompt(p2, dt=30.0)
    mp = f"{WEBAPP}/app/db/migrations/0042_add_email_normalized.py"
    m = s.new_msg_id()
    _, t3 = s.tool_use(m, "Edit", {"file_path": mp,
                                    "old_string": "    op.add_column(\"users\", sa.Column(\"email_normalized\", "
                                                  "sa.String(320), nullable=True))",
                                    "new_string": "    op.execute(\"ALTER TABLE users ADD COLUMN IF NOT EXISTS "
                                                  "email_normalized varchar(320)\")", "replace_all": False})
    s.tool_result(t3, f"The file {mp} has been updated.", {"filePath": mp, "userModified": False,
                                                            "replaceAll": False})
    m = s.new_msg_id()
    s.text(m, "✅ 已修复数据库迁移：\n- 0042 改用 `ADD COLUMN IF NOT EXISTS`，重复执行不会再报 DuplicateColumn。\n"
              "- 其他文件未改动。🚀", stop_reason="end_turn")
    s.turn_duration(15870)
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="web_search",
                     model=CLAUDE_MODEL)
    return f


def build_claude_live() -> SampleFile:
    f = SampleFile("", "claude-code", "claude-live",
                   ["18: live session: the latest turn has a Bash tool_use with no tool_result yet -> completed false",
                    "the last line (that tool_result being written) is half-written with NO trailing newline"])
    s = ClaudeSession(f, "2026-03-20T18:05:00.450", WEBAPP, "claude-live")
    f.relpath = f"{CLAUDE_PROJECT}/{s.sid}.jsonl"
    s.prompt("What does the `prebuild` script in package.json do?", dt=0.0)
    m = s.new_msg_id()
    _, t1 = s.tool_use(m, "Read", {"file_path": f"{WEBAPP}/package.json"})
    pkg = ['{', '  "name": "webapp",', '  "version": "2.4.0",', '  "scripts": {',
           '    "prebuild": "node scripts/gen-routes.mjs && tsc -p tsconfig.build.json --noEmit",',
           '    "build": "vite build"', '  }', '}']
    s.tool_result(t1, read_output(f"{WEBAPP}/package.json", pkg),
                  {"type": "text", "file": {"filePath": f"{WEBAPP}/package.json", "content": "\n".join(pkg),
                                            "numLines": 8, "startLine": 1, "totalLines": 8}})
    m = s.new_msg_id()
    s.text(m, "`prebuild` runs automatically before `npm run build`: it regenerates the route table with "
              "scripts/gen-routes.mjs and type-checks with `tsc --noEmit`.", stop_reason="end_turn")
    s.turn_duration(7010)
    s.prompt("Run the production build and fix any type errors", dt=25.0)
    m = s.new_msg_id()
    s.text(m, "Running the production build now.")
    _, t2 = s.tool_use(m, "Bash", {"command": "npm run build", "description": "Production build", "timeout": 600000},
                       note="no tool_result yet (the next line is still being written)")
    # the tool_result being written when the file was copied
    d = s.base("user", 0)
    d["message"] = {"role": "user", "content": [{"tool_use_id": t2, "type": "tool_result", "content":
                    "> webapp@2.4.0 prebuild\n> node scripts/gen-routes.mjs && tsc -p tsconfig.build.json --noEmit\n\n"
                    "src/components/Cart.tsx(41,7): error TS2322: Type 'string | undefined' is not assignable to "
                    "type 'string'.", "is_error": True}]}
    d["toolUseResult"] = "Error: Exit code 2"
    full = dumps(s._finish(d, 38.0))
    cut = full.index("is not assign") + len("is not assign")
    f.raw(full[:cut], "partial", reason="half-written last line (the Bash tool_result), no trailing newline")
    f.extra["partial_remainder"] = full[cut:] + "\n"
    f.session = dict(native_session_id=s.sid, cwd=s.cwd, title_source="first_prompt", mode="tool_calling",
                     model=CLAUDE_MODEL)
    return f


# =========================================================================== oracle derivation


def derive(f: SampleFile) -> dict:
    content = f.content()
    offsets, off = [], 0
    for ln in f.lines:
        offsets.append(off)
        off += len(ln.text.encode()) + (0 if ln.status == "partial" else 1)
    assert off == len(content)
    lines = []
    turn = 0
    turns: list[dict] = []
    for i, ln in enumerate(f.lines, 1):
        a = dict(ln.ann)
        entry = {"line": i, "offset": offsets[i - 1], "bytes": len(ln.text.encode()), "status": ln.status}
        if ln.status != "ok":
            entry["reason"] = a.get("reason")
            entry["type"] = None
            entry["turn"] = None
            lines.append(entry)
            continue
        if a.get("prompt") and turns and turns[-1]["prompt_line"] is None:
            turns[-1]["prompt_line"] = i  # first prompt: the lines before it belong to turn 1 too
        elif a.get("prompt"):
            turn += 1
            turns.append({"ordinal": turn, "first_line": i, "prompt_line": i, "terminal_lines": []})
        elif not turns:
            turns.append({"ordinal": 1, "first_line": i, "prompt_line": None, "terminal_lines": []})
            turn = 1
        cur = turns[-1]
        cur["last_line"] = i
        if a.get("terminal"):
            cur["terminal_lines"].append({"line": i, "reason": a["terminal"]})
        entry.update({"record": a.get("record"), "type": a.get("type"), "turn": turn,
                      "event": a.get("type") is not None and a.get("mirror_of") is None})
        for k in ("mirror_of", "tool_name", "exit_code", "is_error", "self_traffic", "terminal", "prompt",
                  "secrets", "web", "note", "ts"):
            if k in a and a[k] is not None and a[k] is not False:
                entry[k] = a[k]
        if a.get("type") in ("tool_response",) and "exit_code" not in entry:
            entry["exit_code"] = None
        lines.append(entry)
    by_line = {e["line"]: e for e in lines}
    prompts = [e for e in lines if e.get("prompt")]
    for t in turns:
        t["completed"] = bool(t["terminal_lines"])
        t["terminal_event_line"] = t["terminal_lines"][-1]["line"] if t["terminal_lines"] else None
        # final response: last assistant_response event in the turn that is not commentary-phase
        finals = [e for e in lines if e.get("turn") == t["ordinal"] and e.get("type") == "assistant_response"
                  and e.get("event") and "phase commentary" not in (e.get("note") or "")]
        # an open turn has no final response yet (never invent one)
        t["final_response_line"] = finals[-1]["line"] if finals and t["completed"] else None
    stamps = [e["ts"] for e in lines if e.get("ts")]
    sess = dict(f.session)
    sess["harness"] = f.harness
    sess["file"] = f.relpath
    sess["started_at"] = min(stamps)
    sess["updated_at"] = max(stamps)
    sess["turn_count"] = len(turns)
    sess["completed"] = turns[-1]["completed"]
    # mode, derived from annotations, must match the declared one
    if any(e.get("web") for e in lines):
        mode = "web_search"
    elif any(e.get("self_traffic") for e in lines):
        mode = "mcp_internal"
    elif any(e.get("type") == "tool_call" for e in lines):
        mode = "tool_calling"
    else:
        mode = "chat"
    assert mode == sess["mode"], (f.key, mode, sess["mode"])
    first_prompt = by_line[prompts[0]["line"]] if prompts else None
    fp_text = f.lines[first_prompt["line"] - 1].ann["prompt_text"] if first_prompt else None
    first_line = fp_text.split("\n", 1)[0] if fp_text else None
    if sess["title_source"] == "first_prompt":
        sess["title_first_line"] = first_line
        sess["title"] = first_line if len(first_line) <= 80 else None
    sess.setdefault("parent_session_id", None)
    sess["turns"] = turns
    sess["event_count"] = sum(1 for e in lines if e.get("event"))
    return {"path": f.relpath, "key": f.key, "harness": f.harness, "covers": f.covers,
            "bytes": len(content), "line_count": len(f.lines),
            "ends_with_newline": content.endswith(b"\n"), "session": sess, "lines": lines,
            "extra": f.extra}


def build_all() -> list[SampleFile]:
    files = [build_codex_normal(), build_codex_interrupted(), build_codex_compaction(), build_codex_live(),
             build_codex_legacy(), build_codex_mcp(), build_codex_unicode(), build_codex_large(),
             build_codex_malformed(), build_codex_halfline(), build_codex_unknown(), build_codex_secrets(),
             build_claude_normal(), build_claude_injected(), build_claude_compaction()]
    p, c = build_claude_subagent()
    files += [p, c, build_claude_multimodal(), build_claude_live()]
    return files


SECRETS = {
    "aws": ("aws-access-token", AWS_KEY),
    "github": ("github-token", GH_TOKEN),
    "openai": ("openai-api-key", OPENAI_KEY),
    "pem": ("pem-private-key", PEM),
}


DEFAULT_TYPES = ("user_input", "assistant_response", "tool_response")

# (query, event_types or None for the default, why). Expected hits are computed below from the annotations:
# every event (mirrors collapsed) whose line contains the query string, of an allowed type, not unknown, and
# not Moraine self-traffic. The queries are chosen so that this substring rule is exact.
PROBES = [
    (LARGE_NEEDLE, None, "a token ~270,000 chars into a 300 KB tool output is indexed"),
    ("forever", None, "a Codex prompt and its event_msg mirror give ONE hit"),
    ("holographic", None, "unknown record types are never searched"),
    ("tachyon", None, "unknown event_msg types are never searched"),
    ("zeppelin", None, "unknown response_item types are never searched"),
    ("evt_9pW3xL0cJ4", None, "Moraine's own tool calls/results are excluded by default"),
    ("evt_5mQ2rT8vK1", None, "Moraine's own tool results are excluded by default (Codex and Claude)"),
    ("スクリーンショット", None, "Japanese text is searchable"),
    ("修复数据库迁移", None, "Chinese text is searchable"),
    ("naïves", None, "accented Latin text is searchable"),
    ("idempotent", ["tool_call"], "web search queries are searchable tool_call text"),
    ("localhost", ["tool_call"], "shell command lines (Bash input.command) are searchable tool_call text"),
    ("0042_add_email_normalized", ["tool_call"], "file paths in tool arguments are searchable tool_call text"),
    ("OrderedDict", ["compaction"], "the Codex compaction summary is searchable; replacement_history adds nothing"),
    ("fake timers", ["compaction"], "the Claude isCompactSummary text is searchable as compaction"),
]


def _parts(q: str) -> list[str]:
    """Conservative stand-ins for what a code-aware / CJK tokenizer may split a query into."""
    import re

    words = [w for w in re.split(r"[^0-9A-Za-z\u00c0-\u024f]+", q) if w]
    parts = set()
    for w in words:
        parts.add(w.lower())
        parts.update(x.lower() for x in re.findall(r"[A-Z]?[a-z\u00c0-\u024f]+|[A-Z]+(?![a-z])|[0-9]+", w))
    parts.update(ch for ch in q if ord(ch) > 0x2E80)  # CJK: single characters
    return sorted(p for p in parts if len(p) >= 2 or ord(p[0]) > 0x2E80)


def _probe_hits(q: str, allowed: set, derived, files, fold: bool) -> list[dict]:
    hits = []
    for d, f in zip(derived, files, strict=True):
        for e, ln in zip(d["lines"], f.lines, strict=True):
            text = ln.text.lower() if fold else ln.text
            if e["status"] != "ok" or q not in text:
                continue
            ev = e if e.get("event") else next((x for x in d["lines"] if x["line"] == e.get("mirror_of")), None)
            if ev is None or ev.get("type") not in allowed or ev.get("type") == "unknown":
                continue
            if ev.get("self_traffic"):
                continue
            hit = {"file": d["key"], "line": ev["line"], "type": ev["type"]}
            if hit not in hits:
                hits.append(hit)
    return hits


def probes(derived: list[dict], files: list[SampleFile]) -> list[dict]:
    out = []
    for q, types, why in PROBES:
        allowed = set(types or DEFAULT_TYPES)
        hits = _probe_hits(q, allowed, derived, files, fold=False)
        wider = []
        for part in _parts(q):
            for h in _probe_hits(part, allowed, derived, files, fold=True):
                if h not in hits and h not in wider:
                    wider.append(h)
        out.append({"query": q, "event_types": types, "match": "includes" if wider else "exact",
                    "expect": hits, "why": why})
    return out


def oracle(files: list[SampleFile]) -> dict:
    derived = [derive(f) for f in files]
    secret_hits = {}
    for d, _f in zip(derived, files, strict=True):
        for e in d["lines"]:
            for k in e.get("secrets", []):
                secret_hits.setdefault(k, []).append({"file": d["key"], "line": e["line"]})
    return {
        "format": "moraine-data-samples-oracle/1",
        "generated_by": "data_samples/build_samples.py",
        "files": derived,
        "secrets": [{"key": k, "rule": SECRETS[k][0], "value": SECRETS[k][1],
                     "must_never_appear": ([SECRETS[k][1]] if k != "pem" else PEM_BODY_LINES),
                     "occurrences": secret_hits.get(k, [])} for k in SECRETS],
        "image_base64_must_never_appear": [PNG_B64, PNG_B64[200:224]],
        "large_output_needle": LARGE_NEEDLE,
        "search_probes": probes(derived, files),
    }


# =========================================================================== README rendering


def code(s: str) -> str:
    """Inline code span that survives backticks inside s."""
    if "`" not in s:
        return f"`{s}`"
    return f"`` {s} ``"


def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", "⏎")


def render_readme(o: dict, prose: str) -> str:
    out = [prose.rstrip(), ""]
    out.append("## Summary of all sessions\n")
    out.append("| # | file key | harness | native session id | cwd | turns | completed | mode | title source | "
               "started_at | updated_at |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for i, d in enumerate(o["files"], 1):
        s = d["session"]
        out.append(f"| {i} | `{d['key']}` | {d['harness']} | `{s['native_session_id']}` | `{s['cwd']}` | "
                   f"{s['turn_count']} | {str(s['completed']).lower()} | {s['mode']} | {s['title_source']} | "
                   f"{s['started_at']} | {s['updated_at']} |")
    out.append("")
    for d in o["files"]:
        s = d["session"]
        out.append(f"## `{d['key']}`\n")
        out.append(f"- **Path**: `data_samples/{d['path']}`")
        out.append(f"- **Harness**: {d['harness']}; **size** {d['bytes']} bytes, {d['line_count']} lines, "
                   f"ends with newline: {str(d['ends_with_newline']).lower()}")
        out.append(f"- **Native session id**: `{s['native_session_id']}`"
                   + (f"; **parent_session_id**: `{s['parent_session_id']}`" if s.get("parent_session_id") else "")
                   + (f"; **child sessions (agentId)**: {', '.join('`'+c+'`' for c in s['children'])}"
                      if s.get("children") else ""))
        if s.get("id_note"):
            out.append(f"  - {s['id_note']}")
        out.append("- **Covers**: " + "; ".join(d["covers"]))
        out.append(f"- **Sessions in file**: 1. **cwd**: `{s['cwd']}`" + (f" ({s['cwd_note']})" if s.get("cwd_note")
                                                                          else ""))
        if s["title"] is not None:
            out.append(f"- **Title** ({s['title_source']}): {code(s['title'])}")
        else:
            out.append(f"- **Title** ({s['title_source']}): the first line is {len(s['title_first_line'])} chars, "
                       f"so it is cut to ~80: a prefix of {code(s['title_first_line'])}")
        out.append(f"- **Mode**: `{s['mode']}`. **Model**: {('`'+s['model']+'`') if s.get('model') else 'unknown'}. "
                   f"**started_at** {s['started_at']}, **updated_at** {s['updated_at']}")
        out.append(f"- **Turns**: {s['turn_count']}; **session completed**: {str(s['completed']).lower()}; "
                   f"**distinct events** (valid lines minus mirrors and no-event lines): {s['event_count']}")
        for t in s["turns"]:
            why = (", ".join(f"L{x['line']} {x['reason']}" for x in t["terminal_lines"])
                   if t["terminal_lines"] else "no terminal event")
            term = (f"completed, terminal event L{t['terminal_event_line']} (terminals: {why})" if t["completed"]
                    else "NOT completed (" + why + ")")
            pl = f"prompt L{t['prompt_line']}" if t["prompt_line"] else "no prompt line"
            fr = f", final_response L{t['final_response_line']}" if t["final_response_line"] else ", no final_response"
            out.append(f"  - turn {t['ordinal']}: lines L{t['first_line']}–L{t['last_line']}, {pl}{fr}; {term}")
        ex = d["extra"]
        if ex.get("large_output_chars"):
            out.append(f"- **Large output**: L{ex['large_line']} `output` is {ex['large_output_chars']} characters "
                       f"(ASCII, so also bytes); `{o['large_output_needle']}` at character "
                       f"{ex['needle_char_offset_in_output']} of the output string.")
        if ex.get("partial_remainder"):
            out.append("- **Half-written last line**: to simulate the writer finishing it, append exactly this "
                       "(JSON-escaped here) to the file: `" + json.dumps(ex["partial_remainder"], ensure_ascii=False)
                       + "`")
        bad = [e for e in d["lines"] if e["status"] != "ok"]
        if bad:
            out.append("- **Not-ok lines** (1-based line, 0-based byte offset of the line start, bytes excluding "
                       "the newline):")
            for e in bad:
                out.append(f"  - L{e['line']} @ byte {e['offset']} ({e['bytes']} bytes): {e['status']}: {e['reason']}")
        sec = sorted({k for e in d["lines"] for k in e.get("secrets", [])})
        if sec:
            out.append("- **Secrets** (must be redacted): " + "; ".join(
                f"{k} on " + ", ".join(f"L{e['line']}" for e in d["lines"] if k in e.get("secrets", []))
                for k in sec))
        out.append("")
        if d["bytes"] > 100_000:
            pass
        out.append("| L | byte offset | record | expected type | turn | notes |")
        out.append("|---|---|---|---|---|---|")
        for e in d["lines"]:
            notes = []
            if e["status"] != "ok":
                out.append(f"| {e['line']} | {e['offset']} | *{e['status']}* | — | — | {md_escape(e['reason'])} |")
                continue
            if e.get("prompt"):
                notes.append(f"**turn {e['turn']} start**")
            if e.get("mirror_of"):
                notes.append(f"mirror of L{e['mirror_of']}")
            if e.get("terminal"):
                notes.append(f"**terminal ({e['terminal']})**")
            if e.get("tool_name"):
                notes.append(f"tool `{e['tool_name']}`")
            if e.get("type") == "tool_response":
                notes.append(f"exit_code {e['exit_code'] if e['exit_code'] is not None else 'null'}")
            if e.get("is_error"):
                notes.append("is_error")
            if e.get("self_traffic"):
                notes.append("**self-traffic: excluded from default search**")
            if e.get("secrets"):
                notes.append("**secret: " + ", ".join(e["secrets"]) + "**")
            if e.get("note") and not e.get("mirror_of"):
                notes.append(e["note"])
            typ = e["type"] if e["type"] else "no event"
            out.append(f"| {e['line']} | {e['offset']} | {md_escape(e['record'])} | {typ} | {e['turn']} | "
                       f"{md_escape('; '.join(notes))} |")
        out.append("")
    out.append("## Search probes\n")
    out.append("Each query runs over ALL the sample files indexed together. `match: exact`: the hits are exactly "
               "these events (mirrors collapsed, order not asserted); `match: includes`: these events must be "
               "among the hits (a unigram CJK or code-splitting tokenizer may legitimately match more with OR "
               "semantics). `default` = user_input, assistant_response, tool_response.\n")
    out.append("| query | event_types | match | expected hits (file key L#, type) | checks |")
    out.append("|---|---|---|---|---|")
    for p in o["search_probes"]:
        hits = "; ".join(f"{h['file']} L{h['line']} {h['type']}" for h in p["expect"]) or "**none**"
        out.append(f"| `{p['query']}` | {p['event_types'] or 'default'} | {p['match']} | {hits} | {p['why']} |")
    out.append("")
    out.append("## Secrets that must never appear in the index\n")
    out.append("None of these strings may appear in any stored event text, payload, raw line copy, snippet, "
               "open() output or search result, in decoded form or JSON-escaped form. Searching for any of "
               "them must return no hit.\n")
    for s in o["secrets"]:
        where = ", ".join(f"{x['file']} L{x['line']}" for x in s["occurrences"])
        if s["key"] == "pem":
            out.append(f"- **{s['key']}** (`{s['rule']}`): the whole block from `-----BEGIN RSA PRIVATE KEY-----` "
                       f"to `-----END RSA PRIVATE KEY-----`; in particular none of its {len(s['must_never_appear'])} "
                       "body lines, the first of which is:")
            out.append(f"  `{s['must_never_appear'][0]}`  (all body lines are listed in expected.json). "
                       f"Occurs on: {where}")
        else:
            out.append(f"- **{s['key']}** (`{s['rule']}`): `{s['value']}`. Occurs on: {where}")
    out.append("")
    out.append("Image bytes: no substring of the base64 PNG in `claude-image-unicode-web-mcp` (it starts "
               f"`{PNG_B64[:24]}`) may be indexed; e.g. searching `{PNG_B64[200:224]}` must return no hit.\n")
    return "\n".join(out) + "\n"


def verify_disk() -> list[str]:
    """Independent checks of the files on disk against expected.json (uses none of the builders above)."""
    import re

    o = json.loads((ROOT / "expected.json").read_text(encoding="utf-8"))
    ts_re = re.compile(r"^2026-03-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
    errs: list[str] = []

    def err(*a):
        errs.append(" ".join(map(str, a)))

    def text_of(v: dict):
        p = v.get("payload", {})
        if p.get("type") == "message":
            return "".join(c.get("text", "") for c in p["content"])
        if p.get("type") in ("user_message", "agent_message"):
            return p["message"]
        if p.get("type") == "reasoning":
            return "".join(x["text"] for x in p["summary"])
        if p.get("type") == "agent_reasoning":
            return p["text"]
        return None

    all_bytes: dict[str, bytes] = {}
    for d in o["files"]:
        key, s = d["key"], d["session"]
        data = (ROOT / d["path"]).read_bytes()
        all_bytes[key] = data
        if len(data) != d["bytes"]:
            err(key, "size")
        raw = data.split(b"\n")
        if data.endswith(b"\n"):
            raw = raw[:-1]
        if len(raw) != d["line_count"] or d["ends_with_newline"] != data.endswith(b"\n"):
            err(key, "line count / newline flag")
        off, objs = 0, {}
        for i, (b, e) in enumerate(zip(raw, d["lines"], strict=False), 1):
            if e["line"] != i or e["offset"] != off or e["bytes"] != len(b):
                err(key, i, "offset/length")
            try:
                v, parsed = json.loads(b.decode("utf-8")), True
            except ValueError:
                v, parsed = None, False
            st = e["status"]
            if st == "ok":
                if not (parsed and isinstance(v, dict)):
                    err(key, i, "ok line is not a JSON object")
                    continue
                objs[i] = v
                if "timestamp" in v and not ts_re.match(v["timestamp"]):
                    err(key, i, "timestamp format")
            elif st == "malformed" and parsed and isinstance(v, dict):
                err(key, i, "malformed line parses as an object")
            elif st == "blank" and b.strip():
                err(key, i, "blank line is not blank")
            elif st == "partial":
                if i != len(raw) or data.endswith(b"\n") or parsed:
                    err(key, i, "partial line")
                if not isinstance(json.loads(b.decode() + d["extra"]["partial_remainder"]), dict):
                    err(key, i, "partial remainder")
            off += len(b) + 1
        stamps = [objs[i]["timestamp"] for i in sorted(objs) if "timestamp" in objs[i]]
        if stamps != sorted(stamps) or (min(stamps), max(stamps)) != (s["started_at"], s["updated_at"]):
            err(key, "timestamps: order or started_at/updated_at")
        for e in d["lines"]:
            if e.get("mirror_of"):
                a, b2 = objs[e["line"]], objs[e["mirror_of"]]
                if text_of(a) != text_of(b2) or a["timestamp"] != b2["timestamp"]:
                    err(key, e["line"], "mirror differs")
        calls, results = {}, {}
        for i, v in objs.items():
            if d["harness"] == "codex":
                p = v.get("payload", v)
                if p.get("type") in ("function_call", "custom_tool_call"):
                    calls[p["call_id"]] = p["name"]
                if p.get("type") in ("function_call_output", "custom_tool_call_output"):
                    results[p["call_id"]] = i
            else:
                c = v.get("message", {}).get("content")
                for blk in c if isinstance(c, list) else []:
                    if blk.get("type") == "tool_use":
                        calls[blk["id"]] = blk["name"]
                    if blk.get("type") == "tool_result":
                        results[blk["tool_use_id"]] = i
        for cid, i in results.items():
            if calls.get(cid) is None or d["lines"][i - 1].get("tool_name") != calls[cid]:
                err(key, i, "tool result without its call / wrong tool_name")
        if d["harness"] == "codex":
            sid = s["native_session_id"]
            first = objs[1].get("payload", objs[1])
            if not d["path"].endswith(sid + ".jsonl") or first.get("id") != sid:
                err(key, "codex session id")
        else:
            sids = {v["sessionId"] for v in objs.values() if "sessionId" in v}
            owner = s.get("parent_session_id") or s["native_session_id"]
            if sids != {owner}:
                err(key, "sessionId values", sids)
            if s.get("parent_session_id"):
                if f"/{owner}/subagents/agent-{s['agent_id']}.jsonl" not in d["path"] or not all(
                        v.get("isSidechain") is True and v.get("agentId") == s["agent_id"] for v in objs.values()):
                    err(key, "subagent path / flags")
            elif not d["path"].endswith(owner + ".jsonl"):
                err(key, "claude file name")
            seen: set = set()
            for i, v in objs.items():
                if "uuid" in v:
                    if v.get("parentUuid") is not None and v["parentUuid"] not in seen:
                        err(key, i, "dangling parentUuid")
                    seen.add(v["uuid"])
                    if any(k not in v for k in ("cwd", "gitBranch", "version", "sessionId", "timestamp")):
                        err(key, i, "chained record lacks a common field")
        for t in s["turns"]:
            if t["completed"] != bool(t["terminal_lines"]):
                err(key, "turn completion")
        if s["completed"] != s["turns"][-1]["completed"]:
            err(key, "session completion")
    for sec in o["secrets"]:
        occ = {(x["file"], x["line"]) for x in sec["occurrences"]}
        for needle in sec["must_never_appear"]:
            found = {(k, i) for k, b in all_bytes.items() for i, ln in enumerate(b.split(b"\n"), 1)
                     if needle.encode() in ln}
            if not found or not found <= occ:
                err("secret", sec["key"], "found on", sorted(found))
    png = o["image_base64_must_never_appear"][0].encode()
    if [(k, i) for k, b in all_bytes.items() for i, ln in enumerate(b.split(b"\n"), 1) if png in ln] != [
            ("claude-image-unicode-web-mcp", 2)]:
        err("image base64 location")
    big = next(d for d in o["files"] if d["key"] == "codex-large-output")
    out = json.loads(all_bytes[big["key"]].split(b"\n")[big["extra"]["large_line"] - 1])["payload"]["output"]
    if not (len(out) == big["extra"]["large_output_chars"] and 290_000 < len(out) < 310_000
            and out.count(o["large_output_needle"]) == 1
            and out.index(o["large_output_needle"]) == big["extra"]["needle_char_offset_in_output"]):
        err("large output")
    return errs


PROSE = ROOT / "README.intro.md"


def main() -> int:
    files = build_all()
    o = oracle(files)
    check = "--check" in sys.argv
    readme = render_readme(o, PROSE.read_text(encoding="utf-8"))
    expected = json.dumps(o, ensure_ascii=False, indent=1) + "\n"
    outputs = {f.relpath: f.content() for f in files}
    outputs["expected.json"] = expected.encode()
    outputs["README.md"] = readme.encode()
    bad = 0
    for rel, data in outputs.items():
        p = ROOT / rel
        if check:
            if not p.exists() or p.read_bytes() != data:
                print("DIFFERS:", rel)
                bad += 1
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
    if check:
        errs = verify_disk()
        for e in errs:
            print("VERIFY:", e)
        bad += len(errs)
        print("ok" if not bad else f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
