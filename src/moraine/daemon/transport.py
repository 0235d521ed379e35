"""MCP over a Unix-socket connection: newline-delimited JSON-RPC, as on stdio.

The SDK ships stdio and HTTP transports; a socket connection is the stdio framing over a
byte stream, so this adapts one anyio stream to the pair of message streams `Server.run`
takes. Each connection is its own MCP session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

MAX_LINE = 64 * 1024 * 1024


@asynccontextmanager
async def socket_streams(stream: anyio.abc.ByteStream) -> AsyncIterator[tuple[Any, Any]]:
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)

    async def reader() -> None:
        buffer = b""
        async with read_writer:
            try:
                async for chunk in stream:
                    buffer += chunk
                    while (newline := buffer.find(b"\n")) >= 0:
                        line, buffer = buffer[:newline], buffer[newline + 1 :]
                        if not line.strip():
                            continue
                        try:
                            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        except Exception as exc:  # the session answers a parse error
                            await read_writer.send(exc)
                            continue
                        await read_writer.send(SessionMessage(message))
                    if len(buffer) > MAX_LINE:
                        return
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return

    async def writer() -> None:
        async with write_reader:
            try:
                async for session_message in write_reader:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stream.send(data.encode() + b"\n")
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            tg.cancel_scope.cancel()
