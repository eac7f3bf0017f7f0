"""Typed refusals, each with a stable `code`: expected errors are part of the schema, not exceptions.

Each type is built from its domain refusal by `from_domain`; schema/refusals.py says which refusal becomes which
type, once for every field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Self

import strawberry

from domain import errors as de
from domain.error_codes import DESCRIPTIONS
from domain.errors import ErrorCode
from schema import docs
from schema.enums import described_enum
from schema.ids import Kind, opt_ref, ref, refs

described_enum(ErrorCode, name="ErrorCode", graphql_name_from="value", description=(
    "Every stable code a client can meet: `code` of a refusal in a result union, and `extensions.code` of a "
    "top-level error (which also carries the API's own codes: document, limits, transport). The values are the "
    "wire strings, lowercase (e.g. slot_taken), except the persisted-query protocol's codes, which keep Apollo's "
    "uppercase spelling (PERSISTED_QUERY_NOT_FOUND) because clients match on them."),
    values={code.name: text for code, text in DESCRIPTIONS.items()})  # the domain enum itself, as schema/audit.py


@strawberry.interface(description="Something the request asked for that the engine refused.")
class Error:
    code: ErrorCode = strawberry.field(description="Stable machine-readable code, e.g. slot_taken.")
    message: str = strawberry.field(description="A sentence for people (English).")

    @classmethod
    def of(cls, e: de.DomainError) -> Self:
        """The refusal's code and message, for the types that carry nothing more."""
        return cls(code=e.code, message=e.message)


@strawberry.type(description="A free place in time that could be held instead.")
class SlotOption:
    resource_id: strawberry.ID = strawberry.field(description=docs.RESOURCE_ID)
    starts_at: datetime = strawberry.field(description=docs.STARTS_AT)
    ends_at: datetime = strawberry.field(description=docs.ENDS_AT)

    @classmethod
    def from_domain(cls, o: de.SlotOption) -> SlotOption:
        return cls(resource_id=ref(Kind.RESOURCE, o.resource_id), starts_at=o.starts_at, ends_at=o.ends_at)


@strawberry.type(description="The waitlist of a taken slot: join it to be offered the slot if it frees.")
class WaitlistOption:
    resource_id: strawberry.ID = strawberry.field(description="The resource whose waitlist it is.")
    starts_at: datetime = strawberry.field(description="Start of the taken slot (inclusive).")
    ends_at: datetime = strawberry.field(description="End of the taken slot (exclusive).")


@strawberry.type(description="The slot was taken (held, booked or blocked); here are the nearest free options. "
                 "Code slot_taken, or slot_held when a counter booking meets a customer's hold (drop it first).")
class SlotTaken(Error):
    resource_ids: list[strawberry.ID] = strawberry.field(description="The resources asked for.")
    starts_at: datetime = strawberry.field(description="Start of the slot asked for (inclusive).")
    ends_at: datetime = strawberry.field(description="End of the slot asked for (exclusive).")
    alternatives: list[SlotOption] = strawberry.field(
        description="Up to 3 nearest free options (RN-ATD-07), in time order.")
    waitlist: list[WaitlistOption] = strawberry.field(
        description="The waitlists to join instead (joinSlotWaitlist), one per resource asked for; empty when the slot "
        "has none (a block, a waitlist turned off, too close to the start).")
    held_booking_id: strawberry.ID | None = strawberry.field(
        default=None, description="With code slot_held (a counter booking over a customer's live hold, or one being "
        "verified): the hold to drop first with drop(bookingId).")

    @classmethod
    def from_domain(cls, e: de.SlotTaken) -> SlotTaken:
        return cls(
            code=e.code, message=e.message,
            resource_ids=refs(Kind.RESOURCE, e.resource_ids),
            starts_at=e.starts_at, ends_at=e.ends_at,
            alternatives=[SlotOption.from_domain(a) for a in e.alternatives],
            waitlist=[WaitlistOption(resource_id=ref(Kind.RESOURCE, w.resource_id), starts_at=w.starts_at,
                                     ends_at=w.ends_at) for w in e.waitlist],
            held_booking_id=ref(Kind.BOOKING, e.booking_id) if isinstance(e, de.SlotHeld) else None,
        )


@strawberry.type(description="The current state of the booking (or queue item) does not allow this change.")
class InvalidTransition(Error):
    current_state: str = strawberry.field(description="The state it is in now, as stored (lower case): a booking's "
                                          "status (e.g. held; expired for a hold past its deadline, even before the "
                                          "sweep marks it), or a queue item's (e.g. resolved).")
    target_state: str = strawberry.field(description="The state the change would have led to, in the same words.")

    @classmethod
    def from_domain(cls, e: de.InvalidTransition) -> InvalidTransition:
        return cls(code=e.code, message=e.message, current_state=e.current_state, target_state=e.target_state)


@strawberry.type(description="An argument is malformed or out of range; `field` names it.")
class InvalidInput(Error):
    field: str = strawberry.field(description="The argument or input field refused, as a path (e.g. "
                                  "input.customer.cpf, bands[2].from).")

    @classmethod
    def from_domain(cls, e: de.InvalidInput) -> InvalidInput:
        return cls(code=e.code, message=e.message, field=e.field)


@strawberry.type(description="A referenced entity does not exist or is not visible to you.")
class NotFound(Error):
    field: str = strawberry.field(description="The argument that named it (e.g. bookingId).")

    @classmethod
    def from_domain(cls, e: de.NotFound) -> NotFound:
        return cls(code=e.code, message=e.message, field=e.field)


@strawberry.type(description="This idempotency key was already used for a different request.")
class IdempotencyKeyReused(Error):
    key: str = strawberry.field(description="The idempotency key.")

    @classmethod
    def from_domain(cls, e: de.IdempotencyKeyReused) -> IdempotencyKeyReused:
        return cls(code=e.code, message=e.message, key=e.key)


@strawberry.type(description="A request with this idempotency key is still being processed; retry shortly.")
class IdempotencyInProgress(Error):
    key: str = strawberry.field(description="The idempotency key.")

    @classmethod
    def from_domain(cls, e: de.IdempotencyInProgress) -> IdempotencyInProgress:
        return cls(code=e.code, message=e.message, key=e.key)


@strawberry.type(description="The system is busy with this slot; retry in a moment.")
class Busy(Error):
    pass


@strawberry.type(description="The bank could not create the Pix charge; the hold was cancelled: ask again.")
class PaymentUnavailable(Error):
    pass


@strawberry.type(description="The provider does not show that payment; nothing was confirmed.")
class PaymentNotFound(Error):
    pass


@strawberry.type(description="The customer already has an open hold (RN-HLD-05): move it here with swapHold.")
class HoldLimitReached(Error):
    message_pt: str = strawberry.field(description="The same, for the customer (pt-BR).")
    booking_id: strawberry.ID | None = strawberry.field(
        description="The customer's open hold (the oldest, if several); null when a customer asks and the open hold "
        "is on a record linked to them only by identifiers somebody typed (it still counts, but is not theirs to see).")
    swap_available: bool = strawberry.field(description="Always true: swapHold(bookingId) moves it to this slot.")

    @classmethod
    def from_domain(cls, e: de.HoldLimitReached) -> HoldLimitReached:
        return cls(code=e.code, message=e.message, message_pt=e.message_pt,
                   booking_id=opt_ref(Kind.BOOKING, e.booking_id),
                   swap_available=e.swap_available)


@strawberry.type(description="Too many of the customer's holds expired lately (RN-HLD-05): only the counter can "
                 "book for them until `until`.")
class CooldownActive(Error):
    message_pt: str = strawberry.field(description="The same, for the customer (pt-BR).")
    until: datetime = strawberry.field(description="When self-service holds are possible again.")

    @classmethod
    def from_domain(cls, e: de.CooldownActive) -> CooldownActive:
        return cls(code=e.code, message=e.message, message_pt=e.message_pt, until=e.until)


@strawberry.type(description="The venue's open holds reached its ceiling for that day (RN-HLD-05): try again in a "
                 "few minutes.")
class HoldCeilingReached(Error):
    message_pt: str = strawberry.field(description="The same, for the customer (pt-BR).")

    @classmethod
    def from_domain(cls, e: de.HoldCeilingReached) -> HoldCeilingReached:
        return cls(code=e.code, message=e.message, message_pt=e.message_pt)


@strawberry.type(description="The customer is blacklisted: no holds, no waitlists (RN-HLD-05).")
class CustomerBlacklisted(Error):
    message_pt: str = strawberry.field(description="The same, for the customer (pt-BR).")

    @classmethod
    def from_domain(cls, e: de.CustomerBlacklisted) -> CustomerBlacklisted:
        return cls(code=e.code, message=e.message, message_pt=e.message_pt)


@strawberry.type(description="Too many codes asked for, or too many wrong codes: wait, then ask for a new code.")
class TooManyAttempts(Error):
    pass


@strawberry.type(description="The code is wrong, already used or expired.")
class WrongCode(Error):
    pass
