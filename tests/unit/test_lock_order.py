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
from typing import Any

import pytest

from moraine.config import load_config
from moraine.index.segment import Segment
from moraine.index.vocab import Vocabulary
from moraine.mcp_server.runner import ToolRunner
from moraine.model import Event, make_uid
from moraine.store import publish as publish_module
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


def _write_tool_during_a_pass(store: Store, tool: str, arguments: dict[str, Any]) -> Any:
    """Call a write tool while a pass holds the writer lock and then commits; both must finish."""
    runner = ToolRunner(lambda: store, allow_write=True)
    holding = threading.Event()
    ingest, ingest_out = _in_thread(_writer_then_commit(store, holding, "from the pass"))
    assert holding.wait(TIMEOUT_S)
    call, call_out = _in_thread(lambda: runner.call(tool, arguments))
    ingest.join(TIMEOUT_S)
    call.join(TIMEOUT_S)
    assert not ingest.is_alive() and not call.is_alive(), f"{tool} and the ingest pass deadlocked"
    assert "error" not in ingest_out and "error" not in call_out
    return call_out["result"].structured  # type: ignore[attr-defined]


def test_a_write_tool_called_during_an_ingest_pass_waits_for_it_instead_of_deadlocking(tmp_path: Path) -> None:
    store = _store(tmp_path)
    event = Event(make_uid("lock-order"), "codex:s1", "codex", "user_input", 1_773_000_000_000, "a prompt",
                  file="/logs/s1.jsonl", line=1)
    with store.writer():
        store.commit([event.to_wire()], [], {})  # the session the observation names
    session = store.read.session_by_key("codex:s1")
    assert session is not None
    answer = _write_tool_during_a_pass(store, "track_input_event", {
        "session_id": session.id, "prompt_text": "from the tool", "input_text": "y", "success": True})
    assert answer["tracked"] is True
    assert [row[1] for row in store.tracked] == ["from the pass", "from the tool"]
    reopened = _store(tmp_path)  # both frames are durable, in the order they were applied
    assert [row[1] for row in reopened.tracked] == ["from the pass", "from the tool"]


def test_cleanup_called_during_an_ingest_pass_does_not_deadlock(tmp_path: Path) -> None:
    answer = _write_tool_during_a_pass(_store(tmp_path), "cleanup_old_sessions", {"retention_days": 30})
    assert "error" not in answer and answer["dry_run"] is False


def test_a_search_during_an_ingest_pass_is_answered(tmp_path: Path) -> None:
    """Readers take only `store.lock`: a pass holding the writer lock does not stop them."""
    store = _store(tmp_path)
    runner = ToolRunner(lambda: store)
    holding, release = threading.Event(), threading.Event()

    def long_pass() -> object:
        with store.writer():
            holding.set()
            return release.wait(TIMEOUT_S)

    ingest, ingest_out = _in_thread(long_pass)
    assert holding.wait(TIMEOUT_S)
    result = runner.call("search_sessions", {"query": "anything"})
    assert "error" not in result.structured
    release.set()
    ingest.join(TIMEOUT_S)
    # The pass held the writer lock until released here, after the answer: had the search waited for
    # the lock, it would have been answered only once the pass gave up (release.wait timing out: False).
    assert ingest_out == {"result": True}, ingest_out


# -- a publish and a merge hold `store.lock` only to swap in what they built ---------------------
# The writer's disk work (a merge streaming postings, a content chunk compressed, a generation
# written) is paused at a real step of it (the wrapped function runs unchanged once released);
# a tool call made meanwhile must be answered, from the state before the swap or after it.


def _pause(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> tuple[threading.Event, threading.Event]:
    entered, release = threading.Event(), threading.Event()
    real = getattr(owner, name)

    def paused(*args: object, **kwargs: object) -> object:
        entered.set()
        assert release.wait(TIMEOUT_S)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, paused)
    return entered, release


def _word_rows(word: str, n: int) -> list[list[Any]]:
    return [Event(uid=make_uid("lock-order", word, i), session_key=f"codex:lock-{word}", source="codex",
                  type="user_input", ts_ms=1_770_000_000_000 + i, text=f"{word} row {i}", starts_turn=True,
                  file=f"/logs/{word}.jsonl", line=i + 1, offset=i * 64).to_wire() for i in range(n)]


def _found(runner: ToolRunner, word: str) -> int:
    result = runner.call("search_sessions", {"query": word, "n_hits": 50})
    assert "error" not in result.structured, result.structured
    return len(result.structured["data"]["results"])


def _answered_meanwhile(runner: ToolRunner, word: str) -> int:
    call, out = _in_thread(lambda: _found(runner, word))
    call.join(5.0)
    assert not call.is_alive(), "a search waited for the writer's disk work"
    assert "error" not in out, out
    return out["result"]  # type: ignore[return-value]


def test_a_search_is_answered_while_a_publish_writes_its_generation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_samples_store: Callable[[Path], Store]) -> None:
    store = make_samples_store(tmp_path)
    runner = ToolRunner(lambda: store)
    with store.writer():
        store.commit(_word_rows("quokkafresh", 30), [], {})
    assert _found(runner, "quokkafresh") == 30
    entered, release = _pause(monkeypatch, publish_module, "write_generation")
    publisher, out = _in_thread(lambda: _publish(store))
    assert entered.wait(TIMEOUT_S)  # sealed, chunk written and attached: the generation is being written
    assert store.catalog.content.fresh == [] and not len(store.index.mem)
    assert _answered_meanwhile(runner, "quokkafresh") == 30
    release.set()
    publisher.join(TIMEOUT_S)
    assert "error" not in out, out
    assert _found(runner, "quokkafresh") == 30
    store._check()
    assert _found(ToolRunner(lambda: Store(store.config, create=False)), "quokkafresh") == 30


def test_a_search_is_answered_while_segments_merge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_samples_store: Callable[[Path], Store]) -> None:
    store = make_samples_store(tmp_path)
    runner = ToolRunner(lambda: store)
    for word in ("wombatone", "wombattwo"):
        with store.writer():
            store.commit(_word_rows(word, 20), [], {})
            store.publish()
    assert len(store.index.segments) >= 2
    before = {word: _found(runner, word) for word in ("wombatone", "wombattwo", "codex")}
    entered, release = _pause(monkeypatch, Segment, "merge")
    merger, out = _in_thread(lambda: _merge_all(store))
    assert entered.wait(TIMEOUT_S)
    assert _answered_meanwhile(runner, "wombatone") == before["wombatone"] == 20
    release.set()
    merger.join(TIMEOUT_S)
    assert "error" not in out, out
    assert len(store.index.segments) == 1
    assert {word: _found(runner, word) for word in before} == before
    store._check()


def test_a_search_is_answered_while_a_full_memtable_seals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit that fills the memtable seals it after applying, with the readers' lock free:
    a search meanwhile reads the memtable, then the segment, never half of each."""
    store = Store(load_config({"home": str(tmp_path / "state"), "store": {"seal_events": 100}}, env={}))
    runner = ToolRunner(lambda: store)
    with store.writer():
        store.commit(_word_rows("numbatearly", 40), [], {})
    entered, release = _pause(monkeypatch, Segment, "from_memtable")
    committer, out = _in_thread(lambda: _commit(store, _word_rows("numbatlate", 80)))
    assert entered.wait(TIMEOUT_S)  # the frame is applied; its memtable is being frozen
    assert not store.index.segments
    assert _answered_meanwhile(runner, "numbatearly") == 40
    assert _answered_meanwhile(runner, "numbatlate") == 50  # n_hits caps it
    release.set()
    committer.join(TIMEOUT_S)
    assert "error" not in out, out
    assert len(store.index.segments) == 1 and not len(store.index.mem)
    assert _found(runner, "numbatearly") == 40 and _found(runner, "numbatlate") == 50
    store._check()


def test_a_search_is_answered_while_a_commit_tokenizes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit tokenizes its texts (most of applying a frame) before taking the readers' lock:
    a search meanwhile answers from the state before the frame, then after it."""
    store = _store(tmp_path)
    runner = ToolRunner(lambda: store)
    with store.writer():
        store.commit(_word_rows("dugongfirst", 10), [], {})
    entered, release = _pause(monkeypatch, Vocabulary, "encode")
    committer, out = _in_thread(lambda: _commit(store, _word_rows("dugongsecond", 12) + _word_rows("dugongfirst", 3)))
    assert entered.wait(TIMEOUT_S)
    assert _answered_meanwhile(runner, "dugongfirst") == 10
    assert _answered_meanwhile(runner, "dugongsecond") == 0  # new terms, no postings yet
    release.set()
    committer.join(TIMEOUT_S)
    assert "error" not in out, out
    assert _found(runner, "dugongsecond") == 12
    assert _found(runner, "dugongfirst") == 10  # the three re-sent records replaced their docs
    store._check()
    reopened = Store(store.config, create=False)  # replay takes the same path without a pause
    assert _found(ToolRunner(lambda: reopened), "dugongsecond") == 12
    assert _found(ToolRunner(lambda: reopened), "dugongfirst") == 10


def _commit(store: Store, rows: list[list[Any]]) -> object:
    with store.writer():
        store.commit(rows, [], {})
    return True


def test_publishing_outside_the_writer_lock_is_refused(make_samples_store: Callable[[Path], Store],
                                                       tmp_path: Path) -> None:
    """What reads the state without `store.lock` relies on being its only writer."""
    store = make_samples_store(tmp_path)
    with pytest.raises(RuntimeError, match="writer"):
        store.publish()
    with pytest.raises(RuntimeError, match="writer"):
        store.merge_all()


def _publish(store: Store) -> object:
    with store.writer():
        return store.publish()


def _merge_all(store: Store) -> object:
    with store.writer():
        store.merge_all()
    return True
