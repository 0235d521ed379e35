"""A slow pattern cannot freeze Moraine: `search_session_history` with a pattern that makes RE2
fall back to its NFA (`.{0,1000}a.{0,1000}a.{0,1000}z` over long lines) answers DEADLINE_EXCEEDED
within about its 2 s deadline, whether the scan runs in the daemon or in its worker processes,
and another client's calls are answered within 1 s all the while (the scan holds no lock)."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from test_daemon_lifecycle import (  # noqa: F401 - `ws` is the workspace fixture
    LiveLogs,
    Workspace,
    append,
    codex_user,
    wait_backfilled,
    ws,
)

SLOW = ".{0,1000}a.{0,1000}a.{0,1000}z"  # ~40 KB/s over varied text: RE2's DFA gives up, its NFA runs
WORDS = ["lorem", "ipsum", "alpha", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do",
         "eiusmod", "tempor"]


def line(rng: random.Random) -> str:
    """A line of words in random order (a DFA's states are reused over repeated text, never over
    this), starting with the pattern's last letter so none matches: the NFA reads it whole."""
    return ("z " + " ".join(rng.choice(WORDS) for _ in range(800)))[:4000]


@pytest.mark.slow
@pytest.mark.parametrize("parallel_bytes", ["1048576", "1073741824"])  # in worker processes / in the daemon
def test_a_slow_pattern_answers_at_its_deadline_and_blocks_nobody(ws: Workspace, parallel_bytes: str) -> None:  # noqa: F811
    logs = LiveLogs(ws, claude=False)
    rng = random.Random(20261128)
    for i in range(40):  # 40 events of 20 long lines each: 3.2 MB of text, ~80 s of NFA work
        text = "\n".join(line(rng) for _ in range(20))
        append(logs.paths["codex"], codex_user(1_773_000_000_000 + i * 1000, text))
    env = {"MORAINE_SEARCH_HISTORY_PARALLEL_BYTES": parallel_bytes, "MORAINE_SEARCH_HISTORY_WORKERS": "2",
           "MORAINE_SEARCH_BACKEND": "numpy"}  # a history scan is timed here, not the kernel's load
    slow_client = ws.mcp("slow", **env)
    probe = ws.mcp("probe", **env)
    wait_backfilled(probe, logs.seed_words())
    ws.run("snapshot")  # the texts in chunk files, as a long-running daemon has them
    answer: dict[str, Any] = {}

    def slow() -> None:
        started = time.monotonic()
        result = slow_client.portal.call(slow_client.session.call_tool, "search_session_history", {"query": SLOW})
        answer.update(result.structured_content or {}, seconds=time.monotonic() - started)

    thread = threading.Thread(target=slow)
    thread.start()
    probes = []
    while thread.is_alive():
        started = time.monotonic()
        probe.call("search_sessions", {"query": logs.seed_words()[0]})
        probes.append(time.monotonic() - started)
    thread.join()
    assert answer.get("code") == "DEADLINE_EXCEEDED", answer
    assert answer["seconds"] < 4.0, answer  # the 2 s deadline, one paced piece of the scan, the call's own work
    assert probes and max(probes) < 1.0, probes
    again = probe.call("search_session_history", {"query": "alpha dolor", "max_results": 1})
    assert again["matches"], again  # the workers are free again at once
