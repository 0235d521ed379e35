"""Registry of harness adapters and the one function that turns a raw line into events."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from moraine.model import Event, IngestIssue
from moraine.sources import claude_code, codex, copilot_cli, cursor, gemini_cli, kimi_cli, pi, qwen_code
from moraine.sources._clean import COERCED, clean_event, has_long_digit_run
from moraine.sources._common import LineRef, redact_short
from moraine.sources.redact import Settings, configure, redact, redact_path

MAX_LINE_BYTES = 16 * 1024 * 1024
FRAGMENT_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Adapter:
    """A harness: where its logs live and how one record becomes events."""

    name: str
    pattern: str  # glob below the source root
    parse: Callable[[dict[str, Any], LineRef, dict[str, Any]], list[Event]]
    initial_state: Callable[[str], dict[str, Any]]


ADAPTERS: dict[str, Adapter] = {
    codex.NAME: Adapter(codex.NAME, "**/*.jsonl", codex.parse, codex.initial_state),
    claude_code.NAME: Adapter(claude_code.NAME, "**/*.jsonl", claude_code.parse, claude_code.initial_state),
    pi.NAME: Adapter(pi.NAME, "**/*.jsonl", pi.parse, pi.initial_state),
    qwen_code.NAME: Adapter(qwen_code.NAME, "**/chats/**/*.jsonl", qwen_code.parse, qwen_code.initial_state),
    kimi_cli.NAME: Adapter(kimi_cli.NAME, "*/*/**/wire.jsonl", kimi_cli.parse, kimi_cli.initial_state),
    cursor.NAME: Adapter(cursor.NAME, "*/agent-transcripts/**/*.jsonl", cursor.parse, cursor.initial_state),
    copilot_cli.NAME: Adapter(copilot_cli.NAME, "**/*.jsonl", copilot_cli.parse, copilot_cli.initial_state),
    gemini_cli.NAME: Adapter(gemini_cli.NAME, "*/chats/**/*.jsonl", gemini_cli.parse, gemini_cli.initial_state),
}


def _fix_text(value: str) -> str:
    return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _without_lone_surrogates(node: Any) -> Any:
    """JSON may escape half a surrogate pair (`\\ud83d`); such text cannot be stored as UTF-8,
    so a lone half becomes U+FFFD and a pair becomes the character it encodes."""
    if isinstance(node, str):
        return _fix_text(node)
    if isinstance(node, list):
        return [_without_lone_surrogates(item) for item in node]
    if isinstance(node, dict):
        return {_fix_text(k): _without_lone_surrogates(v) for k, v in node.items()}
    return node


# Metadata and argument values repeat from event to event (a cwd, a branch, a model, a
# path): short ones are redacted once per worker and remembered.
_SHORT = 256


def _redacted(node: Any) -> Any:
    """Every string inside a value (tool arguments, metadata), keys included, with
    credentials redacted."""
    if isinstance(node, str):
        return redact_short(node) if len(node) <= _SHORT else redact(node)
    if isinstance(node, list):
        return [_redacted(item) for item in node]
    if isinstance(node, dict):
        return {redact_short(key): _redacted(value) for key, value in node.items()}
    return node


def _redact_events(events: list[Event]) -> list[Event]:
    """Redaction covers every field that is stored: text, names, ids, arguments and
    metadata. Working on the extracted values (not the raw line) skips what is never stored,
    such as encrypted reasoning and token accounting, and sees strings unescaped."""
    short = redact_short
    for event in events:
        event.text = redact(event.text)
        event.session_key = short(event.session_key)
        if event.tool_name is not None:
            event.tool_name = short(event.tool_name)
        if event.tool_call_id is not None:
            event.tool_call_id = short(event.tool_call_id)
        if event.model is not None:
            event.model = short(event.model)
        if event.phase is not None:
            event.phase = short(event.phase)
        if event.arguments is not None:
            event.arguments = _redacted(event.arguments)
        if event.meta:
            event.meta = _redacted(event.meta)
    return events


REDACTED_PATH = "redacted-path:"


@lru_cache(maxsize=65_536)
def path_key(path: str) -> str | None:
    """The name a log file goes by in the state: its path, unless the path holds a
    credential (a Claude project folder is named after its cwd) — then the redacted path
    behind `redacted-path:<hash of the real path>:`, so two such files never share a key and
    no secret byte is stored. None for a name that is not valid UTF-8 (it cannot be stored;
    the pipeline reports the file instead of reading it)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return None
    clean = redact_path(path)
    if clean == path:
        return path
    digest = hashlib.blake2b(path.encode("utf-8"), digest_size=6).hexdigest()
    return f"{REDACTED_PATH}{digest}:{clean}"


def display_path(path: str) -> str:
    """A path as it can be shown and stored: invalid UTF-8 bytes as U+FFFD, credentials redacted."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return redact_path(text)


def configure_redaction(settings: Settings) -> None:
    """Make `settings` the redaction rules of this process, forgetting every cached result."""
    configure(settings)
    path_key.cache_clear()


def _issue(ref: LineRef, reason: str, line: str | bytes) -> IngestIssue:
    """A quarantined line keeps a redacted fragment (redacted whole, then cut, so a credential
    is never split at the cut)."""
    text = line if isinstance(line, str) else line[: FRAGMENT_CHARS * 4].decode("utf-8", errors="replace")
    fragment = redact(text[: FRAGMENT_CHARS * 4])[:FRAGMENT_CHARS]
    return IngestIssue(ref.file, ref.generation, ref.line, ref.offset, redact(reason), fragment)


def _decode(raw: bytes) -> tuple[Any, str | bytes]:
    """The record of a line and the line itself (decoded only when the slow path ran)."""
    # orjson parses well-formed lines about twice as fast. What it refuses and `json` reads
    # with repairs (invalid UTF-8, lone surrogate escapes, NaN, 1e400) takes the standard
    # library's path, and so does a line with a run of 20+ digits: orjson would read an
    # integer beyond 64 bits as an inexact float, `json` reads it exactly (kept as text later).
    if not has_long_digit_run(raw):
        try:
            return orjson.loads(raw), raw
        except orjson.JSONDecodeError:
            pass
    line = raw.decode("utf-8", errors="replace")
    if not line.strip():
        return None, line
    record = json.loads(line)  # ValueError / RecursionError: the caller quarantines
    if "\\ud" in line or "\\uD" in line:
        record = _without_lone_surrogates(record)
    return record, line


def normalize_line(
    adapter: Adapter, raw: bytes, ref: LineRef, state: dict[str, Any], size: int | None = None
) -> tuple[list[Event], IngestIssue | None]:
    """Decode, normalize, clean and redact one complete line. Never raises: a line that
    cannot be used is an issue (quarantined with its coordinates), and a value that had to
    be kept as text is reported beside the events it belongs to."""
    size = len(raw) if size is None else size  # the reader hands over only the head of an oversized line
    if size > MAX_LINE_BYTES:
        return [], _issue(ref, f"line_too_large: {size} bytes (limit {MAX_LINE_BYTES})", raw[:FRAGMENT_CHARS])
    line: str | bytes = raw
    try:
        record, line = _decode(raw)
    except RecursionError:
        return [], _issue(ref, "json_too_deep: nested deeper than the JSON reader allows", raw[:FRAGMENT_CHARS])
    except ValueError as exc:
        return [], _issue(ref, f"json_parse_error: {exc}", line)
    if record is None and not isinstance(line, bytes):
        return [], None  # a blank line
    if not isinstance(record, dict):
        return [], _issue(ref, f"not_an_object: {type(record).__name__}", line)
    COERCED.clear()
    try:
        events = adapter.parse(record, ref, state)
        notes = COERCED + [note for event in events for note in clean_event(event)]
        events = _redact_events(events)
    except Exception as exc:  # an adapter bug must not stop ingest: quarantine the line
        return [], _issue(ref, f"normalize_error: {type(exc).__name__}: {exc}", line)
    if notes:
        return events, _issue(ref, "kept_as_text: " + "; ".join(dict.fromkeys(notes)), line)
    return events, None
