"""The load generator's HTTP client (bench/_http.py): a server that stops answering ends a request with an error
instead of hanging the benchmark."""

from __future__ import annotations

import asyncio
import time

import pytest

from bench._http import Connection, HttpError


async def test_a_request_the_server_never_answers_is_an_error_after_the_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        await asyncio.sleep(30)  # reads the request, never answers

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = Connection("127.0.0.1", port, timeout=0.3)
    try:
        t = time.perf_counter()
        with pytest.raises(HttpError, match=r"no answer in 0\.3 s"):
            await conn.post_json("/graphql", {"query": "{ __typename }"})
        assert time.perf_counter() - t < 5
    finally:
        await conn.close()
        server.close()


async def test_an_answer_is_read_as_before() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    conn = Connection("127.0.0.1", server.sockets[0].getsockname()[1], timeout=5)
    try:
        assert await conn.post_json("/x", {}) == (200, b"ok")
    finally:
        await conn.close()
        server.close()
