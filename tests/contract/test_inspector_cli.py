"""Every tool driven by a generic MCP client: the MCP Inspector CLI (`inspector --cli`), which
builds arguments from `--tool-arg key=value` pairs by the input schema's declared types
(formerly `n_hits=2` was refused as a string while the schemas declared ["integer", "null"]).

The Inspector is an npm package: the test installs a pinned version under `.cache/` once
(npm reaches the registry here and in CI) and skips, saying why, where npm is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data_samples"
MORAINE = Path(sys.executable).parent / "moraine"
INSPECTOR_VERSION = "2.12.0"
PREFIX = REPO / ".cache" / f"inspector-{INSPECTOR_VERSION}"
BOUND = 100_000


@pytest.fixture(scope="module")
def inspector() -> Path:
    binary = PREFIX / "node_modules" / ".bin" / "mcp-inspector"
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node/npm not installed: the MCP Inspector CLI cannot run here")
    PREFIX.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(PREFIX),
                           f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}"],
                          capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0 or not binary.exists():
        pytest.skip(f"could not install the MCP Inspector from the npm registry: {proc.stderr[-500:]}")
    return binary


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("inspector")
    shutil.copytree(SAMPLES / "codex", root / "codex")
    shutil.copytree(SAMPLES / "claude", root / "claude")
    env = {"MORAINE_HOME": str(root / "state"), "CODEX_HOME": str(root / "codex"),
           "CLAUDE_CONFIG_DIR": str(root / "claude")}
    yield env
    subprocess.run([str(MORAINE), "--home", env["MORAINE_HOME"], "stop"], capture_output=True, timeout=120,
                   check=False)


def call(inspector: Path, env: dict[str, str], tool: str, *args: str) -> dict[str, Any]:
    """One tools/call through the Inspector CLI; the server's env goes in with -e (the CLI does
    not pass its own environment on)."""
    argv = [str(inspector), "--cli"]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    argv += [str(MORAINE), "mcp", "--method", "tools/call", "--tool-name", tool]
    for arg in args:
        argv += ["--tool-arg", arg]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result.get("isError") in (None, False), result
    text = "".join(block["text"] for block in result["content"])
    assert len(text) + len(json.dumps(result["structuredContent"], separators=(",", ":"))) <= BOUND
    envelope = result["structuredContent"]
    assert "error" not in envelope, envelope
    return envelope


def test_every_tool_through_the_inspector_cli(inspector: Path, home: dict[str, str]) -> None:
    found = call(inspector, home, "search_sessions", "query=migration", "n_hits=2",
                 'event_types=["user_input","assistant_response","tool_response"]', 'source=["codex","claude-code"]')
    assert found["request"]["n_hits"] == 2 and found["data"]["limit"] == 2
    assert 1 <= found["data"]["result_count"] <= 2
    hit = found["data"]["results"][0]
    event = call(inspector, home, "open", f"id={hit['id']}", "offset=3", "max_chars=20")
    content = event["data"]["content"]
    assert content["offset"] == 3 and len(content["text"]) <= 20
    session = call(inspector, home, "open", f"id={hit['open']['session_id']}")
    assert session["data"]["kind"] == "session" and session["data"]["session"]["resume_command"]
    listed = call(inspector, home, "list_sessions", "start_datetime=2026-03-01T00:00:00Z",
                  "end_datetime=2026-04-01T00:00:00Z", "limit=3", "sort=asc")
    assert listed["data"]["limit"] == 3 and len(listed["data"]["sessions"]) == 3
    status = call(inspector, home, "index_status")
    assert status["data"]["events"] > 0 and status["data"]["sessions"] > 0
