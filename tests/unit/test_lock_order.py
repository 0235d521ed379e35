"""The store's two locks are always taken in one order: the writer lock (a flock, `writer()`)
first, then the in-process lock (`store.lock`) that readers hold for a whole tool call.

Why: a daemon's ingest thread holds the writer lock for a whole pass and takes `store.lock` to
apply each frame. A write tool (`track_input_event`, `cleanup_old_sessions`) called while it
does must not hold `store.lock` while it waits for the writer lock: the two threads would wait
for each other forever, and with them every later MCP call (the runner serializes calls).
Real threads, a real flock, a real store: the test fails on a timeout, not on a mock's count.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from moraine.config import load_config
from moraine.mcp_server.runner import ToolRunner
from moraine.store.engine import Store

TIMEOUT_S = 20.0


def _store(tmp_path: Path) -> Store:
    return Store(load_config({"home": str(tmp_path / "state")}, env={}))


def _in_thread(fn: Callable[[], object]) -> tuple[threading.Thread, dict[str, object]]:
    out: dict[str, object] = {}

    def body() -> None:
        try:
            out["result"] = fn()
        except BaseException as exc:  # reported by the test, not lost with the thread
            out["error"] = exc

    thread = threading.Thread(target=body, daemon=True)  # a deadlocked thread must not hold up pytest's exit
    thread.start()
    return thread, out


def _writer_then_commit(store: Store, holding: threading.Event, note: str) -> Callable[[], object]:
    """What an ingest pass does: hold the writer lock, and meanwhile apply a frame."""

    def run() -> object:
        with store.writer():
            holding.set()
            time.sleep(0.5)  # the tool call arrives while the pass holds the writer lock
            store.commit([], [], {}, {"tracked": [["s", note, "x", True, "", 0, 0]]})
        return True

    return run


def test_a_write_tool_called_during_an_ingest_pass_waits_for_it_instead_of_deadlocking(tmp_path: Path) -> None:
    store = _store(tmp_path)
    runner = ToolRunner(lambda: store, allow_write=True)
    holding = threading.Event()
    ingest, ingest_out = _in_thread(_writer_then_commit(store, holding, "from the pass"))
    assert holding.wait(TIMEOUT_S)
    call, call_out = _in_thread(lambda: runner.call("track_input_event", {
        "session_id": "s", "prompt_text": "from the tool", "input_text": "y", "success": True}))
    ingest.join(TIMEOUT_S)
    call.join(TIMEOUT_S)
    assert not ingest.is_alive() and not call.is_alive(), "the write tool and the ingest pass deadlocked"
    assert "error" not in ingest_out and "error" not in call_out
    assert call_out["result"].structured["tracked"] is True  # type: ignore[attr-defined]
    assert [row[1] for row in store.tracked] == ["from the pass", "from the tool"]
    reopened = _store(tmp_path)  # both frames are durable, in the order they were applied
    assert [row[1] for row in reopened.tracked] == ["from the pass", "from the tool"]


def test_cleanup_called_during_an_ingest_pass_does_not_deadlock(tmp_path: Path) -> None:
    store = _store(tmp_path)
    runner = ToolRunner(lambda: store, allow_write=True)
    holding = threading.Event()
    ingest, _ = _in_thread(_writer_then_commit(store, holding, "pass"))
    assert holding.wait(TIMEOUT_S)
    call, call_out = _in_thread(lambda: runner.call("cleanup_old_sessions", {"retention_days": 30}))
    ingest.join(TIMEOUT_S)
    call.join(TIMEOUT_S)
    assert not ingest.is_alive() and not call.is_alive(), "cleanup and the ingest pass deadlocked"
    assert "error" not in call_out
    assert "error" not in call_out["result"].structured  # type: ignore[attr-defined]


def test_a_search_during_an_ingest_pass_is_answered(tmp_path: Path) -> None:
    """Readers take only `store.lock`: a pass holding the writer lock does not stop them."""
    store = _store(tmp_path)
    runner = ToolRunner(lambda: store)
    holding, release = threading.Event(), threading.Event()

    def long_pass() -> object:
        with store.writer():
            holding.set()
            return release.wait(TIMEOUT_S)

    ingest, _ = _in_thread(long_pass)
    assert holding.wait(TIMEOUT_S)
    started = time.monotonic()
    result = runner.call("search_sessions", {"query": "anything"})
    assert time.monotonic() - started < 5.0
    assert "error" not in result.structured
    release.set()
    ingest.join(TIMEOUT_S)
