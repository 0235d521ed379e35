"""Bytes on the wire: bounded JSON and newline-delimited JSON-RPC, checked before anything parses them.

One implementation shared by the `moraine mcp` bridge (the host's stdin), the daemon's socket server
and the list_sessions cursor decoder, so every peer gets the same answer to the same bytes:

* Framing (`LineFramer`) is linear in the bytes received: newlines are searched in each new chunk
  only, a line's chunks are joined once, and a line longer than the limit is not kept — its first
  bytes are, to read the request id from — and the rest is drained up to its newline.
* Nesting is bounded without recursing (`check_structure`: brackets counted outside strings by a
  linear scan) before `json.loads` sees the text, so no depth of input reaches Python's or pydantic's
  recursion limits; so is the number of arrays and objects, which bounds the work of parsing a line
  (≤ ~15 ms for 256 KiB of the costliest JSON, a list of floats).
* Every line gets exactly one JSON-RPC answer unless it is a well-formed notification or response
  (which JSON-RPC never answers): -32700 for what is not JSON (not UTF-8, a raw control character, a
  lone UTF-16 surrogate, NaN, …), -32600 for a wrong shape (not an object, a batch; a line, nesting
  or a count of arrays and objects over the limits), -32602 for params that are not an object. A
  tool call's `arguments` that are no object are passed on as `{"$arguments": "<type>"}`, for the
  tool to refuse in-band (`invalid_request`).
  The request's id is echoed whenever it can be read, even from a line that does not parse (a host
  then resolves the very call it is waiting on); otherwise it is null.

Batches: JSON-RPC 2.0 allows arrays of requests; MCP revision `2025-06-18` removed them, so an
array gets one -32600 error with id null (its members are not run).

Imports nothing but the standard library: the bridge must start fast.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_LINE = 256 * 1024  # bytes: Moraine's largest valid request is a few KB (a query is ≤ 4096 characters)
MAX_DEPTH = 128  # levels of [ ] / { } nesting, the JSON-RPC envelope included
MAX_CONTAINERS = 10_000  # arrays and objects in one message (a Moraine request holds a handful)
HEAD_BYTES = 4096  # bytes kept of an over-long line, to read its id from
ARGUMENTS_NOT_AN_OBJECT = "$arguments"  # stands for a tool call's arguments that were no object (no field is named so)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000  # implementation-defined: Moraine unavailable or refused

_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_RUNS = re.compile(rb"[\[{]+|[\]}]+")
_OPENERS = (ord("["), ord("{"))
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# `{"jsonrpc":"2.0","id":7,…` and the other usual orders: up to 8 simple members, then "id".
_HEAD_ID = re.compile(
    rb'\s*\{(?:\s*"(?!id")[^"\\]{0,64}"\s*:\s*(?:"[^"\\]{0,256}"|-?\d{1,20}(?:\.\d{1,20})?|true|false|null)\s*,){0,8}'
    rb'\s*"id"\s*:\s*(-?\d{1,19}|"[^"\\]{0,256}")\s*[,}]')


# --------------------------------------------------------------------------------------------
# Bounded JSON
# --------------------------------------------------------------------------------------------


class NestingError(ValueError):
    """JSON nested deeper than the limit (refused before parsing)."""


def _outside_strings(data: bytes) -> bytes:
    """`data` without its string literals (their brackets do not nest). Escapes go first: inside a
    string a backslash always starts a pair, so `\\\\` then `\\"` removed left to right leaves every
    remaining `"` a delimiter. Linear, at C speed."""
    if b'"' not in data:
        return data
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(data.split(b'"')[::2])


def check_structure(data: bytes, max_depth: int = MAX_DEPTH, max_containers: int = MAX_CONTAINERS) -> None:
    """Refuse (NestingError) JSON text that nests deeper than `max_depth` at any point or holds more
    than `max_containers` arrays and objects, by a linear scan of the brackets outside strings (no
    recursion, no parsing). For text that does not parse, it bounds how deep a left-to-right parser
    gets before it fails, which is what matters."""
    if data.count(b"[") + data.count(b"{") <= max_depth:  # the common case, at C speed
        return
    brackets = _outside_strings(data).translate(None, _NOT_BRACKET)
    opened = brackets.count(b"[") + brackets.count(b"{")
    if opened > max_containers:
        raise NestingError(f"JSON holding more than {max_containers} arrays and objects")
    if opened <= max_depth:
        return
    depth = 0
    for run in _RUNS.finditer(brackets):  # at most 2 × max_containers runs
        size = run.end() - run.start()
        if brackets[run.start()] in _OPENERS:
            depth += size
            if depth > max_depth:
                raise NestingError(f"JSON nested deeper than {max_depth} levels")
        else:
            depth -= size


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _lone_surrogate(data: bytes, value: Any) -> bool:
    """Whether a decoded value holds a lone surrogate (`"\\ud800"` decodes to one; it is not Unicode
    text and cannot be encoded back). The regex only pre-filters."""
    if not _SURROGATE_ESCAPE.search(data):
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def loads_bounded(data: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads` of UTF-8 JSON text, refusing (ValueError) nesting deeper than `max_depth`, raw
    control characters in strings, lone surrogates, NaN/Infinity and anything else that is not JSON."""
    text = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    check_structure(data, max_depth)
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:  # cannot happen under the depth bound; never let it escape
        raise NestingError("JSON nested too deeply") from None
    if _lone_surrogate(data, value):
        raise ValueError("a string holds a lone UTF-16 surrogate (not Unicode text)")
    return value


# --------------------------------------------------------------------------------------------
# Framing
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line that crossed the limit: reported once, when it does; its rest is drained unread."""

    head: bytes
    limit: int


class LineFramer:
    """Newline-delimited framing, linear in the bytes fed: each chunk is searched once for newlines
    and a line's chunks are joined once. With a `limit`, a longer line yields one `Oversized` (as
    soon as it crosses the limit) and is then skipped up to its newline without being kept."""

    def __init__(self, limit: int | None = MAX_LINE) -> None:
        self.limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._draining = False

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        start = 0
        while (newline := chunk.find(b"\n", start)) >= 0:
            self._take(chunk[start:newline], out)
            if not self._draining:
                out.append(b"".join(self._parts) if len(self._parts) != 1 else self._parts[0])
            self._parts, self._size, self._draining = [], 0, False
            start = newline + 1
        if start < len(chunk):
            self._take(chunk[start:] if start else chunk, out)
        return out

    def finish(self) -> list[bytes | Oversized]:
        """At end of stream: a last line without its newline is still a line."""
        out: list[bytes | Oversized] = []
        if self._parts and not self._draining:
            out.append(b"".join(self._parts))
        self._parts, self._size, self._draining = [], 0, False
        return out

    def _take(self, piece: bytes, out: list[bytes | Oversized]) -> None:
        if self._draining or not piece:
            return
        self._parts.append(piece)
        self._size += len(piece)
        if self.limit is not None and self._size > self.limit:
            head = b""
            for part in self._parts:
                head += part[: HEAD_BYTES - len(head)]
                if len(head) >= HEAD_BYTES:
                    break
            out.append(Oversized(head, self.limit))
            self._parts, self._draining = [], True


# --------------------------------------------------------------------------------------------
# JSON-RPC
# --------------------------------------------------------------------------------------------


def valid_id(value: Any) -> bool:
    """A JSON-RPC id MCP accepts: a string or an integer (not a bool, not null)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return False
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
    return True


def head_id(data: bytes) -> Any:
    """The request id read from the start of a line that cannot be (or was not) parsed; None if it
    cannot be read with certainty."""
    match = _HEAD_ID.match(data)
    if match is None:
        return None
    try:
        value = json.loads(match.group(1).decode("utf-8"))
    except ValueError:
        return None
    return value if valid_id(value) else None


def error_reply(request_id: Any, code: int, message: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id if valid_id(request_id) else None,
            "error": {"code": code, "message": message}}
    return json.dumps(body, separators=(",", ":")).encode() + b"\n"


def oversized_reply(item: Oversized) -> bytes:
    return error_reply(head_id(item.head), INVALID_REQUEST,
                       f"Invalid Request: the message is longer than the {item.limit}-byte line limit; "
                       "it was skipped unread")


@dataclass(frozen=True, slots=True)
class Incoming:
    """One line, checked. `reply`: the error to send back instead of delivering it. `message`: the
    decoded object to deliver (None with no reply: a notification or response that cannot be
    delivered, which JSON-RPC never answers)."""

    message: dict[str, Any] | None
    reply: bytes | None = None
    request_id: Any = None  # set for requests (which expect exactly one answer)
    method: str | None = None

    @property
    def is_request(self) -> bool:
        return self.message is not None and self.method is not None and self.request_id is not None


def _refuse(request_id: Any, code: int, message: str) -> Incoming:
    return Incoming(None, error_reply(request_id, code, message))


def check_line(line: bytes) -> Incoming:
    """Decode and check one JSON-RPC line (without its newline) within the limits."""
    try:
        message = loads_bounded(line)
    except NestingError as exc:
        return _refuse(head_id(line), INVALID_REQUEST, f"Invalid Request: {exc}")
    except UnicodeDecodeError as exc:
        return _refuse(head_id(line), PARSE_ERROR, f"Parse error: not UTF-8 text (byte {exc.start})")
    except ValueError as exc:
        return _refuse(head_id(line), PARSE_ERROR, f"Parse error: {exc}"[:300])
    return check_message(message)


def _tool_arguments(message: dict[str, Any], method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """A tool call whose arguments are no object, passed on for the tool to refuse in-band
    (`invalid_request`), as the contract wants of every rejected request: the MCP SDK would
    refuse the call itself (-32602) before any tool saw it."""
    if method != "tools/call" or params is None:
        return message
    arguments = params.get("arguments")
    if arguments is None or isinstance(arguments, dict):
        return message
    return {**message, "params": {**params, "arguments": {ARGUMENTS_NOT_AN_OBJECT: type(arguments).__name__}}}


def check_message(message: Any) -> Incoming:
    """The shape checks of JSON-RPC 2.0 as MCP uses it (params are an object; no batches)."""
    if isinstance(message, list):
        return _refuse(None, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported (MCP removed "
                       "them in revision 2025-06-18); send one message per line" if message else
                       "Invalid Request: an empty array")
    if not isinstance(message, dict):
        return _refuse(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    has_id = "id" in message
    request_id = message.get("id")
    readable = request_id if valid_id(request_id) else None
    if message.get("jsonrpc") != "2.0":
        return _refuse(readable, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if has_id and readable is None:
        return _refuse(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if "method" in message:
        method = message["method"]
        if not isinstance(method, str):
            return _refuse(readable, INVALID_REQUEST, "Invalid Request: method must be a string")
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            if not has_id:  # a notification is never answered, not even with an error
                return Incoming(None)
            return _refuse(request_id, INVALID_PARAMS, "Invalid params: params must be an object")
        return Incoming(_tool_arguments(message, method, params), None, request_id if has_id else None, method)
    if has_id and ("result" in message) != ("error" in message):
        return Incoming(message, None)  # a response to a request of ours: never answered
    return _refuse(readable, INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response")
