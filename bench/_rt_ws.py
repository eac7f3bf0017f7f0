"""A minimal graphql-transport-ws subscriber for many sockets in one process (bench/realtime.py).

`websockets` costs tens of µs of client CPU per received message (a reader task, a queue, a wake-up per
frame); with 1,000 subscribers × 20 events/s that is a core of the 2 this machine has, taken from the
server. Here each socket is an asyncio.Protocol: data_received stamps time.monotonic() (CLOCK_MONOTONIC),
splits the bytes into frames and keeps (arrival time, text payload); JSON is parsed only after a phase.
Pings are answered at once (uvicorn closes a socket that does not pong within ws_ping_timeout).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from dataclasses import dataclass
from typing import Any

_monotonic = time.monotonic
TOKEN: str | None = None
"""Sent in connection_init (bench/_server.py issues one per run)."""


def _frame(opcode: int, payload: bytes) -> bytes:
    """A client frame (masked, as RFC 6455 requires of clients)."""
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, 0x80 | n])
    elif n < 1 << 16:
        head = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + n.to_bytes(8, "big")
    key = os.urandom(4)
    if not n:
        return head + key
    mask = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
    return head + key + masked


class WsSubscriber(asyncio.Protocol):
    """One websocket: handshake, connection_init/ack, one subscription; keeps every text frame it gets."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self._buf = b""
        self._upgraded = False
        self.handshake: asyncio.Future[bytes] = loop.create_future()
        self.lost: asyncio.Future[None] = loop.create_future()
        self.frames: list[tuple[float, bytes]] = []  # (monotonic arrival, text payload), unparsed
        self.closed_by_server: bytes | None = None
        self.pings = 0
        self._want = 0
        self._enough: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.handshake.done():
            self.handshake.set_exception(ConnectionError(f"lost during handshake: {exc!r}"))
        if not self.lost.done():
            self.lost.set_result(None)

    def data_received(self, data: bytes) -> None:
        t = _monotonic()
        buf = self._buf + data if self._buf else data
        if not self._upgraded:
            i = buf.find(b"\r\n\r\n")
            if i < 0:
                self._buf = buf
                return
            self._upgraded = True
            self.handshake.set_result(buf[:i])
            buf = buf[i + 4:]
        pos, n = 0, len(buf)
        frames = self.frames
        while n - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            ln, hl = b1 & 0x7F, 2
            if ln == 126:
                if n - pos < 4:
                    break
                ln, hl = int.from_bytes(buf[pos + 2:pos + 4], "big"), 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln, hl = int.from_bytes(buf[pos + 2:pos + 10], "big"), 10
            end = pos + hl + ln
            if end > n:
                break
            op = b0 & 0x0F
            if op == 1:  # text (the server sends each message as one unfragmented frame)
                frames.append((t, buf[pos + hl:end]))
            elif op == 9:  # ping: pong with the same payload
                self.pings += 1
                self.send(10, buf[pos + hl:end])
            elif op == 8:  # close
                self.closed_by_server = buf[pos + hl:end]
            pos = end
        self._buf = buf[pos:] if pos < n else b""
        if self._enough is not None and len(frames) >= self._want and not self._enough.done():
            self._enough.set_result(None)

    # ------------------------------------------------------------------ use

    def send(self, opcode: int, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(_frame(opcode, payload))

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(1, json.dumps(message).encode())

    async def wait_frames(self, count: int, timeout: float) -> None:
        """Until at least `count` text frames have arrived."""
        if len(self.frames) >= count:
            return
        self._want, self._enough = count, self.loop.create_future()
        try:
            await asyncio.wait_for(self._enough, timeout)
        finally:
            self._enough = None

    def take(self) -> list[tuple[float, bytes]]:
        """The frames received so far (and forget them)."""
        out, self.frames = self.frames, []
        return out

    async def close(self, timeout: float = 5.0) -> None:
        """A clean close: close frame, wait for the server to close the TCP connection."""
        if self.transport is None or self.transport.is_closing():
            return
        self.send(8, (1000).to_bytes(2, "big"))
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), timeout)
        except TimeoutError:
            pass
        finally:
            self.transport.close()


async def subscribe(host: str, port: int, path: str, query: str, variables: dict[str, Any],
                    timeout: float = 30.0) -> WsSubscriber:
    """Connect, negotiate graphql-transport-ws, and start one subscription (id "1")."""
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(lambda: WsSubscriber(loop), host, port)
    key = base64.b64encode(os.urandom(16)).decode()
    assert proto.transport is not None
    proto.transport.write((
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n").encode())
    head = await asyncio.wait_for(proto.handshake, timeout)
    if not head.startswith(b"HTTP/1.1 101"):
        proto.transport.close()
        raise ConnectionError(f"websocket upgrade refused: {head[:200]!r}")
    proto.send_json({"type": "connection_init",
                     "payload": {"authorization": f"Bearer {TOKEN}"} if TOKEN else {}})
    await proto.wait_frames(1, timeout)
    ack = json.loads(proto.frames[0][1])
    if ack.get("type") != "connection_ack":
        raise ConnectionError(f"expected connection_ack, got {ack}")
    proto.take()
    proto.send_json({"id": "1", "type": "subscribe", "payload": {"query": query, "variables": variables}})
    return proto


@dataclass(frozen=True)
class Received:
    """One parsed message of a subscriber."""

    t: float
    kind: str  # next / error / complete / ping / ...
    seq: int | None
    booking_id: str | None
    raw: bytes


def parse(frames: list[tuple[float, bytes]], field: str = "slotChanged") -> list[Received]:
    out: list[Received] = []
    for t, payload in frames:
        msg = json.loads(payload)
        kind = msg.get("type", "?")
        if kind == "next":
            data = ((msg.get("payload") or {}).get("data") or {}).get(field) or {}
            out.append(Received(t, kind, data.get("seq"), data.get("bookingId"), b""))
        else:
            out.append(Received(t, kind, None, None, payload[:300]))
    return out
