"""Registry of harness adapters and the one function that turns a raw line into events."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from moraine.model import Event, IngestIssue
from moraine.sources import claude_code, codex
from moraine.sources._common import LineRef
from moraine.sources.redact import redact

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
_redact_short = lru_cache(maxsize=16_384)(redact)
_SHORT = 256


def _redacted(node: Any) -> Any:
    """Every string inside a value (tool arguments, metadata) with credentials redacted."""
    if isinstance(node, str):
        return _redact_short(node) if len(node) <= _SHORT else redact(node)
    if isinstance(node, list):
        return [_redacted(item) for item in node]
    if isinstance(node, dict):
        return {key: _redacted(value) for key, value in node.items()}
    return node


def _redact_events(events: list[Event]) -> list[Event]:
    """Redaction covers every field that is stored: text, arguments and metadata. Working on
    the extracted values (not the raw line) skips what is never stored, such as encrypted
    reasoning and token accounting, and sees strings unescaped."""
    for event in events:
        event.text = redact(event.text)
        if event.arguments is not None:
            event.arguments = _redacted(event.arguments)
        if event.meta:
            event.meta = _redacted(event.meta)
    return events


def _issue(ref: LineRef, reason: str, line: str | bytes) -> IngestIssue:
    """A quarantined line keeps a redacted fragment (redacted whole, then cut, so a credential
    is never split at the cut)."""
    text = line if isinstance(line, str) else line.decode("utf-8", errors="replace")
    return IngestIssue(ref.file, ref.generation, ref.line, ref.offset, redact(reason), redact(text)[:FRAGMENT_CHARS])


def normalize_line(
    adapter: Adapter, raw: bytes, ref: LineRef, state: dict[str, Any]
) -> tuple[list[Event], IngestIssue | None]:
    """Decode, normalize and redact one complete line; a bad line is an issue, not an error."""
    if len(raw) > MAX_LINE_BYTES:
        return [], IngestIssue(ref.file, ref.generation, ref.line, ref.offset, "line_too_large", "")
    try:
        # orjson parses well-formed lines about twice as fast. What it refuses and `json`
        # reads with repairs (invalid UTF-8, lone surrogate escapes, NaN, 1e400) takes the
        # standard library's path; the one difference: integers beyond 64 bits become floats.
        record = orjson.loads(raw)
        line: str | bytes = raw  # decoded only if it is quarantined
    except orjson.JSONDecodeError:
        line = raw.decode("utf-8", errors="replace")
        if not line.strip():
            return [], None
        try:
            record = json.loads(line)
        except ValueError as exc:
            return [], _issue(ref, f"json_parse_error: {exc}", line)
        if "\\ud" in line or "\\uD" in line:
            record = _without_lone_surrogates(record)
    if not isinstance(record, dict):
        return [], _issue(ref, f"not_an_object: {type(record).__name__}", line)
    try:
        return _redact_events(adapter.parse(record, ref, state)), None
    except Exception as exc:  # an adapter bug must not stop ingest: quarantine the line
        return [], _issue(ref, f"normalize_error: {type(exc).__name__}: {exc}", line)
