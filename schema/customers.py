"""Customers as staff see them (the blacklist of RN-HLD-05)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry

from domain.access import Principal
from domain.customers import CustomerIdentity
from schema import docs
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, ref
from schema.nodes import Node


@strawberry.input(description="Who the booking is for: a CPF (with check digits) and/or an E.164 phone.")
class CustomerInput:
    cpf: str | None = strawberry.field(default=None, description="The CPF, 11 digits (dots and dash allowed), with "
                                       "valid check digits.")
    phone: str | None = strawberry.field(default=None, description="The phone in E.164, e.g. +5511999990000 (the "
                                         "WhatsApp number).")
    name: str | None = strawberry.field(default=None, description="The customer's name, as they give it.")
    email: str | None = strawberry.field(default=None, description="An e-mail address, where notices may go.")

    def to_domain(self) -> CustomerIdentity:
        return CustomerIdentity.parse(self.cpf, self.phone, self.name, self.email)

    def for_caller(self, principal: Principal) -> CustomerIdentity:
        """As `to_domain`; a signed-in customer may leave out CPF and phone (their session says who they are)."""
        return CustomerIdentity.parse(self.cpf, self.phone, self.name, self.email, required=not principal.is_customer)


@strawberry.type(description="A customer record of the tenant (one CPF and/or phone).")
class Customer(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    cpf: str | None = strawberry.field(description="The CPF (11 digits); null when unknown.")
    phone: str | None = strawberry.field(description="The phone (E.164); null when unknown.")
    name: str | None = strawberry.field(description="The name last given; null when unknown.")
    blacklisted: bool = strawberry.field(description="Whether the customer is blacklisted (no self-service holds, no "
                                         "waitlists).")
    blacklist_reason: str | None = strawberry.field(description="Why the flag was last set or cleared.")
    blacklist_changed_at: datetime | None = strawberry.field(description="When the flag last changed; null: never.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> Customer:
        return cls(id=ref(Kind.CUSTOMER, r["id"]), cpf=r["cpf"], phone=r["phone"], name=r["name"],
                   blacklisted=r["blacklisted"], blacklist_reason=r["blacklist_reason"],
                   blacklist_changed_at=r["blacklist_changed_at"])


def mask_cpf(cpf: str | None) -> str | None:
    """***.456.789-**: enough to tell two customers apart at the counter, not the whole number."""
    if not cpf or len(cpf) != 11:
        return None
    return f"***.{cpf[3:6]}.{cpf[6:9]}-**"


@strawberry.type(description="A customer found at the counter (customers): name, phone and the CPF masked.")
class CustomerMatch:
    id: strawberry.ID = strawberry.field(description="The customer record (a Customer id): opaque, pass it back "
                                         "exactly as given.")
    name: str | None = strawberry.field(description="The name last given; null when unknown.")
    phone: str | None = strawberry.field(description="The phone (E.164); null when unknown. Book for the customer "
                                         "with it (counterBooking's customer.phone).")
    masked_cpf: str | None = strawberry.field(description="The CPF with its first 3 and last 2 digits hidden "
                                              "(***.456.789-**); null when unknown.")

    @classmethod
    def from_row(cls, r: dict[str, Any]) -> CustomerMatch:
        return cls(id=ref(Kind.CUSTOMER, r["id"]), name=r["name"], phone=r["phone"], masked_cpf=mask_cpf(r["cpf"]))


@strawberry.type(description="The records the blacklist change applied to: every one with the CPF or phone.")
class CustomerBlacklistPayload:
    customers: list[Customer] = strawberry.field(description="Every record changed.")


BlacklistResult = Annotated[CustomerBlacklistPayload | InvalidInput | NotFound,
                            strawberry.union(
                                "CustomerBlacklistResult", description=(
                                "What setCustomerBlacklisted answers: CustomerBlacklistPayload, or the refusal (an "
                                "Error) that stopped it."))]
