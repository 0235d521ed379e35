"""Shared set-up of the held-out secret tests: makes tools/ importable (secret_eval, state_strings)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools"
if str(TOOLS) not in sys.path:
    sys.path.insert(0, str(TOOLS))

SEED = 20260210
MIN_RECALL = 0.99  # the target: held-out recall at least this, in every corpus (see FLOOR)
# What this version measures at least (seed SEED, by ingest: public 99.5 %, people 98.0 %): the
# tests hold the line here, so a change that redacts less fails, while the target stays the goal.
# These corpora have been read while the rules were written, so they are no longer held out: the
# honest figure is the outsider corpus's (tools/secret_eval/README.md).
FLOOR = {"public": 0.99, "people": 0.97}
# Lookalike kinds the rules still alter: named, so a new one fails; remove a kind once it is kept.
KNOWN_ALTERED: frozenset[str] = frozenset()
