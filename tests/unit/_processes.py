"""Child processes as /proc shows them: for tests that kill a parent and check nothing is left."""

from __future__ import annotations

import time
from pathlib import Path


def children(pid: int) -> set[int]:
    """The direct children of `pid`, over all its threads."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def alive(pids: set[int]) -> set[int]:
    """The pids still running (a zombie, dead but not yet reaped, counts as gone)."""
    running = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            running.add(pid)
    return running


def all_gone(pids: set[int], seconds: float) -> bool:
    """True once none of `pids` runs, waiting up to `seconds`."""
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pids)
