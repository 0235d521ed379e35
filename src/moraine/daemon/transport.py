"""MCP over a Unix-socket connection: newline-delimited JSON-RPC, as on stdio.

The SDK ships stdio and HTTP transports; a socket connection is the stdio framing over a
byte stream, so this adapts one anyio stream to the pair of message streams `Server.run`
takes. Each connection is its own MCP session.

Every line is framed and checked by `moraine.wire` before the SDK sees it (the SDK drops what it
cannot parse without an answer): a line that is not a deliverable message is answered here, with
the request's id when it can be read. Framing is linear and a line over `wire.MAX_LINE` is drained
without being kept, so one client's huge or slow line costs the event loop a few microseconds per
chunk and never holds up other connections. A connection has at most `MAX_IN_FLIGHT` requests
being answered; its next line is not read until one is (a client pipelining costly requests gets
its share of the worker threads and the GIL, not all of them). When the client closes its side,
the requests it already sent are still answered (up to `DRAIN_S`) before the session ends.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared._context_streams import ContextReceiveStream, ContextSendStream, create_context_streams
from mcp.shared.message import SessionMessage

from moraine.wire import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    MAX_LINE,
    Incoming,
    LineFramer,
    Oversized,
    check_line,
    error_reply,
    oversized_reply,
)

RECEIVE_BYTES = 1 << 18
DRAIN_S = 120.0  # after the client's EOF, how long its requests in flight may take to be answered
PARSE_SHARE_FROM_S = 0.002  # a line that took longer to check pauses its connection as long (≤ 50 % share)
MAX_IN_FLIGHT = 8  # requests of one connection being answered at once; more wait unread (fairness)


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


@asynccontextmanager
async def socket_streams(stream: anyio.abc.ByteStream, max_line: int = MAX_LINE) -> AsyncIterator[tuple[Any, Any]]:
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    connection = _Connection(stream, max_line, read_writer, write_reader)
    async with anyio.create_task_group() as tg:
        tg.start_soon(connection.reader)
        tg.start_soon(connection.writer, tg.cancel_scope)
        try:
            yield read_stream, write_stream
        finally:
            tg.cancel_scope.cancel()


class _Connection:
    """One connection's two pumps, socket → session and session → socket, and what they share:
    the requests being answered, which bound how far the reader runs ahead of the writer."""

    def __init__(self, stream: anyio.abc.ByteStream, max_line: int,
                 read_writer: ContextSendStream[SessionMessage | Exception],
                 write_reader: ContextReceiveStream[SessionMessage]) -> None:
        self.stream, self.max_line = stream, max_line
        self.read_writer, self.write_reader = read_writer, write_reader
        self.send_lock = anyio.Lock()  # the reader's error answers and the writer's messages share the stream
        self.in_flight: set[str] = set()  # ids of requests handed to the session and not answered yet
        self.answered = anyio.Event()

    def _wake(self) -> None:
        """Tell whoever waits for a slot (or for the last answers) that one went out."""
        self.answered.set()
        self.answered = anyio.Event()

    async def _send(self, data: bytes) -> None:
        async with self.send_lock:
            await self.stream.send(data)

    async def reader(self) -> None:
        framer = LineFramer(self.max_line)
        async with self.read_writer:
            try:
                while True:
                    try:
                        chunk = await self.stream.receive(RECEIVE_BYTES)
                    except anyio.EndOfStream:
                        break
                    for item in framer.feed(chunk):
                        await self._deliver(item)
                for item in framer.finish():
                    await self._deliver(item)
                with anyio.move_on_after(DRAIN_S):  # the client is done sending, maybe not reading
                    while self.in_flight:
                        await self.answered.wait()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return

    async def _deliver(self, item: bytes | Oversized) -> None:
        if isinstance(item, Oversized):
            await self._send(oversized_reply(item))
            return
        if not item.strip():
            return
        incoming = await self._check(item)
        if incoming.reply is not None:
            await self._send(incoming.reply)
            return
        if incoming.message is None:
            return  # a notification that cannot be delivered: JSON-RPC never answers one
        message = await self._validated(incoming)
        if message is None:
            return
        await self._admit(incoming, incoming.message)
        await self.read_writer.send(SessionMessage(message))

    async def _check(self, item: bytes) -> Incoming:
        started = time.perf_counter()
        incoming = check_line(item)
        cost = time.perf_counter() - started
        if cost > PARSE_SHARE_FROM_S:  # a costly line: give the other connections as long a turn
            await anyio.sleep(cost)
        return incoming

    async def _validated(self, incoming: Incoming) -> types.JSONRPCMessage | None:
        """The SDK's message, from the object wire decoded: parsed once (params are `Any` to the
        SDK: not copied). A shape it refuses that wire.check_message let through is answered here."""
        try:
            return types.jsonrpc_message_adapter.validate_python(incoming.message, by_name=False)
        except Exception as exc:
            if incoming.is_request:
                detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                await self._send(error_reply(incoming.request_id, INVALID_REQUEST, f"Invalid Request: {detail}"[:300]))
            return None

    async def _admit(self, incoming: Incoming, raw: dict[str, Any]) -> None:
        if incoming.is_request:
            while len(self.in_flight) >= MAX_IN_FLIGHT:  # stop reading this client until an answer goes out
                await self.answered.wait()
            self.in_flight.add(_key(incoming.request_id))
        elif incoming.method == "notifications/cancelled":  # the SDK never answers a cancelled request
            params = raw.get("params") or {}
            self.in_flight.discard(_key(params.get("requestId")))
            self._wake()

    async def writer(self, cancel_scope: anyio.CancelScope) -> None:
        async with self.write_reader:
            try:
                async for session_message in self.write_reader:
                    await self._write(session_message.message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                cancel_scope.cancel()  # the client stopped reading: nothing can be answered any more

    async def _write(self, message: types.JSONRPCMessage) -> None:
        request_id = getattr(message, "id", None) if not isinstance(message, types.JSONRPCRequest) else None
        try:
            data = message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        except Exception as exc:  # an answer that cannot be written still answers the request
            if request_id is None:
                return
            data = error_reply(request_id, INTERNAL_ERROR, f"the answer could not be encoded: "
                               f"{type(exc).__name__}")
        await self._send(data)
        if request_id is not None:
            self.in_flight.discard(_key(request_id))
            self._wake()
