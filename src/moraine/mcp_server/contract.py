"""Envelopes, error codes, IDs, cursors and time parsing of the v1 interface contract.

Exactly one function (`error_envelope`) maps errors to contract codes; tools raise
`ContractError` and never build error JSON themselves.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moraine.errors import ContractError, DeadlineExceeded, SeedError
from moraine.ingest.state import Freshness
from moraine.model import ID_RE, TS_MAX_MS
from moraine.redaction.redact import redact
from moraine.wire import ARGUMENTS_NOT_AN_OBJECT, loads_bounded

if TYPE_CHECKING:
    from moraine.store.engine import Store

OFFSET_RE = re.compile(r"(?:[zZ]|[+-]\d{2}:\d{2})$")
DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
DATE_PREFIX_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}")
SUMMARY_CHARS = 300


@dataclass(frozen=True, slots=True)
class ParsedId:
    kind: str  # session | turn | event
    key: str  # the session or event hash
    ordinal: int = 0  # turns only


@dataclass
class ToolResult:
    structured: dict[str, Any]
    text: str
    is_error: bool = False


class Timer:
    """Measures tool handling from receipt; `deadline` is absolute monotonic seconds."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.budget_ms: int | None = None  # the last deadline handed out, for `deadline_exceeded`

    def elapsed_ms(self) -> int:
        return round((time.perf_counter() - self.start) * 1000)

    def deadline(self, seconds: float) -> float:
        self.budget_ms = int(seconds * 1000)
        return time.monotonic() + seconds


def parse_id(value: Any, field: str = "id") -> ParsedId:
    if not isinstance(value, str) or not (match := ID_RE.match(value)):
        raise ContractError("invalid_id", f"{field} is not a valid Moraine MCP ID", {"field": field})
    if match.group(1):
        return ParsedId("session", match.group(2))
    if match.group(3):
        return ParsedId("turn", match.group(4), int(match.group(5)))
    return ParsedId("event", match.group(7))


def performance(timer: Timer, sla_ms: int) -> dict[str, Any]:
    elapsed = timer.elapsed_ms()
    return {"elapsed_ms": elapsed, "sla_target_ms": sla_ms, "met_sla": elapsed <= sla_ms}


def success_envelope(tool: str, request: dict[str, Any], data: dict[str, Any], warnings: list[str],
                     timer: Timer, sla_ms: int) -> dict[str, Any]:
    return {
        "schema_version": f"moraine.mcp.{tool}.v1",
        "tool": tool,
        # The request echoed with its credentials redacted: a caller that searched for a key it
        # pasted gets no copy of it back (hosts keep tool results in their own logs).
        "request": {key: redact(value) if isinstance(value, str) else value for key, value in request.items()},
        "data": data,
        "warnings": warnings,
        "performance": performance(timer, sla_ms),
    }


MAX_MESSAGE = 300


def error_envelope(tool: str, request: Any, error: Exception, timer: Timer, sla_ms: int) -> dict[str, Any]:
    """The one place an exception becomes a contract error object."""
    if isinstance(error, ContractError):
        code, message, details = error.code, error.message, error.details
    elif isinstance(error, DeadlineExceeded):
        budget = error.deadline_ms if error.deadline_ms is not None else timer.budget_ms
        code, message, details = "deadline_exceeded", f"{tool} exceeded its response deadline", \
            {"deadline_ms": budget}
    else:
        code, message, details = "internal_error", f"{type(error).__name__}: {error}", {}
    if len(message) > MAX_MESSAGE:  # a message quoting a huge argument
        message = message[: MAX_MESSAGE - 1] + "…"
    return {
        "schema_version": "moraine.mcp.error.v1",
        "tool": tool,
        "request": _echo(request) if isinstance(request, dict) and ARGUMENTS_NOT_AN_OBJECT not in request else {},
        "error": {"code": code, "message": message, "details": details},
        "warnings": [],
        "performance": performance(timer, sla_ms),
    }


ECHO_CHARS = 200  # the longest argument string an error echoes whole
ECHO_ITEMS = 20


def _echo(value: Any) -> Any:
    """The request as an error echoes it: a hostile argument (a 100,000-character query, a list
    of thousands) is cut, so an error stays small and far below the host's bound."""
    if isinstance(value, str):
        return value if len(value) <= ECHO_CHARS else value[: ECHO_CHARS - 1] + "…"
    if isinstance(value, list):
        return [_echo(item) for item in value[:ECHO_ITEMS]]
    if isinstance(value, dict):
        return {_echo(key): _echo(item) for key, item in list(value.items())[:ECHO_ITEMS]}
    return value


def seed_failure(tool: str, error: Exception) -> ToolResult:
    """The one place an exception becomes a history tool's error (`{"error", "code"}`, their
    form, in-band like every Moraine error); a message quoting a huge argument is cut."""
    if isinstance(error, SeedError):
        code, message, extra = error.code, error.message, error.extra
    elif isinstance(error, ContractError):  # a request refused by the checks every tool shares (`arguments`, `refs`)
        code, message = "INVALID_REQUEST", error.message
        extra = {"candidates": error.details["candidates"]} if "candidates" in error.details else {}
    else:
        code, message, extra = "INTERNAL_ERROR", f"internal error: {type(error).__name__}: {error}", {}
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    return ToolResult({"error": message, "code": code, **extra}, f"{tool} error [{code}]: {message}")


def seed_respond(tool: str, work: Callable[[], ToolResult]) -> ToolResult:
    """The history tools' skeleton, written once: the work's answer, or any failure in-band."""
    try:
        return work()
    except Exception as exc:
        return seed_failure(tool, exc)


def render_error(envelope: dict[str, Any]) -> str:
    """The text content beside an error envelope."""
    error = envelope["error"]
    return f'{envelope["tool"]} error [{error["code"]}]: {error["message"]}'


@dataclass
class Call:
    """One call of a v1 tool: its arguments, its clock, and the SLA its answer is measured
    against (a tool refines it once it knows the request's shape, e.g. a session scope)."""

    tool: str
    args: Any
    timer: Timer
    sla_ms: int
    fresh: Freshness = field(default_factory=Freshness)  # what the caller knows of the index's lag


# A tool's work: the canonical request, the data and the warnings of its answer.
Answer = tuple[dict[str, Any], dict[str, Any], list[str]]


def respond(call: Call, work: Callable[[Call], Answer], render: Callable[[dict[str, Any]], str]) -> ToolResult:
    """The skeleton every v1 tool shares, written once: the work's answer in the success
    envelope and its text, or any failure in-band as the error envelope and its text."""
    try:
        request, data, warnings = work(call)
        envelope = success_envelope(call.tool, request, data, warnings, call.timer, call.sla_ms)
        return ToolResult(envelope, render(envelope))
    except Exception as exc:  # every failure is an in-band error envelope
        envelope = error_envelope(call.tool, call.args, exc, call.timer, call.sla_ms)
        return ToolResult(envelope, render_error(envelope))


def parse_datetime(value: Any, field: str) -> tuple[str, int]:
    """RFC 3339 with an explicit offset or Z → (trimmed text, epoch ms). A plain date
    (`2026-03-01`) is that day's midnight UTC, echoed as `2026-03-01T00:00:00Z`; a time without
    an offset stays an error (its zone would be a guess). The date and time may be separated by a
    space, as RFC 3339 lets applications choose and as people and `date` write them."""
    example = {"field": field, "example": "2026-04-30T09:00:00-04:00"}
    if value is None:
        raise ContractError("invalid_request", f"{field} is required", example)
    if not isinstance(value, str) or not value.strip():
        raise ContractError("invalid_request", f"{field} must be an RFC 3339 datetime string", example)
    text = value.strip()
    if not DATE_PREFIX_RE.match(text):  # not a time at all: say what one looks like
        raise ContractError("invalid_request", f"{field} is not a date (2026-04-30) or an RFC 3339 datetime "
                            "(2026-04-30T09:00:00-04:00)", example)
    if DATE_RE.match(text):
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise ContractError("invalid_request", f"{field} is not a valid date", example) from None
        return f"{text}T00:00:00Z", int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)
    if not OFFSET_RE.search(text):
        raise ContractError("invalid_request", f"{field} must include an explicit timezone offset or Z", example)
    if text[10:11] not in ("T", "t", " "):
        raise ContractError("invalid_request", f"{field} must separate the date and the time with T or a space",
                            example)
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1] in "zZ" else text)
    except ValueError:
        raise ContractError("invalid_request", f"{field} is not a valid RFC 3339 datetime", example) from None
    return text, int(parsed.timestamp() * 1000)


def compact(text: str, limit: int = SUMMARY_CHARS) -> tuple[str, bool]:
    """Whitespace collapsed, cut to `limit` characters with `…`; (text, truncated)."""
    head = " ".join(text[: limit * 8].split())
    if len(head) <= limit and len(text) <= limit * 8:
        return head, False
    return head[: limit - 1].rstrip() + "…", True


def encode_cursor(payload: dict[str, Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


MAX_CURSOR_CHARS = 1024  # an encoded cursor is ~110 characters


def decode_cursor(cursor: str) -> dict[str, Any]:
    """The payload of a cursor from `encode_cursor`. Anything else — too long, not base64, not JSON,
    nested JSON (refused before parsing, never a RecursionError) — is `invalid_request`."""
    try:
        if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError("not a cursor")
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = loads_bounded(base64.urlsafe_b64decode(padded.encode()), max_depth=1)
    except (binascii.Error, ValueError):  # UnicodeError and wire.NestingError are ValueErrors
        raise ContractError("invalid_request", "cursor is not a valid list_sessions cursor",
                            {"field": "cursor"}) from None
    if (not isinstance(payload, dict) or set(payload) != {"u", "i", "f"} or isinstance(payload["u"], bool)
            or not isinstance(payload["u"], int) or not 0 <= payload["u"] <= TS_MAX_MS
            or not isinstance(payload["i"], str) or not ID_RE.match(payload["i"])
            or not isinstance(payload["f"], str)):  # exactly what encode_cursor writes: a forged one is refused
        raise ContractError("invalid_request", "cursor is not a valid list_sessions cursor", {"field": "cursor"})
    return payload


def signature(*parts: Any) -> str:
    return hashlib.blake2b(json.dumps(parts).encode(), digest_size=8).hexdigest()


def freshness_warnings(store: Store, ingest: Freshness) -> list[str]:
    """Say when lines are known in the logs but not yet indexed, so an empty result is
    not mistaken for proof of absence. Uses the lag measured by the last ingest pass, as the
    caller hands it (stat-ing every log per query would cost more than the query)."""
    roots = [Path(s.root).expanduser() for s in store.config.sources if s.enabled]
    if not any(root.is_dir() for root in roots):
        return ["no agent log roots exist yet, so nothing is indexed; watching: " + ", ".join(map(str, roots))
                + " (set CODEX_HOME / CLAUDE_CONFIG_DIR or [[sources]] in config.toml)"]
    if ingest.catch_up_error:
        return [f"new log lines could not be read before this answer ({ingest.catch_up_error}); "
                "results may be incomplete"]
    if ingest.backfilling:
        return ["the index is still being built from the logs (first backfill); results may be incomplete"]
    behind = ingest.lag_bytes
    if behind <= 0:
        return []
    return [f"index is behind the logs by {behind} bytes not yet ingested; results may be incomplete"]
