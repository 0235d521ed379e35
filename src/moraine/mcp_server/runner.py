"""Tool calls against one Store: the part of the MCP server that does not need the MCP SDK.

Kept apart from `app` so a daemon can start opening its state (`ToolRunner` does it on a thread)
before it imports the SDK, which takes longer than the open itself: the two overlap.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from moraine import querylog
from moraine.ingest.state import Freshness, ingest_state
from moraine.mcp_server.contract import Timer, ToolResult, error_envelope, render_error
from moraine.mcp_server.tools import (
    Tool,
    cleanup_old_sessions,
    get_learned_patterns,
    index_status,
    list_sessions,
    search_session_history,
    search_sessions,
    track_input_event,
)
from moraine.mcp_server.tools import open as open_tool
from moraine.store.engine import Store

# Every tool, in the order a host lists them.
TOOLS: dict[str, Tool] = {module.TOOL.name: module.TOOL for module in (
    search_sessions, open_tool, list_sessions, index_status, search_session_history, get_learned_patterns,
    track_input_event, cleanup_old_sessions)}


class ToolRunner:
    """Runs tools against one Store, catching up on new log lines first.

    The Store is opened (WAL replay, first catch-up) on a background thread, so the MCP
    handshake answers at once and a host never times out on a large state; tool calls
    wait for it.
    """

    def __init__(self, open_store: Callable[[], Store], catch_up: Callable[[Store], object] | None = None,
                 before_call: Callable[[Store], Freshness | None] | None = None, *, serial: bool = True,
                 allow_write: bool = False) -> None:
        self.allow_write = allow_write
        self.catch_up = catch_up
        self.before_call = before_call  # the daemon: catch up, and this call's freshness
        self.lock: threading.Lock | contextlib.nullcontext[None] = threading.Lock() if serial else \
            contextlib.nullcontext()
        self._store: Store | None = None
        self._failure: BaseException | None = None
        self._ready = threading.Event()
        threading.Thread(target=self._open, args=(open_store,), name="moraine-open", daemon=True).start()

    def _open(self, open_store: Callable[[], Store]) -> None:
        try:
            store = open_store()
            if self.catch_up is not None:
                self.catch_up(store)
            self._store = store
        except BaseException as exc:  # reported to every call rather than lost with the thread
            self._failure = exc
        finally:
            self._ready.set()

    @property
    def store(self) -> Store:
        self._ready.wait()
        if self._store is None:
            raise self._failure or RuntimeError("the Moraine state could not be opened")
        return self._store

    def call(self, name: str, arguments: dict[str, Any] | None) -> ToolResult:
        timer = Timer()
        args = arguments if arguments is not None else {}
        try:
            store = self.store
        except Exception as exc:
            envelope = error_envelope(name, args, exc, timer, 0)
            return ToolResult(envelope, render_error(envelope))
        with self.lock:
            fresh: Freshness | None = None  # this call's, when the daemon says it
            try:  # reading new lines first is a courtesy: if it fails, answer from the index and say so
                if self.catch_up is not None:
                    self.catch_up(store)
                if self.before_call is not None:
                    fresh = self.before_call(store)
                ingest_state(store).catch_up_error = None
            except Exception as exc:
                ingest_state(store).catch_up_error = f"{type(exc).__name__}: {exc}"
                fresh = None
            # A tool that writes takes the writer lock itself, then `store.lock` to apply: holding
            # `store.lock` while it waits for the writer lock would deadlock with an ingest pass,
            # which holds the writer lock and waits for `store.lock` (tests/unit/test_lock_order.py).
            # A tool that scans for long (the history search) takes `store.lock` only while it reads the
            # state, so one costly pattern never holds up every other client's calls.
            own = TOOLS[name].writes or TOOLS[name].locks_itself
            with contextlib.nullcontext() if own else store.lock:
                result = TOOLS[name].run(store, args, timer,
                                         fresh if fresh is not None else ingest_state(store).freshness())
        if store.config.telemetry.query_log:
            querylog.record(store.home, name, result.structured)
        return result
