"""The catalog: owners publish a service's price and the unit's cancellation policy, each as its next version."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import catalog
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import ServiceIdArg, UnitIdArg
from schema.catalog import PolicyResult, PolicyVersion, PriceResult, PriceVersion, TierInput
from schema.ids import Kind, ref
from schema.vocabulary import PaymentRule

PriceCentsArg = Annotated[int, strawberry.argument(
    description="The price of one slot per place, in cents (0 or more).")]
RuleArg = Annotated[PaymentRule, strawberry.argument(description="How much is due when the customer accepts.")]
DepositPercentArg = Annotated[int | None, strawberry.argument(
    description="With DEPOSIT_PERCENT: the share due now, 1 to 100.")]
DepositCentsArg = Annotated[int | None, strawberry.argument(
    description="With DEPOSIT_CENTS: the deposit per place, in cents.")]
TiersArg = Annotated[list[TierInput], strawberry.argument(
    description="The refund tiers (at least one): cancelling at least minHours before the start refunds percent.")]


@strawberry.type
class CatalogMutation:
    @strawberry.mutation(description="Owner: publish a service's new price and payment rule (FULL, "
                         "DEPOSIT_PERCENT, DEPOSIT_CENTS) as its next version. Accepted bookings keep theirs.")
    async def publish_service_price(
        self, info: Info, unit_id: UnitIdArg, service_id: ServiceIdArg, price_cents: PriceCentsArg,
        payment_rule: RuleArg, deposit_percent: DepositPercentArg = None, deposit_cents: DepositCentsArg = None,
    ) -> PriceResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        p = await catalog.publish_price(info.context.deps, uid,
                                        parse_id(service_id, "serviceId", Kind.SERVICE), price_cents, payment_rule,
                                        deposit_percent, deposit_cents, info.context.principal.key)
        return PriceVersion(service_id=ref(Kind.SERVICE, p.service_id), version=p.version,
                            price_cents=p.price_cents, payment_rule=p.rule,
                            deposit_percent=p.deposit_percent, deposit_cents=p.deposit_cents)

    @strawberry.mutation(description="Owner: publish the unit's cancellation policy as its next version.")
    async def publish_cancellation_policy(self, info: Info, unit_id: UnitIdArg, tiers: TiersArg
                                          ) -> PolicyResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        p = await catalog.publish_policy(info.context.deps, uid,
                                         [(t.min_hours, t.percent) for t in tiers])
        return PolicyVersion(version=p.version, summary=p.summary_pt())
