"""The daemon starts search_session_history's worker processes once its backfill is done,
when the state holds enough text for a scan to use them (their start cost 0.4-0.9 s on the 1M
state, paid by the first history call otherwise); a small state starts none."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from _processes import alive, all_gone, children

MORAINE = str(Path(sys.executable).parent / "moraine")
SID = "5b0c7c1e-1111-4222-8333-444455556677"


def _run_daemon(tmp_path: Path, extra: dict[str, str]) -> tuple[dict[str, str], Path]:
    log = tmp_path / "claude" / "projects" / "-w" / f"{SID}.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("".join(json.dumps({"type": "user", "sessionId": SID, "uuid": f"u-{i}", "cwd": "/w",
                                       "timestamp": f"2026-03-01T10:00:{i:02d}.000Z",
                                       "message": {"role": "user", "content": f"line {i} of the otter log"}}) + "\n"
                           for i in range(20)))
    home = tmp_path / "s"
    env = {**os.environ, "MORAINE_HOME": str(home), "CODEX_HOME": str(tmp_path / "codex"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "MORAINE_DAEMON_IDLE_EXIT_S": "60",
           "MORAINE_SEARCH_HISTORY_WORKERS": "2", "MORAINE_SEARCH_BACKEND": "numpy", **extra}  # its only children
    subprocess.run([MORAINE, "index"], env=env, check=True, capture_output=True, timeout=120)  # chunk files
    subprocess.run([MORAINE, "daemon"], env=env, check=True, capture_output=True, timeout=120)
    return env, home


def _pid_from_status(home: Path) -> int:
    from moraine.store.run_files import read_status

    status = read_status(home)
    assert status is not None and "pid" in status, status
    return int(status["pid"])


def test_workers_start_after_the_backfill_when_the_state_has_enough_text(tmp_path: Path) -> None:
    env, home = _run_daemon(tmp_path, {"MORAINE_SEARCH_HISTORY_PARALLEL_BYTES": "0"})
    try:
        pid = _pid_from_status(home)
        daemon_log = home / "run" / "daemon.log"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (len(children(pid)) < 2  # the line is written once they run
                                               or "history search workers started" not in daemon_log.read_text()):
            time.sleep(0.2)
        workers = children(pid)
        assert len(workers) >= 2, "the history workers were not started"
        assert "history search workers started" in daemon_log.read_text()
    finally:
        subprocess.run([MORAINE, "stop"], env=env, capture_output=True, timeout=120, check=False)


def test_a_small_state_starts_no_workers(tmp_path: Path) -> None:
    from moraine.store.run_files import read_status

    env, home = _run_daemon(tmp_path, {})  # 32 MB by default: far more than this state holds
    try:
        pid = _pid_from_status(home)
        # The workers would start right after the backfill (in ~1 s): wait for it to be done (by the
        # status, however long that takes here), then watch a while longer.
        deadline = time.monotonic() + 120
        while not (read_status(home) or {}).get("backfilled"):
            assert time.monotonic() < deadline, "the daemon's backfill did not finish"
            time.sleep(0.1)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            assert not children(pid), "workers were started for a state too small to use them"
            time.sleep(0.5)
    finally:
        subprocess.run([MORAINE, "stop"], env=env, capture_output=True, timeout=120, check=False)


def test_the_workers_end_with_a_daemon_killed_with_sigkill(tmp_path: Path) -> None:
    """A daemon killed with SIGKILL (the OOM killer, `kill -9`) leaves no worker process behind:
    CPython's pool workers do not notice their parent's death; Moraine's watch for it."""
    _env, home = _run_daemon(tmp_path, {"MORAINE_SEARCH_HISTORY_PARALLEL_BYTES": "0"})
    pid = _pid_from_status(home)
    deadline = time.monotonic() + 60
    while len(children(pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = children(pid)
    assert len(workers) >= 2, "the history workers were not started"
    os.kill(pid, signal.SIGKILL)
    assert all_gone(workers, 10), f"workers left running after their daemon was killed: {alive(workers)}"

