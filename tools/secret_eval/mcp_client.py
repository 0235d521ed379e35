"""A small blocking MCP client: raw JSON-RPC over the stdio of `moraine mcp --standalone`.

One request at a time (an answer is awaited before the next is sent), so a long walk (every
session, turn, event and content page) can decide each call from the last answer.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


class McpError(RuntimeError):
    pass


class Mcp:
    def __init__(self, moraine: Path, env: dict[str, str], cwd: Path, stderr_path: Path | None = None) -> None:
        self._stderr = stderr_path.open("wb") if stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen([str(moraine), "mcp", "--standalone"], env=env, cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     text=True, encoding="utf-8", bufsize=1)
        self._next = 0
        self.calls = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "secret-eval", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise McpError(f"moraine mcp closed stdout while answering {method} (exit {self.proc.poll()})")
            reply = json.loads(line)
            if reply.get("id") == ident:
                if "error" in reply:
                    raise McpError(f"{method}: {reply['error']}")
                return reply["result"]

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """A tools/call: (structuredContent, the text blocks joined)."""
        self.calls += 1
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        text = "\n".join(block.get("text", "") for block in result.get("content", []) if isinstance(block, dict))
        return result.get("structuredContent") or {}, text

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()

    def __enter__(self) -> Mcp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
