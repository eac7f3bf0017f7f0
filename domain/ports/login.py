"""Outside a unit of work: customer sign-in codes and sessions (store/access.py), each call committed on its
own."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol
from uuid import UUID

from domain.events import LoginCodeSent


class LoginCode(Protocol):
    """The newest open login code of a destination (store/access.py keeps only its HMAC)."""

    @property
    def id(self) -> UUID: ...
    @property
    def attempts(self) -> int: ...

    def matches(self, code: str) -> bool: ...


class LoginAccess(Protocol):
    """Customer sign-in codes and sessions (store/access.py's PgAccess), each call committed on its own."""

    async def codes_sent_since(self, unit_id: UUID, destination: str, since: datetime) -> int: ...

    async def add_code(self, unit_id: UUID, destination: str, code: str, now: datetime, ttl: timedelta,
                       message: LoginCodeSent | None) -> None:
        """Store a code (earlier open ones of the destination stop working) and its message in the outbox."""
        ...

    async def open_code(self, unit_id: UUID, destination: str, now: datetime) -> LoginCode | None: ...

    async def count_attempt(self, code_id: UUID) -> None: ...

    async def use_code(self, code_id: UUID, now: datetime) -> bool:
        """Mark the code used; False when another request used it first."""
        ...

    async def customer_by_email(self, tenant_id: UUID, email: str) -> UUID | None: ...

    async def open_session(self, unit_id: UUID, tenant_id: UUID, customer_id: UUID, now: datetime,
                           ttl: timedelta) -> tuple[UUID, str]:
        """A new customer session: (its id, its bearer token — returned this once)."""
        ...
