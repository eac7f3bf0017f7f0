"""What the composition root hands the resolvers beside the use cases' Deps (slothold/app.py builds the Context):
credentials, the hold rate limiter, and the stores that work outside a unit of work (store/stores.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from domain.access import Principal
from domain.audit_reports import AuditReportStore
from domain.customers import CustomerIdentity
from domain.hold_types import Level
from domain.manual_payments import ManualPayment
from domain.orphans import OrphanPayment
from domain.pages import Page, PageRequest
from domain.ports import LoginAccess

if TYPE_CHECKING:
    from resolvers.context import Info

Row = dict[str, Any]
"""A stored row as the store returns it (schema types are built from it: `from_row`)."""
LayerEdit = Callable[[Row | None], Row | None]
LayersCheck = Callable[[dict[str, Row], dict[UUID, dict[str, Row]]], None]


class Access(LoginAccess, Protocol):
    """Credentials: customers' sign-in codes and sessions, who a session stands for, ending one (store/access.py)."""

    async def is_same_person(self, principal: Principal, customer_id: UUID | None) -> bool:
        """Whether the customer record is the signed-in customer's own (or one their proved contacts link)."""
        ...

    async def close_session(self, session_id: UUID) -> None: ...


class Authenticator(Protocol):
    """Who a bearer token stands for (slothold/auth.py)."""

    async def principal(self, token: str | None, now: datetime) -> Principal: ...

    def forget(self) -> None:
        """Drop what was remembered about tokens (a session just ended)."""
        ...


class HoldLimiter(Protocol):
    """Hold creation per caller and per customer (slothold/limits.py)."""

    async def limit_holds(self, info: Info, customer: CustomerIdentity | None) -> None:
        """Count a hold against the caller and the customer; raise RateLimited when either is over its limit."""
        ...


class WebhookStore(Protocol):
    """Webhook endpoints and their delivery log (store/webhooks_out.py)."""

    async def register(self, unit_id: UUID, url: str, types: list[str], description: str | None, created_by: str,
                       now: datetime) -> tuple[Row, str]: ...

    async def endpoint_unit(self, endpoint_id: UUID) -> UUID | None: ...

    async def delivery_unit(self, delivery_id: UUID) -> UUID | None: ...

    async def endpoints(self, unit_id: UUID) -> list[Row]: ...

    async def update(self, endpoint_id: UUID, now: datetime, url: str | None = None, types: list[str] | None = None,
                     enabled: bool | None = None, description: str | None = None) -> Row | None: ...

    async def rotate(self, endpoint_id: UUID, now: datetime) -> tuple[Row, str] | None: ...

    async def deliveries(self, endpoint_id: UUID, limit: int, status: str | None = None) -> list[Row]: ...

    async def replay(self, delivery_id: UUID, now: datetime) -> Row: ...

    async def deliveries_page(self, endpoint_id: UUID, status: str | None, page: PageRequest) -> Page[Row]:
        """A page of the endpoint's delivery log, newest first (domain/listings.py WEBHOOK_DELIVERIES)."""
        ...

    async def delivery(self, delivery_id: UUID) -> Row | None: ...


class NotificationStore(Protocol):
    """In-app notifications, for their readers (store/notifications.py)."""

    async def for_customer(self, customer_id: UUID, first: int, unread_only: bool) -> list[Row]: ...

    async def for_staff(self, unit_id: UUID, first: int, unread_only: bool) -> list[Row]: ...

    async def customer_page(self, customer_id: UUID, unread_only: bool, page: PageRequest) -> Page[Row]:
        """A page of the customer's own, newest first (domain/listings.py NOTIFICATIONS)."""
        ...

    async def staff_page(self, unit_id: UUID, unread_only: bool, page: PageRequest) -> Page[Row]: ...

    async def mark_read(self, ids: list[UUID], now: datetime, *, customer_id: UUID | None = None,
                        unit_id: UUID | None = None) -> list[UUID]: ...

    async def sent_to(self, to: str, limit: int, tenant_id: UUID | None, unit_id: UUID | None) -> list[Row]:
        """The newest notifications sent to an address ({payload, created_at}) from the tenant's (or unit's) units:
        the sandbox channel's message box."""
        ...


class HoldTypeLayers(Protocol):
    """The hold-type layers of tenants and organizations (store/hold_types.py)."""

    async def change_layer(self, unit_id: UUID, level: Level, name: str, edit: LayerEdit, check: LayersCheck
                           ) -> None:
        """Replace the entry `name` of the unit's organization's (or tenant's) layer by `edit(entry)`, after `check`
        accepted the result."""
        ...


class UnitParameters(Protocol):
    """Units' parameters (store/unit_settings.py)."""

    async def update(self, unit_id: UUID, changes: dict[str, object]) -> bool:
        """Apply checked changes (column → value); False when the unit does not exist."""
        ...


class NodeRows(Protocol):
    """The rows node(id) fetches by id that no other store reads one at a time (store/nodes.py); None: no such
    row (an orphan payment: none once it is applied to a booking)."""

    async def customer(self, customer_id: UUID) -> Row | None:
        """A customer record with its tenant_id (the columns Customer.from_row reads)."""
        ...

    async def notification(self, notification_id: UUID) -> Row | None:
        """An in-app notification with its customer_id."""
        ...

    async def webhook_endpoint(self, endpoint_id: UUID) -> Row | None: ...

    async def manual_payment(self, payment_id: UUID) -> ManualPayment | None: ...

    async def orphan_payment(self, payment_id: UUID) -> OrphanPayment | None: ...

    async def tenant(self, tenant_id: UUID) -> Row | None: ...

    async def organization(self, organization_id: UUID) -> Row | None: ...

    async def resource_unit(self, resource_id: UUID) -> UUID | None:
        """The unit of a resource, on the grid or a seat."""
        ...


class Stores(Protocol):
    """The stores whose every call commits on its own (store/stores.py)."""

    @property
    def webhooks(self) -> WebhookStore: ...

    @property
    def notifications(self) -> NotificationStore: ...

    @property
    def audit_reports(self) -> AuditReportStore: ...

    @property
    def hold_types(self) -> HoldTypeLayers: ...

    @property
    def unit_parameters(self) -> UnitParameters: ...

    @property
    def nodes(self) -> NodeRows: ...
