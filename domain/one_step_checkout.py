"""One-step checkout for app clients (issue 18, seed 002: "PENDIENTE_PAGO" at selection).

`checkout` holds the slot, records the customer's acceptance and opens the Pix charge in one call — what `hold`
then `confirm` do (domain/services/holds.py, domain/checkout.py) — all or nothing: when the charge cannot be
opened (the bank fails, no payment provider, the hold too short to pay) the hold is cancelled at once, its slot
free, and the refusal is kept under the idempotency key. The same key replays the same answer: the hold and the
charge are each kept under a key derived from it (`<key>:hold`, `<key>:pay`), so a retry after a crash between the
two steps goes on where the first run stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from domain.bookings import LOCKED, Booking, BookingStatus
from domain.checkout import CheckoutResult, ConfirmCommand, confirm
from domain.errors import (
    Busy,
    DomainError,
    ErrorCode,
    IdempotencyInProgress,
    IdempotencyKeyReused,
    InvalidInput,
    InvalidTransition,
    PaymentUnavailable,
)
from domain.services import Deps, HoldCommand, claim, hold, released

KEY_MAX = 240
"""The caller's key; the derived ones add a suffix and stay within 255 characters."""


@dataclass(frozen=True)
class OneStepCheckout:
    """Hold, accept and charge in one call; `hold.idempotency_key` is ignored (the key is `idempotency_key`)."""

    hold: HoldCommand
    accept_terms: bool
    contact: str | None = None
    idempotency_key: str | None = None


def _confirm_command(cmd: OneStepCheckout, booking: Booking, key: str | None) -> ConfirmCommand:
    return ConfirmCommand(booking.id, actor=cmd.hold.actor, channel=cmd.hold.channel, contact=cmd.contact,
                          idempotency_key=f"{key}:pay" if key else None)


async def checkout(deps: Deps, cmd: OneStepCheckout) -> CheckoutResult:
    """Hold + acceptance + Pix charge, all or nothing, idempotent. Refused unless the terms are accepted."""
    if cmd.accept_terms is not True:
        raise InvalidInput("input.acceptTerms", "the customer must accept the summary and the cancellation policy",
                           code=ErrorCode.TERMS_NOT_ACCEPTED)
    key = cmd.idempotency_key
    if key is not None and not 1 <= len(key) <= KEY_MAX:
        raise InvalidInput("idempotencyKey", f"idempotency key must be 1 to {KEY_MAX} characters",
                           code=ErrorCode.TOO_LONG if key else ErrorCode.INVALID_IDEMPOTENCY_KEY)
    held = await hold(deps, replace(cmd.hold, idempotency_key=f"{key}:hold" if key else None))
    booking = held.booking
    if booking.status is not BookingStatus.HELD:  # born confirmed (a hold type that skips the locked state)
        return CheckoutResult(booking, replayed=held.replayed)
    pay = _confirm_command(cmd, booking, key)
    if held.replayed:
        failure = await _stored_failure(deps, booking, pay)
        if failure is not None:
            raise failure
    try:
        result = await confirm(deps, pay)
    except (IdempotencyInProgress, IdempotencyKeyReused, Busy):
        raise  # a concurrent run of the same checkout is opening the charge: leave its hold alone
    except DomainError as e:
        await _undo(deps, booking, pay, e)
        raise
    return replace(result, replayed=held.replayed)


async def _undo(deps: Deps, booking: Booking, pay: ConfirmCommand, error: DomainError) -> None:
    """The charge could not be opened: cancel the hold (unless the bank's failure already did) and keep the refusal
    under the key, so that a retry replays it."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        current = await uow.bookings.get(booking.id)
        if current.status in LOCKED:
            current.cancel(now, "system", f"checkout failed: {error.code}")
            await uow.bookings.save(current)
        if pay.idempotency_key:
            stored = await claim(uow, current.unit_id, pay.idempotency_key, "confirm", pay, now)
            if stored is None:
                await uow.idempotency.complete(current.unit_id, pay.idempotency_key, {"error": _error_json(error)})
        await uow.commit()
    await released(deps, current)


def _error_json(e: DomainError) -> dict[str, Any]:
    out: dict[str, Any] = {"code": str(e.code), "message": e.message}
    if isinstance(e, InvalidInput):
        out["field"] = e.field
    if isinstance(e, InvalidTransition):
        out |= {"current": e.current_state, "target": e.target_state, "action": e.action}
    return out


async def _stored_failure(deps: Deps, booking: Booking, pay: ConfirmCommand) -> DomainError | None:
    """A retry: the refusal the first run kept under the key, rebuilt (None: none was kept)."""
    if not pay.idempotency_key:
        return None
    async with deps.uow() as uow:  # never committed: a first claim here is rolled back
        stored = await claim(uow, booking.unit_id, pay.idempotency_key, "confirm", pay, deps.clock.now())
    error = (stored or {}).get("error")
    if not isinstance(error, dict):
        return None
    if "current" in error:
        return InvalidTransition(error["current"], error["target"], error["action"])
    if "field" in error:
        return InvalidInput(error["field"], error["message"], code=error["code"])
    return PaymentUnavailable()
