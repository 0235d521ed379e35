"""`moraine mcp`: a thin stdio ⇄ Unix-socket bridge to the daemon.

Agent hosts launch `moraine mcp` and speak MCP on its stdio; the bridge pumps those lines to
the daemon's socket and back, so every host shares one warm index. It imports nothing heavy
(no MCP SDK), starts the daemon when none runs, and never leaves the host hanging: if the
daemon dies mid-session, calls in flight get a JSON-RPC error, the daemon is started again,
the session's `initialize` is replayed on the new connection, and the host carries on.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

from moraine.config import Config

_RESPONSE_ID = re.compile(rb'^\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*")')
REPLAY_ID = "moraine-bridge-replayed-initialize"


class DaemonUnavailable(Exception):
    """The daemon could not be started or reached; `exit_code` is the daemon's own when it
    refused to start (4 state, 5 no logs, …)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def start_daemon(config: Config) -> subprocess.Popen[bytes]:
    """Start `moraine daemon --foreground` detached, logging to run/daemon.log."""
    run = config.home / "run"
    run.mkdir(parents=True, exist_ok=True, mode=0o700)
    log = os.open(run / "daemon.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return subprocess.Popen([sys.executable, "-m", "moraine.cli", "--home", str(config.home), "daemon",
                                 "--foreground"], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
    finally:
        os.close(log)


def connect(config: Config, *, start: bool = True) -> socket.socket:
    """A connection to the daemon, starting it (and waiting for it) when none answers."""
    path = str(config.socket_path)
    child: subprocess.Popen[bytes] | None = None
    deadline = time.monotonic() + config.daemon.start_timeout_s
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            return conn
        except OSError:
            conn.close()
        if not start:
            raise DaemonUnavailable(f"no Moraine daemon answers on {path}")
        if child is None:
            try:
                child = start_daemon(config)
            except OSError as exc:
                raise DaemonUnavailable(f"the Moraine state at {config.home} is not writable ({exc.strerror})",
                                        4) from exc
        elif child.poll() not in (None, 0, 6):  # 6: another daemon won the race; wait for it
            raise DaemonUnavailable(f"the Moraine daemon could not start (exit {child.returncode}): "
                                    f"{_log_tail(config.home / 'run' / 'daemon.log')}", child.returncode or 1)
        if time.monotonic() > deadline:
            raise DaemonUnavailable(f"the Moraine daemon did not answer on {path} within "
                                    f"{config.daemon.start_timeout_s:.0f}s; see {config.home / 'run' / 'daemon.log'}")
        time.sleep(0.05)


def _log_tail(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    return lines[-1] if lines else "no log"


def _error(request_id: Any, message: str, code: int = -32603) -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(body).encode() + b"\n"


class Bridge:
    def __init__(self, config: Config, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.config = config
        self.stdin, self.stdout = stdin, stdout
        self.lock = threading.Lock()  # guards the connection, `pending` and the replay state
        self.out_lock = threading.Lock()
        self.conn: socket.socket | None = None
        self.pending: dict[Any, str] = {}  # request id → method, answered by the daemon not yet
        self.initialize: bytes | None = None
        self.initialized: bytes | None = None
        self.swallow: set[Any] = set()
        self.closed = threading.Event()
        self.failure: str | None = None

    def write(self, data: bytes) -> None:
        with self.out_lock:
            self.stdout.write(data)
            self.stdout.flush()

    def run(self) -> int:
        try:
            self.conn = connect(self.config)
        except DaemonUnavailable as exc:
            self.failure = str(exc)
        reader = threading.Thread(target=self._from_daemon, name="moraine-bridge-in", daemon=True)
        if self.conn is not None:
            reader.start()
        self._from_host()
        self.closed.set()
        with self.lock:
            if self.conn is not None:
                with contextlib.suppress(OSError):
                    self.conn.shutdown(socket.SHUT_WR)  # the daemon finishes what it was asked, then closes
        if reader.is_alive():
            reader.join(timeout=30)
        return 0 if self.failure is None else 1

    def _from_host(self) -> None:
        for line in self.stdin:
            if not line.strip():
                continue
            message = _parse(line)
            request_id = message.get("id") if isinstance(message, dict) else None
            method = message.get("method") if isinstance(message, dict) else None
            if self.failure is not None:  # no daemon: every request gets the reason, nothing hangs
                if method and request_id is not None:
                    self.write(_error(request_id, f"Moraine is unavailable: {self.failure}"))
                continue
            with self.lock:
                if method == "initialize":
                    self.initialize = line
                elif method == "notifications/initialized":
                    self.initialized = line
                if method and request_id is not None:
                    self.pending[_key(request_id)] = method
                assert self.conn is not None
                try:
                    self.conn.sendall(line if line.endswith(b"\n") else line + b"\n")
                except OSError:  # the daemon is gone: wake the reader, which answers what is pending
                    with contextlib.suppress(OSError):
                        self.conn.shutdown(socket.SHUT_RDWR)

    def _from_daemon(self) -> None:
        buffer = b""
        while True:
            conn = self.conn
            assert conn is not None
            try:
                chunk = conn.recv(1 << 20)
            except OSError:
                chunk = b""
            if chunk:
                buffer += chunk
                while (newline := buffer.find(b"\n")) >= 0:
                    line, buffer = buffer[: newline + 1], buffer[newline + 1 :]
                    self._deliver(line)
                continue
            if self.closed.is_set():
                return
            buffer = b""
            if not self._reconnect():
                return

    def _deliver(self, line: bytes) -> None:
        match = _RESPONSE_ID.match(line)
        request_id = json.loads(match.group(1)) if match else None
        if match is None:
            message = _parse(line)
            if isinstance(message, dict) and "method" not in message:
                request_id = message.get("id")
        with self.lock:
            if request_id is not None:
                key = _key(request_id)
                if key in self.swallow:
                    self.swallow.discard(key)
                    return
                self.pending.pop(key, None)
        self.write(line)

    def _reconnect(self) -> bool:
        """The daemon went away mid-session: fail what was in flight, start it again, replay
        the handshake on the new connection. False when it cannot come back."""
        with self.lock:
            lost, self.pending = self.pending, {}
            for key, method in lost.items():
                self.write(_error(json.loads(key), f"the Moraine daemon stopped while answering {method}; it is being "
                                  "restarted — retry the call"))
            try:
                conn = connect(self.config)
            except DaemonUnavailable as exc:
                self.failure = str(exc)
                self.conn = None
                return False
            if self.initialize is not None:
                replay = _parse(self.initialize)
                replay["id"] = REPLAY_ID
                self.swallow.add(_key(REPLAY_ID))
                conn.sendall(json.dumps(replay).encode() + b"\n")
                if self.initialized is not None:
                    conn.sendall(self.initialized if self.initialized.endswith(b"\n") else self.initialized + b"\n")
            self.conn = conn
            return True


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def serve(config: Config) -> int:
    return Bridge(config, sys.stdin.buffer, sys.stdout.buffer).run()
