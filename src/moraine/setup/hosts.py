"""The MCP hosts among the harnesses: the file each reads its user-level servers from, and the
shape of Moraine's entry there.

Where each host reads them, as confirmed in its own source or docs:

* Claude Code: `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json` when that is set;
  top-level `mcpServers.<name> = {type: "stdio", command, args}`. Claude Code is closed source:
  anthropics/claude-code issues #4193 (a maintainer: user config is `~/.claude.json`) and
  #48448 (`claude mcp add --scope user` under CLAUDE_CONFIG_DIR writes
  `$CLAUDE_CONFIG_DIR/.claude.json`). MORAINE_SETUP_CLAUDE_JSON, if set, names the file instead.
* Codex: `$CODEX_HOME/config.toml` (CODEX_HOME defaults to `~/.codex`), table
  `[mcp_servers.<name>]` with `command`, `args` (openai/codex `docs/config.md`).
* Gemini CLI: `$GEMINI_CLI_HOME/.gemini/settings.json` (GEMINI_CLI_HOME stands for the home
  directory, default `~`); top-level `mcpServers.<name> = {command, args}` (no `type`: its
  `type` means sse/http). google-gemini/gemini-cli `packages/core/src/utils/paths.ts`
  `homedir()`, `packages/core/src/config/storage.ts` `getGlobalSettingsPath()`,
  `packages/core/src/config/config.ts` `MCPServerConfig`, `packages/cli/src/commands/mcp/add.ts`.
* Qwen Code: `$QWEN_HOME/settings.json` (QWEN_HOME replaces `~/.qwen` itself); top-level
  `mcpServers.<name> = {command, args}`. QwenLM/qwen-code `packages/core/src/config/storage.ts`
  `getGlobalQwenDir()` / `getGlobalSettingsPath()` (QWEN_HOME in recent releases; older ones
  read `~/.qwen` only), `docs/users/features/mcp.md` (user scope `~/.qwen/settings.json`).
* Kimi CLI: `$KIMI_SHARE_DIR/mcp.json` (default `~/.kimi`); `mcpServers.<name> = {command,
  args}`, as `kimi mcp add` writes it. MoonshotAI/kimi-cli `src/kimi_cli/share.py`
  `get_share_dir()`, `src/kimi_cli/cli/mcp.py` `get_global_mcp_config_file()` / `mcp_add`.
* Cursor: `~/.cursor/mcp.json`; `mcpServers.<name> = {command, args}`. Closed source, no
  variable moves it (CURSOR_HOME is Moraine's own, for the logs only); cursor.com/docs/mcp as
  quoted by third-party guides (global `~/.cursor/mcp.json`, project `.cursor/mcp.json`).
* Copilot CLI: `$COPILOT_HOME/mcp-config.json` (default `~/.copilot`); `mcpServers.<name> =
  {type: "local", command, args, tools: ["*"]}`. github/docs
  `content/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers.md` and
  `content/copilot/reference/copilot-cli-reference/cli-config-dir-reference.md` (COPILOT_HOME;
  "previous XDG-based configuration locations are migrated to ~/.copilot at startup when
  COPILOT_HOME isn't set"): XDG_CONFIG_HOME is deliberately not honoured (github/copilot-cli
  issues #1750, #1954: removed in 1.0; github/copilot-cli `changelog.md`).
* OpenCode: `$OPENCODE_CONFIG` when set (a config file merged over the global one), else
  `$XDG_CONFIG_HOME/opencode/opencode.json` (XDG_CONFIG_HOME defaults to `~/.config`;
  `opencode.jsonc` when only that one exists); `mcp.<name> = {type: "local", command: [command,
  *args], enabled: true}` (the V1 shape, which V2 still reads). anomalyco/opencode (was
  sst/opencode) `packages/opencode/src/global/index.ts` (xdg-basedir `xdgConfig/opencode`),
  `packages/opencode/src/config/config.ts` (global `config.json`, `opencode.json`,
  `opencode.jsonc`, then OPENCODE_CONFIG), `packages/opencode/src/config/mcp.ts` (`Local`),
  opencode.ai/docs/mcp-servers and /docs/migrate-v1.
* Pi (badlogic/pi-mono `packages/coding-agent`) is not an MCP host: its README says "No MCP."
  (checked at coding-agent 0.58.3). Nothing is written for it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moraine.config import SourceConfig
from moraine.errors import UsageError
from moraine.harnesses import NAMES

SERVER = "moraine"


def moraine_command() -> str:
    """The absolute path of this installation's `moraine` script."""
    script = Path(sys.executable).parent / "moraine"
    found = shutil.which("moraine")
    return str(script if script.exists() else Path(found) if found else script)


def mcp_args(home: Path | None) -> list[str]:
    """`moraine mcp`, pointed at a state other than the default one when there is one (a host
    launches it without this shell's MORAINE_HOME)."""
    return ["--home", str(home), "mcp"] if home is not None else ["mcp"]


def claude_entry(command: str, home: Path | None = None) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": mcp_args(home)}


def codex_block(command: str, home: Path | None = None) -> str:
    return toml_block(command, mcp_args(home))


def toml_block(command: str, args: list[str]) -> str:
    return f"[mcp_servers.{SERVER}]\ncommand = {json.dumps(command)}\nargs = {json.dumps(args)}\n"


# --- where each host reads its configuration --------------------------------------------------


def _env_dir(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value).expanduser().absolute() if value else default


def claude_config_dir() -> Path:
    return _env_dir("CLAUDE_CONFIG_DIR", Path.home() / ".claude")


def claude_config_path() -> Path:
    """`$CLAUDE_CONFIG_DIR/.claude.json` when CLAUDE_CONFIG_DIR is set, else `~/.claude.json`."""
    override = os.environ.get("MORAINE_SETUP_CLAUDE_JSON")
    if override:
        return Path(override)
    return claude_config_dir() / ".claude.json" if os.environ.get("CLAUDE_CONFIG_DIR") else Path.home() / ".claude.json"


def codex_config_path() -> Path:
    return _codex_dir() / "config.toml"


def _codex_dir() -> Path:
    return _env_dir("CODEX_HOME", Path.home() / ".codex")


def _gemini_dir() -> Path:
    return _env_dir("GEMINI_CLI_HOME", Path.home()) / ".gemini"


def _qwen_dir() -> Path:
    return _env_dir("QWEN_HOME", Path.home() / ".qwen")


def _kimi_dir() -> Path:
    return _env_dir("KIMI_SHARE_DIR", Path.home() / ".kimi")


def _cursor_dir() -> Path:
    return Path.home() / ".cursor"


def _copilot_dir() -> Path:
    return _env_dir("COPILOT_HOME", Path.home() / ".copilot")


def _opencode_dir() -> Path:
    return _env_dir("XDG_CONFIG_HOME", Path.home() / ".config") / "opencode"


def _opencode_path() -> Path:
    custom = os.environ.get("OPENCODE_CONFIG")
    if custom:
        return Path(custom).expanduser().absolute()
    folder = _opencode_dir()
    json_file, jsonc_file = folder / "opencode.json", folder / "opencode.jsonc"
    return jsonc_file if jsonc_file.exists() and not json_file.exists() else json_file


def _opencode_marks() -> tuple[Path, ...]:
    custom = os.environ.get("OPENCODE_CONFIG")
    return (_opencode_dir(),) + ((Path(custom).expanduser(),) if custom else ())


# --- the entry each host expects -----------------------------------------------------------------


def plain_entry(command: str, args: list[str]) -> dict[str, Any]:
    return {"command": command, "args": args}


def _claude(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": args}


def _copilot(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "local", "command": command, "args": args, "tools": ["*"]}


def _opencode(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "local", "command": [command, *args], "enabled": True}


@dataclass(frozen=True)
class Host:
    """An MCP host: the file it reads its user-level servers from, and Moraine's entry there."""

    name: str  # the harness name in the adapter registry
    label: str
    path: Callable[[], Path]  # the config file, as the host resolves it now
    marks: Callable[[], tuple[Path, ...]]  # what exists where the host is installed
    entry: Callable[[str, list[str]], dict[str, Any]]
    key: str = "mcpServers"  # the JSON object the servers live in (Codex: the TOML table)
    toml: bool = False
    honours: str = ""  # the variables that move the file


HOSTS: dict[str, Host] = {host.name: host for host in (
    Host("codex", "Codex", codex_config_path, lambda: (_codex_dir(),), plain_entry, key="mcp_servers", toml=True,
         honours="CODEX_HOME"),
    Host("claude-code", "Claude Code", claude_config_path, lambda: (claude_config_path(), claude_config_dir()),
         _claude, honours="CLAUDE_CONFIG_DIR"),
    Host("qwen-code", "Qwen Code", lambda: _qwen_dir() / "settings.json", lambda: (_qwen_dir(),), plain_entry,
         honours="QWEN_HOME"),
    Host("kimi-cli", "Kimi CLI", lambda: _kimi_dir() / "mcp.json", lambda: (_kimi_dir(),), plain_entry,
         honours="KIMI_SHARE_DIR"),
    Host("cursor", "Cursor", lambda: _cursor_dir() / "mcp.json", lambda: (_cursor_dir(),), plain_entry),
    Host("copilot-cli", "Copilot CLI", lambda: _copilot_dir() / "mcp-config.json", lambda: (_copilot_dir(),),
         _copilot, honours="COPILOT_HOME"),
    Host("gemini-cli", "Gemini CLI", lambda: _gemini_dir() / "settings.json", lambda: (_gemini_dir(),), plain_entry,
         honours="GEMINI_CLI_HOME"),
    Host("opencode", "OpenCode", _opencode_path, _opencode_marks, _opencode, key="mcp",
         honours="OPENCODE_CONFIG, XDG_CONFIG_HOME"),
)}

NOT_HOSTS: dict[str, str] = {
    "pi": "Pi is not an MCP host (pi-mono's coding agent: \"No MCP.\"); nothing to write for it",
}


@dataclass(frozen=True)
class Choice:
    """One harness of the registry: its host (None: not an MCP host), whether this run acts on
    it, and why."""

    name: str
    host: Host | None
    chosen: bool
    reason: str


def hosts(requested: Sequence[str] | None = None, sources: Iterable[SourceConfig] = (),
          every: bool = False) -> list[Choice]:
    """Every harness of the registry, in its order: the ones named by `requested` (`--host`), else
    every host when `every` (`--remove`), else those installed here or configured as a source."""
    unknown = sorted(set(requested or ()) - set(NAMES))
    if unknown:
        raise UsageError(f"unknown --host {', '.join(unknown)}; the harnesses are {', '.join(NAMES)}")
    sources = list(sources)
    choices = []
    for name in NAMES:
        if name in NOT_HOSTS:
            choices.append(Choice(name, None, False, NOT_HOSTS[name]))
            continue
        host = HOSTS[name]  # a KeyError here: a new harness needs an entry in HOSTS or NOT_HOSTS
        if requested:
            chosen = name in requested
            choices.append(Choice(name, host, chosen, "named by --host" if chosen else "not named by --host"))
        elif every:
            choices.append(Choice(name, host, True, "every host is checked"))
        else:
            choices.append(Choice(name, host, *_detect(host, sources)))
    return choices


def _detect(host: Host, sources: list[SourceConfig]) -> tuple[bool, str]:
    marks = host.marks()
    for mark in marks:
        if mark.exists():
            return True, f"{mark} exists"
    for source in sources:
        if source.in_use() and source.harness == host.name:
            return True, f"source {source.name!r} is configured"
    return False, (f"no {marks[0]} and no {host.name} source configured; "
                   f"`moraine setup --write --host {host.name}` writes it anyway")
