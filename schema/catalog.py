"""Types of the catalog an owner publishes: service prices and cancellation policies, each in versions."""

from __future__ import annotations

from typing import Annotated

import strawberry

from schema import docs
from schema.errors import InvalidInput, NotFound
from schema.vocabulary import PaymentRule


@strawberry.type(description="A published version of a service's price.")
class PriceVersion:
    service_id: strawberry.ID = strawberry.field(description=docs.SERVICE_ID)
    version: int = strawberry.field(description="The version number (1, 2, ...): bookings accept one.")
    price_cents: int = strawberry.field(description=docs.PRICE_CENTS)
    payment_rule: PaymentRule = strawberry.field(description=docs.PAYMENT_RULE)
    deposit_percent: int | None = strawberry.field(description=docs.DEPOSIT_PERCENT)
    deposit_cents: int | None = strawberry.field(description=docs.DEPOSIT_CENTS)


@strawberry.type(description="A published version of a unit's cancellation policy.")
class PolicyVersion:
    version: int = strawberry.field(description="The version number (1, 2, ...): bookings accept one.")
    summary: str = strawberry.field(description="The policy in words, as customers read it before accepting.")


@strawberry.input(description="Cancelling at least minHours before the start refunds percent of what was paid.")
class TierInput:
    min_hours: float = strawberry.field(description="Hours before the start, at least (0 or more).")
    percent: int = strawberry.field(description="The share of what was paid that is refunded, 0 to 100.")


PriceResult = Annotated[PriceVersion | InvalidInput | NotFound, strawberry.union(
    "PriceResult", description=(
    "What publishServicePrice answers: PriceVersion, or the refusal (an Error) that stopped it."))]
PolicyResult = Annotated[PolicyVersion | InvalidInput | NotFound, strawberry.union(
    "PolicyResult", description=(
    "What publishCancellationPolicy answers: PolicyVersion, or the refusal (an Error) that stopped it."))]
