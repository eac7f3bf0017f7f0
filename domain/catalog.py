"""Publishing prices and cancellation policies: new versions; accepted bookings keep theirs (SPEC §7)."""

from __future__ import annotations

from uuid import UUID

from domain import venue_log
from domain.errors import ErrorCode, InvalidInput
from domain.payments import PaymentRule, Price
from domain.policies import CancellationPolicy, Tier
from domain.services import Deps
from domain.venue_log import ChangeAction, JsonValue, VenueChange


async def publish_price(deps: Deps, unit_id: UUID, service_id: UUID, price_cents: int, rule: str,
                        deposit_percent: int | None = None, deposit_cents: int | None = None,
                        session: str = "cli") -> Price:
    """Publish a service's new price and payment rule as its next version (its price bands carry over), logged in
    the venue log as a change of the service made by `session`."""
    if price_cents < 0:
        raise InvalidInput("priceCents", "a price cannot be negative", code=ErrorCode.INVALID_PRICE)
    try:
        payment_rule = PaymentRule(rule)
    except ValueError:
        raise InvalidInput("paymentRule", f"payment rule must be one of {[r.value for r in PaymentRule]}",
                           code=ErrorCode.INVALID_PRICE) from None
    # Checked whatever the rule (the database's CHECKs hold for every row, not only the rule's own field).
    if deposit_percent is not None and not 1 <= deposit_percent <= 100:
        raise InvalidInput("depositPercent", "a deposit percentage must be 1–100", code=ErrorCode.INVALID_PRICE)
    if deposit_cents is not None and deposit_cents < 0:
        raise InvalidInput("depositCents", "a deposit in cents cannot be negative", code=ErrorCode.INVALID_PRICE)
    price = Price(service_id, 0, price_cents, payment_rule, deposit_percent, deposit_cents)
    price.due()  # refuses a deposit rule without its amount, naming the field
    async with deps.uow() as uow:
        old = (await uow.catalog.table(unit_id, service_id)).base
        version = await uow.payments.publish_price(unit_id, price)
        new = Price(service_id, version, price_cents, payment_rule, deposit_percent, deposit_cents)
        await venue_log.note(uow, unit_id, VenueChange("service", str(service_id), ChangeAction.UPDATED, session,
                                                       _price_json(old), _price_json(new)), deps.clock.now())
        await uow.commit()
    return new


def _price_json(p: Price) -> dict[str, JsonValue]:
    return {"priceVersion": p.version, "priceCents": p.price_cents, "paymentRule": p.rule.name,
            "depositPercent": p.deposit_percent, "depositCents": p.deposit_cents}


async def publish_policy(deps: Deps, unit_id: UUID, tiers: list[tuple[float, int]]) -> CancellationPolicy:
    """Publish the unit's cancellation policy (tiers of hours before the start → refund %) as its next version."""
    draft = CancellationPolicy(0, tuple(Tier(h, p) for h, p in tiers))
    async with deps.uow() as uow:
        version = await uow.payments.publish_policy(unit_id, draft.tiers)
        await uow.commit()
    return CancellationPolicy(version, draft.tiers)
