"""End-to-end CLI harness: the real `moraine` console script, run as a subprocess over copies of data_samples.

Every test builds a workspace under tmp_path (copies of data_samples/codex and data_samples/claude) and
runs the CLI with CODEX_HOME / CLAUDE_CONFIG_DIR / MORAINE_HOME, every other harness's root variable and
HOME pointing into it; only PATH is kept from the outer environment, so no stray MORAINE_* setting and no
log of the machine's own harnesses (found under HOME when a variable is unset) leaks in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data_samples"
ORACLE: dict[str, Any] = json.loads((SAMPLES / "expected.json").read_text(encoding="utf-8"))
MORAINE = Path(sys.executable).parent / "moraine"

# The sample window: every session of data_samples lies in March 2026.
SINCE = "2026-03-01T00:00:00Z"
UNTIL = "2026-04-01T00:00:00Z"


def oracle_file(key: str) -> dict[str, Any]:
    return next(f for f in ORACLE["files"] if f["key"] == key)


def oracle_sessions() -> list[dict[str, Any]]:
    return [f["session"] for f in ORACLE["files"] if f.get("session")]


def oracle_malformed() -> list[tuple[str, int, int]]:
    """(relative path, 1-based line, byte offset) of every malformed line in the samples."""
    return [(f["path"], line["line"], line["offset"]) for f in ORACLE["files"] for line in f["lines"]
            if line["status"] == "malformed"]


def oracle_event_count() -> int:
    return sum(1 for f in ORACLE["files"] for line in f["lines"] if line.get("event"))


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as exc:  # pragma: no cover - reported as a test failure
            raise AssertionError(f"stdout of {self.args} is not JSON: {exc}\n{self.stdout[:2000]}") from exc

    def __repr__(self) -> str:
        return (f"Result(args={self.args}, rc={self.returncode},\n--- stdout ---\n{self.stdout[:3000]}"
                f"\n--- stderr ---\n{self.stderr[:3000]})")


@dataclass
class Workspace:
    root: Path
    codex: Path
    claude: Path
    state: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self, **overrides: str) -> dict[str, str]:
        env = {"CODEX_HOME": str(self.codex), "CLAUDE_CONFIG_DIR": str(self.claude),
               "MORAINE_HOME": str(self.state), "PI_CODING_AGENT_DIR": str(self.root / "pi"),
               "QWEN_HOME": str(self.root / "qwen"), "KIMI_SHARE_DIR": str(self.root / "kimi"),
               "CURSOR_HOME": str(self.root / "cursor"), "COPILOT_HOME": str(self.root / "copilot"),
               "GEMINI_CLI_HOME": str(self.root / "gemini"), "XDG_DATA_HOME": str(self.root / "xdg-data"),
               "HOME": str(self.root / "home"), "XDG_CONFIG_HOME": str(self.root / "home" / ".config")}
        if "PATH" in os.environ:
            env["PATH"] = os.environ["PATH"]
        env.update(self.extra_env)
        env.update(overrides)
        return env

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
        argv = [str(MORAINE), *args]
        proc = subprocess.run(argv, env=env or self.env(), cwd=self.root, capture_output=True,
                              timeout=timeout, check=False)
        result = Result(list(args), proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"))
        assert "Traceback" not in result.stderr, f"traceback on stderr: {result!r}"
        assert "Traceback" not in result.stdout, f"traceback on stdout: {result!r}"
        return result

    def run_many(self, argvs: Iterable[Sequence[str]], workers: int = 4) -> list[Result]:
        """Independent read-only invocations, concurrently (the store's writer lock serialises catch-up)."""
        argvs = [list(a) for a in argvs]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda a: self.run(*a), argvs))

    def state_bytes(self) -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in sorted(self.state.rglob("*")) if p.is_file()}

    def sample_path(self, relative: str) -> Path:
        """A sample file's path inside this workspace (`relative` as in expected.json, e.g. codex/…)."""
        return self.root / relative


def make_workspace(root: Path, *, copy_logs: bool = True) -> Workspace:
    root.mkdir(parents=True, exist_ok=True)
    ws = Workspace(root=root, codex=root / "codex", claude=root / "claude", state=root / "state")
    if copy_logs:
        shutil.copytree(SAMPLES / "codex", ws.codex)
        shutil.copytree(SAMPLES / "claude", ws.claude)
    return ws


@dataclass
class Indexed:
    ws: Workspace
    first_index: Result


def mcp_calls(ws: Workspace, env: dict[str, str], calls: list[tuple[str, dict]]) -> list[dict]:
    """Raw JSON-RPC to `moraine mcp --standalone`: initialize, then each tools/call."""
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "querylog-test", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    messages += [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": args}}
                 for i, (name, args) in enumerate(calls, start=1)]
    proc = subprocess.Popen([str(MORAINE), "mcp", "--standalone"], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("\n".join(map(json.dumps, messages)) + "\n")
        proc.stdin.flush()
        replies: dict[int, dict] = {}
        while len(replies) < len(calls):  # the host keeps stdin open until it has its answers
            line = proc.stdout.readline()
            assert line, "moraine mcp closed stdout before answering every call"
            reply = json.loads(line)
            if reply.get("id") and "result" in reply:
                replies[reply["id"]] = reply["result"]["structuredContent"]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    return [replies[i] for i in sorted(replies)]
