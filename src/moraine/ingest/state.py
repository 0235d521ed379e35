"""What ingest knows about the logs between passes, kept beside each open Store, not in it.

The Store is the durable state (events, index, checkpoints): it knows nothing of logs being
watched. The run state here is rebuilt by the next pass after a restart, so it is neither
persisted nor part of the Store: the walk's cache of folders, the mtimes that decide what a
quick catch-up stats, the logs written last, and how fresh the index is (bytes behind, backfill
still running, why the last catch-up failed). The tools read none of it: whoever calls one (the
runner of MCP calls, a CLI command) hands it a `Freshness` value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from moraine.ingest.watcher import Discovery

if TYPE_CHECKING:
    from moraine.sources import Adapter
    from moraine.store.engine import Store


@dataclass(frozen=True)
class Freshness:
    """How fresh an answer is, as whoever runs ingest knows it: handed to a tool as a value with
    its call (the tools read nothing of ingest's run state). The default: nothing is known behind."""

    lag_bytes: int = 0  # complete-line bytes known in the logs but not yet ingested
    backfilling: bool = False  # a daemon's first pass over the logs is still running
    catch_up_error: str | None = None  # why the read-before-answer failed (disk full, …)


@dataclass
class IngestState:
    discovery: Discovery = field(default_factory=Discovery)
    mtimes: dict[str, float] = field(default_factory=dict)  # last seen mtime per log
    last_sweep: float = float("-inf")  # monotonic time of the last catch-up that stat-ed every log
    lag_bytes: int = 0  # complete-line bytes known in the logs but not yet ingested
    backfilling: bool = False  # a daemon's first pass over the logs is still running
    catch_up_error: str | None = None  # why the last read-before-answer failed (disk full, …)
    # The logs written most recently (path → (path, key, adapter)), newest first: a call's
    # catch-up looks at these besides what the watcher named, since its note of a write can
    # arrive after the call does.
    newest: dict[str, tuple[str, str, Adapter]] = field(default_factory=dict)

    def freshness(self) -> Freshness:
        return Freshness(self.lag_bytes, self.backfilling, self.catch_up_error)

    def note_written(self, logs: list[tuple[str, str, Adapter]]) -> None:
        """These logs were just seen written: first among the newest, NEWEST_LOGS kept."""
        fresh = {log[0]: log for log in logs[:NEWEST_LOGS]}
        fresh.update((path, log) for path, log in self.newest.items() if path not in fresh)
        self.newest = dict(list(fresh.items())[:NEWEST_LOGS])


NEWEST_LOGS = 64  # about the sessions a person has running at once, with room to spare


_STATES: WeakKeyDictionary[Store, IngestState] = WeakKeyDictionary()


def ingest_state(store: Store) -> IngestState:
    """The ingest run state of this open Store (made on first use, gone with the Store)."""
    state = _STATES.get(store)
    if state is None:
        state = _STATES[store] = IngestState()
    return state
