"""What a WAL frame may hold: checked before a frame is written and again before one is applied.

The parse workers clean every event (`sources._clean`), so a frame that fails here was
written by an older version or by a bug. Either way one bad row must not make the whole
state unusable: the row is left out and quarantined with its log coordinates, and the rest
of the frame applies. The check is types and ranges only, no I/O, O(rows).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import msgpack

from moraine.model import (
    EVENT_TYPES,
    INT32_MAX,
    INT32_MIN,
    META_TEXT,
    ROW_FORMAT,
    ROW_LENGTHS,
    TS_MAX_MS,
    UID_RE,
    WIRE_FIELDS,
    Event,
    IngestIssue,
    LineRef,
    current_row,
    wire_places,
)
from moraine.store.batch import Batch, BatchError

_TYPES = frozenset(EVENT_TYPES)
WIRE_LEN = len(WIRE_FIELDS)
# The places `event_row_problem` checks, by name (every one but the arguments).
_CHECKED = wire_places("uid", "session_key", "source", "type", "ts_ms", "text", "tool_name", "tool_call_id",
                       "exit_code", "model", "starts_turn", "terminal", "excluded", "phase", "file", "line", "offset",
                       "sub", "meta", "harness_version")
_COORDS = wire_places("file", "line", "offset")
_COORD_MAX = 2**62


def event_row_problem(row: Any) -> str | None:
    """Why this wire row (see `Event.to_wire`) cannot be applied, or None when it can. Runs
    once per event in the parse workers: plain comparisons, no generators, and one call
    (`_place_problem`) for the log coordinates and metadata; first problem wins."""
    if type(row) is not list or len(row) != WIRE_LEN:
        return "event row has the wrong shape"
    (uid, key, source, type_, ts, text, tool, call, code, model, starts, terminal, excluded, phase, file,
     line, offset, sub, meta, version) = _CHECKED(row)
    if type(uid) is not str or not UID_RE.match(uid):
        return "event id is malformed"
    if type(key) is not str or not key or type(source) is not str or type(text) is not str:
        return "session key, source or text is not text"
    if type(type_) is not str or type_ not in _TYPES:  # a map or list is unhashable: no set lookup
        return f"unknown event type {str(type_)[:40]!r}"
    if type(ts) is not int or not 0 <= ts <= TS_MAX_MS:
        return f"timestamp {str(ts)[:40]} is out of range"
    if not ((tool is None or type(tool) is str) and (call is None or type(call) is str)
            and (model is None or type(model) is str) and (phase is None or type(phase) is str)
            and (version is None or type(version) is str)):
        return "tool name, call id, model, phase or harness version is not text"
    if code is not None and (type(code) is not int or not INT32_MIN <= code <= INT32_MAX):
        return "exit code out of range"
    if type(starts) is not bool or type(excluded) is not bool or terminal not in (0, 1, 2):
        return "turn flags malformed"
    return _place_problem(file, line, offset, sub, meta)


_FORMAT_OF_LENGTH = {length: row_format for row_format, length in ROW_LENGTHS.items()}


def stored_row_problem(row: Any) -> str | None:
    """Why a row read back from a content chunk is not an event of any format this version
    reads (None when it is one): a row a bug wrote, inside a frame whose checksum held."""
    row_format = _FORMAT_OF_LENGTH.get(len(row)) if type(row) is list else None
    if row_format is None:
        return "event row has the wrong shape"
    return event_row_problem(current_row(row, row_format))


def _place_problem(file: Any, line: Any, offset: Any, sub: Any, meta: Any) -> str | None:
    """Where the event was read (log coordinates) and its metadata."""
    if (type(file) is not str or type(line) is not int or type(offset) is not int or type(sub) is not int
            or line < 0 or offset < 0 or sub < 0 or line > INT32_MAX or offset > _COORD_MAX or sub > INT32_MAX):
        return "log coordinates malformed"  # line and sub order a session's events in int32 catalog columns
    if type(meta) is not dict:
        return "metadata malformed"
    if meta:
        for name, value in meta.items():
            if name in META_TEXT and value is not None and type(value) is not str:
                return "metadata malformed"
    return None


def _issue_row_ok(row: Any) -> bool:
    return (isinstance(row, list) and len(row) == 6 and isinstance(row[0], str) and isinstance(row[4], str)
            and isinstance(row[5], str) and all(type(v) is int for v in row[1:4]))


def _checkpoint_ok(path: Any, row: Any) -> bool:
    return (isinstance(path, str) and isinstance(row, list) and len(row) in (10, 11) and isinstance(row[0], str)
            and all(type(v) is int and v >= 0 for v in row[1:6]) and isinstance(row[6], dict | bytes)
            and isinstance(row[8], int) and isinstance(row[9], str) and all(type(v) is int for v in row[10:]))


def screen_frame(payload: Any, where: str) -> tuple[dict[str, Any], list[IngestIssue]]:
    """The applicable part of a frame and an issue for each part left out. `where` names the
    frame (WAL file and offset) in the issues of parts that have no log coordinates. Each part
    is screened in turn (`_SCREENS`); a part that needs cleaning is replaced in a new map, the
    frame read from the WAL is never changed in place."""
    if not isinstance(payload, dict):
        return {}, [_rejected(where, "payload is not a map")]
    issues: list[IngestIssue] = []
    for screen in _SCREENS:
        payload = screen(payload, where, issues)
    return payload, issues


def _rejected(where: str, what: str) -> IngestIssue:
    """An issue for a part of the frame left out, at the frame's own coordinates."""
    return IngestIssue(where, 0, 0, 0, f"wal_frame_rejected: {what}", "")


def _screen_events(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """A frame's events, as a `Batch` wire form ("batch") or, in frames of older versions, as
    rows ("events"), leave as one `Batch` under "batch" holding those that can be applied;
    each event left out is quarantined with its coordinates, a batch of the wrong shape whole.
    Rows of an earlier row format ("row_format", 1 when absent) read as the current one; a frame
    of a format this version does not know (a newer Moraine wrote it) applies without its events."""
    row_format = payload.get("row_format", 1)
    if type(row_format) is not int or row_format not in ROW_LENGTHS:
        issues.append(_rejected(where, f"{_unknown_format(row_format)}: its events left out, and the logs they "
                                       "came from read again"))
        return {**{k: v for k, v in payload.items() if k not in _WITH_EVENTS}, "batch": Batch()}
    rows = payload.get("events", [])
    if not isinstance(rows, list):
        issues.append(_rejected(where, "events are not a list"))
        rows = []
    if row_format != ROW_FORMAT:
        rows = [(isinstance(row, list) and current_row(row, row_format)) or row for row in rows]
    problems = [event_row_problem(row) for row in rows]
    if any(problems):
        kept = []
        for row, problem in zip(rows, problems, strict=True):
            if problem is None:
                kept.append(row)
            else:
                issues.append(_row_issue(row, problem, where))
        rows = kept
    batches = [_rows_batch(rows, issues)] if rows else []
    if "batch" in payload:
        batches.append(_screen_batch(payload["batch"], where, issues))
    out = {name: value for name, value in payload.items() if name != "events"}
    out["batch"] = Batch.concat(batches)
    return out


# What a frame of an unknown row format applies without: its events and what goes with them. Its
# checkpoints are not applied, so the logs they cover are read again from where the state had them
# (the events come back in this version's format; their IDs are the same), and what a log read
# whole retired is worked out again by that read. What the person asked (forget, retention's
# tombstones, tracked observations) still applies.
_WITH_EVENTS = frozenset({"events", "batch", "checkpoints", "retire", "rules"})


def _unknown_format(row_format: Any) -> str:
    if type(row_format) is int and row_format > max(ROW_LENGTHS):
        return f"row format {row_format} is newer than this Moraine reads (another version wrote it)"
    return f"row format {str(row_format)[:20]!r} is not one Moraine writes"


def _rows_batch(rows: list[list[Any]], issues: list[IngestIssue]) -> Batch:
    batch, rejected = packed_batch(rows)
    issues.extend(IngestIssue.from_wire(row) for row in rejected)
    return batch


def packed_batch(rows: list[list[Any]]) -> tuple[Batch, list[list[Any]]]:
    """Screened rows as a batch, and an issue (wire form) for each row msgpack refuses (found
    only when packing them all fails): the parse workers' and the replay's one way from rows."""
    try:
        return Batch.from_rows(rows), []
    except (OverflowError, ValueError, TypeError):
        kept, rejected = packable(rows)
        return Batch.from_rows(kept), rejected


def _screen_batch(wire: Any, where: str, issues: list[IngestIssue]) -> Batch:
    """A batch read back from the WAL: refused whole when its shape is wrong, cut to the events
    whose values can be applied."""
    try:
        batch = Batch.from_wire(wire)
    except BatchError as exc:
        issues.append(_rejected(where, f"{exc}: its events left out"))
        return Batch()
    problems = batch.problems()
    if not problems:
        return batch
    for i, problem in sorted(problems.items()):
        file = batch.files[int(batch.file_ix[i])]
        issues.append(IngestIssue(file, 0, int(batch.line[i]), int(batch.offset[i]), f"rejected_event: {problem}", ""))
    return batch.take([i for i in range(len(batch)) if i not in problems])


def _screen_issue_rows(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """Malformed quarantine rows (see `IngestIssue.to_wire`) are dropped, without an issue of their own."""
    raw_issues = payload.get("issues", [])
    if not isinstance(raw_issues, list) or not all(_issue_row_ok(r) for r in raw_issues):
        payload = {**payload, "issues": [r for r in raw_issues if _issue_row_ok(r)] if isinstance(raw_issues, list)
                   else []}
    return payload


def _screen_checkpoints(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """A malformed checkpoint is left out: its log is read again from the last good one."""
    checkpoints = payload.get("checkpoints", {})
    if not isinstance(checkpoints, dict) or not all(_checkpoint_ok(p, r) for p, r in checkpoints.items()):
        issues.append(_rejected(where, "malformed checkpoints left out"))
        payload = {**payload, "checkpoints": {p: r for p, r in checkpoints.items() if _checkpoint_ok(p, r)}
                   if isinstance(checkpoints, dict) else {}}
    return payload


def _screen_file_issues(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """Logs that cannot be read now (path → reason, None when readable again): a malformed map
    is dropped whole, without an issue."""
    files = payload.get("file_issues", {})
    if not isinstance(files, dict) or not all(isinstance(k, str) and (v is None or isinstance(v, str))
                                              for k, v in files.items()):
        payload = {**payload, "file_issues": {}}
    return payload


def _screen_string_lists(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """Tombstones (session keys) and tracked input events: malformed entries are left out."""
    for name, ok in (("tombstones", lambda v: isinstance(v, str)), ("tracked", _tracked_ok)):
        value = payload.get(name, [])
        if not isinstance(value, list) or not all(ok(v) for v in value):
            issues.append(_rejected(where, f"malformed {name} left out"))
            payload = {**payload, name: [v for v in value if ok(v)] if isinstance(value, list) else []}
    return payload


def _screen_retire(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """Retired event ids must be well-formed uids; others are left out."""
    retire = payload.get("retire", [])
    if not isinstance(retire, list) or not all(isinstance(u, str) and UID_RE.match(u) for u in retire):
        issues.append(_rejected(where, "malformed retired IDs left out"))
        payload = {**payload, "retire": [u for u in retire if isinstance(u, str) and UID_RE.match(u)]
                   if isinstance(retire, list) else []}
    return payload


def _screen_forget(payload: dict[str, Any], where: str, issues: list[IngestIssue]) -> dict[str, Any]:
    """Forgotten log paths: a list with anything but paths is dropped whole, without an issue."""
    forget = payload.get("forget", [])
    if not isinstance(forget, list) or not all(isinstance(p, str) for p in forget):
        payload = {**payload, "forget": []}
    return payload


# The parts of a frame, screened in this order (the order of the issues they add).
_SCREENS: tuple[Callable[[dict[str, Any], str, list[IngestIssue]], dict[str, Any]], ...] = (
    _screen_events, _screen_issue_rows, _screen_checkpoints, _screen_file_issues, _screen_string_lists,
    _screen_retire, _screen_forget,
)


def _tracked_ok(row: Any) -> bool:
    """[session id, prompt, input, success, source, response ms, at ms] of track_input_event."""
    return (isinstance(row, list) and len(row) == 7 and isinstance(row[0], str) and isinstance(row[1], str)
            and isinstance(row[2], str) and isinstance(row[4], str) and isinstance(row[3], bool)
            and type(row[5]) is int and type(row[6]) is int)


def packable(rows: list[Any]) -> tuple[list[Any], list[list[Any]]]:
    """The rows msgpack can store, and an issue (wire form, with the row's coordinates) for each
    it cannot: the one net, used by the parse workers and by `Store.commit`, under a cleaning
    rule that would be missing (bad input itself never gets this far)."""
    kept: list[Any] = []
    issues: list[list[Any]] = []
    for row in rows:
        try:
            msgpack.packb(row, use_bin_type=True)
            kept.append(row)
        except (OverflowError, ValueError, TypeError) as exc:
            issues.append(_row_issue(row, f"cannot be stored: {exc}", "?").to_wire())
    return kept, issues


def _row_issue(row: Any, problem: str, where: str) -> IngestIssue:
    """Coordinates from the row when it has them (file, line, offset), else the frame's."""
    if isinstance(row, list) and len(row) == WIRE_LEN:
        file, line, offset = _COORDS(row)
        if isinstance(file, str) and type(line) is int and type(offset) is int:
            return IngestIssue(file, 0, line, offset, f"rejected_event: {problem}", "")
    return IngestIssue(where, 0, 0, 0, f"rejected_event: {problem}", "")


def storable(events: list[Event], issues: list[list[Any]], ref: LineRef) -> list[list[Any]]:
    """Wire rows of the events the store can apply; the last net under the adapters (their
    output is cleaned already, so this drops nothing unless a cleaning rule is missing)."""
    kept = []
    for event in events:
        row = event.to_wire()
        problem = event_row_problem(row)
        if problem is None:
            kept.append(row)
        else:
            issues.append([ref.file, ref.generation, ref.line, ref.offset, f"rejected_event: {problem}", ""])
    return kept


def packable_frame(payload: dict[str, Any], batch: Batch) -> tuple[dict[str, Any], Batch]:
    """The frame without what msgpack refuses: events whose text or metadata it cannot store
    (each quarantined), and checkpoints (their files are read again next pass; ids dedupe)."""
    rejected: list[list[Any]] = []
    kept = []
    for i in range(len(batch)):
        try:
            msgpack.packb([batch.texts[i], batch.metas.get(i)], use_bin_type=True)
            kept.append(i)
        except (OverflowError, ValueError, TypeError) as exc:
            rejected.append([batch.files[int(batch.file_ix[i])], 0, int(batch.line[i]), int(batch.offset[i]),
                             f"rejected_event: cannot be stored: {exc}", ""])
    checkpoints = {}
    for path, row in payload.get("checkpoints", {}).items():
        with contextlib.suppress(OverflowError, ValueError, TypeError):
            msgpack.packb(row, use_bin_type=True)
            checkpoints[path] = row
    return ({**payload, "issues": [*payload.get("issues", []), *rejected], "checkpoints": checkpoints},
            batch.take(kept))
