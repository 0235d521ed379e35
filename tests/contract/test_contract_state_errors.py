"""`moraine mcp` over a state it cannot open still answers: the handshake at once, then every
tool call with an in-band `internal_error` naming the problem (never a hang or a crash)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

MORAINE = str(Path(sys.executable).parent / "moraine")


async def _call_all(env: dict[str, str]) -> list[dict]:
    params = StdioServerParameters(command=MORAINE, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == {"search_sessions", "open", "list_sessions", "index_status",
                                                "search_session_history", "get_learned_patterns"}
        results = []
        for name, args in (("search_sessions", {"query": "anything"}), ("open", {"id": "session:ses_" + "a" * 26}),
                           ("list_sessions", {"start_datetime": "2026-01-01T00:00:00Z",
                                              "end_datetime": "2026-02-01T00:00:00Z"}), ("index_status", {})):
            result = await session.call_tool(name, args)
            assert result.is_error is False
            assert result.content and result.content[0].text
            results.append(result.structured_content)
        return results


def test_a_damaged_state_gives_internal_error_envelopes(tmp_path: Path) -> None:
    home = tmp_path / "state"
    home.mkdir(mode=0o700)
    (home / "wal").mkdir(mode=0o700)
    (home / "wal" / "00000001.log").write_bytes(b"NOTMORAINE" + b"\0" * 64)
    (tmp_path / "codex" / "sessions").mkdir(parents=True)  # the log roots exist; only the state is bad
    env = {"MORAINE_HOME": str(home), "CODEX_HOME": str(tmp_path / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "PATH": os.environ.get("PATH", ""),
           "HOME": str(tmp_path)}
    try:
        results = anyio.run(_call_all, env)
    finally:
        subprocess.run([MORAINE, "--home", str(home), "stop"], capture_output=True, timeout=120, check=False)
    for envelope in results:
        assert envelope["schema_version"] == "moraine.mcp.error.v1"
        assert envelope["error"]["code"] == "internal_error"
        assert "not a Moraine write-ahead log" in envelope["error"]["message"]
