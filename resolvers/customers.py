"""Customers: staff put them on the tenant's blacklist and take them off it (RN-HLD-05)."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import fraud
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import UnitIdArg
from schema.customers import BlacklistResult, Customer, CustomerBlacklistPayload, CustomerInput
from schema.ids import Kind

BlacklistCustomerArg = Annotated[CustomerInput, strawberry.argument(
    description="The customer, by CPF and/or phone: every record with either is changed.")]
BlacklistedArg = Annotated[bool, strawberry.argument(description="true: put on the blacklist; false: take off it.")]
BlacklistReasonArg = Annotated[str | None, strawberry.argument(description="Why (kept with the records).")]


@strawberry.type
class CustomerMutation:
    @strawberry.mutation(description="Staff: put a customer on the tenant's blacklist (no self-service holds, no "
                         "waitlists) or take them off it. Applies to every record with the CPF or phone.")
    async def set_customer_blacklisted(self, info: Info, unit_id: UnitIdArg, customer: BlacklistCustomerArg,
                                       blacklisted: BlacklistedArg, reason: BlacklistReasonArg = None
                                       ) -> BlacklistResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, "manage")
        records = await fraud.set_blacklisted(info.context.deps, uid, customer.to_domain(), blacklisted, reason,
                                              actor=info.context.principal.key)
        return CustomerBlacklistPayload(customers=[Customer.from_row(r) for r in records])
