"""Registry of harness adapters and the one function that turns a raw line into events."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def normalize_line(
    adapter: Adapter, raw: bytes, ref: LineRef, state: dict[str, Any]
) -> tuple[list[Event], IngestIssue | None]:
    """Redact, decode and normalize one complete line; a bad line is an issue, not an error."""
    if len(raw) > MAX_LINE_BYTES:
        return [], IngestIssue(ref.file, ref.generation, ref.line, ref.offset, "line_too_large", "")
    text = redact(raw.decode("utf-8", errors="replace"))
    if not text.strip():
        return [], None
    try:
        record = json.loads(text)
    except ValueError as exc:
        return [], IngestIssue(ref.file, ref.generation, ref.line, ref.offset,
                               f"json_parse_error: {exc}", text[:FRAGMENT_CHARS])
    if not isinstance(record, dict):
        return [], IngestIssue(ref.file, ref.generation, ref.line, ref.offset,
                               f"not_an_object: {type(record).__name__}", text[:FRAGMENT_CHARS])
    if "\\ud" in text or "\\uD" in text:
        record = _without_lone_surrogates(record)
    try:
        return adapter.parse(record, ref, state), None
    except Exception as exc:  # an adapter bug must not stop ingest: quarantine the line
        return [], IngestIssue(ref.file, ref.generation, ref.line, ref.offset,
                               f"normalize_error: {type(exc).__name__}: {exc}", text[:FRAGMENT_CHARS])
