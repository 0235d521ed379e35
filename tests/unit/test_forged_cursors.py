"""A list_sessions cursor is exactly what the tool wrote: a forged one (a time past any real one,
extra fields, an id that is not a session's) is `invalid_request`, never a page."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from moraine.mcp_server.tools import list_sessions
from moraine.store.engine import Store

WINDOW = {"start_datetime": "2026-03-01T00:00:00Z", "end_datetime": "2026-04-01T00:00:00Z", "limit": 1}


def _cursor(payload: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()).decode()


def test_forged_cursors_are_refused(samples_store: Store, tmp_path: Path) -> None:
    first = list_sessions.run(samples_store, WINDOW).structured["data"]
    real = json.loads(base64.urlsafe_b64decode(first["next_cursor"] + "=" * (-len(first["next_cursor"]) % 4)))
    assert list_sessions.run(samples_store, {**WINDOW, "cursor": first["next_cursor"]}).structured["data"]["sessions"]
    forged = [{**real, "u": 2**70}, {**real, "u": -1}, {**real, "extra": 1}, {**real, "i": "session:x"},
              {**real, "i": "not an id"}, {"u": real["u"], "i": real["i"]}]
    for payload in forged:
        reply = list_sessions.run(samples_store, {**WINDOW, "cursor": _cursor(payload)}).structured
        assert reply.get("error", {}).get("code") == "invalid_request", (payload, reply)
