"""The domain's vocabularies that several schema modules name (a booking's status and channel, the payment rule, the
weekday), registered as GraphQL enums here, before any annotation names them: strawberry would otherwise make an
undescribed enum of its own from the first annotation it reads (schema/enums.py refuses that)."""

from __future__ import annotations

from enum import Enum

from domain import bookings as db
from domain import payments as dp
from domain.layout.hours import WEEKDAYS
from schema.enums import described_enum

BookingStatus = db.BookingStatus  # the domain's enum, registered by strawberry.enum (which returns it unchanged)
described_enum(BookingStatus, description="Where a booking is in its lifecycle (SPEC §3).", values={
    "HELD": "Pre-reserved until its deadline (holdExpiresAt); occupies its slot.",
    "PENDING_PAYMENT": "Accepted by the customer, waiting for the Pix (or deposit) until the deadline; occupies.",
    "VERIFYING": "The customer says they paid (\"Paguei\"): frozen up to verificationWaitSeconds while staff check "
    "(RN-HLD-06); occupies.",
    "CONFIRMED": "Booked; occupies.",
    "CHECKED_IN": "The customer arrived; occupies.",
    "COMPLETED": "Attended, after the end; frees the slot.",
    "CANCELLED": "Cancelled by the customer or staff, replaced by a reschedule, or its charge failed; frees the slot.",
    "NO_SHOW": "A person confirmed the customer did not come (never automatic); frees the slot.",
    "EXPIRED": "The hold's or the payment's deadline passed; frees the slot.",
})
Channel = db.Channel
described_enum(Channel, name="BookingChannel", description="Where a booking came from, and where its acceptance was "
               "given: recorded with the booking and in its audit trail. Every channel but COUNTER is self-service "
               "(the anti-fraud limits of RN-HLD-05 apply).", values={
    "API": "An integrator or app through the API (the default).",
    "WEB": "A web booking page (the web demo, a venue's widget).",
    "APP": "A mobile or desktop app.",
    "WHATSAPP": "The WhatsApp conversation.",
    "BOT": "Another chat bot.",
    "COUNTER": "Staff at the counter (counterBooking only): exempt from the anti-fraud limits.",
    "WAITLIST": "A waitlist offer (made by the engine, not by callers).",
})
PaymentRule = dp.PaymentRule
described_enum(PaymentRule, description="How much of the price is due when the customer accepts: FULL, a "
               "DEPOSIT_PERCENT of the total or DEPOSIT_CENTS per place; the rest is paid at the venue.", values={
    "FULL": "The whole price is due now (by Pix).",
    "DEPOSIT_PERCENT": "A share of the total is due now (depositPercent, 1 to 100); the rest at the venue.",
    "DEPOSIT_CENTS": "A fixed deposit per place is due now (depositCents); the rest at the venue.",
})


class Weekday(Enum):
    MONDAY = 0
    TUESDAY = 1
    WEDNESDAY = 2
    THURSDAY = 3
    FRIDAY = 4
    SATURDAY = 5
    SUNDAY = 6


assert [d.name for d in Weekday] == list(WEEKDAYS)
described_enum(Weekday, description="A day of the week, Monday first (ISO 8601).",
               values={d.name: d.name.title() + "." for d in Weekday})
