"""A full disk or a denied permission: a clear message, exit 4, and a state that stays readable
and catches up once space is back. The state lives on a small tmpfs
(mounted by the test: needs root; skipped with the reason otherwise)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_harness import Workspace, make_workspace


def _mount(path: Path, size: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({proc.stderr.strip() or 'mount failed'}): needs root")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs for the disk-full tests needs root")
    mount = tmp_path / "disk"
    _mount(mount, "3m")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _grow_logs(ws: Workspace, megabytes: int) -> None:
    """Enough Codex logs that their index does not fit on the small disk."""
    day = ws.codex / "sessions" / "2026" / "03" / "21"
    day.mkdir(parents=True, exist_ok=True)
    filler = " ".join(f"word{i}" for i in range(200))
    for n in range(megabytes):
        sid = f"019d0000-0000-7000-8000-{n:012d}"
        lines = [json.dumps({"timestamp": "2026-03-21T10:00:00.000Z", "type": "session_meta", "payload": {"id": sid}})]
        for i in range(900):
            lines.append(json.dumps({"timestamp": "2026-03-21T10:00:01.000Z", "type": "event_msg",
                                     "payload": {"type": "user_message", "message": f"unique{n}x{i} {filler}"}}))
        (day / f"rollout-2026-03-21T10-00-00-{sid}.jsonl").write_text("\n".join(lines) + "\n")


def test_a_full_disk_gives_exit_4_and_a_readable_state(small_disk: Path, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    ws.state = small_disk / "state"
    first = ws.run("index")
    assert first.returncode == 0, first  # the samples fit
    _grow_logs(ws, 6)
    full = ws.run("index")
    assert full.returncode == 4, full
    assert "no space left" in full.stderr and "free some space" in full.stderr, full.stderr
    # Readable as it was: status, search, open, doctor all work on the full disk.
    status = ws.run("status", "--json")
    assert status.returncode == 0, status
    search = ws.run("search", "migration", "--json")
    assert search.returncode == 0 and search.json()["data"]["results"], search
    assert any("no space left" in w for w in search.json()["warnings"]), search.json()["warnings"]
    doctor = ws.run("doctor", "--json")
    assert doctor.returncode == 0, doctor
    # Space comes back: the same state catches up, every new word once.
    subprocess.run(["mount", "-o", "remount,size=200m", str(small_disk)], check=True)
    again = ws.run("index")
    assert again.returncode == 0, again
    for word in ("unique0x0", "unique5x899", "unique3x450"):
        hits = ws.run("search", word, "--json").json()["data"]["results"]
        assert len(hits) == 1, (word, hits)
    assert ws.run("doctor", "--json").json()["healthy"]


def test_a_state_directory_made_read_only_gives_exit_4(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    ws = make_workspace(tmp_path / "ws")
    assert ws.run("index").returncode == 0
    _grow_logs(ws, 1)
    proc = subprocess.run(["mount", "--bind", str(ws.state), str(ws.state)], capture_output=True, check=False)
    if proc.returncode != 0:
        pytest.skip("bind mounts are not available here")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ws.state)], check=True)
        result = ws.run("index")
        assert result.returncode == 4, result
        assert "moraine:" in result.stderr and "Traceback" not in result.stderr
        assert ws.run("search", "migration", "--json").returncode in (0, 4)
    finally:
        subprocess.run(["umount", "-l", str(ws.state)], check=False)
    assert ws.run("index").returncode == 0
