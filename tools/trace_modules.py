"""How many of Moraine's modules one log line passes through on its way to an answer: the
measure behind "a line reaches an MCP answer through ≤ 20 modules" (docs/architecture.md).

    python tools/trace_modules.py [--json]

A Claude Code transcript of a few records is indexed into a fresh state in a temporary folder;
then one new line is appended to it and ingested (the write side), and `search_sessions` finds
that line through the same runner the daemon's connections use (the read side). Every function
call is watched (`sys.setprofile`) and the `moraine` modules whose functions ran are counted, per
side and together. The SDK and the daemon's socket are not counted: they carry the answer, the
count is of what shapes it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

SESSION = "5b1f2e3a-0c4d-4e5f-8a9b-7c6d5e4f3a21"


def _record(n: int, text: str) -> dict[str, Any]:
    return {"type": "user", "sessionId": SESSION, "uuid": f"u-{n}", "timestamp": f"2026-03-01T10:00:{n:02d}Z",
            "cwd": "/work/repo", "version": "2.1.76", "message": {"role": "user", "content": text}}


def trace(folder: Path) -> dict[str, list[str]]:
    claude = folder / "claude"
    log = claude / "projects" / "-work-repo" / f"{SESSION}.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("".join(json.dumps(_record(n, f"earlier prompt number {n}")) + "\n" for n in range(5)))
    (folder / "codex").mkdir()
    os.environ.update({"MORAINE_HOME": str(folder / "state"), "CLAUDE_CONFIG_DIR": str(claude),
                       "CODEX_HOME": str(folder / "codex")})
    from moraine.config import load_config
    from moraine.ingest.pipeline import ingest_once
    from moraine.mcp_server.runner import ToolRunner
    from moraine.store.engine import Store

    store = Store(load_config())
    ingest_once(store)
    runner = ToolRunner(lambda: store)
    seen: dict[str, set[str]] = {"write": set(), "read": set()}
    side = ["write"]

    def watch(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            if name.startswith("moraine"):
                seen[side[0]].add(name)

    with log.open("a") as fh:
        fh.write(json.dumps(_record(9, "where did we fix the zanzibarquux migration")) + "\n")
    sys.setprofile(watch)
    ingest_once(store)
    side[0] = "read"
    result = runner.call("search_sessions", {"query": "zanzibarquux"})
    sys.setprofile(None)
    assert result.structured["data"]["results"], result.structured  # the line was found
    return {name: sorted(modules) for name, modules in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="moraine-trace-") as folder:
        sides = trace(Path(folder))
    every = sorted(set(sides["write"]) | set(sides["read"]))
    if args.json:
        print(json.dumps({"write": sides["write"], "read": sides["read"], "total": len(every)}, indent=2))
        return
    print(f"{len(every)} modules: {len(sides['write'])} on the write side, {len(sides['read'])} on the read side")
    for name in every:
        print(("W" if name in sides["write"] else " ") + ("R" if name in sides["read"] else " "), name)


if __name__ == "__main__":
    main()
