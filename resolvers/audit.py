"""Audit reports (SPEC §15, seed 004): read-only queries over booking_events for staff who may read the unit."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain import audit_reports
from domain.access import Action
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit
from schema.args import UnitIdArg
from schema.audit import (
    AuditBucket,
    AuditPeriod,
    AuditPeriods,
    AuditPeriodsResult,
    HoldConversion,
    HoldConversionResult,
)
from schema.ids import Kind, ref

BucketArg = Annotated[AuditBucket, strawberry.argument(
    description="How to cut the range: DAY (the default) or WEEK (from Monday).")]


From = Annotated[datetime, strawberry.argument(name="from", description="Start of the range (with a UTC offset).")]
To = Annotated[datetime, strawberry.argument(description="End of the range, excluded; at most 366 days after from.")]
HoldType = Annotated[str | None, strawberry.argument(description="Only holds born with this hold type, e.g. CART.")]


@strawberry.type
class AuditQuery:
    @strawberry.field(description="Staff: of the unit's holds born in [from, to), how many became sold (reached "
                      "CONFIRMED, at any time up to now), expired, were cancelled, or are still open; and the share "
                      "sold. E.g. \"what share of CART holds became sold last week\".")
    async def hold_conversion(self, info: Info, unit_id: UnitIdArg, from_: From, to: To,
                              hold_type: HoldType = None) -> HoldConversionResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        unit = await authorize_unit(info.context, uid, Action.READ)
        counts = await audit_reports.hold_conversion(info.context.stores.audit_reports, unit, from_, to, hold_type)
        return HoldConversion.from_domain(uid, from_, to, hold_type, counts)

    @strawberry.field(description="Staff: the unit's holds born, sales, moves, expirations, no-shows and "
                      "cancellations over [from, to), per day or week (from Monday) of the unit's time zone.")
    async def audit_periods(self, info: Info, unit_id: UnitIdArg, from_: From, to: To,
                            bucket: BucketArg = audit_reports.AuditBucket.DAY,
                            hold_type: HoldType = None) -> AuditPeriodsResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        unit = await authorize_unit(info.context, uid, Action.READ)
        periods = await audit_reports.audit_periods(info.context.stores.audit_reports, unit, from_, to, bucket,
                                                    hold_type)
        return AuditPeriods(unit_id=ref(Kind.UNIT, uid), time_zone=unit.timezone, bucket=bucket,
                            hold_type=hold_type, periods=[AuditPeriod.from_domain(p) for p in periods])
