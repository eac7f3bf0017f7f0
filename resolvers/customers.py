"""Customers: staff put them on the tenant's blacklist and take them off it (RN-HLD-05)."""

from __future__ import annotations

import strawberry

from domain import fraud
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.customers import BlacklistResult, Customer, CustomerBlacklistPayload, CustomerInput
from schema.ids import Kind


@strawberry.type
class CustomerMutation:
    @strawberry.mutation(description="Staff: put a customer on the tenant's blacklist (no self-service holds, no "
                         "waitlists) or take them off it. Applies to every record with the CPF or phone.")
    async def set_customer_blacklisted(self, info: Info, unit_id: strawberry.ID, customer: CustomerInput,
                                       blacklisted: bool, reason: str | None = None) -> BlacklistResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, "manage")
        records = await fraud.set_blacklisted(info.context.deps, uid, customer.to_domain(), blacklisted, reason,
                                              actor=info.context.principal.key)
        return CustomerBlacklistPayload(customers=[Customer.from_row(r) for r in records])
