"""The closed vocabulary of refusals: every expected 'no' the engine can answer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from uuid import UUID

from domain.error_codes import ErrorCode as ErrorCode  # re-exported: the codes belong to the refusals


class DomainError(Exception):
    """A refusal the caller can act on; `code` is stable, `message` is for people."""

    code: ErrorCode = ErrorCode.DOMAIN_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class SlotOption:
    """A free place in time that could be held instead."""

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime


@dataclass(frozen=True)
class WaitlistOption:
    """The waitlist of the slot that was taken (joinable once waitlists exist)."""

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime


class SlotTaken(DomainError):
    """The slot is held, booked or blocked; alternatives are the nearest free options."""

    code = ErrorCode.SLOT_TAKEN

    def __init__(
        self,
        message: str,
        resource_ids: list[UUID],
        starts_at: datetime,
        ends_at: datetime,
        alternatives: list[SlotOption] | None = None,
    ) -> None:
        super().__init__(message)
        self.resource_ids = resource_ids
        self.starts_at = starts_at
        self.ends_at = ends_at
        self.alternatives: list[SlotOption] = alternatives or []

    @property
    def waitlist(self) -> list[WaitlistOption]:
        """One waitlist option per resource of the taken slot."""
        return [WaitlistOption(r, self.starts_at, self.ends_at) for r in self.resource_ids]


class SlotHeld(SlotTaken):
    """A counter booking over a slot that a customer holds (or whose payment is being verified): staff must drop
    the hold first (SPEC §11); `booking_id` is the hold to drop."""

    code = ErrorCode.SLOT_HELD

    def __init__(self, booking_id: UUID, status: str, resource_ids: list[UUID], starts_at: datetime,
                 ends_at: datetime, alternatives: list[SlotOption] | None = None) -> None:
        what = ("awaiting the verification of its payment" if status == "verifying" else "held by a customer")
        super().__init__(f"that slot is {what} (booking {booking_id}); drop the hold first (drop)", resource_ids,
                         starts_at, ends_at, alternatives)
        self.booking_id = booking_id
        self.status = status


class InvalidTransition(DomainError):
    """The booking's current state does not allow the requested change."""

    code = ErrorCode.INVALID_TRANSITION

    def __init__(self, current_state: str, target_state: str, action: str) -> None:
        super().__init__(f"cannot {action} a booking that is {current_state}")
        self.current_state = current_state
        self.target_state = target_state
        self.action = action


class CheckInOutsideWindow(InvalidTransition):
    """A check-in before the unit's check-in window opens (`checkInOpensMinutes` before the start) or after the
    booking's end: answered as an InvalidTransition with its own code, the window in the message."""

    code = ErrorCode.CHECK_IN_OUTSIDE_WINDOW

    def __init__(self, current_state: str, opens_at: datetime, closes_at: datetime, now: datetime) -> None:
        super().__init__(current_state, "checked_in", "check in")
        self.message = (f"check-in is open from {opens_at.isoformat()} to {closes_at.isoformat()}; it is "
                        f"{now.isoformat()}")
        self.args = (self.message,)
        self.opens_at = opens_at
        self.closes_at = closes_at


class InvalidInput(DomainError):
    """An argument is malformed or out of range; `field` names it."""

    code = ErrorCode.INVALID_INPUT

    def __init__(self, field: str, message: str, code: ErrorCode | str | None = None) -> None:
        """`code` refines invalid_input; a plain string must be an ErrorCode value (ValueError otherwise): the
        modules that still pass literals are checked by tests/unit/test_error_codes.py."""
        super().__init__(message)
        self.field = field
        if code:
            self.code = ErrorCode(code)


class NotFound(DomainError):
    """A referenced entity does not exist (or is not visible to the caller)."""

    code = ErrorCode.NOT_FOUND

    def __init__(self, what: str, ident: object, field: str | None = None) -> None:
        super().__init__(f"{what} {ident} not found")
        self.what = what
        self.field = field or what


class IdempotencyKeyReused(DomainError):
    """The idempotency key was already used for a different request."""

    code = ErrorCode.IDEMPOTENCY_KEY_REUSED

    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was already used for a different request")
        self.key = key


class IdempotencyInProgress(DomainError):
    """A request with the same idempotency key is still being processed."""

    code = ErrorCode.IDEMPOTENCY_IN_PROGRESS

    def __init__(self, key: str) -> None:
        super().__init__(f"a request with idempotency key {key!r} is still in progress; retry shortly")
        self.key = key


class Busy(DomainError):
    """The database could not serve the request in time (lock timeout); retry shortly."""

    code = ErrorCode.BUSY


class PaymentUnavailable(DomainError):
    """The bank could not create the Pix charge; the hold was cancelled and can be asked for again."""

    code = ErrorCode.PAYMENT_UNAVAILABLE

    def __init__(self, message: str = "Não consegui gerar o PIX agora. Tente de novo em instantes.") -> None:
        super().__init__(message)


class PaymentNotFound(DomainError):
    """The provider does not show the payment (yet); nothing was confirmed."""

    code = ErrorCode.PAYMENT_NOT_FOUND

    def __init__(self, message: str = "O PIX não foi localizado no banco.") -> None:
        super().__init__(message)


class HoldLimitReached(DomainError):
    """The customer already has as many open holds as allowed (RN-HLD-05); swapping the open one is offered."""

    code = ErrorCode.OPEN_HOLD_EXISTS
    message_pt = "Você já tem um horário reservado aguardando pagamento. Quer trocar para este horário?"

    def __init__(self, booking_id: UUID | None, limit: int) -> None:
        """`booking_id` is None when the caller may not be told which hold it is (domain/fraud.check_standing)."""
        which = f" ({booking_id})" if booking_id is not None else ""
        super().__init__(f"this customer already has an open hold{which}; at most {limit} at a time. "
                         "Move it to this slot with swapHold instead")
        self.booking_id = booking_id
        self.limit = limit
        self.swap_available = True


class CooldownActive(DomainError):
    """Too many holds expired lately: self-service holds are refused until `until` (RN-HLD-05)."""

    code = ErrorCode.COOLDOWN

    def __init__(self, until: datetime, local_until: datetime | None = None) -> None:
        """`local_until` is `until` in the unit's time zone, for the texts."""
        shown = local_until or until
        super().__init__("because of recent unpaid reservations, for now booking is only possible at the counter "
                         f"(until {shown.isoformat(timespec='minutes')})")
        self.until = until
        self.message_pt = ("Por causa de reservas recentes não pagas, no momento só é possível reservar pelo balcão "
                           f"(até {shown:%d/%m %H:%M}).")


class HoldCeilingReached(DomainError):
    """The unit's open holds reached its ceiling for the day (RN-HLD-05); a hold may be asked again shortly."""

    code = ErrorCode.HOLD_CEILING
    message_pt = "Estamos com muitas reservas em andamento agora. Tente novamente em alguns minutos."

    def __init__(self, day: date, open_holds: int, free_slots: int) -> None:
        super().__init__("too many open holds at this venue right now; try again in a few minutes")
        self.day = day
        self.open_holds = open_holds
        self.free_slots = free_slots


class CustomerBlacklisted(DomainError):
    """The customer is blacklisted in the tenant: no self-service holds and no waitlists (RN-HLD-05)."""

    code = ErrorCode.BLACKLISTED
    message_pt = "Não é possível reservar por este canal."

    def __init__(self) -> None:
        super().__init__("this customer cannot make holds")


@dataclass(frozen=True)
class SeatConflict:
    """A seat that was not in the state an operation needs, and the state it is in."""

    seat_id: UUID
    label: str
    state: str


class SeatsUnavailable(DomainError):
    """Some seats of an all-or-nothing seat operation are not in the state it needs; nothing was changed."""

    code = ErrorCode.SEATS_UNAVAILABLE

    def __init__(self, message: str, seats: list[SeatConflict]) -> None:
        super().__init__(message)
        self.seats = seats


@dataclass(frozen=True)
class OccurrenceConflict:
    """One occurrence of a series that could not be held: taken (held, booked) on every resource it may use."""

    index: int
    """Its place in the series (0: the first)."""
    starts_at: datetime
    ends_at: datetime
    resource_ids: tuple[UUID, ...]
    """The resources tried."""
    alternatives: tuple[SlotOption, ...] = ()
    """Up to 3 nearest free options (RN-ATD-07)."""


class SeriesConflicts(DomainError):
    """A series asked all or nothing met taken occurrences: nothing was written (issue 23)."""

    code = ErrorCode.SERIES_CONFLICTS

    def __init__(self, conflicts: list[OccurrenceConflict]) -> None:
        super().__init__(f"{len(conflicts)} occurrence(s) of the series are taken; nothing was held")
        self.conflicts = conflicts
