"""Idempotency keys (SPEC §5): the fingerprint of a request, and the claim / replay / remember steps every use case
that takes a key runs inside its transaction."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import MISSING, Field, fields, is_dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as time_of_day
from enum import Enum
from typing import Any
from uuid import UUID

from domain.bookings import Booking, booking_from_snapshot, booking_snapshot
from domain.ports import UnitOfWork

IDEMPOTENCY_RETENTION = timedelta(hours=24)


def fingerprint(operation: str, request: object) -> str:
    """A stable hash of a request, to tell a retry from a different request under the same idempotency key.

    `request` is the use case's whole command (a frozen dataclass, normalised by the caller where two spellings mean
    the same request, e.g. resources in another order), so no field of it can be left out: every field counts,
    nested dataclasses (the customer) included, except the idempotency key itself. A field at its default value is
    left out, so that adding a field (with a default) to a command keeps the fingerprints of the requests that do
    not use it: a retry across a deploy still replays. Values are encoded by `canonical`.
    """
    raw = json.dumps({"op": operation, "request": canonical(request)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()


FINGERPRINT_LEAVES_OUT = frozenset({"idempotency_key"})
"""Command fields that are not part of the request they name."""


def canonical(value: object) -> object:
    """A JSON value that stands for `value` the same way in every process: dataclasses as objects of their fields
    (defaults and FINGERPRINT_LEAVES_OUT left out), UUIDs as text, aware datetimes in UTC (ISO 8601), enums by
    value, sets sorted. Anything else is a TypeError: a command field must get a stable encoding here, never a
    repr that could differ between two processes (a retry would then look like another request)."""
    if isinstance(value, Enum):
        return canonical(value.value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.utcoffset() is not None else value).isoformat()
    if isinstance(value, date | time_of_day):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {}
        for f in fields(value):
            item = getattr(value, f.name)
            if f.name in FINGERPRINT_LEAVES_OUT or _is_default(f, item):
                continue
            out[f.name] = canonical(item)
        return out
    if isinstance(value, Mapping):
        return {str(k): canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    raise TypeError(f"no stable encoding for a {type(value).__name__} in an idempotency fingerprint")


def _is_default(f: Field[Any], value: object) -> bool:
    if f.default is not MISSING:
        return bool(value == f.default)
    if f.default_factory is not MISSING:
        return bool(value == f.default_factory())
    return False


async def claim(uow: UnitOfWork, unit_id: UUID, key: str | None, operation: str, request: object,
                now: datetime) -> dict[str, Any] | None:
    """Claim `key` for this request in the transaction: what its first run stored (a retry: answer with it), or
    None (a first run, or no key: go on, then store the answer). A different request under the key is
    IdempotencyKeyReused; a concurrent first run is waited for (store/idempotency.py)."""
    if not key:
        return None
    return await uow.idempotency.claim(unit_id, key, operation, fingerprint(operation, request),
                                       now + IDEMPOTENCY_RETENTION)


async def replay(uow: UnitOfWork, unit_id: UUID, key: str | None, operation: str, request: object,
                 now: datetime) -> Booking | None:
    """`claim` for a use case whose answer is one booking: the booking its first run stored, or None."""
    stored = await claim(uow, unit_id, key, operation, request, now)
    return booking_from_snapshot(stored) if stored is not None else None


async def remember(uow: UnitOfWork, unit_id: UUID, key: str | None, booking: Booking) -> None:
    """Store the result under `key` in the same transaction (a no-op without a key)."""
    if key:
        await uow.idempotency.complete(unit_id, key, booking_snapshot(booking))
