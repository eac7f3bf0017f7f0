"""Global object ids (issue 19): one opaque, typed id per object, the same in GraphQL (`Node.id`, `node(id)`), the
REST door and the web demo.

An id is the unpadded URL-safe base64 of `TypeName:uuid` (the Relay convention strawberry also follows, made safe
for a URL path). Clients must treat it as opaque. Every ID argument also takes the object's raw UUID, as the API
answered before global ids existed, so stored ids keep working.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from enum import StrEnum
from uuid import UUID

import strawberry


def global_id(type_name: str, value: UUID | str) -> str:
    """The global id of the object of type `type_name` whose database id is `value`."""
    return base64.urlsafe_b64encode(f"{type_name}:{value}".encode()).decode("ascii").rstrip("=")


def decode_id(value: str) -> tuple[str | None, UUID]:
    """(type name, database id) of a global id, or (None, uuid) for a raw UUID; ValueError for anything else."""
    text = str(value).strip()
    try:
        return None, UUID(text)
    except ValueError:
        pass
    if not text or len(text) > 200:
        raise ValueError("not an id")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ValueError("not an id") from None
    type_name, sep, rest = raw.partition(":")
    if not sep or not type_name.isidentifier():
        raise ValueError("not an id")
    return type_name, UUID(rest)


class Kind(StrEnum):
    """The GraphQL type names global ids are minted for: each names the type `node(id)` answers (schema/nodes.py).
    A resource has one id whatever type shows it (Resource, VenueResource, a seat of a seat map)."""

    BOOKING = "Booking"
    CALENDAR_FEED = "CalendarFeed"
    CAPACITY_WAITLIST_ENTRY = "CapacityWaitlistEntry"
    CHARGE = "Charge"
    CUSTOMER = "Customer"
    GRID_BLOCK = "GridBlock"
    HOURS_EXCEPTION = "HoursException"
    MANUAL_PAYMENT = "ManualPayment"
    NOTIFICATION = "Notification"
    ORGANIZATION = "Organization"
    ORPHAN_PAYMENT = "OrphanPayment"
    QUEUE_ITEM = "QueueItem"
    REFUND = "Refund"
    RESOURCE = "Resource"
    RESOURCE_GROUP = "ResourceGroup"
    SEAT_EVENT = "SeatEvent"
    SEAT_MAP = "SeatMap"
    SERIES = "Series"
    SERVICE = "Service"
    SLOT_WAITLIST_ENTRY = "SlotWaitlistEntry"
    STAFF_TOKEN = "StaffToken"
    TENANT = "Tenant"
    UNIT = "Unit"
    WALK_IN = "WalkIn"
    WEBHOOK_DELIVERY = "WebhookDelivery"
    WEBHOOK_ENDPOINT = "WebhookEndpoint"


def ref(kind: Kind, value: UUID | str) -> strawberry.ID:
    """The global id of the `kind` object whose database id is `value`, as a GraphQL ID."""
    return strawberry.ID(global_id(kind, value))


def opt_ref(kind: Kind, value: UUID | str | None) -> strawberry.ID | None:
    """`ref`, or None for no object."""
    return None if value is None else ref(kind, value)


def refs(kind: Kind, values: Iterable[UUID | str]) -> list[strawberry.ID]:
    """`ref` of each."""
    return [ref(kind, v) for v in values]


def db_id(value: strawberry.ID | str) -> UUID:
    """The database id of an id the API answered (global or raw); ValueError for anything else."""
    return decode_id(value)[1]
