"""Helpers shared by the source adapters: stable IDs, timestamps, text extraction.

Everything here is pure and deterministic: the same bytes always give the same events and
the same IDs, whatever the wall clock, so a replay or a reindex is idempotent.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from typing import Any, overload

import orjson

from moraine.model import TS_MAX_MS, Event, LineRef, make_uid
from moraine.redaction.redact import redact_cached, redact_name_cached
from moraine.sources._clean import COERCED, as_text, has_long_digit_run, text_or_none

UUID_TAIL_RE = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")

# Moraine's own tools: their calls and results are not searched (an agent would mostly
# find its own earlier searches otherwise).
MORAINE_TOOL_NAMES = frozenset({"search_sessions", "open", "list_sessions", "search", "file_attention"})
WEB_TOOL_NAMES = frozenset({"websearch", "webfetch", "web_search", "web_fetch", "web_search_call",
                            "google_web_search", "searchweb", "fetchurl"})  # Gemini CLI; Kimi CLI


# Short values (ids, names, paths, models) repeat from record to record: redacted once each.
redact_short = redact_cached


@overload
def kept(value: str) -> str: ...
@overload
def kept(value: None) -> None: ...
def kept(value: str | None) -> str | None:
    """A value an adapter keeps in its state (it is stored in checkpoints): redacted, the same
    way every time, so lookups by the redacted form always agree. Such values are names
    (ids, tool names, models, folders, branches), redacted as names."""
    return None if value is None else redact_name_cached(value)


_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}")


def note_version(state: dict[str, Any], value: Any) -> None:
    """The harness's version a record names, for the events made of it and after it
    (`state["version"]`, stamped as `harness_version`): kept only when it looks like one (≤ 40
    characters of a version's alphabet), redacted as a name all the same; a record without one
    (or with something else) sets none, so no event shows a version its record did not carry."""
    state["version"] = kept(value) if isinstance(value, str) and _VERSION.fullmatch(value) else None


def new_event(source: str, session_key: str, ref: LineRef, sub: int, type_: str, ts_ms: int, text: str,
              **fields: Any) -> Event:
    """An event whose id derives from its harness, session and place in the file (line, and
    its index among the events of that line): the same bytes always give the same id."""
    basename = ref.file.rsplit("/", 1)[-1]
    return Event(
        uid=make_uid(source, session_key, basename, ref.line, sub), session_key=session_key, source=source,
        type=type_, ts_ms=ts_ms, text=text, file=ref.file, line=ref.line, offset=ref.offset, sub=sub, **fields,
    )


_MINUTES: dict[str, int] = {}  # `2026-04-29T18:42` → epoch seconds (records share minutes)


def parse_ts_ms(value: Any) -> int | None:
    """RFC 3339 (or naive ISO read as UTC, or unix seconds) → epoch milliseconds."""
    if (type(value) is str and len(value) == 24 and value[16] == ":" and value[19] == "." and value[23] == "Z"
            and value.isascii()):
        # `2026-04-29T18:42:31.125Z`, the shape both harnesses write: the minute is parsed
        # once, and the result is exactly the general path's (tested).
        seconds, millis = value[17:19], value[20:23]
        if seconds.isdigit() and millis.isdigit() and seconds < "60":
            minute = _MINUTES.get(value[:16])
            if minute is None:
                full = _parse_ts_ms(value[:16] + ":00Z")
                if full is None:
                    return None
                if len(_MINUTES) >= 100_000:
                    _MINUTES.clear()
                minute = _MINUTES[value[:16]] = full // 1000
            return int(((minute + int(seconds)) * 1000 + int(millis)) / 1000 * 1000)
    return _parse_ts_ms(value)


def advance_ts(state: dict[str, Any], value: object) -> None:
    """A record's time becomes the session's current time. A value that is not a time keeps the
    previous one (events stay in order) and is noted, so the line is reported, not trusted."""
    ts = parse_ts_ms(value)
    if ts is not None:
        state["ts"] = ts
    elif value is not None:
        COERCED.append(f"timestamp {as_text(value)[:40]} is not a time in 1970-9999: previous kept")




def _parse_ts_ms(value: Any) -> int | None:
    """The general path; a time before 1970 or after 9999 (or NaN, or 1e19) is no time at
    all: the event keeps its predecessor's, and the store never meets an int64 overflow."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        if not math.isfinite(seconds):
            return None
        ms = int(seconds * 1000) if seconds < 1e11 else int(seconds)
        return ms if 0 <= ms <= TS_MAX_MS else None
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        ms = int(parsed.timestamp() * 1000)
    except (ValueError, OverflowError):
        return None
    return ms if 0 <= ms <= TS_MAX_MS else None


def session_id_from_path(path: str) -> str | None:
    """The UUID that ends a log's file name, the native session id when records lack one."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    match = UUID_TAIL_RE.search(stem)
    return match.group(1).lower() if match else None


def content_text(value: Any) -> str:
    """Readable text of a message `content`: strings and text blocks, never image bytes."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [content_text(item) for item in value]
        return "\n".join(p for p in parts if p)
    if isinstance(value, dict):
        kind = value.get("type")
        if kind in ("image", "input_image", "image_url", "document"):
            return "[image]" if kind != "document" else "[document]"
        for key in ("text", "output_text", "input_text", "thinking", "content"):
            inner = value.get(key)
            if isinstance(inner, str) and inner:
                return inner
            if isinstance(inner, list):
                return content_text(inner)
        return ""
    return text_or_none(value) or ""  # a number or a flag where text belongs: kept as text, noted


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def arguments_text(name: str | None, arguments: Any) -> str:
    """The searchable text of a tool call: the command line, the path, the query.

    Structured arguments are flattened to their string values so `cargo test --locked` or
    `src/db/migrate.py` is findable, without JSON punctuation in the way.
    """
    values: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            if node:
                values.append(node)
        elif isinstance(node, list):
            if node and all(isinstance(x, str) for x in node):
                values.append(" ".join(node))
            else:
                for item in node:
                    walk(item)
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)
        elif node is not None and not isinstance(node, bool):
            values.append(str(node))

    walk(arguments)
    head = name or ""
    return (head + "\n" + "\n".join(values)).strip() if values else head


def maybe_json(text: Any) -> Any:
    """Codex sends tool arguments as a JSON string; decode it when it is one (orjson first,
    as for log lines; what it refuses, or what holds an integer past 64 bits, gets the
    standard library's exact reading)."""
    if isinstance(text, str) and text[:1] in "{[":
        # orjson would read an integer past 64 bits as an inexact float
        if not has_long_digit_run(text.encode("utf-8", "surrogatepass")):
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                pass
        try:
            return json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than orjson's 1024
            return text
    return text


def is_moraine_tool(name: str | None) -> bool:
    """`search_sessions`, `mcp__moraine__open`, `moraine__list_sessions`, … (case-insensitive)."""
    if not name:
        return False
    lowered = name.strip().lower()
    if lowered.startswith("mcp__"):
        parts = lowered.split("__")
        return len(parts) == 3 and parts[1] == "moraine" and parts[2] in MORAINE_TOOL_NAMES
    if lowered.startswith("moraine__") or lowered.startswith("moraine."):
        return lowered.split("__", 1)[-1].split(".", 1)[-1] in MORAINE_TOOL_NAMES
    return lowered in {"search_sessions", "list_sessions"}


def is_web_tool(name: str | None) -> bool:
    return name is not None and name.strip().lower() in WEB_TOOL_NAMES


EXIT_CODE_RE = re.compile(r"^(?:Exit code|Process exited with code):?\s*(-?\d+)", re.IGNORECASE | re.MULTILINE)
HEADER_LINES = 4  # unified exec (Codex 0.87+) heads its output `Chunk ID`, `Wall time`, then the exit line


def exit_code_from_output(output: Any) -> int | None:
    """Codex outputs begin `Exit code: N` (or carry it in the few header lines of unified exec:
    `Chunk ID`, `Wall time`, `Process exited with code N`), or carry `metadata.exit_code`."""
    if isinstance(output, dict):
        meta = output.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("exit_code"), int):
            return int(meta["exit_code"])
        for key in ("exit_code", "exitCode"):
            if isinstance(output.get(key), int) and not isinstance(output.get(key), bool):
                return int(output[key])
        return None
    if isinstance(output, str):
        head = "\n".join(output.lstrip().split("\n", HEADER_LINES)[:HEADER_LINES])
        match = EXIT_CODE_RE.search(head)
        if match:
            return int(match.group(1))
    return None
