"""The files a running daemon keeps beside the state (`run/`): its lock, which tells every
other process that a daemon holds the state, and its status, which `status` and the
`index_status` tool read. Here, below the daemon, so readers need not import it."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

DAEMON_LOCK = Path("run") / "daemon.lock"
STATUS_FILE = Path("run") / "daemon.json"


def daemon_holding(home: Path) -> bool:
    """True when a live daemon holds the state (its lock file is flock-ed)."""
    return held(home / DAEMON_LOCK)


def held(path: Path) -> bool:
    """Whether a live process holds an flock on this file or folder (a lock dies with its process,
    a killed one's included); False when it does not exist."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def read_status(home: Path) -> dict[str, Any] | None:
    """The status the daemon last wrote; None when there is none or it cannot be read."""
    try:
        status = json.loads((home / STATUS_FILE).read_text())
    except (OSError, ValueError):
        return None
    return status if isinstance(status, dict) else None


def write_status(home: Path, status: dict[str, Any]) -> None:
    """Replace the status file at once (readers never see half of it); best effort."""
    path = home / STATUS_FILE
    temp = path.with_name(path.name + ".tmp")
    try:
        temp.write_text(json.dumps(status))
        os.replace(temp, path)
    except OSError:
        pass
