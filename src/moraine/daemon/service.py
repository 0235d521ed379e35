"""`moraine daemon`: one warm index that follows the logs live, served over a Unix socket.

Threads: the anyio main loop accepts connections (one MCP session each) and runs tool calls
on worker threads; one ingest thread backfills, then sleeps until the watcher (watchdog)
marks files dirty, re-reads them after a short debounce, runs a reconcile scan of every log
now and then (a missed file event is repaired within `ingest.reconcile_interval_s`), and
publishes snapshots (`daemon.snapshot_interval_s`, or `store.snapshot_events`). A path that
changes while it is being read stays dirty and is read again, so no append is missed.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.abc

from moraine import __version__
from moraine.config import Config
from moraine.daemon.bridge import peer_credentials
from moraine.daemon.claim import claim_state, clear_stale_socket, release
from moraine.daemon.engines import start_history_workers, start_kernel
from moraine.ingest.checkpoint import pending_bytes
from moraine.ingest.state import Freshness, ingest_state
from moraine.store.engine import Store
from moraine.store.run_files import write_status
from moraine.wire import SERVER_ERROR, error_reply

# A daemon on a state never published (a first start) has nothing to answer from: its calls wait for
# the first backfill until it has run this long, then answer with a warning. A restarted daemon
# answers from its published state at once, with the warning, while its backfill reads what the
# logs gained meanwhile (a first answer waits for no stat of every log).
BACKFILL_WAIT_S = 3.0


def log(message: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} moraine daemon: {message}", file=sys.stderr, flush=True)


T = TypeVar("T")

# The ingest loop's passes are slices that read for LOOP_SLICE_S with the writer lock held; between
# two, the calls waiting for the lock go first. A call's catch-up is a slice of CALL_SLICE_S; it
# waits CALL_WRITER_WAIT_S for another process's lock, and up to CALL_WRITER_CAP_S for the loop's:
# an agent's own new line is found however much the loop has still to read, and no log holds a call up.
LOOP_SLICE_S = 0.05
CALL_SLICE_S = 0.05
CALL_WRITER_WAIT_S = 0.5
CALL_WRITER_CAP_S = 1.0
CALL_BUSY_BACKOFF_S = 1.0  # after a call found the writer busy, the next calls answer at once this long


class Daemon:
    def __init__(self, config: Config, *, for_host: bool = False) -> None:
        self.config = config
        # A daemon an agent host's `moraine mcp` started goes away when no host has used it for
        # idle_exit_s; one the user started runs until stopped, unless they configured it.
        explicit = "idle_exit_s" in config.daemon.model_fields_set
        self.idle_exit_s = config.daemon.idle_exit_s if for_host or explicit else 0.0
        self.home = config.home
        self.socket_path = config.socket_path
        self.started = time.time()
        self.connections = 0
        self.calls = 0
        self.dirty: set[str] = set()
        self.reading: set[str] = set()
        self.dirty_lock = threading.Lock()
        self.call_catch_up = threading.Lock()
        self.callers = threading.Condition()  # the loop waits between its slices while a call catches up
        self.catching_up = 0
        self.loop_thread: int | None = None  # the ingest loop's thread ident, once it runs
        self.observer: Any = None  # the watcher, once running
        self.watched: set[Path] = set()
        self.last_call_catch_up = float("-inf")
        self.writer_busy_until = 0.0  # calls skip their catch-up until then (a long pass holds the writer)
        self.wake = threading.Event()
        self.stopping = threading.Event()
        self.store: Store | None = None
        self.runner: Any = None
        self.last_pass_ms = 0
        self.backfilled = False
        self.backfill_progress = (0, 0)  # bytes of logs read so far by the first backfill, of its total
        self.backfill_started = time.monotonic()  # calls wait for the first backfill until BACKFILL_WAIT_S after
        self.backfill_done = threading.Event()
        self._lock_fd: int | None = None

    # -- start and stop --------------------------------------------------------------------

    def run(self) -> int:
        for signum in (signal.SIGTERM, signal.SIGINT):  # until the event loop takes them over
            signal.signal(signum, lambda *_: self.stopping.set())
        # `kill -USR1 <pid>` writes every thread's stack to daemon.log (its stderr): what a hung
        # daemon was doing, without stopping it.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        self._lock_fd = claim_state(self.home)
        try:
            roots = self._roots()
            clear_stale_socket(self.socket_path, log)
            log(f"starting (pid {os.getpid()}, state {self.home}, socket {self.socket_path})")
            # The state opens (snapshot + WAL) in the background, before the MCP SDK is imported
            # (the two overlap: a restarted daemon answers its first call sooner); the socket
            # answers the handshake at once, and a state that cannot open makes every call an
            # in-band error naming the fix, instead of a daemon that dies at each start.
            from moraine.mcp_server.runner import ToolRunner

            self.runner = ToolRunner(lambda: Store(self.config), before_call=self._before_call, serial=False,
                                     allow_write=self.config.mcp.allow_write_tools)
            self._write_status()
            observer = self.observer = self._watch(roots)
            self.watched = set(roots)
            ingest = threading.Thread(target=self._ingest_loop, name="moraine-ingest", daemon=True)
            ingest.start()
            try:
                if not self.stopping.is_set():
                    anyio.run(self._serve)
            finally:
                self.stopping.set()
                self.wake.set()
                if observer is not None:
                    observer.stop()
                ingest.join(timeout=60)
                self._final_snapshot()
        finally:
            release(self.home, self.socket_path, self._lock_fd)
            self._lock_fd = None
        log("stopped")
        return 0

    def _roots(self) -> list[Path]:
        """The roots to watch now; a configured one missing is said (an optional default root
        of a harness not installed here is not), and every one is watched once it appears."""
        roots = [Path(s.root).expanduser() for s in self.config.sources if s.enabled]
        present = [r for r in roots if r.is_dir()]
        for source in self.config.sources:
            root = Path(source.root).expanduser()
            if source.enabled and not source.optional and root not in present:
                log(f"source root not found (watched once it appears): {root}")
        if not present:  # serve anyway: answers say which roots are watched, a root may come later
            log("no configured source root exists yet: " + ", ".join(
                str(Path(s.root).expanduser()) for s in self.config.sources if s.enabled and not s.optional)
                + "; set CODEX_HOME / CLAUDE_CONFIG_DIR or the sources in config.toml")
        return present

    def _final_snapshot(self) -> None:
        store = self.store
        if store is not None and store.frames_since_snapshot:
            with store.writer():
                store.publish()
            log("final snapshot published")

    # -- serving ---------------------------------------------------------------------------

    async def _serve(self) -> None:
        from moraine.mcp_server.app import build_server

        server = build_server(self.runner)
        listener = await anyio.create_unix_listener(self.socket_path)
        os.chmod(self.socket_path, 0o600)
        self._write_status()
        log("listening")
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._on_signals, tg.cancel_scope)
            tg.start_soon(self._status_ticker)
            async with listener:
                await listener.serve(self._handler(server), task_group=tg)

    def _handler(self, server: Any) -> Callable[[anyio.abc.SocketStream], Any]:
        from moraine.daemon.transport import socket_streams

        async def handle(stream: anyio.abc.SocketStream) -> None:
            try:  # the socket is 0600 in a private directory; this is the belt to those braces
                pid, uid = peer_credentials(stream.extra(anyio.abc.SocketAttribute.raw_socket))
            except (OSError, anyio.TypedAttributeLookupError):
                pid, uid = -1, os.geteuid()
            if uid not in (os.geteuid(), 0):
                log(f"refused a connection from uid {uid} (pid {pid}): not this user")
                await stream.aclose()
                return
            if self.connections >= self.config.daemon.max_connections:
                await self._refuse(stream, pid)
                return
            self.connections += 1
            self._write_status()
            try:
                async with stream, socket_streams(stream) as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            except Exception as exc:  # one client's failure never stops the daemon
                if not isinstance(exc, (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream)):
                    log(f"connection ended with {type(exc).__name__}: {exc}")
            finally:
                self.connections -= 1
                self._write_status()

        return handle

    async def _refuse(self, stream: anyio.abc.SocketStream, pid: int) -> None:
        """One connection past the cap: told why in JSON-RPC (a client reads it as the answer to
        whatever it sent first), then closed."""
        limit = self.config.daemon.max_connections
        log(f"refused a connection (pid {pid}): {limit} connections are open ([daemon] max_connections)")
        reply = error_reply(None, SERVER_ERROR, f"the Moraine daemon already serves {limit} connections "
                            "([daemon] max_connections); close idle clients or raise the limit")
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stream.send(reply)
        await stream.aclose()

    async def _on_signals(self, scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            if self.stopping.is_set():  # a signal arrived while starting up
                scope.cancel()
                return
            async for signum in signals:
                log(f"received {signal.Signals(signum).name}: stopping")
                self.stopping.set()
                scope.cancel()
                return

    async def _status_ticker(self) -> None:
        idle_since = time.monotonic()
        while True:
            await anyio.sleep(1 if self.idle_exit_s else 5)
            self._write_status()
            if self.connections:
                idle_since = time.monotonic()
            elif self.idle_exit_s and time.monotonic() - idle_since > self.idle_exit_s:
                log("idle: exiting")
                self.stopping.set()
                os.kill(os.getpid(), signal.SIGTERM)
                return

    def _write_status(self) -> None:
        status = {"pid": os.getpid(), "version": __version__, "started": self.started, "socket": str(self.socket_path),
                  "idle_exit_s": self.idle_exit_s, "connections": self.connections, "lag_bytes": self._lag_bytes(),
                  "backfilled": self.backfilled, "last_pass_ms": self.last_pass_ms}
        write_status(self.home, status)

    def _lag_bytes(self, unread: frozenset[str] | set[str] = frozenset()) -> int:
        """Bytes the logs hold beyond what is indexed, for the files known to have changed and
        those a call's catch-up left `unread`."""
        store = self.store
        if store is None:
            return 0
        with self.dirty_lock:
            paths = self.dirty | self.reading | unread
        done, total = self.backfill_progress
        backlog = total - done if not self.backfilled else 0  # the first pass: logs never read count too
        return max(backlog, pending_bytes(store.checkpoints, paths))

    def _catch_up_for_call(self, store: Store, arrived: float) -> set[str]:
        """Concurrent calls share catch-up passes: a pass that began after this call arrived
        has read every line written before it, so the call need not run its own. A call's
        pass is a slice (`_call_slice`); what it leaves is the ingest loop's, and the call's
        reply reports the lag. Returns the logs it did not read because a long pass or a
        publish held the writer: the watcher may not have named them yet, and an answer
        missing a line written before the call must say it is behind."""
        from moraine.errors import WriterBusy
        from moraine.ingest.pipeline import moved_newest, unread_new_logs

        with self.call_catch_up:
            if self.last_call_catch_up >= arrived:
                return set()  # shared
            if time.monotonic() < self.writer_busy_until or store.publishing:
                return self._recent_logs(store)  # one call a second waits for the writer, not each
            self.last_call_catch_up = time.monotonic()
            changed = self._changed_for_call()
            # the watcher cannot say: every live log; or what it saw change and, reported or
            # not yet, what was written last and what is new in the live folders
            named = None if changed is None else changed | moved_newest(store) | unread_new_logs(store)
            if named is not None and not named:
                return set()
            try:
                left = self._call_slice(store, named)
            except WriterBusy:  # another process's pass, or a publish: it has these lines or will
                self.last_call_catch_up = float("-inf")
                self.writer_busy_until = time.monotonic() + CALL_BUSY_BACKOFF_S
                return self._recent_logs(store) if named is None else named
            with self.dirty_lock:
                self.dirty -= changed or set()
            self.mark_dirty(left)  # the rest is the ingest loop's
            return set()

    @staticmethod
    def _recent_logs(store: Store) -> set[str]:
        """Besides what the watcher named, what a call's catch-up looks at: the logs written
        last and the new ones in the live folders."""
        from moraine.ingest.pipeline import unread_new_logs
        return set(ingest_state(store).newest) | unread_new_logs(store)

    def _call_slice(self, store: Store, named: set[str] | None) -> list[str]:
        """A call's catch-up: a slice of CALL_SLICE_S over `named` (None: every live log), the
        logs it left. It waits CALL_WRITER_WAIT_S for the writer lock, and on while the ingest
        loop holds it (its slices are as short, and it lets calls in after each; a publish, periodic or
        inside a pass, is not waited on at all: `Store.publishing`), up to CALL_WRITER_CAP_S; then WriterBusy."""
        from moraine.errors import WriterBusy
        from moraine.ingest.normalize import SLICE_POOL_BYTES
        from moraine.ingest.pipeline import ingest_once

        started = time.monotonic()
        with self._catching_up():  # a log with megabytes of new lines is left to the loop (worker processes)
            while True:
                try:
                    return ingest_once(store, only=named, live_only=named is None, slice_s=CALL_SLICE_S,
                                       wait=CALL_WRITER_WAIT_S, defer_bytes=SLICE_POOL_BYTES).left
                except WriterBusy:
                    if store.writer_thread != self.loop_thread or time.monotonic() - started > CALL_WRITER_CAP_S:
                        raise

    @contextlib.contextmanager
    def _catching_up(self) -> Iterator[None]:
        """Marks a call's catch-up under way: the ingest loop starts no slice meanwhile."""
        with self.callers:
            self.catching_up += 1
        try:
            yield
        finally:
            with self.callers:
                self.catching_up -= 1
                self.callers.notify_all()

    def _let_calls_in(self) -> None:
        """Between two slices of the ingest loop, the calls waiting for the writer lock go first
        (flock is not fair: the loop would take it back at once). A call counts itself before
        it asks for the lock, so none waiting means the loop goes straight on."""
        with self.callers:
            self.callers.wait_for(lambda: self.catching_up == 0, timeout=CALL_WRITER_WAIT_S)

    def _changed_for_call(self) -> set[str] | None:
        """The logs the watcher saw change since the last pass: all a call needs to read, so a
        call costs what changed, not a stat of every recently modified log. None when the
        watcher cannot tell (not running, a folder changed, a source root appeared that it
        does not watch yet)."""
        if self.observer is None:
            return None
        with self.dirty_lock:
            if "*" in self.dirty:
                return None
            changed = self.dirty | self.reading  # being read by a pass: the call waits for it
        if self._watch_appeared():
            return None
        return changed

    def _watch_appeared(self) -> bool:
        """Watch every source root that appeared since the daemon started (a harness installed
        later, a folder created after the config named it); True when one did: its logs are
        read by a full pass."""
        from moraine.ingest.watcher import watch_more

        appeared = False
        for source in self.config.sources:
            root = Path(source.root).expanduser()
            if source.enabled and root not in self.watched and root.is_dir():
                with self.dirty_lock:
                    if root in self.watched:
                        continue
                    self.watched.add(root)
                if self.observer is not None:
                    watch_more(self.observer, root, self.mark_dirty)
                log(f"source root appeared, watched from now on: {root}")
                appeared = True
        return appeared

    def _before_call(self, store: Store) -> Freshness:
        """Read-your-writes for agents: new lines of live logs are read before answering (the
        watcher would see them a debounce later); then say what is still behind, for this call
        (calls run side by side: each answer carries its own figure)."""
        self.calls += 1
        if not self.backfilled and store.manifest is None:  # see BACKFILL_WAIT_S
            self.backfill_done.wait(max(0.0, self.backfill_started + BACKFILL_WAIT_S - time.monotonic()))
        state = ingest_state(store)
        state.backfilling = not self.backfilled
        unread: set[str] = set()
        if self.config.daemon.catch_up_on_call and self.backfilled:
            unread = self._catch_up_for_call(store, time.monotonic())
        state.lag_bytes = self._lag_bytes(unread)
        return Freshness(state.lag_bytes, state.backfilling)

    # -- watching and ingest ---------------------------------------------------------------

    def _watch(self, roots: list[Path]) -> Any:
        from moraine.ingest.watcher import watch

        return watch(roots, self.mark_dirty)

    def mark_dirty(self, paths: list[str], structural: bool = False) -> None:
        if not paths and not structural:
            return
        with self.dirty_lock:
            self.dirty.update(paths)
            if structural:
                self.dirty.add("*")  # a directory appeared, moved or went: look at everything
        self.wake.set()

    def _backfill(self, store: Store) -> None:
        """The first pass over every log. On a state never published, calls wait for it only while
        it is young (a short one then answers them whole); after that, and on a restarted daemon
        from the start, they are answered at once with what is indexed and told it is still
        running. Whatever happens, it counts as done."""
        from moraine.ingest.pipeline import ingest_once

        self.backfill_started = time.monotonic()
        try:
            summary = ingest_once(store, self._note_backfill)
            self.last_pass_ms = int(time.time() * 1000)
            log(f"backfill: {summary.events} new events from {summary.files_read} files in {summary.seconds:.1f}s")
        except Exception as exc:  # the reconcile scan retries; calls report the lag meanwhile
            log(f"backfill failed: {type(exc).__name__}: {exc}")
        finally:
            self.backfilled = True
            self.backfill_done.set()

    def _note_backfill(self, done: int, total: int) -> None:
        self.backfill_progress = (done, total)

    def _take_dirty(self) -> set[str]:
        """The logs marked since the last pass; they count as being read until the pass ends."""
        with self.dirty_lock:
            dirty, self.dirty = self.dirty, set()
            self.reading = dirty
        return dirty

    def _ingest_loop(self) -> None:
        self.loop_thread = threading.get_ident()

        try:
            store = self.runner.store
        except Exception as exc:
            log(f"the state cannot be opened: {exc}")
            return
        self.store = store
        cfg = self.config
        threading.Thread(target=start_kernel, args=(self.config, store, self.backfill_done.wait, log),
                         name="moraine-kernel", daemon=True).start()
        self._backfill(store)
        threading.Thread(target=start_history_workers, args=(self.config, store, log), name="moraine-history-workers",
                         daemon=True).start()
        next_reconcile = time.monotonic() + cfg.ingest.reconcile_interval_s
        next_snapshot = time.monotonic() + cfg.daemon.snapshot_interval_s
        left: list[str] = []
        while not self.stopping.is_set():
            if left:  # the last slice left logs unread: the next one reads on, calls first
                self._let_calls_in()
            else:
                timeout = max(0.0, min(next_reconcile, next_snapshot) - time.monotonic())
                if self.wake.wait(timeout):
                    time.sleep(cfg.ingest.debounce_ms / 1000)  # let a burst of writes settle
                    self.wake.clear()
            if self.stopping.is_set():
                break
            dirty = self._take_dirty()
            full = time.monotonic() >= next_reconcile or "*" in dirty
            left = self._slice(store, dirty, full)
            if full:
                next_reconcile = time.monotonic() + cfg.ingest.reconcile_interval_s
            if time.monotonic() >= next_snapshot:
                next_snapshot = time.monotonic() + cfg.daemon.snapshot_interval_s
                self._guarded(_publish_if_changed, store)

    def _slice(self, store: Store, dirty: set[str], full: bool) -> list[str]:
        """One slice of the ingest loop over the logs that changed (all, when `full`); the logs it
        left unread, marked for the next."""
        from moraine.ingest.pipeline import ingest_once

        if full:
            self._watch_appeared()
        left: list[str] = []
        if dirty or full:
            left = self._guarded(lambda: ingest_once(store, only=None if full else dirty, slice_s=LOOP_SLICE_S).left,
                                 retry=dirty) or []
            self.last_pass_ms = int(time.time() * 1000)
        with self.dirty_lock:
            self.reading = set()
            self.dirty.update(left)
        return left

    def _guarded(self, work: Callable[..., T], *args: Any, retry: set[str] | None = None) -> T | None:
        """The loop keeps serving whatever fails: logged, `retry` marked dirty again, a second's pause."""
        try:
            return work(*args)
        except Exception as exc:
            log(f"ingest pass failed: {type(exc).__name__}: {exc}")
            with self.dirty_lock:
                self.dirty |= retry or set()
            time.sleep(1)
            return None


def _publish_if_changed(store: Store) -> None:
    """The periodic snapshot: published only when frames were written since the last one."""
    if store.frames_since_snapshot:
        with store.writer():
            store.publish()
