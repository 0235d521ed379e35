"""`moraine setup`: the MCP server entry for Claude Code and Codex, printed or merged in.

Claude Code reads `mcpServers` from `~/.claude.json`; Codex reads `[mcp_servers.<name>]`
from `$CODEX_HOME/config.toml`. Both launch `moraine mcp`, which bridges to the daemon.
`--write` merges the entry (keeping everything else, with a `.bak` copy first) and is
idempotent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from moraine.durable import replace_atomically


def moraine_command() -> str:
    """The absolute path of this installation's `moraine` script."""
    script = Path(sys.executable).parent / "moraine"
    found = shutil.which("moraine")
    return str(script if script.exists() else Path(found) if found else script)


def claude_entry(command: str) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": ["mcp"]}


def codex_block(command: str) -> str:
    return f'[mcp_servers.moraine]\ncommand = {json.dumps(command)}\nargs = ["mcp"]\n'


def claude_config_path() -> Path:
    return Path(os.environ.get("MORAINE_SETUP_CLAUDE_JSON") or Path.home() / ".claude.json")


def codex_config_path() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml"


def merge_claude(path: Path, command: str) -> None:
    data: dict[str, Any] = {}
    if path.exists():
        data = json.loads(path.read_text() or "{}")
        shutil.copyfile(path, path.with_name(path.name + ".bak"))
    data.setdefault("mcpServers", {})["moraine"] = claude_entry(command)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, (json.dumps(data, indent=2) + "\n").encode())


# the table header and every line up to the next table header (`args = ["mcp"]` has a `[` too)
_SECTION = re.compile(r"(?m)^\[mcp_servers\.moraine\][^\n]*\n?(?:(?!\[)[^\n]*\n?)*")


def merge_codex(path: Path, command: str) -> None:
    text = path.read_text() if path.exists() else ""
    if path.exists():
        shutil.copyfile(path, path.with_name(path.name + ".bak"))
    block = codex_block(command)
    if _SECTION.search(text):
        text = _SECTION.sub(lambda _: block + "\n", text, count=1).rstrip("\n") + "\n"
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, text.encode())


def run_setup(write: bool, as_json: bool) -> int:
    command = moraine_command()
    claude, codex = claude_config_path(), codex_config_path()
    if write:
        merge_claude(claude, command)
        merge_codex(codex, command)
    if as_json:
        print(json.dumps({"command": command, "claude_code": {"path": str(claude), "mcpServers": {
            "moraine": claude_entry(command)}}, "codex": {"path": str(codex), "toml": codex_block(command)},
            "written": write}, indent=2))
        return 0
    verb = "merged into" if write else "for"
    print(f"# Claude Code — {verb} {claude} (or a project's .mcp.json):")
    print(json.dumps({"mcpServers": {"moraine": claude_entry(command)}}, indent=2))
    print(f"\n# Codex — {verb} {codex}:")
    print(codex_block(command))
    if not write:
        print("# `moraine setup --write` merges both (a .bak copy of each file is kept).")
    return 0
