"""`moraine index` killed with SIGKILL in the middle of a parallel pass leaves no process behind.

CPython's pool workers do not notice their parent's death: one blocked writing a result to the
pool's pipe (whose read end its sibling also holds) and the sibling waiting on the queue's lock
stayed forever (measured: both alive 30 s after the kill, every time). Moraine's workers watch
their parent (`moraine.pool`). A real corpus, a real `moraine index`, a real SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

MORAINE = Path(sys.executable).parent / "moraine"
MAKE_CORPUS = Path(__file__).resolve().parents[2] / "tools" / "make_corpus.py"


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _alive(pids: set[int]) -> set[int]:
    """The pids still running (a zombie, dead but not yet reaped, counts as gone)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def test_sigkill_during_a_parallel_index_leaves_no_worker(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(MAKE_CORPUS), "--out", str(tmp_path / "logs"), "--events", "30000",
                    "--seed", "7"], check=True, capture_output=True, timeout=300)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
           "MORAINE_HOME": str(tmp_path / "state"), "CODEX_HOME": str(tmp_path / "logs" / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "logs" / "claude")}
    proc = subprocess.Popen([str(MORAINE), "index"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 120
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            workers = {c for c in _children(proc.pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()}
            time.sleep(0.05)
        assert len(workers) >= 2, "the pass did not start its worker processes"
        time.sleep(1.0)  # the workers busy with their first groups of logs
        everyone = _children(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while _alive(everyone) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive(everyone)
    for pid in left:  # never leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running 10 s after `moraine index` was killed: {sorted(left)}"
