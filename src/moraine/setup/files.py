"""Reading, merging and writing one host's configuration file: every chosen file is read and
checked before any is written; a change keeps a one-time `.bak`, the original's permission bits,
and a symlinked file's link."""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moraine.durable import fsync_path
from moraine.errors import ConfigError
from moraine.setup.hosts import SERVER, Choice, Host, toml_block

NEW_FILE_MODE = 0o600

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
class Change:
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


def plan_merge(host: Host, command: str, args: list[str]) -> Change:
    """Read the host's file and work out the merged bytes; raises ConfigError on a file it cannot read."""
    path = host.path()
    original = _stat(path)
    raw = path.read_bytes() if original is not None else b""
    if host.toml:
        text = _toml_text(path, raw)
        block = toml_block(command, args)
        if _SECTION.search(text):
            text = _SECTION.sub(lambda _: block + "\n", text, count=1).rstrip("\n") + "\n"
        else:
            text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + block
        new = text.encode()
    else:
        data = _json_object(path, raw, host.key)
        data.setdefault(host.key, {})[SERVER] = host.entry(command, args)
        new = _dump(data)
    return Change(path, original, raw, None if original is not None and new == raw else new)


def plan_remove(host: Host) -> Change:
    """Read the host's file and work out its bytes without Moraine's entry (and nothing else)."""
    path = host.path()
    original = _stat(path)
    if original is None:
        return Change(path, None, b"", None)
    raw = path.read_bytes()
    if host.toml:
        text = _toml_text(path, raw)
        if not _SECTION.search(text):
            return Change(path, original, raw, None)
        text = _SECTION.sub("", text, count=1).rstrip("\n")
        return Change(path, original, raw, (text + "\n" if text else "").encode())
    data = _json_object(path, raw, host.key)
    if SERVER not in data.get(host.key, {}):
        return Change(path, original, raw, None)
    del data[host.key][SERVER]
    return Change(path, original, raw, _dump(data))


def plan_all(plan: Callable[[Host], Change], choices: list[Choice]) -> tuple[dict[str, Change], dict[str, str]]:
    """Every chosen file read and checked before any is written: the changes to make, and the
    hosts whose file cannot be read (a JSON file with comments, say), which are left untouched
    while every other host is still written."""
    changes: dict[str, Change] = {}
    errors: dict[str, str] = {}
    for choice in choices:
        if choice.chosen and choice.host is not None:
            try:
                changes[choice.name] = plan(choice.host)
            except ConfigError as exc:
                errors[choice.name] = str(exc)
    return changes, errors
