"""Outside a unit of work: the stores the jobs use on the pool — notification and webhook deliveries, in-app
notifications, the attendance sweeps, retention — each call committed on its own."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from domain.notifications import Delivery
from domain.notifications import DeliveryStore as NotificationDeliveryStore
from domain.webhooks_out import DeliveryStore as WebhookDeliveryStore


class NotificationDeliveries(NotificationDeliveryStore, Protocol):
    """The record of notification deliveries as the jobs use it (store/notifications.py's PgDeliveries)."""

    async def due(self, now: datetime, limit: int = 200) -> list[UUID]:
        """Deliveries due now (claims whose worker died are released first: they are due again)."""
        ...

    async def prune(self, before: datetime) -> int:
        """Forget sent and failed deliveries created before `before`; returns how many."""
        ...

    async def get(self, delivery_id: UUID) -> dict[str, Any] | None:
        """The delivery's row (notification_deliveries' columns), or None."""
        ...


class InAppNotifications(Protocol):
    """Where in-app notifications are kept (store/in_app.py)."""

    async def add(self, delivery: Delivery, now: datetime) -> UUID | None:
        """Keep the delivery's notification (once per delivery) and announce it on the unit's live feed; None when
        it was already kept."""
        ...


class WebhookDeliveries(WebhookDeliveryStore, Protocol):
    """The log of outgoing webhook deliveries as the jobs use it (store/webhooks_out.py's PgWebhooks)."""

    async def delivery(self, delivery_id: UUID) -> dict[str, Any] | None:
        """The delivery as its log shows it (status, attempts, next attempt, last response...), or None."""
        ...

    async def due(self, now: datetime, limit: int = 500) -> list[tuple[UUID, int]]:
        """Deliveries whose attempt is due (or whose sender died): (id, attempts done)."""
        ...

    async def prune(self, before: datetime) -> int:
        """Forget finished deliveries created before `before`; returns how many."""
        ...


class AttendanceSweeps(Protocol):
    """The attendance sweeps (store/attendance.py): each one keyed statement, so a sweep run twice does nothing
    twice."""

    async def raise_no_show_suggestions(self, now: datetime, limit: int = 500) -> int:
        """Open a "Possível falta" item for each confirmed booking past start + grace with no check-in; how many."""
        ...

    async def stale_suggestions(self, limit: int = 500) -> list[tuple[UUID, str]]:
        """Open suggestions whose booking is no longer confirmed: (item, booking status)."""
        ...

    async def send_appointment_reminders(self, now: datetime, limit: int = 500) -> int:
        """Write the appointment reminders that are due (outbox `notification` rows); how many."""
        ...


class Retention(Protocol):
    """Forgetting what has served its purpose (store/outbox.py)."""

    async def prune(self, published_before: datetime, now: datetime) -> tuple[int, int]:
        """Delete published outbox rows created before `published_before` and idempotency keys expired at `now`:
        (outbox rows, keys) deleted."""
        ...
