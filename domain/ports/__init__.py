"""What the use cases and jobs need from the outside world, as Protocols (implemented in store/ — store/conformance.py
has mypy check each implementation — and providers/).

By what they serve: `uow` (one transaction) and the repositories reached through it (`venues`, `customers`,
`waitlists`, `payments`, `queue`, `records`); outside a unit of work, sign-in (`login`), the jobs' stores (`jobs`)
and the relay's outbox (`relay`); the clock and the Pix provider (`providers`). Every name is importable from here.
"""

from domain.ports.calendar_feeds import CalendarFeedRepository
from domain.ports.customers import AntifraudRepository, CustomerRepository
from domain.ports.jobs import AttendanceSweeps, InAppNotifications, NotificationDeliveries, Retention, WebhookDeliveries
from domain.ports.login import LoginAccess, LoginCode
from domain.ports.origins import AllowedOriginsRepository, OriginList
from domain.ports.payments import PaymentsRepository
from domain.ports.providers import Clock, PaymentProvider, PhoneNumbers
from domain.ports.queue import QueueRepository
from domain.ports.records import Events, IdempotencyKeys
from domain.ports.relay import OutboxFeed, OutboxSource, StoreError
from domain.ports.uow import UnitOfWork
from domain.ports.venues import BookingRepository, UnitRepository
from domain.ports.waitlists import WaitlistRepository

__all__ = [
    "AllowedOriginsRepository",
    "AntifraudRepository",
    "AttendanceSweeps",
    "BookingRepository",
    "CalendarFeedRepository",
    "Clock",
    "CustomerRepository",
    "Events",
    "IdempotencyKeys",
    "InAppNotifications",
    "LoginAccess",
    "LoginCode",
    "NotificationDeliveries",
    "OriginList",
    "OutboxFeed",
    "OutboxSource",
    "PaymentProvider",
    "PaymentsRepository",
    "PhoneNumbers",
    "QueueRepository",
    "Retention",
    "StoreError",
    "UnitOfWork",
    "UnitRepository",
    "WaitlistRepository",
    "WebhookDeliveries",
]
