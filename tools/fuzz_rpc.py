"""Seeded fuzzer of the JSON-RPC wire: raw bytes to `moraine mcp` (stdio) and to the daemon's socket.

    python tools/fuzz_rpc.py [--seconds 300] [--seed 1] [--target both|bridge|socket] [--json]

Copies data_samples to a temp dir, starts `moraine daemon` on it, then sends generated lines, one
at a time, to a `moraine mcp` bridge and to a raw socket connection (alternately with `both`):
mutated valid requests, random bytes, deep nesting, huge strings, lone surrogates, raw NUL, bad
UTF-8, NaN, batches and non-objects, wrong envelope fields, and wrong types in every argument of
search_sessions, open and list_sessions. Each line is followed by a `ping` sentinel; the line's
answers are the lines that arrive before the round ends. An independent oracle (stdlib json, an
iterative depth count) says whether the line deserves an answer: everything does except a
well-formed notification or response, which JSON-RPC never answers.

Prints: requests sent, answered, crashes (the bridge exited, the daemon closed a connection or
died), unanswered (an answer was due and none came), extra (more than one answer, or an answer
to a notification), internal_error (-32603 / code 0, or an in-band `internal_error` envelope)
and bad_answer (an answer that is not a JSON-RPC response). Exit 1 when any of those is not 0.

The pytest suite (tests/daemon/test_rpc_wire.py) runs the same generator on a fixed budget.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data_samples"
MORAINE = Path(sys.executable).parent / "moraine"

LINE_LIMIT = 256 * 1024  # moraine.wire.MAX_LINE (repeated: the oracle does not import what it checks)
DEPTH_LIMIT = 128
CONTAINER_LIMIT = 10_000
ROUND_TIMEOUT_S = 30.0
ANSWER_AFTER_SENTINEL_S = 10.0  # a tool result may come after the sentinel's `ping` answer
PROTOCOL = "2025-06-18"
TOOLS = ("search_sessions", "open", "list_sessions")
WORDS = ("migration", "DuplicateColumn", "error", "fix", "pelican", "test", "src/app.py", "déjà", "日本語",
         "the", "a", "ping", "ls -la", "README", "password", "TODO")
DATES = ("2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z", "2000-01-01T00:00:00Z", "2100-01-01T00:00:00+00:00",
         "2026-03-10T09:00:00-04:00", "2026-13-40T99:00:00Z", "2026-03-01", "yesterday", "")
IDS = ("session:ses_" + "a" * 26, "turn:trn_" + "b" * 26 + "_1", "event:evt_" + "c" * 26, "session:", "evt_x",
       "turn:trn_" + "a" * 26 + "_0", "")
EVENT_TYPES = ("user_input", "assistant_response", "reasoning", "tool_call", "tool_response", "compaction",
               "system", "runtime", "bogus")


# --------------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------------


def _nested(rng: random.Random, depth: int, leaf: str = "1") -> str:
    opener = rng.choice("[{")
    if opener == "[":
        return "[" * depth + leaf + "]" * depth
    return '{"k":' * depth + leaf + "}" * depth


def _weird_value(rng: random.Random) -> Any:
    """A JSON-able value of any type, sometimes big."""
    kind = rng.randrange(12)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 2**64, 10**30, 50, 51, 1_000_000])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e-300, 3.0, float(rng.random())])
    if kind == 4:
        return rng.choice(WORDS) * rng.randrange(1, 4)
    if kind == 5:
        return "".join(chr(rng.randrange(1, 0xD7FF)) for _ in range(rng.randrange(0, 40)))
    if kind == 6:
        return [_weird_value(rng) for _ in range(rng.randrange(0, 4))]
    if kind == 7:
        return {rng.choice(WORDS): _weird_value(rng) for _ in range(rng.randrange(0, 3))}
    if kind == 8:
        return "x" * rng.choice([4096, 4097, 10_000, 70_000])
    if kind == 9:
        return rng.choice(IDS)
    if kind == 10:
        return rng.choice(DATES)
    return base64.urlsafe_b64encode(rng.randbytes(rng.randrange(0, 60))).decode().rstrip("=")


def _tool_arguments(rng: random.Random, tool: str) -> Any:
    """Arguments of `tool`: mostly right in shape, each field sometimes wrong in type or value."""
    def pick(right: Callable[[], Any]) -> Any:
        return right() if rng.random() < 0.6 else _weird_value(rng)

    if tool == "search_sessions":
        args: dict[str, Any] = {"query": pick(lambda: " ".join(rng.sample(WORDS, rng.randrange(1, 4))))}
        if rng.random() < 0.3:
            args["within_id"] = pick(lambda: rng.choice(IDS))
        if rng.random() < 0.3:
            args["event_types"] = pick(lambda: rng.sample(EVENT_TYPES, rng.randrange(0, 4)))
        if rng.random() < 0.3:
            args["n_hits"] = pick(lambda: rng.randrange(-2, 60))
    elif tool == "open":
        args = {"id": pick(lambda: rng.choice(IDS))}
    else:
        args = {"start_datetime": pick(lambda: rng.choice(DATES[:5])),
                "end_datetime": pick(lambda: rng.choice(DATES[:5]))}
        if rng.random() < 0.3:
            args["limit"] = pick(lambda: rng.randrange(-1, 60))
        if rng.random() < 0.4:
            args["cursor"] = pick(lambda: rng.choice([
                base64.urlsafe_b64encode(_nested(rng, rng.randrange(1, 6000)).encode()).decode(),
                base64.urlsafe_b64encode(rng.randbytes(rng.randrange(1, 200))).decode(),
                base64.urlsafe_b64encode(json.dumps({"u": _weird_value(rng), "i": _weird_value(rng),
                                                     "f": _weird_value(rng)}).encode()).decode(),
                "!!!not base64!!!", "x" * 5000]))
        if rng.random() < 0.3:
            args["mode"] = pick(lambda: rng.choice(["chat", "tool_calling", "web_search", "mixed", "bogus"]))
        if rng.random() < 0.3:
            args["sort"] = pick(lambda: rng.choice(["asc", "desc", "up"]))
    if rng.random() < 0.1:
        args[rng.choice(WORDS)] = _weird_value(rng)  # an unknown field
    if rng.random() < 0.1:
        args.pop(next(iter(args)), None)
    if rng.random() < 0.05:
        return _weird_value(rng)  # arguments that are not an object
    return args


def _request_id(rng: random.Random) -> Any:
    return rng.choice([rng.randrange(1, 10**6), f"r-{rng.randrange(10**6)}", 0, -5, "", "ü-id"])


def _valid_call(rng: random.Random) -> dict[str, Any]:
    tool = rng.choice(TOOLS)
    return {"jsonrpc": "2.0", "id": _request_id(rng), "method": "tools/call",
            "params": {"name": tool, "arguments": _tool_arguments(rng, tool)}}


def _dump(rng: random.Random, value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=rng.random() < 0.5, separators=rng.choice([(",", ":"), (", ", ": ")])
                      ).encode()


def _mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        if not out:
            break
        at = rng.randrange(len(out))
        op = rng.randrange(9)
        if op == 0:
            out[at] = rng.randrange(256)
        elif op == 1:
            del out[at:at + rng.randrange(1, 20)]
        elif op == 2:
            out[at:at] = rng.randbytes(rng.randrange(1, 10))
        elif op == 3:
            span = out[at:at + rng.randrange(1, 40)]
            out[at:at] = span
        elif op == 4:
            del out[at:]
        elif op == 5:
            out[at:at] = rng.choice([b"\x00", b"\\u0000", b"\\ud800", b"\\udfff", b"\xff", b"\xc3", b"\xed\xa0\x80"])
        elif op == 6:
            out[at:at] = rng.choice([b"[", b"{", b"]", b"}", b'"', b"\\", b",", b":"]) * rng.randrange(1, 300)
        elif op == 7:
            out[at:at + 1] = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"true", b"null"])
        else:
            out[at:at] = b"\r"
    return bytes(out)


def _envelope(rng: random.Random) -> bytes:
    message: dict[str, Any] = _valid_call(rng)
    field_name = rng.choice(["jsonrpc", "id", "method", "params", "extra"])
    if field_name == "extra":
        message[rng.choice(["result", "error", "foo"])] = _weird_value(rng)
    elif rng.random() < 0.3:
        del message[field_name]
    else:
        message[field_name] = _weird_value(rng)
    if rng.random() < 0.2:
        message["method"] = rng.choice(["tools/list", "ping", "initialize", "resources/list", "prompts/get",
                                        "notifications/initialized", "notifications/cancelled", "nope", ""])
    return _dump(rng, message)


def _special(rng: random.Random) -> bytes:
    rid = rng.randrange(1, 10**6)
    head = (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search_sessions",'
            b'"arguments":{"query":' % rid)
    return rng.choice([
        head + b'"\\ud800"}}}', head + b'"a\\udc00b"}}}', head + b'"\\ud83d\\ude00"}}}', head + b'"a\x00b"}}}',
        head + b'"\xff\xfe"}}}', head + b'NaN}}}', head + b'"x"}}}\r', b"\xef\xbb\xbf" + head + b'"x"}}}',
        head + b'"x","query":"y"}}}', head + b'"x"}}}}', head + b"1" * 5000 + b"}}}",
        b'{"jsonrpc":"2.0","id":%d,"id":"dup","method":"ping"}' % rid,
        b'{"jsonrpc":"2.0","method":"tools/call","params":[1,2]}',
        b'{"jsonrpc":"2.0","id":%d,"result":{}}' % rid, b'{"jsonrpc":"2.0","id":%d,"error":{"code":1}}' % rid,
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":[1,2]}' % rid,
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":null}' % rid,
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"open","arguments":[1]}}' % rid,
    ])


def generate(rng: random.Random) -> tuple[str, bytes]:
    """(kind, one line without its newline)."""
    roll = rng.random()
    if roll < 0.35:
        kind, data = "tool_args", _dump(rng, _valid_call(rng))
    elif roll < 0.50:
        kind, data = "envelope", _envelope(rng)
    elif roll < 0.72:
        kind, data = "mutated", _mutate(rng, _dump(rng, _valid_call(rng)))
    elif roll < 0.77:
        kind, data = "random_bytes", rng.randbytes(rng.randrange(1, 400))
    elif roll < 0.83:
        depth = rng.choice([rng.randrange(100, 140), rng.randrange(140, 1200), rng.randrange(1200, 6000)])
        nest = _nested(rng, depth, '"x"').encode()
        if rng.random() < 0.5:
            rid = rng.randrange(10**6)
            nest = (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s",'
                    b'"arguments":{"query":%s}}}' % (rid, rng.choice(TOOLS).encode(), nest))
        kind, data = "deep", nest
    elif roll < 0.86:
        size = rng.choice([rng.randrange(10_000, 200_000), rng.randrange(LINE_LIMIT - 300, LINE_LIMIT + 300),
                           rng.randrange(LINE_LIMIT, 3 * LINE_LIMIT)])
        where = rng.choice(["query", "id", "method"])
        message = _valid_call(rng)
        big = "q" * size
        if where == "query" and isinstance(message["params"]["arguments"], dict):
            message["params"]["arguments"]["query"] = big
        elif where == "id":
            message["id"] = big
        else:
            message["method"] = big
        kind, data = "huge", _dump(rng, message)
    elif roll < 0.91:
        kind, data = "json_value", _dump(rng, rng.choice([
            _weird_value(rng), [_valid_call(rng)], [], [1, 2], "str", 42, None, True]))
    else:
        kind, data = "special", _special(rng)
    return kind, data.replace(b"\n", b" ")


# --------------------------------------------------------------------------------------------
# Oracle (independent of moraine.wire)
# --------------------------------------------------------------------------------------------


def _shape(value: Any) -> tuple[int, int]:
    """(max depth, containers) of a decoded value, iteratively."""
    deepest = containers = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            containers += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest, containers


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def expects_answer(line: bytes) -> bool:
    """False only for what JSON-RPC never answers: a blank line, a well-formed notification or a
    well-formed response, within the limits."""
    if not line.strip():
        return False
    if len(line) > LINE_LIMIT:
        return True
    try:
        message = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
        json.dumps(message, ensure_ascii=False).encode("utf-8")  # lone surrogates
    except (ValueError, RecursionError):
        return True
    depth, containers = _shape(message)
    if depth > DEPTH_LIMIT or containers > CONTAINER_LIMIT or not isinstance(message, dict):
        return True
    if message.get("jsonrpc") != "2.0":
        return True
    if "method" in message:
        return not isinstance(message["method"], str) or "id" in message
    request_id = message.get("id")
    valid = isinstance(request_id, (int, str)) and not isinstance(request_id, bool)
    return not (valid and ("result" in message) != ("error" in message))


def internal_error(answer: dict[str, Any]) -> bool:
    error = answer.get("error")
    if isinstance(error, dict):
        return error.get("code") in (-32603, 0)
    result = answer.get("result")
    if isinstance(result, dict):
        envelope = result.get("structuredContent")
        if isinstance(envelope, dict) and isinstance(envelope.get("error"), dict):
            return envelope["error"].get("code") == "internal_error"
        text = json.dumps(result.get("content", ""))
        return "[internal_error]" in text
    return False


# --------------------------------------------------------------------------------------------
# Workspace and targets
# --------------------------------------------------------------------------------------------


@dataclass
class Workspace:
    """data_samples copied below a short /tmp path (a socket path stays under 100 bytes)."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="mfz-", dir="/tmp")))

    def __post_init__(self) -> None:
        shutil.copytree(SAMPLES / "codex", self.root / "codex")
        shutil.copytree(SAMPLES / "claude", self.root / "claude")

    @property
    def home(self) -> Path:
        return self.root / "h"

    @property
    def socket(self) -> Path:
        return self.home / "run" / "mcp.sock"

    def env(self, **extra: str) -> dict[str, str]:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.root),
               "CODEX_HOME": str(self.root / "codex"), "CLAUDE_CONFIG_DIR": str(self.root / "claude"),
               "MORAINE_HOME": str(self.home), "MORAINE_DAEMON_IDLE_EXIT_S": "60"}
        if "PYTHONPATH" in os.environ:  # e.g. a checkout under test on top of the installed package
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        env.update(extra)
        return env

    def start_daemon(self) -> int:
        done = subprocess.run([str(MORAINE), "daemon"], env=self.env(), capture_output=True, text=True, timeout=120,
                              check=False)
        if done.returncode != 0:
            raise RuntimeError(f"moraine daemon failed: {done.stderr}")
        return self.daemon_pid()

    def daemon_pid(self) -> int:
        try:
            return int(json.loads((self.home / "run" / "daemon.json").read_text())["pid"])
        except (OSError, ValueError, KeyError):
            return 0

    def stop(self) -> None:
        subprocess.run([str(MORAINE), "stop"], env=self.env(), capture_output=True, timeout=130, check=False)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def initialize_line(request_id: Any = 0) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize",
                       "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                                  "clientInfo": {"name": "fuzz-rpc", "version": "1"}}}).encode() + b"\n"


INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


class Target:
    """One MCP session spoken in raw lines; answers are collected by a reader thread."""

    name = "target"

    def __init__(self) -> None:
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.eof = False

    def send(self, data: bytes) -> None:
        raise NotImplementedError

    def alive(self) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _pump(self, read: Callable[[], bytes]) -> None:
        buffer = bytearray()
        while True:
            try:
                chunk = read()
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = True
                self.lines.put(None)
                return
            buffer += chunk
            while (newline := buffer.find(b"\n")) >= 0:
                self.lines.put(bytes(buffer[:newline]))
                del buffer[: newline + 1]

    def next_line(self, timeout: float) -> bytes | None:
        """The next answer line; None at end of stream; raises queue.Empty on timeout."""
        return self.lines.get(timeout=timeout)

    def handshake(self) -> None:
        self.send(initialize_line("fz-init"))
        deadline = time.monotonic() + 60
        while True:
            line = self.next_line(max(0.1, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError(f"{self.name} closed during the handshake")
            if json.loads(line).get("id") == "fz-init":
                break
        self.send(INITIALIZED)


class SocketTarget(Target):
    name = "socket"

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        threading.Thread(target=self._pump, args=(lambda: self.sock.recv(1 << 20),), daemon=True).start()
        self.handshake()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def alive(self) -> bool:
        return not self.eof

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class BridgeTarget(Target):
    name = "bridge"

    def __init__(self, env: dict[str, str], errlog: Any = subprocess.DEVNULL) -> None:
        super().__init__()
        self.proc = subprocess.Popen([str(MORAINE), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=errlog)
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        self.pump = threading.Thread(target=self._pump, args=(lambda: stdout.read1(1 << 20),), daemon=True)
        self.pump.start()
        self.handshake()

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def alive(self) -> bool:
        return self.proc.poll() is None and not self.eof

    def close(self) -> None:
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.pump.join(timeout=30)  # it reads the bridge's stdout to its end: then that pipe can close
        if not self.pump.is_alive():
            assert self.proc.stdout is not None
            self.proc.stdout.close()


# --------------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------------


@dataclass
class Stats:
    sent: int = 0
    answered: int = 0
    expected_silent: int = 0
    crashes: int = 0
    unanswered: int = 0
    extra: int = 0
    internal_error: int = 0
    bad_answer: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, what: str, kind: str, line: bytes, detail: str = "") -> None:
        if len(self.failures) < 20:
            self.failures.append(f"{what} [{kind}] {line[:160]!r} {detail[:300]}")

    @property
    def clean(self) -> bool:
        return not (self.crashes or self.unanswered or self.extra or self.internal_error or self.bad_answer)

    def summary(self) -> dict[str, Any]:
        return {"requests_sent": self.sent, "answered": self.answered, "not_answered_by_design": self.expected_silent,
                "crashes": self.crashes, "unanswered": self.unanswered, "extra": self.extra,
                "internal_error": self.internal_error, "bad_answer": self.bad_answer, "kinds": dict(self.kinds)}


class Fuzzer:
    def __init__(self, ws: Workspace, seed: int, targets: tuple[str, ...]) -> None:
        self.ws = ws
        self.rng = random.Random(seed)
        self.target_names = targets
        self.stats = Stats()
        self.sentinels = 0
        self.daemon_pid = ws.daemon_pid()
        self.open: dict[str, Target] = {}

    def _target(self, name: str) -> Target:
        target = self.open.get(name)
        if target is None or not target.alive():
            if target is not None:
                target.close()
            target = SocketTarget(self.ws.socket) if name == "socket" else BridgeTarget(self.ws.env())
            self.open[name] = target
        return target

    def _crash(self, name: str, kind: str, line: bytes, detail: str) -> None:
        self.stats.crashes += 1
        self.stats.fail(f"crash of the {name}", kind, line, detail)
        target = self.open.pop(name, None)
        if target is not None:
            target.close()
        pid = self.ws.daemon_pid()
        if pid != self.daemon_pid or not _alive(pid):
            self.stats.fail("the daemon died", kind, line, f"pid {self.daemon_pid} → {pid}")
            self.ws.start_daemon()
            self.daemon_pid = self.ws.daemon_pid()

    def round(self, name: str) -> None:
        kind, line = generate(self.rng)
        target = self._target(name)
        self.sentinels += 1
        sentinel = f"fz-sentinel-{self.sentinels}"
        expect = expects_answer(line)
        self.stats.sent += 1
        self.stats.kinds[kind] += 1
        try:
            target.send(line + b"\n")
            target.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}).encode() + b"\n")
        except OSError as exc:
            self._crash(name, kind, line, f"send failed: {exc}")
            return
        answers: list[dict[str, Any]] = []
        got_sentinel = False
        deadline = time.monotonic() + ROUND_TIMEOUT_S
        while not got_sentinel or (expect and not answers):
            try:
                raw = target.next_line(max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if raw is None:
                self._crash(name, kind, line, "end of stream")
                return
            try:
                answer = json.loads(raw)
                assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0"
                assert ("result" in answer) != ("error" in answer)
            except (ValueError, AssertionError):
                self.stats.bad_answer += 1
                self.stats.fail("bad answer", kind, line, repr(raw[:200]))
                continue
            if answer.get("id") == sentinel:
                got_sentinel = True
                deadline = min(deadline, time.monotonic() + ANSWER_AFTER_SENTINEL_S)
                continue
            answers.append(answer)
        if not got_sentinel:
            self.stats.unanswered += 1
            self.stats.fail(f"no answer to the sentinel ping on the {name}", kind, line)
            self.open.pop(name).close()
            return
        if answers:
            self.stats.answered += 1
        if not expect:
            self.stats.expected_silent += 1
        if expect and not answers:
            self.stats.unanswered += 1
            self.stats.fail(f"unanswered on the {name}", kind, line)
        elif len(answers) > (1 if expect else 0):
            self.stats.extra += 1
            self.stats.fail(f"{len(answers)} answers on the {name}", kind, line, json.dumps(answers)[:300])
        for answer in answers:
            if internal_error(answer):
                self.stats.internal_error += 1
                self.stats.fail(f"internal error on the {name}", kind, line, json.dumps(answer)[:300])

    def run(self, seconds: float) -> Stats:
        deadline = time.monotonic() + seconds
        try:
            i = 0
            while time.monotonic() < deadline:
                self.round(self.target_names[i % len(self.target_names)])
                i += 1
        finally:
            for target in self.open.values():
                target.close()
        pid = self.ws.daemon_pid()
        if pid != self.daemon_pid or not _alive(pid):
            self.stats.crashes += 1
            self.stats.fail("the daemon is gone at the end", "-", b"", f"pid {self.daemon_pid} → {pid}")
        return self.stats


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def fuzz(seconds: float, seed: int, targets: tuple[str, ...]) -> Stats:
    ws = Workspace()
    try:
        ws.start_daemon()
        return Fuzzer(ws, seed, targets).run(seconds)
    finally:
        ws.cleanup()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", choices=("both", "bridge", "socket"), default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    targets = ("bridge", "socket") if args.target == "both" else (args.target,)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    stats = fuzz(args.seconds, args.seed, targets)
    if args.json:
        print(json.dumps({**stats.summary(), "failures": stats.failures}, indent=2))
    else:
        for key, value in stats.summary().items():
            print(f"{key:>24}: {value}")
        for failure in stats.failures:
            print("  " + failure)
    return 0 if stats.clean else 1


if __name__ == "__main__":
    sys.exit(main())
