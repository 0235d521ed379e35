"""`moraine mcp`: a thin stdio ⇄ Unix-socket bridge to the daemon.

Agent hosts launch `moraine mcp` and speak MCP on its stdio; the bridge pumps those lines to
the daemon's socket and back, so every host shares one warm index. It imports nothing heavy
(no MCP SDK), starts the daemon when none runs, and never leaves the host hanging: if the
daemon dies mid-session, calls in flight get a JSON-RPC error, the daemon is started again,
the session's `initialize` is replayed on the new connection, and the host carries on.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import re
import signal
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

from moraine.config import Config
from moraine.errors import DaemonUnavailable, UntrustedSocketError
from moraine.wire import (
    INTERNAL_ERROR,
    MAX_LINE,
    SERVER_ERROR,
    Incoming,
    LineFramer,
    Oversized,
    check_line,
    error_reply,
    loads_bounded,
    oversized_reply,
)

_RESPONSE_ID = re.compile(rb'^\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*")')
REPLAY_ID = "moraine-bridge-replayed-initialize"
REPLAY_TRIES = 5  # a daemon that closes every new connection before the handshake: give up


# --------------------------------------------------------------------------------------------
# Trust: the socket must be this user's daemon, in a directory nobody else can write
# --------------------------------------------------------------------------------------------


def check_private_dir(path: Path, what: str) -> None:
    """Refuse (UntrustedSocketError) a directory another user could control: it must be owned by this
    user and writable by nobody else; each directory above it must be owned by this user or root and
    not writable by group or others unless sticky (like /tmp, where nobody may rename another's
    entries). Symlinks are followed to the real directory, which is what gets checked."""
    try:
        _check_private_dir(path, what)
    except OSError as exc:  # cannot be checked: not trusted either
        raise UntrustedSocketError(f"refusing {what} {path}: cannot check its owner and mode ({exc.strerror})") \
            from exc


def _check_private_dir(path: Path, what: str) -> None:
    uid = os.geteuid()
    real = Path(os.path.realpath(path))
    st = os.stat(real)
    if st.st_uid != uid:
        raise UntrustedSocketError(f"refusing {what} {path}: it is owned by uid {st.st_uid}, not by this user "
                                   f"(uid {uid})")
    if st.st_mode & 0o022:
        raise UntrustedSocketError(f"refusing {what} {path}: it is writable by {_writers(st.st_mode)} "
                                   f"(mode {stat.S_IMODE(st.st_mode):04o}); `chmod go-w {path}` if that is "
                                   "intended to be private")
    for parent in real.parents:
        pst = os.stat(parent)
        if pst.st_uid not in (uid, 0):
            raise UntrustedSocketError(f"refusing {what} {path}: the directory above it, {parent}, is owned by "
                                       f"uid {pst.st_uid} (neither this user nor root)")
        if pst.st_mode & 0o022 and not pst.st_mode & stat.S_ISVTX:
            raise UntrustedSocketError(f"refusing {what} {path}: the directory above it, {parent}, is writable by "
                                       f"{_writers(pst.st_mode)} (mode {stat.S_IMODE(pst.st_mode):04o}), who could "
                                       "replace it")


def make_private_dirs(path: Path) -> None:
    """`mkdir -p` with every directory it creates 0700 (whatever the umask), so a fresh state or
    socket directory passes `check_private_dir`."""
    missing: list[Path] = []
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o700)
            os.chmod(directory, 0o700)


def _writers(mode: int) -> str:
    return " and ".join(w for w, bit in (("group", 0o020), ("others", 0o002)) if mode & bit)


def peer_credentials(conn: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process serving the other end of a connected Unix socket (SO_PEERCRED)."""
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", raw)
    return pid, uid


def _check_peer(conn: socket.socket, path: str) -> None:
    pid, uid = peer_credentials(conn)
    if uid != os.geteuid():
        raise UntrustedSocketError(f"refusing the socket {path}: it is served by uid {uid} (pid {pid}), not by "
                                   f"this user (uid {os.geteuid()}); another user may be posing as the Moraine "
                                   "daemon — nothing was sent to it")


# --------------------------------------------------------------------------------------------
# Starting and reaching the daemon
# --------------------------------------------------------------------------------------------


def start_daemon(config: Config, *, for_host: bool = True) -> subprocess.Popen[bytes]:
    """Start `moraine daemon --foreground` detached, logging to run/daemon.log. One started for
    an agent host (`for_host`) exits after `daemon.idle_exit_s` without connections; one the
    user started runs until stopped, unless idle_exit_s is configured."""
    run = config.home / "run"
    make_private_dirs(run)
    log = os.open(run / "daemon.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        argv = [sys.executable, "-m", "moraine.cli", "--home", str(config.home), "daemon", "--foreground"]
        return subprocess.Popen([*argv, "--for-host"] if for_host else argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=log, start_new_session=True)
    finally:
        os.close(log)


def connect(config: Config, *, start: bool = True, for_host: bool = True) -> socket.socket:
    """A connection to this user's daemon, starting it (and waiting for it) when none answers.

    Raises UntrustedSocketError, before anything is sent, when the socket's directory could be
    another user's or the process serving the socket is not this user's (SO_PEERCRED)."""
    path = str(config.socket_path)
    child: subprocess.Popen[bytes] | None = None
    deadline = time.monotonic() + config.daemon.start_timeout_s
    while True:
        conn = _try_connect(path, config.socket_path.parent)
        if conn is not None:
            return conn
        if not start:
            raise DaemonUnavailable(f"no Moraine daemon answers on {path}")
        child = _starting(config, child, for_host)
        if time.monotonic() > deadline:
            raise DaemonUnavailable(f"the Moraine daemon did not answer on {path} within "
                                    f"{config.daemon.start_timeout_s:.0f}s; see {config.home / 'run' / 'daemon.log'}")
        time.sleep(0.05)


def _try_connect(path: str, directory: Path) -> socket.socket | None:
    """A connection when something listens on the socket (None when nothing does), trusted only
    once both its directory and the process at the other end are found to be this user's."""
    if directory.exists():
        check_private_dir(directory, "the daemon's socket directory")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return None
    try:
        check_private_dir(directory, "the daemon's socket directory")
        _check_peer(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def _starting(config: Config, child: subprocess.Popen[bytes] | None, for_host: bool) -> subprocess.Popen[bytes]:
    """The daemon this call starts: started on the first miss, then watched, so one that exits
    with an error is reported at once instead of waited for until the deadline."""
    if child is None:
        if config.home.exists():  # what the daemon would refuse (exit 7), refused before starting it
            check_private_dir(config.home, "the Moraine state directory")
        try:
            return start_daemon(config, for_host=for_host)
        except OSError as exc:
            raise DaemonUnavailable(f"the Moraine state at {config.home} is not writable ({exc.strerror})",
                                    4) from exc
    if child.poll() not in (None, 0, 6):  # 6: another daemon won the race; wait for it
        raise DaemonUnavailable(f"the Moraine daemon could not start (exit {child.returncode}): "
                                f"{_log_tail(config.home / 'run' / 'daemon.log')}", child.returncode or 1)
    return child


def _log_tail(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    return lines[-1] if lines else "no log"


# --------------------------------------------------------------------------------------------
# The bridge
# --------------------------------------------------------------------------------------------


class Bridge:
    """Host lines are framed and checked here (`moraine.wire`): what is not a deliverable JSON-RPC
    message is answered at once and never forwarded; the rest goes to the daemon unchanged."""

    def __init__(self, config: Config | None, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._config = config  # None: a bridge that only refuses (`refuse`)
        self.stdin, self.stdout = stdin, stdout
        self.lock = threading.Lock()  # guards the connection, `pending` and the replay state
        self.out_lock = threading.Lock()
        self.conn: socket.socket | None = None
        self.pending: dict[Any, str] = {}  # request id → method, answered by the daemon not yet
        self.initialize: bytes | None = None
        self.initialized: bytes | None = None
        self.swallow: set[Any] = set()
        self.closed = threading.Event()
        self.failure: str | None = None
        self.failure_code = INTERNAL_ERROR  # the JSON-RPC code of the answers while failed
        self.exit_code = 0

    def write(self, data: bytes) -> None:
        with self.out_lock:
            self.stdout.write(data)
            self.stdout.flush()

    def _fail(self, exc: Exception) -> None:
        """No daemon to talk to from now on: say why once on stderr; every request gets the reason."""
        self.failure = str(exc)
        self.exit_code = getattr(exc, "exit_code", 1) or 1
        if self.exit_code == UntrustedSocketError.exit_code:  # here, or the daemon's own refusal
            self.failure_code = SERVER_ERROR
        print(f"moraine: {self.failure}", file=sys.stderr, flush=True)

    @property
    def config(self) -> Config:
        assert self._config is not None, "a refusing bridge has no configuration"
        return self._config

    def run(self) -> int:
        try:
            self.conn = connect(self.config)
        except (DaemonUnavailable, UntrustedSocketError) as exc:
            self._fail(exc)
        reader = threading.Thread(target=self._from_daemon, name="moraine-bridge-in", daemon=True)
        if self.conn is not None:
            reader.start()
        self._from_host()
        self.closed.set()
        with self.lock:
            if self.conn is not None:
                with contextlib.suppress(OSError):
                    self.conn.shutdown(socket.SHUT_WR)  # the daemon finishes what it was asked, then closes
        if reader.is_alive():
            reader.join(timeout=30)
        return self.exit_code

    def _from_host(self) -> None:
        framer = LineFramer(MAX_LINE)
        read = getattr(self.stdin, "read1", self.stdin.read)
        while True:
            chunk = read(1 << 16)
            for item in framer.feed(chunk) if chunk else framer.finish():
                self._host_line(item)
            if not chunk:
                return

    def _host_line(self, line: bytes | Oversized) -> None:
        if isinstance(line, Oversized):
            self.write(oversized_reply(line))
            return
        if not line.strip():
            return
        incoming = check_line(line)
        if incoming.reply is not None:  # not a deliverable message: answered here, never forwarded
            self.write(incoming.reply)
            return
        if incoming.message is None:  # a notification that cannot be delivered: never answered
            return
        if self.failure is not None:  # no daemon: every request gets the reason, nothing hangs
            self._unavailable(incoming)
            return
        with self.lock:
            if self.failure is not None:  # failed while this line waited for the lock
                self._unavailable(incoming)
                return
            self._track(line, incoming)
            assert self.conn is not None
            try:
                self.conn.sendall(line + b"\n")
            except OSError:  # the daemon is gone: wake the reader, which answers what is pending
                with contextlib.suppress(OSError):
                    self.conn.shutdown(socket.SHUT_RDWR)

    def _unavailable(self, incoming: Incoming) -> None:
        if incoming.is_request:
            self.write(error_reply(incoming.request_id, self.failure_code, f"Moraine is unavailable: {self.failure}"))

    def _track(self, line: bytes, incoming: Incoming) -> None:
        """What a daemon restart needs (under `lock`): the handshake to replay, and the requests
        still waiting for an answer, which then get an error instead of hanging."""
        request_id, method = incoming.request_id, incoming.method
        if method == "initialize":
            self.initialize = line
        elif method == "notifications/initialized":
            self.initialized = line
        if incoming.is_request:
            self.pending[_key(request_id)] = method or ""
        elif method == "notifications/cancelled" and incoming.message is not None:  # no answer expected now
            params = incoming.message.get("params") or {}
            self.pending.pop(_key(params.get("requestId")), None)

    def _from_daemon(self) -> None:
        """The daemon's answers to the host, reconnecting when the daemon goes away. Whatever
        breaks here, the host is never left waiting: what is pending, and every later request,
        is answered with the reason."""
        try:
            self._pump()
        except Exception as exc:
            with self.lock:
                self._fail(DaemonUnavailable(f"the connection to the Moraine daemon broke ({type(exc).__name__}: "
                                             f"{exc}); restart the MCP server"))
                self._answer_lost("the connection to the Moraine daemon broke while answering")

    def _pump(self) -> None:
        framer = LineFramer(None)  # the daemon is trusted (checked above): its answers are not bounded
        while True:
            conn = self.conn
            assert conn is not None
            try:
                chunk = conn.recv(1 << 20)
            except OSError:
                chunk = b""
            if chunk:
                for line in framer.feed(chunk):
                    assert isinstance(line, bytes)
                    self._deliver(line + b"\n")
                continue
            if self.closed.is_set():
                return
            framer = LineFramer(None)
            if not self._reconnect():
                return

    def _deliver(self, line: bytes) -> None:
        match = _RESPONSE_ID.match(line)
        request_id = json.loads(match.group(1)) if match else None
        if match is None:
            message = _parse(line)
            if isinstance(message, dict) and "method" not in message:
                request_id = message.get("id")
        with self.lock:
            if request_id is not None:
                key = _key(request_id)
                if key in self.swallow:
                    self.swallow.discard(key)
                    return
                self.pending.pop(key, None)
        self.write(line)

    def _reconnect(self) -> bool:
        """The daemon went away mid-session: fail what was in flight, start it again, replay
        the handshake on the new connection. False when it cannot come back."""
        with self.lock:
            self._answer_lost("the Moraine daemon stopped while answering", " it is being restarted — retry the call")
            if self.conn is not None:  # the connection the daemon closed: released now, not left to the collector
                with contextlib.suppress(OSError):
                    self.conn.close()
            for attempt in range(REPLAY_TRIES):
                try:
                    conn = connect(self.config)
                except (DaemonUnavailable, UntrustedSocketError) as exc:
                    self._fail(exc)
                    self.conn = None
                    return False
                try:
                    self._replay(conn)
                except OSError:  # gone again before the handshake went through: start over
                    conn.close()
                    time.sleep(0.1 * (attempt + 1))
                    continue
                self.conn = conn
                return True
            self._fail(DaemonUnavailable(f"the Moraine daemon closed the connection {REPLAY_TRIES} times in a row; "
                                         f"see {self.config.home / 'run' / 'daemon.log'}"))
            self.conn = None
            return False

    def _answer_lost(self, what: str, then: str = "") -> None:
        """Every request still waiting gets an error (under `lock`): it will get no answer."""
        lost, self.pending = self.pending, {}
        for key, method in lost.items():
            self.write(error_reply(json.loads(key), INTERNAL_ERROR, f"{what} {method}" + (f";{then}" if then else "")))

    def _replay(self, conn: socket.socket) -> None:
        """The session's handshake again on a new connection (its answer is not passed on)."""
        if self.initialize is None:
            return
        replay = _parse(self.initialize)
        replay["id"] = REPLAY_ID
        self.swallow.add(_key(REPLAY_ID))
        conn.sendall(json.dumps(replay).encode() + b"\n")
        if self.initialized is not None:
            conn.sendall(self.initialized + b"\n")


def _parse(line: bytes) -> Any:
    try:
        return loads_bounded(line.rstrip(b"\r\n"))
    except ValueError:
        return None


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def refuse(exc: Exception) -> int:
    """`moraine mcp` that cannot even reach its configuration (a state directory that is another
    user's, a broken config.toml): the host still gets a JSON-RPC answer to every request,
    naming the reason, and the exit code says which it was."""
    bridge = Bridge(None, sys.stdin.buffer, sys.stdout.buffer)
    bridge._fail(exc)
    bridge._from_host()
    return bridge.exit_code


def serve(config: Config) -> int:
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1`: every thread's stack on stderr
    return Bridge(config, sys.stdin.buffer, sys.stdout.buffer).run()
