"""`moraine setup`: the MCP server entry for Claude Code and Codex, printed or merged in.

Claude Code reads `mcpServers` from `~/.claude.json`; Codex reads `[mcp_servers.<name>]`
from `$CODEX_HOME/config.toml`. Both launch `moraine mcp`, which bridges to the daemon.
`--write` merges the entry (keeping everything else) and is idempotent. Before the first change
to a file it keeps a `.bak` copy of the original, written once and never replaced (a rerun would
otherwise back up its own output). Every file written keeps the original's permission bits (the
`.bak` included: `~/.claude.json` is 0600 and holds tokens); a file that did not exist is 0600.
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
from pathlib import Path
from typing import Any

from moraine.durable import fsync_path
from moraine.errors import ConfigError

NEW_FILE_MODE = 0o600


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
    return f"[mcp_servers.moraine]\ncommand = {json.dumps(command)}\nargs = {json.dumps(mcp_args(home))}\n"


def claude_config_path() -> Path:
    return Path(os.environ.get("MORAINE_SETUP_CLAUDE_JSON") or Path.home() / ".claude.json")


def codex_config_path() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml"


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


def merge_claude(path: Path, command: str, home: Path | None = None) -> None:
    data: dict[str, Any] = {}
    original = _stat(path)
    if original is not None:
        raw = path.read_bytes()
        data = _claude_json(path, raw)
        _back_up(path, raw, original)
    data.setdefault("mcpServers", {})["moraine"] = claude_entry(command, home)
    _write_config(path, (json.dumps(data, indent=2) + "\n").encode(), original)


def _claude_json(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        data = json.loads(raw.decode() or "{}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix it, or add the entry by hand") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise ConfigError(f"{path}: expected a JSON object with an mcpServers object")
    return data


def remove_claude(path: Path) -> bool:
    """Take out exactly Moraine's entry (and nothing else); True when there was one."""
    original = _stat(path)
    if original is None:
        return False
    raw = path.read_bytes()
    data = _claude_json(path, raw)
    if "moraine" not in data.get("mcpServers", {}):
        return False
    _back_up(path, raw, original)
    del data["mcpServers"]["moraine"]
    _write_config(path, (json.dumps(data, indent=2) + "\n").encode(), original)
    return True


def remove_codex(path: Path) -> bool:
    original = _stat(path)
    if original is None:
        return False
    raw = path.read_bytes()
    text = raw.decode()
    if not _SECTION.search(text):
        return False
    _back_up(path, raw, original)
    text = _SECTION.sub("", text, count=1).rstrip("\n")
    _write_config(path, (text + "\n" if text else "").encode(), original)
    return True


# the table header and every line up to the next table header (`args = ["mcp"]` has a `[` too)
_SECTION = re.compile(r"(?m)^\[mcp_servers\.moraine\][^\n]*\n?(?:(?!\[)[^\n]*\n?)*")


def merge_codex(path: Path, command: str, home: Path | None = None) -> None:
    original = _stat(path)
    text = ""
    if original is not None:
        raw = path.read_bytes()
        text = raw.decode()
        _back_up(path, raw, original)
    block = codex_block(command, home)
    if _SECTION.search(text):
        text = _SECTION.sub(lambda _: block + "\n", text, count=1).rstrip("\n") + "\n"
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
    _write_config(path, text.encode(), original)


def run_setup(write: bool, as_json: bool, home: Path | None = None, remove: bool = False) -> int:
    """`home`: the state to serve when it is not the default one (`--home` / MORAINE_HOME)."""
    command = moraine_command()
    claude, codex = claude_config_path(), codex_config_path()
    if remove:
        removed = {"claude_code": remove_claude(claude), "codex": remove_codex(codex)}
        if as_json:
            print(json.dumps({"removed": removed, "claude_code": {"path": str(claude)}, "codex": {"path": str(codex)}},
                             indent=2))
        else:
            for name, path in (("claude_code", claude), ("codex", codex)):
                print(f"{'removed the moraine entry from' if removed[name] else 'no moraine entry in'} {path}")
        return 0
    if write:
        merge_claude(claude, command, home)
        merge_codex(codex, command, home)
    if as_json:
        print(json.dumps({"command": command, "args": mcp_args(home),
                          "claude_code": {"path": str(claude), "mcpServers": {"moraine": claude_entry(command, home)}},
                          "codex": {"path": str(codex), "toml": codex_block(command, home)}, "written": write},
                         indent=2))
        return 0
    verb = "merged into" if write else "for"
    print(f"# Claude Code — {verb} {claude} (or a project's .mcp.json):")
    print(json.dumps({"mcpServers": {"moraine": claude_entry(command, home)}}, indent=2))
    print(f"\n# Codex — {verb} {codex}:")
    print(codex_block(command, home))
    if not write:
        print("# `moraine setup --write` merges both (a .bak copy of each file is kept).")
    return 0
