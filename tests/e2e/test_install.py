"""The first hour: on a fresh clone, `make install` leaves a `moraine` on PATH that
runs, and the entry `moraine setup` prints points at it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_make_install_on_a_fresh_clone_puts_moraine_on_path(tmp_path: Path) -> None:
    if shutil.which("git") is None or shutil.which("make") is None:
        pytest.skip("git and make are needed to clone and install")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    bin_dir = tmp_path / "bin"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    done = subprocess.run(["make", "install", f"BIN_DIR={bin_dir}"], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"moraine is at {bin_dir}/moraine" in done.stdout
    assert "is not on your PATH" in done.stdout  # it says how to add it
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    version = subprocess.run(["moraine", "--version"], env=env, capture_output=True, text=True, check=False)
    assert version.returncode == 0 and version.stdout.startswith("moraine "), version
    setup = subprocess.run(["moraine", "setup", "--json"], env={**env, "MORAINE_HOME": str(tmp_path / "state")},
                           capture_output=True, text=True, check=False)
    assert setup.returncode == 0, setup.stderr
    assert str(clone / ".venv" / "bin" / "moraine") in setup.stdout
