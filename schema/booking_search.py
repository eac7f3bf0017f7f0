"""The inputs of the bookings search (resolvers/booking_search.py; domain/listings.py)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from schema.vocabulary import BookingStatus


@strawberry.input(description="Who a booking is for, by what staff are told at the counter or on the phone.")
class BookingCustomerFilter:
    name: str | None = strawberry.field(default=None, description=(
        "Part of the customer's name, in any case, with or without accents: \"joao\" finds \"João Paulo\"."))
    phone: str | None = strawberry.field(default=None, description=(
        "The customer's phone as people type it (+55 11 99999-0000, or (11) 99999-0000 in the venue's country), "
        "read as the venue reads phones and matched exactly."))
    cpf: str | None = strawberry.field(default=None, description=(
        "The customer's CPF, with or without its dots and dash; matched exactly."))


@strawberry.input(description="Which bookings to find: every criterion given must hold; none given: every booking.")
class BookingFilter:
    statuses: list[BookingStatus] | None = strawberry.field(default=None, description=(
        "Only bookings in one of these statuses (null or empty: any)."))
    from_: datetime | None = strawberry.field(name="from", default=None, description=(
        "Only bookings that end after this instant (with a UTC offset): with `to`, those overlapping [from, to)."))
    to: datetime | None = strawberry.field(default=None, description=(
        "Only bookings that start before this instant (with a UTC offset), which must be after `from`."))
    resource_id: strawberry.ID | None = strawberry.field(default=None, description=(
        "Only bookings that occupy this resource."))
    customer: BookingCustomerFilter | None = strawberry.field(default=None, description=(
        "Only bookings of a customer matching all of these (found in the unit's organization's customers)."))
