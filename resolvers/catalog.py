"""The catalog: owners publish a service's price and the unit's cancellation policy, each as its next version."""

from __future__ import annotations

import strawberry

from domain import catalog
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.catalog import PolicyResult, PolicyVersion, PriceResult, PriceVersion, TierInput
from schema.ids import Kind, ref


@strawberry.type
class CatalogMutation:
    @strawberry.mutation(description="Owner: publish a service's new price and payment rule (full, "
                         "deposit_percent, deposit_cents) as its next version. Accepted bookings keep theirs.")
    async def publish_service_price(
        self, info: Info, unit_id: strawberry.ID, service_id: strawberry.ID, price_cents: int, payment_rule: str,
        deposit_percent: int | None = None, deposit_cents: int | None = None,
    ) -> PriceResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        p = await catalog.publish_price(info.context.deps, uid,
                                        parse_id(service_id, "serviceId", Kind.SERVICE), price_cents, payment_rule,
                                        deposit_percent, deposit_cents, info.context.principal.key)
        return PriceVersion(service_id=ref(Kind.SERVICE, p.service_id), version=p.version,
                            price_cents=p.price_cents, payment_rule=p.rule.value,
                            deposit_percent=p.deposit_percent, deposit_cents=p.deposit_cents)

    @strawberry.mutation(description="Owner: publish the unit's cancellation policy as its next version.")
    async def publish_cancellation_policy(self, info: Info, unit_id: strawberry.ID, tiers: list[TierInput]
                                          ) -> PolicyResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.CONFIGURE)
        p = await catalog.publish_policy(info.context.deps, uid,
                                         [(t.min_hours, t.percent) for t in tiers])
        return PolicyVersion(version=p.version, summary=p.summary_pt())
