"""A one-shot MCP client of the running daemon, over its socket, for the reading commands.

A daemon holds the index warm and reads the logs' new lines before every call, so `moraine
search` (and open, list, history, patterns) asks it rather than opening the state itself: that
open takes most of a second at a million events, and waits for the writer lock while the daemon
writes (minutes, during a first backfill). The conversation is what a host's would be, one line of
JSON-RPC each: initialize, initialized, one tools/call. Anything short of a tool's answer (no
daemon, a socket that is not this user's, a daemon dying mid-call) is None: the command then
answers from the state as before.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from moraine import __version__
from moraine.config import Config
from moraine.daemon.bridge import connect
from moraine.errors import DaemonUnavailable, UntrustedSocketError
from moraine.wire import LineFramer, Oversized, loads_bounded

PROTOCOL = "2025-06-18"  # the daemon answers with the version it speaks; one call needs nothing newer
TIMEOUT_S = 120.0  # a call's own deadlines are seconds; this bounds a daemon that stopped answering
CALL_ID = 2
MAX_REPLY = 16 << 20  # bytes of one reply line: a tool's answer is bounded far below (~100 KB, text and JSON)


def call_daemon(config: Config, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The tool's structured answer and text, as the daemon serving `config.home` gives them."""
    try:
        conn = connect(config, start=False)
    except (DaemonUnavailable, UntrustedSocketError, OSError):
        return None
    try:
        conn.settimeout(TIMEOUT_S)
        conn.sendall(_requests(tool, arguments))
        reply = _reply(conn)
    except (OSError, ValueError):
        return None
    finally:
        conn.close()
    result = reply.get("result") if isinstance(reply, dict) else None
    if not isinstance(result, dict) or result.get("isError"):
        return None
    structured, content = result.get("structuredContent"), result.get("content")
    if not isinstance(structured, dict) or not isinstance(content, list) or not content:
        return None
    text = content[0].get("text") if isinstance(content[0], dict) else None
    return (structured, text) if isinstance(text, str) else None


def _requests(tool: str, arguments: dict[str, Any]) -> bytes:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                    "clientInfo": {"name": "moraine-cli", "version": __version__}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": CALL_ID, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
    ]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _reply(conn: socket.socket) -> Any:
    """The answer to the tool call (the daemon's other lines, its initialize result, are passed)."""
    framer = LineFramer(MAX_REPLY)
    while chunk := conn.recv(1 << 16):
        for line in framer.feed(chunk):
            if isinstance(line, Oversized):
                raise ValueError("the daemon's answer is larger than a line may be")
            message = loads_bounded(line)
            if isinstance(message, dict) and message.get("id") == CALL_ID:
                return message
    raise ValueError("the daemon closed the connection before answering")
