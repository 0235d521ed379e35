"""Retention (the history tool `cleanup_old_sessions`): forget sessions whose last activity is older
than N days — exactly N days old is kept.

Forgetting is a durable tombstone in a WAL frame (then in every snapshot): the session's events
leave the index at once, and lines of it read again later (a restart, `moraine reindex`, a
restore) are dropped, so it stays forgotten. The agents' own log files are deleted only with
`[retention] delete_logs = true`. The publish that follows purges what the forgotten events held:
their content chunks and the segments with their postings are written again without them, and
the old files are collected. `bytes_freed` is the bytes of what they said (text, arguments,
metadata; `Contents.size_of`), the same figure in a dry run and in the run.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

from moraine.redaction.structured import REDACTED_PATH
from moraine.store.engine import Store
from moraine.store.session import Session

DAY_MS = 86_400_000


def expired(store: Store, retention_days: int, now_ms: int) -> list[Session]:
    cutoff = now_ms - retention_days * DAY_MS
    return [s for s in store.catalog.by_updated if s.docs and s.updated_ms < cutoff]


def cleanup(store: Store, retention_days: int, dry_run: bool, *, delete_logs: bool,
            now_ms: int | None = None) -> dict[str, Any]:
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    with store.writer():
        old = expired(store, retention_days, now_ms)
        logs = sorted({path for s in old for path in s.file_ts if not path.startswith(REDACTED_PATH)})
        result: dict[str, Any] = {"deleted_sessions": [s.id for s in old], "total_deleted": len(old),
                                  "dry_run": dry_run, "retention_days": retention_days,
                                  "log_files": logs if delete_logs else []}
        result["bytes_freed"] = sum(store.catalog.content.size_of(d) for s in old for d in s.docs)
        if dry_run:
            return result
        if old:
            store.commit([], [], {}, {"tombstones": sorted(s.key for s in old)})
            if delete_logs:
                for path in logs:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                store.forget(logs)
            store.publish()  # the forgotten contents leave the chunks and the term dictionary
    return result
