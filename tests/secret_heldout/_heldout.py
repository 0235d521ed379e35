"""Shared set-up of the held-out secret tests: makes tools/ importable (secret_eval, state_strings)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools"
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

SEED = 20260210
MIN_RECALL = 0.99
