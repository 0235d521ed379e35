"""`moraine mcp`'s bridge never leaves the host waiting when the daemon's connection breaks in
an unusual way: a new connection that dies before the handshake is replayed is retried, and an
error nobody foresaw while reconnecting answers every waiting and later request with the reason.

The bridge runs in this process on real sockets (socket pairs: the test plays the daemon at the
other end); only `connect`, which would start a daemon, hands out those sockets instead."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from moraine.config import load_config
from moraine.daemon import bridge as bridge_module
from moraine.daemon.bridge import REPLAY_ID, Bridge

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_sessions", "arguments": {}}}


def _lines(conn: socket.socket) -> Iterator[dict[str, Any]]:
    buffer = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)


def _daemon(conn: socket.socket, close_after: str | None, seen: list[dict[str, Any]]) -> None:
    """Answer requests with `{"served": method}`; close the connection after answering `close_after`."""
    with conn:
        for message in _lines(conn):
            seen.append(message)
            if "id" in message:
                conn.sendall(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                         "result": {"served": message["method"]}}).encode() + b"\n")
                if message["method"] == close_after:
                    return


class Host:
    """The agent host's side: writes lines to the bridge's stdin, collects what it prints."""

    def __init__(self, tmp_path: Path) -> None:
        read_fd, self.write_fd = os.pipe()
        self.stdin = os.fdopen(read_fd, "rb", buffering=0)
        out_read, out_write = os.pipe()
        self.stdout = os.fdopen(out_write, "wb")
        self.out = os.fdopen(out_read, "rb")
        self.answers: list[dict[str, Any]] = []
        threading.Thread(target=self._collect, daemon=True).start()
        self.bridge = Bridge(load_config({"home": str(tmp_path / "state")}, env={}), self.stdin, self.stdout)
        self.thread = threading.Thread(target=self.bridge.run, daemon=True)

    def _collect(self) -> None:
        for line in self.out:
            self.answers.append(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        os.write(self.write_fd, json.dumps(message).encode() + b"\n")

    def answer(self, request_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for answer in self.answers:
                if answer.get("id") == request_id:
                    return answer
            time.sleep(0.01)
        raise AssertionError(f"no answer to request {request_id} in {timeout:.0f}s (the host would hang): "
                             f"{self.answers}")

    def close(self) -> None:
        os.close(self.write_fd)
        self.thread.join(timeout=10)


def _connections(monkeypatch: pytest.MonkeyPatch, makers: list[Callable[[], socket.socket]]) -> None:
    def fake_connect(_config: Any, **_kw: Any) -> socket.socket:
        return makers.pop(0)()
    monkeypatch.setattr(bridge_module, "connect", fake_connect)


def _served(close_after: str | None, seen: list[dict[str, Any]]) -> Callable[[], socket.socket]:
    def make() -> socket.socket:
        mine, theirs = socket.socketpair()
        threading.Thread(target=_daemon, args=(theirs, close_after, seen), daemon=True).start()
        return mine
    return make


def _dead() -> socket.socket:
    """A connection the daemon closed before anything was sent on it."""
    mine, theirs = socket.socketpair()
    theirs.close()
    return mine


def test_a_connection_lost_before_the_replayed_handshake_is_retried(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    first: list[dict[str, Any]] = []
    last: list[dict[str, Any]] = []
    _connections(monkeypatch, [_served("initialize", first), _dead, _served(None, last)])
    host = Host(tmp_path)
    host.thread.start()
    host.send(INITIALIZE)
    assert host.answer(1)["result"] == {"served": "initialize"}
    host.send(INITIALIZED)
    time.sleep(0.5)  # the daemon closed after the handshake; the bridge reconnects (the 2nd connection dies)
    host.send(CALL)
    assert host.answer(2)["result"] == {"served": "tools/call"}
    host.close()
    assert [m.get("method") for m in last] == ["initialize", "notifications/initialized", "tools/call"]
    assert last[0]["id"] == REPLAY_ID and not any(a.get("id") == REPLAY_ID for a in host.answers)
    assert host.bridge.failure is None


def test_an_unforeseen_error_while_reconnecting_answers_every_request(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> socket.socket:
        raise RuntimeError("something nobody foresaw")

    first: list[dict[str, Any]] = []
    _connections(monkeypatch, [_served("tools/call", first), broken])
    host = Host(tmp_path)
    host.thread.start()
    host.send(INITIALIZE)
    host.answer(1)
    host.send(INITIALIZED)
    host.send(CALL)
    assert host.answer(2)["result"] == {"served": "tools/call"}  # then the daemon goes, and reconnecting breaks
    time.sleep(0.3)
    host.send({**CALL, "id": 3})
    answer = host.answer(3)
    assert "RuntimeError: something nobody foresaw" in answer["error"]["message"], answer
    host.close()
