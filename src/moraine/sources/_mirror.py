"""Mirror detection: one prompt or reply written twice by the harness is one event.

Codex writes each prompt and reply as a `response_item` message and again as an
`event_msg` (`user_message`, `agent_message`, `agent_reasoning`), in either order. The
window lives in the per-file parser state, so a mirror split across two tail passes is
still recognised after a restart.
"""

from __future__ import annotations

import hashlib
from typing import Any

WINDOW = 12


def text_key(text: str) -> str:
    """Identity of a message's text for mirror matching; image placeholders are ignored
    (the `response_item` carries `[image]`, the `event_msg` mirror only the words)."""
    words = text.split()
    if "[" in text:
        words = [w for w in words if w not in ("[image]", "[document]")]
    collapsed = " ".join(words)
    return hashlib.blake2b(collapsed.encode("utf-8"), digest_size=8).hexdigest()


def claim_mirror(state: dict[str, Any], kind: str, keys: list[str], origin: str) -> bool:
    """True when a record of the other `origin` already produced this text: skip it.

    Otherwise remember these keys so the mirror, when it comes, is recognised.
    """
    window: list[list[str]] = state.setdefault("mirror", [])
    for entry in window:
        if entry[0] == kind and entry[1] in keys and entry[2] != origin:
            window.remove(entry)
            return True
    for key in keys:
        window.append([kind, key, origin])
    del window[:-WINDOW]
    return False
