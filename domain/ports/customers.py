"""The repositories of a tenant's customers: finding or making their records, and what the antifraud rules
(RN-HLD-05, domain/fraud.py) read and lock of them."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from domain.customers import Customer, CustomerIdentity
from domain.units import Resource

if TYPE_CHECKING:  # domain.fraud uses the ports itself
    from domain.fraud import DayWindow, Locked, Standing


class CustomerRepository(Protocol):
    """Customers of a tenant, found or created by CPF / phone."""

    async def identify(self, tenant_id: UUID, identity: CustomerIdentity, now: datetime) -> Customer:
        """The record a request is for: its proof's own record, else found by CPF or phone (domain/customers);
        `now` (the use case's clock) stamps a proof and a change."""
        ...

    async def signed_in(self, tenant_id: UUID, channel: str, address: str, now: datetime, create: bool
                        ) -> UUID | None:
        """The record a sign-in code that reached `address` stands for, its contact now proved."""
        ...

    async def identity_of(self, customer_id: UUID) -> CustomerIdentity | None:
        """The stored identity of a customer (None: no such record)."""
        ...

    async def identities_of(self, customer_ids: list[UUID]) -> dict[UUID, CustomerIdentity]:
        """The stored identities of several customers at once (a list's rows); an unknown id is left out."""
        ...


class AntifraudRepository(Protocol):
    """What RN-HLD-05 reads (see store/antifraud.py)."""

    async def lock_customer(self, tenant_id: UUID, identity: CustomerIdentity,
                            also: tuple[frozenset[str], frozenset[str]] = ..., day: DayWindow | None = None
                            ) -> Locked: ...

    async def standing(self, tenant_id: UUID, identity: CustomerIdentity, now: datetime, since: datetime,
                       replacing: UUID | None) -> Standing: ...

    async def resources(self, unit_id: UUID) -> list[Resource]: ...

    async def set_blacklisted(self, tenant_id: UUID, identity: CustomerIdentity, blacklisted: bool,
                              reason: str | None, actor: str, at: datetime) -> list[dict[str, Any]]:
        """The customer records as they are now (id, cpf, phone, name and the blacklist columns), for the API."""
        ...
