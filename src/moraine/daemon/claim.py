"""What makes a daemon the one serving a state: its lock, its private folders and its socket.

One daemon per state: `claim_state` takes the daemon lock (flock on `DAEMON_LOCK`, released by
the kernel when the process dies, even by SIGKILL) and refuses a state another user could
control; `clear_stale_socket` removes the socket a dead daemon left and refuses one that a live
process, or another user, serves; `release` undoes both on the way out.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Callable
from pathlib import Path

from moraine.daemon.bridge import check_private_dir, make_private_dirs, peer_credentials
from moraine.errors import DaemonRunningError, StateError, UntrustedSocketError
from moraine.store.run_files import DAEMON_LOCK, STATUS_FILE, read_status

SOCKET_PATH_MAX = 100  # bytes: sun_path holds 108 on Linux, 104 on macOS


def socket_alive(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(2)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def socket_owner(path: Path) -> tuple[int, int] | None:
    """(pid, uid) of the process serving a Unix socket, None if none answers."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(2)
        try:
            probe.connect(str(path))
            return peer_credentials(probe)
        except OSError:
            return None


def claim_state(home: Path) -> int:
    """The daemon lock's descriptor (one daemon per state); a read-only state is refused (exit 4),
    and so is a state another user could control (owned by someone else or writable by group or
    others: exit 7, UntrustedSocketError), since the socket and the whole history live there."""
    try:
        make_private_dirs(home)
    except OSError as exc:
        raise StateError(f"cannot create the Moraine state at {home}: {exc.strerror}") from exc
    check_private_dir(home, "the Moraine state directory")
    if not os.access(home, os.W_OK | os.X_OK):
        raise StateError(f"the Moraine state at {home} is not writable by this user (read-only?)")
    run = home / "run"
    try:
        run.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise StateError(f"cannot write the Moraine state at {home}: {exc.strerror}") from exc
    check_private_dir(run, "the Moraine run directory")
    try:
        fd = os.open(home / DAEMON_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StateError(f"cannot write the Moraine state at {home}: {exc.strerror}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        other = read_status(home) or {}
        raise DaemonRunningError(f"a Moraine daemon (pid {other.get('pid', '?')}) already serves {home}; "
                                 "`moraine stop` stops it") from None
    return fd


def clear_stale_socket(path: Path, log: Callable[[str], None]) -> None:
    """The socket's folder made (private); a socket left by a dead daemon removed (and said)."""
    if len(str(path).encode()) > SOCKET_PATH_MAX:
        raise StateError(f"socket path too long for a Unix socket: {path} (set daemon.socket)")
    try:
        make_private_dirs(path.parent)
    except OSError as exc:
        raise StateError(f"cannot create the socket directory {path.parent}: {exc.strerror}") from exc
    check_private_dir(path.parent, "the daemon's socket directory")
    if path.exists() or path.is_symlink():
        if socket_alive(path):
            owner = socket_owner(path)
            if owner is not None and owner[1] != os.geteuid():
                raise UntrustedSocketError(f"refusing the socket {path}: it is served by uid {owner[1]} (pid "
                                           f"{owner[0]}), not by this user (uid {os.geteuid()})")
            raise DaemonRunningError(f"another process already serves {path}")
        path.unlink()
        log(f"removed a stale socket left by a daemon that died: {path}")


def release(home: Path, socket_path: Path, lock_fd: int | None) -> None:
    """The socket and the status file removed, the daemon lock released."""
    for path in (socket_path, home / STATUS_FILE):
        with contextlib.suppress(OSError):
            path.unlink()
    if lock_fd is not None:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)
