"""Registry of harness adapters and the one function that turns a raw line into events."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from moraine.model import Event, IngestIssue, LineRef
from moraine.redaction.redact import redact, redact_name_cached
from moraine.redaction.structured import redact_value
from moraine.sources import claude_code, codex, copilot_cli, cursor, gemini_cli, kimi_cli, opencode, pi, qwen_code
from moraine.sources._clean import COERCED, clean_event
from moraine.sources._common import redact_short
from moraine.sources._document import Read
from moraine.sources._json import decode as _decode

MAX_LINE_BYTES = 16 * 1024 * 1024
FRAGMENT_CHARS = 2000


def _jsonl(path: str) -> bool:
    return path.endswith(".jsonl")


def _never(path: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Adapter:
    """A harness: where its logs live and how one record becomes events.

    Most harnesses append lines; some rewrite a JSON document in place or keep a database.
    Those have `read`: given a path `whole` accepts, it returns the records the log holds now
    (see `_document.Read`), and the pipeline replaces what the state held of them."""

    name: str
    pattern: str  # glob below the source root
    parse: Callable[[dict[str, Any], LineRef, dict[str, Any]], list[Event]]
    initial_state: Callable[[str], dict[str, Any]]
    accepts: Callable[[str], bool] = _jsonl  # which discovered files are this harness's logs
    suffixes: tuple[str, ...] = (".jsonl",)
    under: tuple[str, ...] | None = None  # the only sub-folders of the root worth walking
    whole: Callable[[str], bool] = _never  # which of its logs are read whole, not by lines
    read: Callable[[str, str, dict[str, Any]], Read] | None = None
    token: Callable[[str], list[int]] | None = None  # more of what a whole log's change token covers


ADAPTERS: dict[str, Adapter] = {
    codex.NAME: Adapter(codex.NAME, "**/*.jsonl", codex.parse, codex.initial_state),
    claude_code.NAME: Adapter(claude_code.NAME, "**/*.jsonl", claude_code.parse, claude_code.initial_state),
    pi.NAME: Adapter(pi.NAME, "**/*.jsonl", pi.parse, pi.initial_state),
    qwen_code.NAME: Adapter(qwen_code.NAME, "**/chats/**/*.jsonl", qwen_code.parse, qwen_code.initial_state),
    kimi_cli.NAME: Adapter(kimi_cli.NAME, "*/*/**/wire.jsonl", kimi_cli.parse, kimi_cli.initial_state),
    cursor.NAME: Adapter(cursor.NAME, "*/agent-transcripts/**/*.jsonl", cursor.parse, cursor.initial_state),
    copilot_cli.NAME: Adapter(copilot_cli.NAME, "**/*.jsonl", copilot_cli.parse, copilot_cli.initial_state),
    gemini_cli.NAME: Adapter(gemini_cli.NAME, "*/chats/**/*.json[l]", gemini_cli.parse, gemini_cli.initial_state,
                             accepts=gemini_cli.accepts, suffixes=(".jsonl", ".json"), whole=gemini_cli.whole,
                             read=gemini_cli.read),
    opencode.NAME: Adapter(opencode.NAME, "opencode*.db", opencode.parse, opencode.initial_state,
                           accepts=opencode.accepts, suffixes=(".db", ".json"), under=opencode.UNDER,
                           whole=opencode.whole, read=opencode.read, token=opencode.legacy_token),
}


def _redact_events(events: list[Event]) -> list[Event]:
    """Redaction covers every field that is stored: text, names, ids, arguments and
    metadata. Working on the extracted values (not the raw line) skips what is never stored,
    such as encrypted reasoning and token accounting, and sees strings unescaped."""
    short = redact_short
    for event in events:
        if event.tool_name is not None:
            name = redact_name_cached(event.tool_name)
            if name != event.tool_name and event.tool_name in event.text:  # a call's text opens with its name
                event.text = event.text.replace(event.tool_name, name)
            event.tool_name = name
        event.text = redact(event.text)
        event.session_key = short(event.session_key)
        if event.tool_call_id is not None:
            event.tool_call_id = redact_name_cached(event.tool_call_id)
        if event.model is not None:
            event.model = redact_name_cached(event.model)
        if event.phase is not None:
            event.phase = short(event.phase)
        if event.arguments is not None:
            event.arguments = redact_value(event.arguments)
        if event.meta:
            event.meta = redact_value(event.meta)
    return events


_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_+/=.~%-]+$")


def _issue(ref: LineRef, reason: str, line: str | bytes) -> IngestIssue:
    """A quarantined line keeps a redacted fragment: a window four times the fragment is redacted
    whole, then cut, and a cut that falls inside a run of token characters drops the run, so a
    credential is never kept in part (redacting a piece already cut would not recognise it)."""
    window = line[: FRAGMENT_CHARS * 4]
    text = window if isinstance(window, str) else window.decode("utf-8", errors="replace")
    fragment = redact(text)
    if len(fragment) > FRAGMENT_CHARS:
        fragment = fragment[:FRAGMENT_CHARS]
        if _TOKEN_TAIL.search(fragment) and not fragment.endswith("]"):
            fragment = _TOKEN_TAIL.sub("", fragment)
    return IngestIssue(ref.file, ref.generation, ref.line, ref.offset, redact(reason), fragment)


def normalize_line(
    adapter: Adapter, raw: bytes, ref: LineRef, state: dict[str, Any], size: int | None = None
) -> tuple[list[Event], IngestIssue | None]:
    """Decode, normalize, clean and redact one complete line. Never raises: a line that
    cannot be used is an issue (quarantined with its coordinates), and a value that had to
    be kept as text is reported beside the events it belongs to."""
    size = len(raw) if size is None else size  # the reader hands over only the head of an oversized line
    if size > MAX_LINE_BYTES:
        return [], _issue(ref, f"line_too_large: {size} bytes (limit {MAX_LINE_BYTES})", raw)
    line: str | bytes = raw
    try:
        record, line = _decode(raw)
    except RecursionError:
        return [], _issue(ref, "json_too_deep: nested deeper than the JSON reader allows", raw)
    except ValueError as exc:
        return [], _issue(ref, f"json_parse_error: {exc}", line)
    if record is None and not isinstance(line, bytes):
        return [], None  # a blank line
    if not isinstance(record, dict):
        return [], _issue(ref, f"not_an_object: {type(record).__name__}", line)
    return normalize_record(adapter, record, ref, state, line)


def normalize_record(adapter: Adapter, record: Any, ref: LineRef, state: dict[str, Any],
                     line: str | bytes | None = None) -> tuple[list[Event], IngestIssue | None]:
    """Normalize, clean and redact one decoded record (a line's, or one a reader of whole logs
    returned); `line` is what a quarantine keeps of it. Never raises."""
    if not isinstance(record, dict):
        return [], _issue(ref, f"not_an_object: {type(record).__name__}", _as_line(record, line))
    COERCED.clear()
    try:
        events = adapter.parse(record, ref, state)
        notes = COERCED + [note for event in events for note in clean_event(event)]
        events = _redact_events(events)
    except Exception as exc:  # an adapter bug must not stop ingest: quarantine the line
        return [], _issue(ref, f"normalize_error: {type(exc).__name__}: {exc}", _as_line(record, line))
    if notes:
        return events, _issue(ref, "kept_as_text: " + "; ".join(dict.fromkeys(notes)), _as_line(record, line))
    return events, None


def _as_line(record: Any, line: str | bytes | None) -> str | bytes:
    """What a quarantine keeps of a record that came without a line (a reader of whole logs)."""
    if line is not None:
        return line
    try:
        return orjson.dumps(record, default=str)[: FRAGMENT_CHARS * 4]
    except (TypeError, orjson.JSONEncodeError):
        return repr(record)[: FRAGMENT_CHARS * 4]
