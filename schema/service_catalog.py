"""Types of what a unit sells (issue 18): services with their allowed lengths, resources, current price and price
bands; the inputs owners set them up with."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

import strawberry

from domain import pricing
from domain.service_catalog import ServiceChanges, ServiceDraft
from schema import docs
from schema.errors import InvalidInput, NotFound
from schema.ids import Kind, ref, refs
from schema.nodes import Node
from schema.vocabulary import PaymentRule, Weekday


@strawberry.type(description="A price band (faixa): slots starting on these weekdays from `from` to `to` (the "
                 "unit's local time, HH:MM) cost priceCents each, paid by its own rule.")
class PriceBand:
    weekdays: list[Weekday] = strawberry.field(description="The days it applies on, Monday first.")
    from_: str = strawberry.field(name="from", description="Its first slot's start: " + docs.CLOCK)
    to: str = strawberry.field(description="Its end (exclusive): " + docs.CLOCK)
    price_cents: int = strawberry.field(description=docs.PRICE_CENTS)
    payment_rule: PaymentRule = strawberry.field(description=docs.PAYMENT_RULE)
    deposit_percent: int | None = strawberry.field(description=docs.DEPOSIT_PERCENT)
    deposit_cents: int | None = strawberry.field(description=docs.DEPOSIT_CENTS)

    @classmethod
    def from_domain(cls, b: pricing.PriceBand) -> PriceBand:
        return cls(weekdays=[Weekday(d) for d in b.weekdays], from_=pricing.clock_text(b.from_minute),
                   to=pricing.clock_text(b.to_minute), price_cents=b.price_cents, payment_rule=b.rule,
                   deposit_percent=b.deposit_percent, deposit_cents=b.deposit_cents)


@strawberry.type(description="What a unit sells: its lengths in slots, the resources it runs on and its current "
                 "price version. Prices are per slot and per place; a slot in a band costs the band's price, any "
                 "other slot the base price; the rule is the one of the band the booking starts in.")
class Service(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    name: str = strawberry.field(description="Its name, unique in the unit.")
    active: bool = strawberry.field(description="Whether it is sold now (deactivateService turns it off).")
    durations: list[int] | None = strawberry.field(description="The allowed lengths, in slots of the unit's grid "
                                                   "(null: a service made before issue 18, sold at any length).")
    duration_minutes: list[int] | None = strawberry.field(description="The same lengths in minutes.")
    resource_ids: list[strawberry.ID] = strawberry.field(description="The resources it runs on (empty: any, for a "
                                                         "service made before issue 18).")
    price_version: int = strawberry.field(description="Its current price version (each publication adds one; "
                                          "accepted bookings keep theirs).")
    price_cents: int = strawberry.field(description="The base price of one slot, outside every band.")
    payment_rule: PaymentRule = strawberry.field(description="The base payment rule, outside every band.")
    deposit_percent: int | None = strawberry.field(description=docs.DEPOSIT_PERCENT)
    deposit_cents: int | None = strawberry.field(description=docs.DEPOSIT_CENTS)
    bands: list[PriceBand] = strawberry.field(description="Its price bands (faixas) of the current version.")

    @classmethod
    def from_domain(cls, s: pricing.Service, slot_minutes: int) -> Service:
        p = s.table.base
        return cls(id=ref(Kind.SERVICE, s.id), unit_id=ref(Kind.UNIT, s.unit_id), name=s.name, active=s.active,
                   durations=list(s.durations) if s.durations is not None else None,
                   duration_minutes=[d * slot_minutes for d in s.durations] if s.durations is not None else None,
                   resource_ids=refs(Kind.RESOURCE, s.resource_ids), price_version=p.version,
                   price_cents=p.price_cents, payment_rule=p.rule, deposit_percent=p.deposit_percent,
                   deposit_cents=p.deposit_cents, bands=[PriceBand.from_domain(b) for b in s.table.bands])


@strawberry.input(description="A new service: its name, allowed lengths in slots of the unit's grid (e.g. [1, 2, "
                  "3] with 60-minute slots: 1, 2 or 3 hours), the resources it runs on, its price per slot and "
                  "payment rule (depositPercent for DEPOSIT_PERCENT, depositCents for DEPOSIT_CENTS).")
class ServiceInput:
    name: str = strawberry.field(description="Its name, unique in the unit.")
    durations: list[int] = strawberry.field(description="The allowed lengths, in slots of the unit's grid (at least "
                                            "one).")
    resource_ids: list[strawberry.ID] = strawberry.field(description="The resources it runs on (at least one).")
    price_cents: int = strawberry.field(description=docs.PRICE_CENTS)
    payment_rule: PaymentRule = strawberry.field(default=PaymentRule.FULL, description=docs.PAYMENT_RULE)
    deposit_percent: int | None = strawberry.field(default=None, description=docs.DEPOSIT_PERCENT)
    deposit_cents: int | None = strawberry.field(default=None, description=docs.DEPOSIT_CENTS)

    def draft(self, resource_ids: tuple[UUID, ...]) -> ServiceDraft:
        return ServiceDraft(self.name, tuple(self.durations), resource_ids, self.price_cents, self.payment_rule,
                            self.deposit_percent, self.deposit_cents)


@strawberry.input(description="What changes of a service; leave out what stays. Prices change by "
                  "publishServicePrice or setPriceBands (a new version), not here.")
class ServiceUpdateInput:
    name: str | None = strawberry.field(default=None, description="A new name, unique in the unit.")
    durations: list[int] | None = strawberry.field(default=None, description="The new allowed lengths, in slots.")
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description="The new resources it runs "
                                                                "on.")

    def changes(self, resource_ids: tuple[UUID, ...] | None) -> ServiceChanges:
        return ServiceChanges(self.name, tuple(self.durations) if self.durations is not None else None,
                              resource_ids)


@strawberry.input(description="One price band: its weekdays, from and to as HH:MM on the unit's slot grid (to "
                  "24:00 for the end of the day), its price per slot and payment rule.")
class PriceBandInput:
    weekdays: list[Weekday] = strawberry.field(description="The days it applies on (at least one, none twice).")
    from_: str = strawberry.field(name="from", description="Its first slot's start: " + docs.CLOCK)
    to: str = strawberry.field(description="Its end (exclusive), after from: " + docs.CLOCK)
    price_cents: int = strawberry.field(description=docs.PRICE_CENTS)
    payment_rule: PaymentRule = strawberry.field(default=PaymentRule.FULL, description=docs.PAYMENT_RULE)
    deposit_percent: int | None = strawberry.field(default=None, description=docs.DEPOSIT_PERCENT)
    deposit_cents: int | None = strawberry.field(default=None, description=docs.DEPOSIT_CENTS)

    def band(self, index: int) -> pricing.PriceBand:
        at = f"bands[{index}]."
        return pricing.PriceBand(tuple(d.value for d in self.weekdays), pricing.parse_clock(self.from_, f"{at}from"),
                                 pricing.parse_clock(self.to, f"{at}to"), self.price_cents, self.payment_rule,
                                 self.deposit_percent, self.deposit_cents)


ServiceResult = Annotated[Service | InvalidInput | NotFound, strawberry.union(
    "ServiceResult", description=(
    "What createService, updateService, deactivateService, reactivateService and setPriceBands answer: Service, or the"
    " refusal (an Error) that stopped it."))]
