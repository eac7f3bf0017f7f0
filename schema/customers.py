"""Customers as staff see them (the blacklist of RN-HLD-05)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry


@strawberry.type(description="A customer record of the tenant (one CPF and/or phone).")
class Customer:
    id: strawberry.ID
    cpf: str | None
    phone: str | None
    name: str | None
    blacklisted: bool
    blacklist_reason: str | None = strawberry.field(description="Why the flag was last set or cleared.")
    blacklist_changed_at: datetime | None

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> Customer:
        return cls(id=strawberry.ID(str(r["id"])), cpf=r["cpf"], phone=r["phone"], name=r["name"],
                   blacklisted=r["blacklisted"], blacklist_reason=r["blacklist_reason"],
                   blacklist_changed_at=r["blacklist_changed_at"])


@strawberry.type(description="The records the blacklist change applied to: every one with the CPF or phone.")
class CustomerBlacklistPayload:
    customers: list[Customer]
