"""Types of the catalog an owner publishes: service prices and cancellation policies, each in versions."""

from __future__ import annotations

from typing import Annotated

import strawberry

from schema.errors import InvalidInput, NotFound


@strawberry.type(description="A published version of a service's price.")
class PriceVersion:
    service_id: strawberry.ID
    version: int
    price_cents: int
    payment_rule: str
    deposit_percent: int | None
    deposit_cents: int | None


@strawberry.type(description="A published version of a unit's cancellation policy.")
class PolicyVersion:
    version: int
    summary: str


@strawberry.input(description="Cancelling at least minHours before the start refunds percent of what was paid.")
class TierInput:
    min_hours: float
    percent: int


PriceResult = Annotated[PriceVersion | InvalidInput | NotFound, strawberry.union("PriceResult")]
PolicyResult = Annotated[PolicyVersion | InvalidInput | NotFound, strawberry.union("PolicyResult")]
