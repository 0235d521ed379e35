"""search_session_history is exact: the literal pre-filter never drops a true match. Random
patterns (with and without literals, anchored, case-insensitive, classes) over a generated
two-harness corpus are compared with a brute-force scan (every line of every session's
transcript built straight from its events, each tested by RE2 — no literal, no pre-filter).
Also after a restart from the snapshot (the line-count column)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
from _agentlogs import LogWriter, populate

from moraine.index.grep import compile_pattern
from moraine.ingest.pipeline import ingest_once
from moraine.mcp_server.tools import search_session_history as tool
from moraine.store.engine import Store


def _brute(store: Store, pattern: str, since_ms: int | None = None) -> list[tuple[str, int]]:
    """(session id, line number) of every matching transcript line (of an event at or after
    `since_ms`), newest session first."""
    rx = compile_pattern(pattern).regex  # the engine's own semantics (RE2: \w is ASCII), line by line
    found = []
    for session in reversed(store.catalog.by_updated):
        line_number = 0
        for doc in session.docs:
            event = store.catalog.event(doc)
            if not event.text or event.excluded or event.type == "unknown":
                continue
            for line in event.text.split("\n"):
                line_number += 1
                if rx.search(line) and (since_ms is None or event.ts_ms >= since_ms):
                    found.append((session.id, line_number))
    return found


def _patterns(rng: random.Random, words: list[str]) -> list[str]:
    out = []
    for _ in range(90):
        w = rng.choice(words)
        out.append(rng.choice([
            w, f"{w} {rng.choice(words)}", f"^{w}", f"{w}$", f"(?i){w.upper()}", f"{w[:2]}\\w+", f"[{w[0]}]{w[1:]}",
            f"{w}|{rng.choice(words)}", f"(?:{w})+", f"{w[:3]}.*{rng.choice(words)[:3]}", r"\d{3,}", f"\\b{w}\\b",
            f"\\A{w}", f"{w}\\z", f"(?-m)^{w}", f"(?i-m:{w.upper()}$)", f"\\Q{w}\\E", f"[]{w[0]}]{w[1:]}",
        ]))
    return out


def test_results_equal_a_brute_force_scan(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "logs", seed=11)
    populate(writer, n_codex=8, n_claude=8, records_per_file=(30, 80))
    config = writer.config(tmp_path / "state")
    store = Store(config)
    ingest_once(store, snapshot=True)
    words = sorted({w for s in store.catalog.sessions for w in (s.first_prompt or "").split() if len(w) > 3})
    rng = random.Random(5)
    checked = 0
    for reopened in (False, True):
        if reopened:
            store = Store(config)  # columns mapped back from the snapshot
        for pattern in _patterns(rng, words):
            data: dict[str, Any] = tool.search(store, {"query": pattern, "session_id": None, "context_lines": 0,
                                                       "max_results": 100, "since_ms": None, "until_ms": None},
                                               deadline=float("inf"))
            want = _brute(store, pattern)
            assert data["total_matches"] == len(want), pattern
            got = [(m["session_id"], m["line_number"]) for m in data["matches"]]
            assert got == want[: len(got)] and len(got) == min(100, len(want)), pattern
            checked += 1
    assert checked == 180


def test_worker_processes_and_every_path_equal_the_brute_force_scan(tmp_path: Path, monkeypatch: Any) -> None:
    """The same comparison over several chunk files plus texts still in memory, scanned by two
    worker processes (forced: no size threshold; a chunk whole or cut in pieces), and in this
    process, with a literal-only pattern's array scan over windows split at gaps and over one
    window a chunk; patterns with and without a literal, literal-only (`w`, `w\\w*`,
    `x?w[0-9]*`) or not (`w.*\\d`, `^w`)."""
    from _agentlogs import grow

    from moraine.index import grep

    writer = LogWriter(tmp_path / "logs", seed=23)
    populate(writer, n_codex=6, n_claude=6, records_per_file=(20, 60))
    config = writer.config(tmp_path / "state", search={"history_workers": 2, "history_parallel_bytes": 0})
    store = Store(config)
    ingest_once(store, snapshot=True)
    grow(writer, 4, (20, 60))
    ingest_once(store, snapshot=True)
    grow(writer, 3, (10, 30))
    ingest_once(store, snapshot=False)  # these stay in memory
    assert len(store.catalog.content.chunks) >= 2 and store.catalog.content.fresh
    words = sorted({w for s in store.catalog.sessions for w in (s.first_prompt or "").split()
                    if len(w) > 3 and w.isalnum()})
    rng = random.Random(9)
    patterns = []
    for _ in range(30):
        w = rng.choice(words)
        patterns += [w, f"{w}\\w*", f"x?{w}[0-9]*", f"{w}.*\\d", f"^{w}", f"(?i){w}", r"[A-Z]\w+\d"]

    def check() -> None:
        for pattern in patterns:
            data = tool.search(store, {"query": pattern, "session_id": None, "context_lines": 0, "max_results": 100,
                                       "since_ms": None, "until_ms": None}, deadline=float("inf"))
            want = _brute(store, pattern)
            assert data["total_matches"] == len(want), pattern
            got = [(m["session_id"], m["line_number"]) for m in data["matches"]]
            assert got == want[: len(got)] and len(got) == min(100, len(want)), pattern

    check()  # worker processes for the chunk files, this process for the rest
    monkeypatch.setattr(tool, "_MIN_PIECE", 1)
    check()  # each chunk cut into pieces of a few texts, taken by whichever worker is free
    store.config = config.model_copy(update={"search": config.search.model_copy(update={"history_workers": 1})})
    check()  # in this process
    monkeypatch.setattr(grep, "_WINDOW_GAP", 1 << 40)
    check()  # a literal-only pattern's array scan over one window a chunk


def test_a_time_window_with_out_of_scope_texts_read_through_equals_the_brute_force_scan(
        tmp_path: Path, monkeypatch: Any) -> None:
    """Texts out of scope between texts in scope (older events of the same sessions, events
    without transcript lines) are read through when the gap is small (`grep._GAP`); their lines
    must never count. Here every gap is read through and the window starts mid-history."""
    from moraine.index import grep

    writer = LogWriter(tmp_path / "logs", seed=31)
    populate(writer, n_codex=6, n_claude=6, records_per_file=(30, 80))
    config = writer.config(tmp_path / "state", search={"history_workers": 1})
    store = Store(config)
    ingest_once(store, snapshot=True)
    catalog = store.catalog
    alive = np.flatnonzero(catalog.alive.view)
    since = int(np.median(catalog.ts.view[alive]))
    words = sorted({w for s in catalog.sessions for w in (s.first_prompt or "").split() if len(w) > 3 and w.isalnum()})
    rng = random.Random(4)
    patterns = []
    for _ in range(20):
        w = rng.choice(words)
        patterns += [w, f"{w}.*\\d", r"[A-Z]\w+\d"]
    for gap in (grep._GAP, 1 << 40):
        monkeypatch.setattr(grep, "_GAP", gap)
        for pattern in patterns:
            data = tool.search(store, {"query": pattern, "session_id": None, "context_lines": 0, "max_results": 100,
                                       "since_ms": since, "until_ms": None}, deadline=float("inf"))
            want = _brute(store, pattern, since)
            assert data["total_matches"] == len(want), (gap, pattern)
            got = [(m["session_id"], m["line_number"]) for m in data["matches"]]
            assert got == want[: len(got)] and len(got) == min(100, len(want)), (gap, pattern)


def test_text_anchors_become_line_anchors() -> None:
    """A search over many lines at once matches as each line alone would: `\\A`, `\\z` and
    multi-line mode turned off are rewritten; escapes, quoted text and classes are not."""
    from moraine.index.grep import line_anchored

    cases = {
        r"\Afoo\z": "(?m:^)foo(?m:$)", r"(?-m)^a$": "(?:)^a$", r"(?i-m)x": "(?i)x", r"(?s-mi:x)": "(?s-i:x)",
        r"(?i-m:x)": "(?i:x)", r"(?-m:x)": "(?:x)", r"\\A": r"\\A", r"\QA\Az\E\z": r"\QA\Az\E(?m:$)",
        r"[\A]\A": r"[\A](?m:^)", r"[]\z]": r"[]\z]", r"[[:alpha:]]\z": r"[[:alpha:]](?m:$)",
        r"(?P<n>a)\A": r"(?P<n>a)(?m:^)", r"(?m)^a": "(?m)^a",
    }
    for query, expected in cases.items():
        assert line_anchored(query) == expected, query


def test_searched_sessions_are_listed_newest_first_up_to_the_cap(tmp_path: Path, monkeypatch: Any) -> None:
    """`searched_sessions` lists at most MAX_SEARCHED_LISTED sessions (1,000: the reply stays within
    the hosts' bound), the newest first; `searched_sessions_total` counts them all. Lowered here
    so a small corpus crosses it."""
    writer = LogWriter(tmp_path / "logs", seed=41)
    populate(writer, n_codex=5, n_claude=5, records_per_file=(10, 20))
    store = Store(writer.config(tmp_path / "state"))
    ingest_once(store, snapshot=False)
    request = {"query": "(?i)e", "session_id": None, "context_lines": 0, "max_results": 5,
               "since_ms": None, "until_ms": None, "include_searched_ids": True}
    full = tool.search(store, request, deadline=float("inf"))
    newest = [s.id for s in store.read.sessions_newest_first()]
    assert full["searched_sessions"] == newest and full["searched_sessions_total"] == len(newest) >= 8
    monkeypatch.setattr(tool, "MAX_SEARCHED_LISTED", 3)
    capped = tool.search(store, request, deadline=float("inf"))
    assert capped["searched_sessions"] == newest[:3] and capped["searched_sessions_total"] == len(newest)
    assert capped["total_matches"] == full["total_matches"]
    # unasked, the list is the sessions of the matches shown, not every session searched
    brief = tool.search(store, {**request, "include_searched_ids": False}, deadline=float("inf"))
    assert brief["searched_sessions"] == list(dict.fromkeys(m["session_id"] for m in brief["matches"]))
    assert brief["searched_sessions_total"] == len(newest)
