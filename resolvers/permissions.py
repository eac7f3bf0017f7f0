"""Authorization at the edge of every operation (SPEC §14; the rules are in domain/access.py).

Each resolver names its action and calls one of these before its use case: refusals are raised as
`Unauthenticated` / `Forbidden` (top-level GraphQL errors with `extensions.code`), never as partial data.
Nested fields never take ids, so a check on the operation's unit or booking covers everything it returns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import overload
from uuid import UUID

from domain import queries
from domain.access import Action, Forbidden, authorize, require_signed_in
from domain.bookings import Booking
from domain.customers import CustomerIdentity, Proof
from domain.errors import NotFound
from domain.series import Series
from domain.units import Unit
from resolvers.context import Context, Info


def _action(action: Action | str) -> Action:
    return action if isinstance(action, Action) else Action(action)


def signed_in(context: Context, action: Action | str = Action.READ, why: str = "") -> None:
    """Refuse a caller whose token is bad, and an anonymous one unless `action` is public."""
    if context.auth_failure is not None:
        raise context.auth_failure
    if _action(action) is not Action.PUBLIC:
        require_signed_in(context.principal, why)


async def authorize_unit(context: Context, unit_id: UUID, action: Action | str, *, hide: bool = False,
                         own_only: bool = False) -> Unit:
    """Refuse unless the caller may `action` the unit; the unit must exist. Returns the unit.

    `hide`: a unit beyond the caller's reach (another tenant's, another unit's token) is answered as a missing one.
    `own_only`: the operation shows a customer only their own bookings (the bookings search), so a customer may read."""
    act = _action(action)
    signed_in(context, act)
    unit, _ = await queries.unit_with_resources(context.deps, unit_id)
    if hide and not context.principal.covers(unit.tenant_id, unit.id):
        raise NotFound("unit", unit_id, field="unitId")
    authorize(context.principal, act, unit.tenant_id, unit.id,
              own_booking=True if own_only and context.principal.is_customer else None)
    return unit


async def authorize_booking(context: Context, booking_id: UUID, action: Action | str, *, hide: bool = False
                            ) -> Booking:
    """Refuse unless the caller may `action` this booking (customers: only their own). Returns the booking.
    `hide`: a booking beyond the caller's reach, or a customer's booking that is not theirs, is answered as a
    missing one."""
    act = _action(action)
    signed_in(context, act)
    principal = context.principal
    booking = await queries.booking(context.deps, booking_id)
    unit, _ = await queries.unit_with_resources(context.deps, booking.unit_id)
    own = None
    if principal.is_customer and principal.tenant_id == unit.tenant_id:
        own = await context.access.is_same_person(principal, booking.customer_id)
    if hide and (not principal.covers(unit.tenant_id, unit.id) or own is False):
        raise NotFound("booking", booking_id, field="bookingId")
    authorize(principal, act, unit.tenant_id, unit.id, own_booking=own)
    return booking


async def authorize_series(context: Context, series_id: UUID, action: Action | str, *, hide: bool = False
                           ) -> tuple[Series, list[Booking]]:
    """Refuse unless the caller may `action` this series (customers: only their own, as their bookings). Returns
    the series and its bookings. `hide`: one beyond the caller's reach is answered as a missing one."""
    from domain.services.series import series_bookings

    act = _action(action)
    signed_in(context, act)
    principal = context.principal
    series, bookings = await series_bookings(context.deps, series_id)
    unit, _ = await queries.unit_with_resources(context.deps, series.unit_id)
    own = None
    if principal.is_customer and principal.tenant_id == unit.tenant_id:
        own = await context.access.is_same_person(principal, series.customer_id)
    if hide and (not principal.covers(unit.tenant_id, unit.id) or own is False):
        raise NotFound("series", series_id, field="seriesId")
    authorize(principal, act, unit.tenant_id, unit.id, own_booking=own)
    return series, bookings


@overload
def customer_for(context: Context, given: CustomerIdentity) -> CustomerIdentity: ...


@overload
def customer_for(context: Context, given: CustomerIdentity | None) -> CustomerIdentity | None: ...


def customer_for(context: Context, given: CustomerIdentity | None) -> CustomerIdentity | None:
    """Who a booking request is for. A signed-in customer books only as their own record (the session's proof
    goes with the identity: store/customers.py attaches a CPF or e-mail only if no other record holds it, else
    IdentityConflict); another phone than the one they proved is refused. Staff and integrators name anyone; only
    staff and the platform correct the record so named (an integrator fills what it lacks)."""
    principal = context.principal
    if not principal.is_customer:
        if given is not None:  # a proof is never taken from a request; an integrator corrects no stored contact
            given = replace(given, proof=None, corrects=principal.is_staff or principal.kind == "system")
        return given
    proven = principal.identity or CustomerIdentity()
    if given is not None and given.phone and proven.phone and given.phone != proven.phone:
        raise Forbidden("a customer may only book for themselves: that phone is not the one you signed in with")
    return CustomerIdentity(
        cpf=(given.cpf if given else None) or proven.cpf, phone=proven.phone or (given.phone if given else None),
        name=(given.name if given else None) or proven.name, email=(given.email if given else None) or proven.email,
        proof=Proof(customer_id=principal.customer_id))


def booking_customer(context: Context, booking: Booking, identity: CustomerIdentity | None
                     ) -> CustomerIdentity | None:
    """The identity of a booking the caller was authorized on, for a use case that books again for its customer
    (swap, reschedule): a customer acts as that booking's own record (authorize_booking proved it is theirs)."""
    if identity is None or not context.principal.is_customer:
        return identity
    return replace(identity, proof=Proof(customer_id=booking.customer_id))


async def authorize_row(context: Context, kind: queries.OwnedRow, row_id: UUID, action: Action | str, field: str
                        ) -> UUID:
    """Refuse unless the caller may `action` the unit of a row (waitlist entries, walk-ins, queue items;
    customers: only their own entries). Returns the unit id; NotFound names `field`."""
    act = _action(action)
    signed_in(context, act)
    principal = context.principal
    found = await queries.row_owner(context.deps, kind, row_id)
    if found is None:
        raise NotFound(field.removesuffix("Id") if field.endswith("Id") else field, row_id, field=field)
    unit_id, customer_id = found
    unit, _ = await queries.unit_with_resources(context.deps, unit_id)
    own = None
    if principal.is_customer and principal.tenant_id == unit.tenant_id:
        own = await context.access.is_same_person(principal, customer_id)
    authorize(principal, act, unit.tenant_id, unit.id, own_booking=own)
    return unit.id


async def limit_holds(info: Info, customer: CustomerIdentity | None) -> None:
    """Count a hold against the caller and the customer (the Context's hold limiter; none: unlimited). Call it
    after authorization — a refused caller must not spend a customer's allowance — and before the use case."""
    limiter = info.context.hold_limiter
    if limiter is not None:
        await limiter.limit_holds(info, customer)
