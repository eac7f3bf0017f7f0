"""The booking's lifecycle and channel as GraphQL enums: their own module, so that the refusal and payment types
(schema/errors.py, schema/payments.py) can name them without importing the booking types (which import those)."""

from __future__ import annotations

from domain import bookings as db
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
