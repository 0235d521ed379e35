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

from _processes import alive, all_gone, children

MORAINE = Path(sys.executable).parent / "moraine"
MAKE_CORPUS = Path(__file__).resolve().parents[2] / "tools" / "make_corpus.py"


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
            workers = {c for c in children(proc.pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()}
            time.sleep(0.05)
        assert len(workers) >= 2, "the pass did not start its worker processes"
        time.sleep(1.0)  # the workers busy with their first groups of logs
        everyone = children(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    all_gone(everyone, 10)
    left = alive(everyone)
    for pid in left:  # never leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running 10 s after `moraine index` was killed: {sorted(left)}"
