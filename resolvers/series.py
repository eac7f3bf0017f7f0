"""Recurring bookings (issue 23): hold a series, book one at the counter, accept it once, cancel it from a date,
move all its future occurrences; read one and a unit's list."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time
from typing import Annotated

import strawberry

from domain import listings
from domain.access import Action
from domain.errors import ErrorCode
from domain.errors import InvalidInput as DomainInvalidInput
from domain.pages import Page
from domain.series import SeriesStatus
from domain.services import series as use
from resolvers.bookings import _named_customer
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_series, authorize_unit, customer_for, limit_holds
from schema.args import IdempotencyKeyArg, OptionalReasonArg
from schema.bookings import Booking
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.ids import Kind
from schema.series import (
    CounterSeriesInput,
    HoldSeriesResult,
    Series,
    SeriesChangePayload,
    SeriesChangeResult,
    SeriesInput,
    SeriesPayload,
    SeriesResult,
    SkippedOccurrence,
)
from schema.series import OccurrenceConflict as OccurrenceConflictType
from schema.venue_flows import ManualPaymentMethod

SeriesIdArg = Annotated[strawberry.ID, strawberry.argument(description="The series.")]


def _command(info: Info, i: SeriesInput | CounterSeriesInput, counter: bool, key: str | None
             ) -> use.SeriesCommand:
    principal = info.context.principal
    channel = "counter" if counter else getattr(i, "channel", "api")
    if not counter and channel == "counter":
        raise DomainInvalidInput("channel", "the counter channel is for counterSeries", code=ErrorCode.INVALID_CHANNEL)
    return use.SeriesCommand(
        unit_id=parse_id(i.unit_id, "unitId", Kind.UNIT), starts_at=i.starts_at, ends_at=i.ends_at,
        resource_ids=tuple(parse_id(r, "resourceIds", Kind.RESOURCE) for r in i.resource_ids)
        if i.resource_ids is not None else None,
        quantity=i.quantity,
        customer=customer_for(info.context, i.customer.for_caller(principal) if i.customer else None),
        service_id=parse_id(i.service_id, "serviceId", Kind.SERVICE) if i.service_id else None,
        hold_type=getattr(i, "hold_type", None), channel=channel, actor="staff" if counter else principal.actor,
        placed_by=principal.releaser, every_weeks=i.every_weeks, occurrences=i.occurrences, until=i.until,
        group_id=parse_id(i.group_id, "groupId", Kind.RESOURCE_GROUP) if i.group_id else None, mode=i.mode,
        counter=counter, idempotency_key=info.context.idempotency_key(key))


async def _ask(info: Info, i: SeriesInput | CounterSeriesInput, counter: bool, key: str | None) -> SeriesPayload:
    cmd = _command(info, i, counter, key)
    unit = await authorize_unit(info.context, cmd.unit_id, Action.COUNTER if counter else Action.BOOK)
    if isinstance(i, CounterSeriesInput) and i.customer_id is not None:
        cmd = replace(cmd, customer=await _named_customer(info, i, i.customer_id, unit.tenant_id))
    await limit_holds(info, None if counter else cmd.customer)  # a series is one hold
    out = await use.hold_series(info.context.deps, cmd)
    return SeriesPayload(series=Series.from_domain(out.series, out.bookings, info.context.deps.clock.now()),
                         bookings=[Booking.from_domain(b) for b in out.bookings],
                         skipped=[SkippedOccurrence.from_domain(s) for s in out.skipped],
                         conflicts=[OccurrenceConflictType.from_domain(c) for c in out.conflicts],
                         replayed=out.replayed)


async def _changed(info: Info, change: use.SeriesChange) -> SeriesChangePayload:
    _, bookings = await use.series_bookings(info.context.deps, change.series.id)
    return SeriesChangePayload(series=Series.from_domain(change.series, bookings, info.context.deps.clock.now()),
                               bookings=[Booking.from_domain(b) for b in change.bookings])


def _local_time(value: str) -> time:
    try:
        parsed = time.fromisoformat(value)
    except ValueError:
        raise DomainInvalidInput("localStart", "localStart must be a local time as HH:MM",
                                 code=ErrorCode.INVALID_INPUT) from None
    if parsed.tzinfo is not None or parsed.second or parsed.microsecond:
        raise DomainInvalidInput("localStart", "localStart must be a local time as HH:MM",
                                 code=ErrorCode.INVALID_INPUT)
    return parsed


@strawberry.type
class SeriesQuery:
    @strawberry.field(description="One series (recurring booking) as it is now. Customers see their own; staff "
                      "their unit's.")
    async def series(self, info: Info, id: Annotated[strawberry.ID, strawberry.argument(
            description="The series' id.")]) -> SeriesResult:
        found, bookings = await authorize_series(info.context, parse_id(id, "id", Kind.SERIES), Action.READ)
        return Series.from_domain(found, bookings, info.context.deps.clock.now())

    @strawberry.field(description="Staff: the unit's series, newest first (created, then id), with their state.")
    async def unit_series(
        self, info: Info,
        unit_id: Annotated[strawberry.ID, strawberry.argument(description="The unit whose series.")],
        statuses: Annotated[list[SeriesStatus] | None, strawberry.argument(
            description="Only series stored in these statuses (null or empty: all). A held series whose hold ran "
            "out is still stored HELD (it shows EXPIRED).")] = None,
        first: First = None, after: After = None, last: Last = None, before: Before = None,
    ) -> Connection[Series]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.READ, hide=True)
        request = page_request(listings.SERIES, first, after, last, before)
        wanted = [s.value for s in statuses] if statuses else None
        page = await listings.read(info.context.deps, lambda rows: rows.series(uid, wanted, request))
        now = info.context.deps.clock.now()
        bookings = await use.bookings_of_series(info.context.deps, [s.id for s in page.items])  # one read
        shown = [Series.from_domain(s, bookings[s.id], now) for s in page.items]
        return connection(Page(shown, page.keys, page.has_next, page.has_previous), listings.SERIES)


@strawberry.type
class SeriesMutation:
    @strawberry.mutation(description="Hold a series (recurring booking, issue 23): every occurrence in one "
                         "transaction, as one hold until one deadline; ALL_OR_NOTHING (any taken occurrence: "
                         "nothing held, SeriesConflicts) or FREE_ONLY (the free ones; the taken ones in conflicts). "
                         "Closed days and blocks are skipped. Customers hold for themselves; staff and integrators "
                         "with 'book' for anyone. Accept it with confirmSeries.")
    async def hold_series(self, info: Info, input: Annotated[SeriesInput, strawberry.argument(
            description="The series to hold, for whom.")], idempotency_key: IdempotencyKeyArg = None
    ) -> HoldSeriesResult:
        return await _ask(info, input, False, idempotency_key)

    @strawberry.mutation(description="Staff: book a series at the counter: every occurrence confirmed at once, no "
                         "payment (SPEC §11), in one transaction.")
    async def counter_series(self, info: Info, input: Annotated[CounterSeriesInput, strawberry.argument(
            description="The series to book, for whom.")], idempotency_key: IdempotencyKeyArg = None
    ) -> HoldSeriesResult:
        return await _ask(info, input, True, idempotency_key)

    @strawberry.mutation(description="Accept a held series once: the cancellation policy and each occurrence's "
                         "price (see Series.quote); its occurrences are confirmed. Customers accept their own.")
    async def confirm_series(self, info: Info, series_id: SeriesIdArg, contact: Annotated[
            str | None, strawberry.argument(description="Where the customer accepted (a phone or e-mail), kept with "
                                            "the acceptance.")] = None) -> SeriesChangeResult:
        found, _ = await authorize_series(info.context, parse_id(series_id, "seriesId", Kind.SERIES), Action.BOOK)
        principal = info.context.principal
        change = await use.confirm_series(info.context.deps, use.ConfirmSeriesCommand(
            found.id, actor=principal.actor, channel=found.channel, contact=contact))
        return await _changed(info, change)

    @strawberry.mutation(description="Managers and owners: record a period (calendar month) of a series paid outside "
                         "Pix (cash, card at the counter, transfer) with a reason: every occurrence of it awaiting "
                         "its Pix confirms (one payment recorded by hand each, its share), its Pix charge is "
                         "cancelled. Refused with manual_payments_off where the venue turned it off, "
                         "invalid_transition for a period already paid or released.")
    async def record_series_period_payment(
        self, info: Info, series_id: SeriesIdArg,
        starts_on: Annotated[date, strawberry.argument(description="The period's first day (Series.periods.startsOn)."
                                                       )],
        method: Annotated[ManualPaymentMethod, strawberry.argument(description="How it was taken.")],
        reason: Annotated[str, strawberry.argument(description="Why it is recorded by hand (required, kept with "
                                                   "each record).")],
    ) -> SeriesChangeResult:
        from domain import series_pay

        found, _ = await authorize_series(info.context, parse_id(series_id, "seriesId", Kind.SERIES),
                                          Action.RECORD_PAYMENT)
        principal = info.context.principal
        _, paid = await series_pay.record_period_payment(info.context.deps, series_pay.RecordPeriodPayment(
            use.uuid_of(found.id, starts_on), method, reason, actor=principal.actor, session=principal.key))
        return await _changed(info, use.SeriesChange(found, paid))

    @strawberry.mutation(description="Cancel every occurrence of a series that starts at or after `from` (held, "
                         "pending or confirmed), each with the refund its accepted policy gives; in one step. "
                         "Customers cancel their own series; staff anyone's of their unit.")
    async def cancel_series_from(
        self, info: Info, series_id: SeriesIdArg,
        from_: Annotated[datetime, strawberry.argument(name="from", description="The first start to cancel "
                                                       "(inclusive), with a UTC offset.")],
        reason: OptionalReasonArg = None,
    ) -> SeriesChangeResult:
        found, _ = await authorize_series(info.context, parse_id(series_id, "seriesId", Kind.SERIES), Action.BOOK)
        if from_.tzinfo is None:
            raise DomainInvalidInput("from", "times must carry a UTC offset (ISO 8601)", code=ErrorCode.NAIVE_DATETIME)
        principal = info.context.principal
        change = await use.cancel_series_from(info.context.deps, found.id, from_, principal.actor,
                                              principal.releasers(Action.BOOK), reason)
        return await _changed(info, change)

    @strawberry.mutation(description="Move every future occurrence of a series (from `from`, default now) to a new "
                         "local time (and length) on its own day and resources, each as a reschedule; all or nothing "
                         "(any taken: nothing moves, SeriesConflicts). Customers their own series (not sooner than "
                         "the minimum advance); staff anyone's.")
    async def retime_series(
        self, info: Info, series_id: SeriesIdArg,
        local_start: Annotated[str, strawberry.argument(description="The new local start time, HH:MM (the unit's "
                                                        "time zone).")],
        minutes: Annotated[int | None, strawberry.argument(description="The new length in minutes; omitted: the "
                                                           "series' own.")] = None,
        from_: Annotated[datetime | None, strawberry.argument(name="from", description="Only occurrences starting "
                                                              "at or after this; omitted: now.")] = None,
    ) -> SeriesChangeResult:
        found, _ = await authorize_series(info.context, parse_id(series_id, "seriesId", Kind.SERIES), Action.BOOK)
        if from_ is not None and from_.tzinfo is None:
            raise DomainInvalidInput("from", "times must carry a UTC offset (ISO 8601)", code=ErrorCode.NAIVE_DATETIME)
        principal = info.context.principal
        change = await use.retime_series(info.context.deps, found.id, _local_time(local_start), minutes, from_,
                                         principal.actor, principal.is_staff)
        return await _changed(info, change)
