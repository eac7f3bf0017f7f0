"""A real HTTP receiver for outgoing webhook tests: records every request and fails the first N on demand."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import TracebackType

from slothold.cli.embedded import free_port


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """An asyncio HTTP/1.1 server on 127.0.0.1; `fail_next` answers that many requests with `fail_status`."""

    fail_next: int = 0
    fail_status: int = 500
    delay: float = 0.0
    requests: list[Received] = field(default_factory=list)
    port: int = 0
    _server: asyncio.AbstractServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    async def __aenter__(self) -> Receiver:
        self.port = free_port()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
                        ) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                _, path, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.requests.append(Received(path, headers, body))
                if self.delay:
                    await asyncio.sleep(self.delay)
                if self.fail_next > 0:
                    self.fail_next -= 1
                    status, text = self.fail_status, b"nope"
                else:
                    status, text = 200, b"ok"
                writer.write(f"HTTP/1.1 {status} X\r\ncontent-length: {len(text)}\r\n\r\n".encode() + text)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
