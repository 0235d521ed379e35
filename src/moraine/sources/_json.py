"""JSON as the harnesses write it, read leniently and exactly (one place for lines and documents)."""

from __future__ import annotations

import json
from typing import Any

import orjson

from moraine.sources._clean import has_long_digit_run


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


def decode(raw: bytes) -> tuple[Any, str | bytes]:
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


