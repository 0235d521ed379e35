"""`moraine setup`: Moraine's MCP server entry for every MCP host it reads, printed, merged in or
taken out.

Every harness of the adapter registry (`moraine.harnesses`) is either an MCP host below
(`HOSTS`: the file it reads, the key its servers live under, the entry's shape) or named in
`NOT_HOSTS` with the reason; `hosts()` walks the registry, so a new harness without a decision
here is an error, not a silent omission. Each entry launches `moraine mcp` (a stdio server that
bridges to the daemon), with `--home` when the state served is not the default one.

Where each host reads its user-level MCP servers, as confirmed in its own source or docs:

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

Which hosts: `--host NAME` (repeatable) names them; by default, a host whose directory (or
config file) exists here, or whose harness is a configured, enabled source (Codex and Claude
Code always are, as Moraine's default sources). The output says which were skipped and why.
`--remove` without `--host` looks in every host's file.

`--write` merges the entry (keeping everything else) and is idempotent: a file that already holds
the same entry is not rewritten. Every chosen file is read and checked before any is written, so
a file that cannot be read (invalid JSON: a JSONC file with comments is refused rather than
stripped of them) stops the run with nothing written. Before the first change to a file it keeps
a `.bak` copy of the original, written once and never replaced (a rerun would otherwise back up
its own output). Every file written keeps the original's permission bits (the `.bak` included:
`~/.claude.json` is 0600 and holds tokens); a file that did not exist is 0600; a symlinked config
is rewritten at its target.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moraine.config import SourceConfig
from moraine.durable import fsync_path
from moraine.errors import ConfigError, UsageError
from moraine.harnesses import NAMES

NEW_FILE_MODE = 0o600
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
    return _toml_block(command, mcp_args(home))


def _toml_block(command: str, args: list[str]) -> str:
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


def _plain(command: str, args: list[str]) -> dict[str, Any]:
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
    Host("codex", "Codex", codex_config_path, lambda: (_codex_dir(),), _plain, key="mcp_servers", toml=True,
         honours="CODEX_HOME"),
    Host("claude-code", "Claude Code", claude_config_path, lambda: (claude_config_path(), claude_config_dir()),
         _claude, honours="CLAUDE_CONFIG_DIR"),
    Host("qwen-code", "Qwen Code", lambda: _qwen_dir() / "settings.json", lambda: (_qwen_dir(),), _plain,
         honours="QWEN_HOME"),
    Host("kimi-cli", "Kimi CLI", lambda: _kimi_dir() / "mcp.json", lambda: (_kimi_dir(),), _plain,
         honours="KIMI_SHARE_DIR"),
    Host("cursor", "Cursor", lambda: _cursor_dir() / "mcp.json", lambda: (_cursor_dir(),), _plain),
    Host("copilot-cli", "Copilot CLI", lambda: _copilot_dir() / "mcp-config.json", lambda: (_copilot_dir(),),
         _copilot, honours="COPILOT_HOME"),
    Host("gemini-cli", "Gemini CLI", lambda: _gemini_dir() / "settings.json", lambda: (_gemini_dir(),), _plain,
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


# --- reading and writing one file ------------------------------------------------------------------


def _write_atomically(path: Path, data: bytes, like: os.stat_result | None) -> None:
    """temp (created 0600, given the mode — and, for root, the owner — of `like` before any byte is
    written; 0600 when there is no original) → fsync → rename → fsync dir: the file never exists
    with other permission bits, and readers see the old bytes or the new."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if like is not None:
            if os.geteuid() == 0 and (like.st_uid, like.st_gid) != (0, 0):  # root editing a user's file
                os.fchown(fd, like.st_uid, like.st_gid)
            os.fchmod(fd, stat.S_IMODE(like.st_mode))
        else:
            os.fchmod(fd, NEW_FILE_MODE)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(temp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_path(path.parent)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)  # through a symlink: the file that is read and rewritten
    except FileNotFoundError:
        return None


def _back_up(path: Path, data: bytes, original: os.stat_result) -> None:
    """`<file>.bak` with the original's bytes and mode, only if there is none yet (the first backup
    is the one worth keeping: a rerun would back up its own output). An existing backup more open
    than the original (as earlier versions left it: 0644 beside a 0600 file) is closed down to it."""
    backup = path.with_name(path.name + ".bak")
    try:
        existing = os.lstat(backup)
    except FileNotFoundError:
        _write_atomically(backup, data, original)
        return
    mode, wanted = stat.S_IMODE(existing.st_mode), stat.S_IMODE(original.st_mode)
    if stat.S_ISREG(existing.st_mode) and mode & ~wanted:
        os.chmod(backup, mode & wanted)


def _write_config(path: Path, data: bytes, original: os.stat_result | None) -> None:
    target = Path(os.path.realpath(path))  # a symlinked dotfile stays a symlink
    if not target.parent.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    _write_atomically(target, data, original)


@dataclass(frozen=True)
class _Change:
    """A file as read, and what it becomes (None: nothing to change)."""

    path: Path
    original: os.stat_result | None
    raw: bytes
    new: bytes | None

    def apply(self) -> None:
        if self.new is None:
            return
        if self.original is not None:
            _back_up(self.path, self.raw, self.original)
        _write_config(self.path, self.new, self.original)


def _json_object(path: Path, raw: bytes, key: str) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode() or "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix it, or add the entry by hand (a file with "
                          "comments is left alone rather than stripped of them)") from None
    if not isinstance(data, dict) or not isinstance(data.get(key, {}), dict):
        raise ConfigError(f"{path}: expected a JSON object with a {key!r} object")
    return data


def _dump(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


# the table header and every line up to the next table header (`args = ["mcp"]` has a `[` too)
_SECTION = re.compile(rf"(?m)^\[mcp_servers\.{SERVER}\][^\n]*\n?(?:(?!\[)[^\n]*\n?)*")


def _toml_text(path: Path, raw: bytes) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 ({exc}); fix it, or add the entry by hand") from None


def plan_merge(host: Host, command: str, args: list[str]) -> _Change:
    """Read the host's file and work out the merged bytes; raises ConfigError on a file it cannot read."""
    path = host.path()
    original = _stat(path)
    raw = path.read_bytes() if original is not None else b""
    if host.toml:
        text = _toml_text(path, raw)
        block = _toml_block(command, args)
        if _SECTION.search(text):
            text = _SECTION.sub(lambda _: block + "\n", text, count=1).rstrip("\n") + "\n"
        else:
            text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
        new = text.encode()
    else:
        data = _json_object(path, raw, host.key)
        data.setdefault(host.key, {})[SERVER] = host.entry(command, args)
        new = _dump(data)
    return _Change(path, original, raw, None if original is not None and new == raw else new)


def plan_remove(host: Host) -> _Change:
    """Read the host's file and work out its bytes without Moraine's entry (and nothing else)."""
    path = host.path()
    original = _stat(path)
    if original is None:
        return _Change(path, None, b"", None)
    raw = path.read_bytes()
    if host.toml:
        text = _toml_text(path, raw)
        if not _SECTION.search(text):
            return _Change(path, original, raw, None)
        text = _SECTION.sub("", text, count=1).rstrip("\n")
        return _Change(path, original, raw, (text + "\n" if text else "").encode())
    data = _json_object(path, raw, host.key)
    if SERVER not in data.get(host.key, {}):
        return _Change(path, original, raw, None)
    del data[host.key][SERVER]
    return _Change(path, original, raw, _dump(data))


def _plan_all(plan: Callable[[Host], _Change], choices: list[Choice]) -> tuple[dict[str, _Change], dict[str, str]]:
    """Every chosen file read and checked before any is written: the changes to make, and the
    hosts whose file cannot be read (a JSON file with comments, say), which are left untouched
    while every other host is still written."""
    changes: dict[str, _Change] = {}
    errors: dict[str, str] = {}
    for choice in choices:
        if choice.chosen and choice.host is not None:
            try:
                changes[choice.name] = plan(choice.host)
            except ConfigError as exc:
                errors[choice.name] = str(exc)
    return changes, errors


def _refused(errors: dict[str, str], choices: list[Choice], command: str, args: list[str] | None) -> None:
    """Each unreadable host's file named on stderr with what to add by hand; exit 3 once the
    other hosts are written."""
    if not errors:
        return
    hosts_by_name = {choice.name: choice.host for choice in choices}
    lines = []
    for name, message in errors.items():
        host = hosts_by_name[name]
        lines.append(f"{name}: {message}; left unchanged")
        if args is not None and host is not None:
            lines.append(f"add this to {host.path()} by hand:\n{_snippet(host, command, args)}")
    raise ConfigError("\n".join(lines))


# --- the command ------------------------------------------------------------------------------------


def _snippet(host: Host, command: str, args: list[str]) -> str:
    if host.toml:
        return _toml_block(command, args)
    entry = json.dumps(host.entry(command, args), ensure_ascii=False)
    return f'{{\n  "{host.key}": {{\n    "{SERVER}": {entry}\n  }}\n}}\n'


def _described(choice: Choice, command: str, args: list[str]) -> dict[str, Any]:
    if choice.host is None:
        return {"mcp_host": False, "chosen": False, "reason": choice.reason}
    host = choice.host
    described: dict[str, Any] = {"mcp_host": True, "label": host.label, "path": str(host.path()), "key": host.key,
                                 "entry": _plain(command, args) if host.toml else host.entry(command, args),
                                 "chosen": choice.chosen, "reason": choice.reason}
    if host.honours:
        described["honours"] = host.honours
    if host.toml:
        described["toml"] = _snippet(host, command, args)
    return described


def run_setup(write: bool, as_json: bool, home: Path | None = None, remove: bool = False,
              requested: Sequence[str] | None = None, sources: Iterable[SourceConfig] = ()) -> int:
    """`home`: the state to serve when it is not the default one (`--home` / MORAINE_HOME);
    `requested`: the harnesses named by `--host`; `sources`: the configured log sources."""
    command, args = moraine_command(), mcp_args(home)
    choices = hosts(requested, sources, every=remove)
    if remove:
        return _remove(choices, as_json)
    changes, errors = _plan_all(lambda host: plan_merge(host, command, args), choices) if write else ({}, {})
    for change in changes.values():
        change.apply()
    if as_json:
        described = {choice.name: _described(choice, command, args) for choice in choices}
        for name, change in changes.items():
            described[name]["result"] = "merged" if change.new is not None else "unchanged"
        print(json.dumps({"command": command, "args": args, "written": write, "hosts": described,
                          # the two keys of earlier versions, as they were
                          "claude_code": {"path": str(claude_config_path()),
                                          "mcpServers": {SERVER: claude_entry(command, home)}},
                          "codex": {"path": str(codex_config_path()), "toml": codex_block(command, home)}},
                         indent=2))
        _refused(errors, choices, command, args)
        return 0
    _print_entries(choices, changes, write, command, args)
    _refused(errors, choices, command, args)
    return 0


def _print_entries(choices: list[Choice], changes: dict[str, _Change], write: bool, command: str,
                   args: list[str]) -> None:
    skipped = []
    for choice in choices:
        host = choice.host
        if host is None:
            skipped.append(f"#   {choice.name}: {choice.reason}")
            continue
        if write and not choice.chosen:
            skipped.append(f"#   {host.label} ({host.path()}): {choice.reason}")
            continue
        if write and choice.name not in changes:  # its file could not be read: said on stderr
            continue
        if write:
            head = f"{'merged into' if changes[choice.name].new is not None else 'already in'} {host.path()}"
        else:
            head = f"for {host.path()}" + ("" if choice.chosen else f" (`--write` skips it: {choice.reason})")
        print(f"# {host.label} — {head}:")
        print(_snippet(host, command, args))
    if skipped:
        print("# not written:" if write else "# not an MCP host:")
        print("\n".join(skipped))
    if not write:
        chosen = [choice.name for choice in choices if choice.chosen]
        print(f"\n# `moraine setup --write` merges the entry into the files of: {', '.join(chosen) or 'none'} "
              "(a .bak copy of each file is kept); `--host NAME` (repeatable) chooses others.")


def _remove(choices: list[Choice], as_json: bool) -> int:
    changes, errors = _plan_all(plan_remove, choices)
    for change in changes.values():
        change.apply()
    removed = {name: change.new is not None for name, change in changes.items()}
    if as_json:
        print(json.dumps({"removed": removed, "hosts": {name: {"path": str(change.path)}
                                                        for name, change in changes.items()}}, indent=2))
        _refused(errors, choices, "", None)
        return 0
    for name, change in changes.items():
        print(f"{'removed the moraine entry from' if removed[name] else 'no moraine entry in'} {change.path}")
    for choice in choices:
        if choice.host is None:
            print(f"# {choice.name}: {choice.reason}")
    _refused(errors, choices, "", None)
    return 0
