"""A minimal keep-alive HTTP/1.1 client for the load generator.

httpx measured here at 1.5 ms of client CPU per request with one connection and ~5 ms with 32
concurrent ones (its pool bookkeeping), so it would eat the cores the server needs: see README.md.
Each worker owns one connection; requests on it are sequential.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

TOKEN: str | None = None
"""The bearer token sent with every request (bench/_server.py issues one per run)."""


def _auth() -> str:
    return f"Authorization: Bearer {TOKEN}\r\n" if TOKEN else ""


class HttpError(Exception):
    """The connection broke or the response could not be read."""


TIMEOUT = 60.0
"""Seconds one request may take before it counts as a broken connection (a server that stops answering must end a
run with errors, not hang it)."""


class Connection:
    """One keep-alive connection to host:port, reopened after an error."""

    def __init__(self, host: str, port: int, timeout: float = TIMEOUT) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=2**24)
        return self._reader, self._writer

    async def post_json(self, path: str, payload: Any) -> tuple[int, bytes]:
        """POST a JSON body; (status, response body)."""
        body = json.dumps(payload).encode()
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json\r\n{_auth()}Content-Length: {len(body)}\r\n\r\n").encode()
        try:
            async with asyncio.timeout(self.timeout):
                return await self._exchange(head + body)
        except TimeoutError as e:
            await self.close()
            raise HttpError(f"no answer in {self.timeout:g} s") from e
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, IndexError) as e:
            await self.close()
            raise HttpError(repr(e)) from e

    async def _exchange(self, request: bytes) -> tuple[int, bytes]:
        reader, writer = await self._open()
        writer.write(request)
        raw = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = raw.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers = {k.strip().lower(): v.strip()
                   for k, _, v in (h.partition(":") for h in header_lines if h)}
        if "content-length" in headers:
            data = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            data = await self._chunked(reader)
        else:
            data = await reader.read()
            await self.close()
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, data

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                return b"".join(parts)
            parts.append(chunk[:-2])

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
        self._reader = self._writer = None
