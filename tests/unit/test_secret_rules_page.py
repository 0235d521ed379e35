"""docs/secret-rules.md lists every rule Moraine redacts with, with its source: it must be current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_rules_page_is_current() -> None:
    done = subprocess.run([sys.executable, str(REPO / "tools" / "secret_rules_table.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, "docs/secret-rules.md is out of date: run python tools/secret_rules_table.py"
