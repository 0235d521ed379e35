"""The parse side of an ingest pass: a log's new lines (or a log read whole) into normalized,
redacted, checked events, in this process or in worker processes, and when a pass uses them.

`pipeline.py` decides what to read and commits what comes back; everything here may run in
a worker (it touches no store).
"""

from __future__ import annotations

import copy
import os
import pickle
import time
from collections import deque
from collections.abc import Generator, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from moraine.ingest.tailer import complete_lines, record_head
from moraine.ingest.whole import Replaces, WholeRead
from moraine.model import WIRE_TS, Checkpoint, LineRef
from moraine.pool import executor as pool_executor
from moraine.redaction.redact import current
from moraine.redaction.structured import configure_redaction
from moraine.sources import ADAPTERS, MAX_LINE_BYTES, Adapter, normalize_line
from moraine.store.batch import Batch
from moraine.store.validate import packed_batch, storable

# A pass bigger than this is normalized in a worker process while this one indexes:
# parsing/redaction and indexing then run on two cores instead of one.
PARALLEL_BYTES = 8 * 1024 * 1024
# A daemon's slice parses in worker processes when a log's next line is huge: redacting megabytes
# of one text holds the GIL for seconds (12 MB: ~6 s), which would stall every tool call's
# thread meanwhile; waiting on a worker holds nothing. Only then: starting the workers costs
# about a second, which many short lines (a burst, junk) never repay.
SLICE_POOL_BYTES = 2 * 1024 * 1024  # new bytes of a log below which it is read in the loop's thread
HUGE_LINE_BYTES = 1024 * 1024  # a next line at least this long is huge


def pool_serves(work: list[Work], sizes: list[int], slice_s: float | None, parallel: bool | None) -> bool:
    """Whether this pass parses its logs in worker processes (never on one CPU)."""
    if parallel is not None:
        return parallel
    if (os.cpu_count() or 1) < 2:
        return False
    if slice_s is None:
        return sum(sizes) >= PARALLEL_BYTES
    return any(_holds_huge_line(path, cp.offset, size) for path, _, _, cp, size in work)


def _holds_huge_line(path: str, start: int, end: int) -> bool:
    """Whether a log's new bytes [start, end) begin with a line of HUGE_LINE_BYTES or more (one
    read of that much, and only for a log with SLICE_POOL_BYTES of new bytes). A line ends at
    an LF or at a CR (the tailer reads a log of lone CRs as CR-ended lines): a megabyte of
    garbage holding CRs is many short lines, and a worker pool started per slice to read one
    of them would crawl through it at a line a slice."""
    if end - start < SLICE_POOL_BYTES:
        return False
    try:
        with open(path, "rb") as fh:
            fh.seek(start)
            head = fh.read(HUGE_LINE_BYTES)
    except OSError:
        return False
    return b"\n" not in head and b"\r" not in head


@dataclass(slots=True)
class Part:
    """What one read of a log hands the indexer (one WAL frame's worth at most)."""

    key: str  # the log's path key
    batch: Batch  # its new events, packed and in columns
    issues: list[list[Any]] = field(default_factory=list)  # quarantined lines (`IngestIssue` wire rows)
    checkpoint: Checkpoint | None = None  # where the log was read up to (None: keep the old one)
    read: int = 0  # the log bytes this part covers
    problem: str | None = None  # why the log could not be read to its end (None: it was)
    replaces: Replaces | None = None  # what the events replace (a log read whole, see `whole`; None: new lines)


@dataclass(slots=True)
class Task:
    """One log to read, as a parse worker gets it."""

    path: str
    key: str  # its path key
    adapter: str  # the adapter's name (`sources.ADAPTERS`)
    checkpoint: Checkpoint  # where to read on from
    limit: int  # events (and quarantined lines) per part
    deadline: float = 0.0  # time.monotonic() after which reading stops at a line's end (0: none; a
    # line is always read, so every pass moves on)


Work = tuple[str, str, Adapter, Checkpoint, int]  # path, key, adapter, checkpoint to resume from, size


def normalize_file(task: Task) -> list[Part]:
    """Read a file's complete new lines and normalize them (pure of the Store: runs anywhere).

    Returns parts of at most `limit` events, each with the checkpoint reached at its end,
    so every WAL frame carries exactly the checkpoint its events cover. The events come as a
    `Batch`, packed and in columns as the store keeps them: that work done here, in a worker,
    is off the indexing process, which is the one that bounds a bulk pass.
    """
    path, key, checkpoint, limit, deadline = task.path, task.key, task.checkpoint, task.limit, task.deadline
    adapter = ADAPTERS[task.adapter]
    if adapter.whole(path):
        return list(whole_parts(path, key, task.adapter, checkpoint))
    state = checkpoint.adapter_state()
    parts: list[Part] = []
    events: list[list[Any]] = []
    issues: list[list[Any]] = []
    start = checkpoint.offset
    try:
        for line in complete_lines(path, checkpoint.offset, checkpoint.line, max_line=MAX_LINE_BYTES):
            if deadline and checkpoint.offset > start and time.monotonic() > deadline:
                return [*parts, _part(path, key, events, issues, checkpoint, start, middle=True)]
            ref = LineRef(key, checkpoint.generation, line.number, line.offset)
            new, issue = normalize_line(adapter, line.raw, ref, state, size=line.end - line.offset - 1)
            events.extend(storable(new, issues, ref))
            if issue:
                issues.append(issue.to_wire())
            checkpoint.offset, checkpoint.line = line.end, line.number
            if len(events) + len(issues) >= limit:  # a frame's size is bounded by junk lines too
                parts.append(_part(path, key, events, issues, checkpoint, start, middle=True))
                events, issues, start = [], [], checkpoint.offset
    except OSError as exc:  # unreadable, vanished, an I/O error: what was read counts, the rest waits
        problem = f"cannot read: {exc.strerror or exc}"
        if checkpoint.offset == start and not events and not issues:
            return [*parts, Part(key, Batch(), problem=problem)]
        cut = _part(path, key, events, issues, checkpoint, start, middle=True)
        cut.problem = problem
        return [*parts, cut]
    checkpoint.size = max(checkpoint.size, checkpoint.offset)
    parts.append(_part(path, key, events, issues, checkpoint, start, middle=False))
    return parts


def whole_parts(path: str, key: str, adapter_name: str, checkpoint: Checkpoint) -> Iterator[Part]:
    """A log read whole: one part per group of records (a document, a session of a database;
    a large one in pieces), each packed as soon as it is read (`WholeRead` streams them), the
    checkpoint on the last, so a crash between them reads the log again (IDs dedupe)."""
    whole = WholeRead(path, key, adapter_name, checkpoint)
    last: Part | None = None
    try:
        for events, issues, replaces in whole.groups():
            if last is not None:
                yield last
            batch, issues = _batch(events, issues)
            last = Part(key, batch, issues, replaces=replaces)
    except OSError as exc:
        yield Part(key, Batch(), problem=f"cannot read: {exc.strerror or exc}")
        return
    reached = whole.reached
    if whole.problem is not None:  # remembered with the token: read again when the log changes
        yield Part(key, Batch(), checkpoint=reached, problem=whole.problem)
    elif last is None:
        yield Part(key, Batch(), checkpoint=reached, read=reached.size)
    else:
        last.checkpoint, last.read = reached, reached.size
        yield last


def _part(path: str, key: str, events: list[list[Any]], issues: list[list[Any]], checkpoint: Checkpoint,
          start: int, *, middle: bool) -> Part:
    """A part with the checkpoint reached at its end. Mid-file, the size seen means nothing
    yet: size = offset, so if a later frame is lost in a crash the next pass reads on."""
    record_head(path, checkpoint)
    reached = checkpoint
    if middle:
        reached = copy.deepcopy(checkpoint)
        reached.size = checkpoint.offset
    batch, issues = _batch(events, issues)
    return Part(key, batch, issues, reached, checkpoint.offset - start)


def backfill_times(rows: list[list[Any]]) -> None:
    """Rows read before any timed record of their log carry time 0 (a Claude Code transcript
    opens with `permission-mode` and `file-history-snapshot` records, which have none): they
    take the time of the first timed row after them. A log that holds no timed record yet
    leaves them at 0, which every reader shows as an absent time, never as 1970."""
    first = next((row[WIRE_TS] for row in rows if row[WIRE_TS]), 0)
    if first:
        for row in rows:
            if row[WIRE_TS]:
                break
            row[WIRE_TS] = first


def _batch(events: list[list[Any]], issues: list[list[Any]]) -> tuple[Batch, list[list[Any]]]:
    """The screened rows as a batch (packed, in columns), a row msgpack refuses quarantined."""
    backfill_times(events)
    batch, rejected = packed_batch(events)
    return batch, [*issues, *rejected] if rejected else issues



AHEAD = 4  # task groups in flight per worker at least: enough to keep them busy on small logs
GROUP = 4  # files per task group (one round trip to a worker each)
# Log bytes the workers may parse ahead of the indexer. The indexer stops for seconds at a
# time to seal, merge and publish; the workers parse on through those stops only if this
# covers them (at 1M events, with a bound of 8 groups, they idled 40 s of 200).
RUN_AHEAD_BYTES = 128 * 1024 * 1024


def normalize_tasks(tasks: list[Task], sizes: list[int], use_pool: bool, workers: int
                ) -> Generator[list[Part], None, None]:
    """Normalized parts in task order (`sizes`: each task's new log bytes). With a pool, the
    workers run ahead of the indexer by at most RUN_AHEAD_BYTES of logs (back-pressure:
    `Executor.map` would submit every file at once and hold every finished result until the
    indexer reached it, the corpus in memory). Finished results wait pickled, about a third
    of their size as objects, so running far ahead costs little memory."""
    if not use_pool:
        yield from map(normalize_file, tasks)
        return
    groups = ((tasks[i : i + GROUP], sum(sizes[i : i + GROUP])) for i in range(0, len(tasks), GROUP))
    with pool_executor(workers, configure_redaction, (current(),)) as pool:  # the same rules as this process
        in_flight: deque[tuple[Future[bytes], int]] = deque()
        ahead = 0
        while True:
            while len(in_flight) < workers * AHEAD or ahead < RUN_AHEAD_BYTES:
                group = next(groups, None)
                if group is None:
                    break
                in_flight.append((pool.submit(_normalize_group, group[0]), group[1]))
                ahead += group[1]
            if not in_flight:
                return
            future, size = in_flight.popleft()
            ahead -= size
            done = pickle.loads(future.result())
            del future  # and its pickled copy of `done`: one large log's results are held once
            yield from done


def _normalize_group(tasks: list[Task]) -> bytes:
    return pickle.dumps([normalize_file(task) for task in tasks], protocol=pickle.HIGHEST_PROTOCOL)
