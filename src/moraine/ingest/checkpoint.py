"""How far the logs are ahead of their checkpoints (the checkpoints themselves are the
model's `Checkpoint`, owned by the state)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from moraine.model import Checkpoint


def pending_bytes(checkpoints: dict[str, Checkpoint], paths: Iterable[str] | None = None) -> int:
    """Bytes the logs (every checkpointed one, or `paths`) hold beyond their checkpoints: what
    is known but not yet indexed. A log that shrank counts whole (it is read again); a log
    without a checkpoint counts whole too."""
    behind = 0
    for path in checkpoints if paths is None else paths:
        checkpoint = checkpoints.get(path)
        offset = checkpoint.offset if checkpoint is not None else 0
        try:
            size = os.stat(path).st_size
        except OSError:
            continue
        behind += size - offset if size >= offset else size
    return behind
