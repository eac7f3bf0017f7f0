"""Recurring bookings (issue 23) as the API shows them: a series, its occurrences and periods, what asking for one
did (held, skipped, conflicts), the inputs and result unions of its operations."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from domain import errors as de
from domain import series as ds
from domain.bookings import BookingStatus
from schema import docs
from schema.bookings import Booking
from schema.customers import CustomerInput
from schema.enums import described_enum
from schema.errors import (
    Busy,
    CooldownActive,
    CustomerBlacklisted,
    Error,
    HoldCeilingReached,
    HoldLimitReached,
    IdempotencyInProgress,
    IdempotencyKeyReused,
    InvalidInput,
    InvalidTransition,
    NotFound,
    SlotOption,
)
from schema.ids import Kind, opt_ref, ref, refs
from schema.nodes import Node
from schema.payments import Charge
from schema.vocabulary import Channel

SeriesMode = ds.SeriesMode  # the domain's enums, registered by described_enum (which returns them unchanged)
SeriesStatus = ds.SeriesStatus
SkipReason = ds.SkipReason
described_enum(SeriesMode, description="What to do when some occurrences of a series are taken.",
                            values={"ALL_OR_NOTHING": "Any taken occurrence: nothing is held; each conflict is "
                                    "reported (SeriesConflicts).",
                                    "FREE_ONLY": "The free occurrences are held; the taken ones are reported in "
                                    "the answer's conflicts."})
described_enum(SeriesStatus, description="Where a series is.", values={
    "HELD": "Held, waiting for the customer's one acceptance (confirmSeries) before the hold's deadline.",
    "CONFIRMED": "Accepted (or booked at the counter): its occurrences are confirmed bookings, or await their "
                 "period's Pix (paying by period: Series.periods).",
    "CANCELLED": "Cancelled: none of its occurrences is left.",
    "EXPIRED": "Never accepted: its hold ran out.",
})
described_enum(SkipReason, description="Why an occurrence of a series was left out (not a "
                            "conflict).", values={
                                "CLOSED": "A closed day (a holiday) or hours that do not cover the occurrence.",
                                "BLOCKED": "A grid block (maintenance) takes it."})


@strawberry.type(description="An occurrence of a series left out: a closed day or a block.")
class SkippedOccurrence:
    index: int = strawberry.field(description="Its place in the series (0: the first).")
    starts_at: datetime = strawberry.field(description=docs.STARTS_AT)
    ends_at: datetime = strawberry.field(description=docs.ENDS_AT)
    reason: SkipReason = strawberry.field(description="Why it was left out.")

    @classmethod
    def from_domain(cls, s: ds.Skipped) -> SkippedOccurrence:
        return cls(index=s.index, starts_at=s.starts_at, ends_at=s.ends_at, reason=s.reason)


@strawberry.type(description="An occurrence of a series that is taken (held or booked) on every resource it could "
                 "use, with its nearest free options.")
class OccurrenceConflict:
    index: int = strawberry.field(description="Its place in the series (0: the first).")
    starts_at: datetime = strawberry.field(description=docs.STARTS_AT)
    ends_at: datetime = strawberry.field(description=docs.ENDS_AT)
    resource_ids: list[strawberry.ID] = strawberry.field(description="The resources tried.")
    alternatives: list[SlotOption] = strawberry.field(description="Up to 3 nearest free options (RN-ATD-07).")

    @classmethod
    def from_domain(cls, c: de.OccurrenceConflict) -> OccurrenceConflict:
        return cls(index=c.index, starts_at=c.starts_at, ends_at=c.ends_at,
                   resource_ids=refs(Kind.RESOURCE, list(c.resource_ids)),
                   alternatives=[SlotOption.from_domain(a) for a in c.alternatives])


@strawberry.type(description="Occurrences of a series are taken: nothing was written. Code series_conflicts.")
class SeriesConflicts(Error):
    conflicts: list[OccurrenceConflict] = strawberry.field(description="Each taken occurrence, in order, with its "
                                                           "nearest free options.")

    @classmethod
    def from_domain(cls, e: de.SeriesConflicts) -> SeriesConflicts:
        return cls(code=e.code, message=e.message,
                   conflicts=[OccurrenceConflict.from_domain(c) for c in e.conflicts])


@strawberry.type(description="A calendar month of a series' occurrences: the unit paying by period charges (one Pix "
                 "for all its occurrences).")
class SeriesPeriod:
    starts_on: date = strawberry.field(description="Its first day (local).")
    ends_on: date = strawberry.field(description="The day after its last (local, exclusive).")
    due_at: datetime = strawberry.field(description="When it is charged: the first at acceptance, later ones "
                                        "seriesChargeDaysAhead days before they start.")
    deadline_at: datetime = strawberry.field(description="When its occurrences are released if it is still unpaid "
                                             "(the first: the series' hold deadline; later ones: the local midnight "
                                             "the month starts).")
    status: str = strawberry.field(description="open (not charged yet, or nothing due by Pix), charged (its Pix is "
                                   "waiting), paid, released (unpaid at its deadline; a late Pix that could not "
                                   "rebook every occurrence leaves it released, with paidAt) or cancelled.")
    amount_cents: int = strawberry.field(description="The total of its occurrences as accepted, in cents.")
    charge: Charge | None = strawberry.field(description="Its Pix charge (copia-e-cola, QR) once charged; null "
                                             "before, and when it was paid by hand before being charged.")
    reminded_at: datetime | None = strawberry.field(description="When its customer was reminded of its deadline.")
    paid_at: datetime | None = strawberry.field(description="When its payment arrived (Pix) or was recorded.")
    paid_by_hand: bool = strawberry.field(description="True when staff recorded it paid outside Pix.")

    @classmethod
    def from_domain(cls, p: ds.Period, charge: Any, qr: Any) -> SeriesPeriod:
        assert p.deadline_at is not None
        return cls(starts_on=p.starts_on, ends_on=p.ends_on, due_at=p.due_at, deadline_at=p.deadline_at,
                   status=p.status, amount_cents=p.amount_cents,
                   charge=Charge.from_domain(charge, qr) if charge is not None else None,
                   reminded_at=p.reminded_at, paid_at=p.paid_at,
                   paid_by_hand=p.paid_by is not None and p.paid_by != "pix")


@strawberry.type(description="The price of one occurrence of a held series, from the price bands in force.")
class OccurrencePrice:
    booking_id: strawberry.ID = strawberry.field(description="The occurrence's booking.")
    starts_at: datetime = strawberry.field(description=docs.STARTS_AT)
    total_cents: int = strawberry.field(description="Its price, in cents.")
    due_now_cents: int = strawberry.field(description="What accepting would charge by Pix for it now.")


@strawberry.type(description="What accepting a held series now would record: the price of each occurrence, the "
                 "total and the policy the customer accepts once (RN-ATD-09).")
class SeriesQuote:
    occurrences: list[OccurrencePrice] = strawberry.field(description="Each held occurrence, in order.")
    total_cents: int = strawberry.field(description="The sum of the occurrences' prices, in cents.")
    due_now_cents: int = strawberry.field(description="What would be due by Pix now, in cents.")
    policy_summary: str = strawberry.field(description="The cancellation policy's words, accepted once for all.")


@strawberry.type(description="A recurring booking (issue 23): the same local time, every N weeks, each occurrence a "
                 "booking of its own.")
class Series(Node):
    id: strawberry.ID = strawberry.field(description=docs.ID)
    unit_id: strawberry.ID = strawberry.field(description=docs.UNIT_ID)
    status: SeriesStatus = strawberry.field(description="Where it is: a HELD one shows EXPIRED once its hold has run "
                                            "out, and any shows CANCELLED once every occurrence is cancelled.")
    mode: SeriesMode = strawberry.field(description="How it was asked for.")
    every_weeks: int = strawberry.field(description="The interval between occurrences, in weeks.")
    local_start: str = strawberry.field(description="The local wall time of each occurrence (HH:MM, the unit's "
                                        "time zone): the same across a daylight-saving change.")
    minutes: int = strawberry.field(description="How long each occurrence lasts, in minutes.")
    first_day: date = strawberry.field(description="The local date of the first occurrence.")
    occurrences_asked: int | None = strawberry.field(description="How many occurrences were asked for; null when "
                                                     "asked until a date.")
    until: date | None = strawberry.field(description="The last local date asked for; null when asked by count.")
    customer_id: strawberry.ID | None = strawberry.field(description="The customer record it is for.")
    service_id: strawberry.ID | None = strawberry.field(description=docs.SERVICE)
    channel: Channel = strawberry.field(description="Where it came from.")
    created_at: datetime = strawberry.field(description=docs.CREATED_AT)
    acceptance: JSON | None = strawberry.field(description="What the customer accepted once for the series (policy "
                                               "version, total, each occurrence's price), as accepted.")
    occurrence_bookings: strawberry.Private[list[Any]]

    @strawberry.field(description="Its occurrences as they are now, by index: one booking per index (a moved "
                      "occurrence shows its new booking), every state (at most 60).")
    def occurrences(self) -> list[Booking]:
        latest: dict[int, Any] = {}
        for b in self.occurrence_bookings:
            if b.rescheduled_to is None:
                latest[b.series_index] = b
        return [Booking.from_domain(latest[i]) for i in sorted(latest)]

    @strawberry.field(description="The periods (calendar months) it is paid by, oldest first, each with its Pix "
                      "charge once charged.")
    async def periods(self, info: strawberry.Info) -> list[SeriesPeriod]:
        from domain.series_pay import periods_with_charges

        found = await periods_with_charges(info.context.deps, _uuid(self.id))
        return [SeriesPeriod.from_domain(p, c, info.context.qr) for p, c in found]

    @strawberry.field(description="While it is held: what accepting it now would record, per occurrence and in "
                      "total. Null otherwise.")
    async def quote(self, info: strawberry.Info) -> SeriesQuote | None:
        from domain.checkout import quote

        if self.status is not ds.SeriesStatus.HELD:
            return None
        prices, summary = [], ""
        for b in self.occurrence_bookings:
            terms = await quote(info.context.deps, b.id)
            if terms is None:
                continue
            summary = terms.policy_summary
            prices.append(OccurrencePrice(booking_id=ref(Kind.BOOKING, b.id), starts_at=b.starts_at,
                                          total_cents=terms.total_cents, due_now_cents=terms.due_now_cents))
        if not prices:
            return None
        return SeriesQuote(occurrences=prices, total_cents=sum(p.total_cents for p in prices),
                           due_now_cents=sum(p.due_now_cents for p in prices), policy_summary=summary)

    @classmethod
    def from_domain(cls, s: ds.Series, bookings: list[Any], now: datetime) -> Series:
        status = s.status
        live = any(b.occupies and not b.is_lapsed(now) for b in bookings)
        if status in (ds.SeriesStatus.HELD, ds.SeriesStatus.CONFIRMED) and bookings and not live and all(
                b.status is BookingStatus.CANCELLED for b in bookings):
            status = ds.SeriesStatus.CANCELLED  # each occurrence cancelled one by one
        elif status is ds.SeriesStatus.HELD and not live:
            status = ds.SeriesStatus.EXPIRED
        return cls(
            id=ref(Kind.SERIES, s.id), unit_id=ref(Kind.UNIT, s.unit_id), status=status, mode=s.mode,
            every_weeks=s.every_weeks, local_start=s.local_start.strftime("%H:%M"), minutes=s.minutes,
            first_day=s.first_day, occurrences_asked=s.occurrences_asked, until=s.until_day,
            customer_id=opt_ref(Kind.CUSTOMER, s.customer_id), service_id=opt_ref(Kind.SERVICE, s.service_id),
            channel=Channel(s.channel), created_at=s.created_at, acceptance=JSON(s.acceptance) if s.acceptance
            else None, occurrence_bookings=bookings)


def _uuid(value: strawberry.ID) -> Any:
    from schema.ids import db_id

    return db_id(value)


@strawberry.type(description="What asking for a series did: the series, the occurrences held (or booked), those "
                 "skipped and, with FREE_ONLY, those taken.")
class SeriesPayload:
    series: Series = strawberry.field(description="The series as it is now.")
    bookings: list[Booking] = strawberry.field(description="The occurrences placed, in order.")
    skipped: list[SkippedOccurrence] = strawberry.field(description="Occurrences left out: closed days, blocks.")
    conflicts: list[OccurrenceConflict] = strawberry.field(description="FREE_ONLY: the taken occurrences, with "
                                                           "their nearest free options; empty otherwise.")
    replayed: bool = strawberry.field(default=False, description="True when an earlier request with the same "
                                      "idempotency key held the series: it is answered as it is now (bookings: "
                                      "every occurrence's; skipped and conflicts empty).")


@strawberry.type(description="A series after a change, with the occurrences' bookings the change made or touched.")
class SeriesChangePayload:
    series: Series = strawberry.field(description="The series as it is now.")
    bookings: list[Booking] = strawberry.field(description="The bookings the change confirmed, cancelled or made.")


@strawberry.input(description="Hold a series: its first occurrence [startsAt, endsAt), then every everyWeeks weeks at "
                  "the same local time, for `occurrences` or until a date (at most 60).")
class SeriesInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit (venue).")
    starts_at: datetime = strawberry.field(description="Start of the first occurrence (inclusive), with a UTC "
                                           "offset, on the unit's grid.")
    ends_at: datetime = strawberry.field(description="End of the first occurrence (exclusive), on the grid.")
    customer: CustomerInput = strawberry.field(description=docs.CUSTOMER)
    every_weeks: int = strawberry.field(default=1, description="Every how many weeks (1 to 52; default weekly).")
    occurrences: int | None = strawberry.field(default=None, description="How many occurrences (1 to 60); give it "
                                               "or until.")
    until: date | None = strawberry.field(default=None, description="The last local date an occurrence may fall "
                                          "on; give it or occurrences.")
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description="The resources each "
                                                                "occurrence takes; omitted: any free one (of "
                                                                "groupId), the same each time where possible.")
    group_id: strawberry.ID | None = strawberry.field(default=None, description="With resourceIds omitted: only "
                                                      "resources of this group.")
    quantity: int = strawberry.field(default=1, description=docs.QUANTITY)
    service_id: strawberry.ID | None = strawberry.field(default=None, description=docs.SERVICE)
    hold_type: str | None = strawberry.field(default=None, description="The hold type (default CART).")
    channel: Channel = strawberry.field(default=Channel.API, description=docs.CHANNEL)
    mode: SeriesMode = strawberry.field(default=ds.SeriesMode.ALL_OR_NOTHING, description="When some occurrences "
                                        "are taken: hold nothing (default) or the free ones.")


@strawberry.input(description="Book a series at the counter: confirmed at once, no payment (SPEC §11).")
class CounterSeriesInput:
    unit_id: strawberry.ID = strawberry.field(description="The unit (venue).")
    starts_at: datetime = strawberry.field(description="Start of the first occurrence, on the unit's grid.")
    ends_at: datetime = strawberry.field(description="End of the first occurrence, on the grid.")
    customer: CustomerInput | None = strawberry.field(default=None, description="Who it is for.")
    customer_id: strawberry.ID | None = strawberry.field(
        default=None, description="Instead of customer: a customer record of the unit's tenant, as customers(unitId, "
        "search) found it (CustomerMatch.id) — a customer known by CPF alone, as counterBooking takes it. Not with "
        "customer; another tenant's record is NotFound.")
    every_weeks: int = strawberry.field(default=1, description="Every how many weeks (1 to 52; default weekly).")
    occurrences: int | None = strawberry.field(default=None, description="How many occurrences (1 to 60).")
    until: date | None = strawberry.field(default=None, description="The last local date an occurrence may fall on.")
    resource_ids: list[strawberry.ID] | None = strawberry.field(default=None, description="The resources; omitted: "
                                                                "any free one, the same each time where possible.")
    group_id: strawberry.ID | None = strawberry.field(default=None, description="Only resources of this group.")
    quantity: int = strawberry.field(default=1, description=docs.QUANTITY)
    service_id: strawberry.ID | None = strawberry.field(default=None, description=docs.SERVICE)
    mode: SeriesMode = strawberry.field(default=ds.SeriesMode.ALL_OR_NOTHING, description="When some occurrences "
                                        "are taken: book nothing (default) or the free ones.")


HoldSeriesResult = Annotated[
    SeriesPayload | SeriesConflicts | InvalidInput | NotFound | IdempotencyKeyReused | IdempotencyInProgress | Busy
    | HoldLimitReached | CooldownActive | HoldCeilingReached | CustomerBlacklisted,
    strawberry.union("HoldSeriesResult", description=(
        "What holdSeries and counterSeries answer: SeriesPayload, or the refusal (an Error) that stopped it."))]
SeriesChangeResult = Annotated[
    SeriesChangePayload | SeriesConflicts | InvalidTransition | InvalidInput | NotFound | Busy,
    strawberry.union("SeriesChangeResult", description=(
        "What confirmSeries, cancelSeriesFrom and retimeSeries answer: SeriesChangePayload, or the refusal."))]
SeriesResult = Annotated[Series | NotFound | InvalidInput, strawberry.union("SeriesResult", description=(
    "What series answers: Series, or the refusal (an Error) that stopped it."))]
