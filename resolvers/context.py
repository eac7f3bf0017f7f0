"""Per-request context handed to every resolver."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import strawberry
from strawberry.types import Info as StrawberryInfo

from domain.access import ANONYMOUS, Principal, Unauthenticated
from domain.errors import ErrorCode, InvalidInput
from domain.services import Deps
from resolvers.feed import EventHub
from resolvers.ports import Access, Authenticator, HoldLimiter, Stores
from schema.ids import decode_id


@dataclass
class Context:
    """What a resolver may use: the use-case dependencies and what came with the request."""

    deps: Deps
    request_id: str
    hub: EventHub
    """The process's live-event hub (slothold/hub.py)."""
    access: Access
    """Customer sessions and who they stand for (store/access.py)."""
    authenticator: Authenticator
    """For websockets that authenticate in connection_init (slothold/auth.py)."""
    stores: Stores
    """The stores whose every call commits on its own: webhooks, notifications, hold-type layers, unit parameters,
    audit reports (store/stores.py)."""
    headers: dict[str, str] = field(default_factory=dict)
    qr: Callable[[str], str] | None = None
    """Renders a BR Code as a PNG data URI."""
    sandbox_pay: Callable[[str], Awaitable[list[str]]] | None = None
    """Pays a sandbox charge by txid (None unless the sandbox provider is configured)."""
    client_host: str | None = None
    """The peer address of the request or websocket."""
    hold_limiter: HoldLimiter | None = None
    """Holds per caller and per customer (slothold/limits.py; None: unlimited)."""
    principal: Principal = ANONYMOUS
    """Who is calling (slothold/auth.py)."""
    auth_failure: Unauthenticated | None = None
    """Set when the caller sent a token that is not valid: every operation is then refused with it."""
    connection_params: object = None
    """The graphql-transport-ws connection_init payload (set by strawberry)."""
    loaders: dict[str, Any] = field(default_factory=dict)
    """Batch loaders by name (strawberry DataLoaders, made on first use, without a cache): the rows of one list
    read in one query (e.g. schema/bookings.py: every row's customer)."""

    def rate_subject(self) -> str:
        """Who API rate limits count against: the caller's token once authentication exists, else the
        client address (slothold/limits.py)."""
        if self.principal.kind != "anonymous":
            return self.principal.key
        return "ip:" + (self.client_host or "-")

    def share_scope(self) -> object:
        """What must be equal for two subscribers to share one execution of the same subscription
        (slothold/fanout.py): everything of the caller that a resolver may look at — their reach and rights
        (two dashboards of one unit share, whatever their tokens), and a customer's identity."""
        p = self.principal
        return (p.kind, p.tenant_id, p.unit_id, p.role, tuple(sorted(p.scopes)), p.customer_id)

    def idempotency_key(self, argument: str | None) -> str | None:
        """The key from the argument or the Idempotency-Key header; both given must agree."""
        header = self.headers.get("idempotency-key")
        if argument is not None and header is not None and argument != header:
            raise InvalidInput("idempotencyKey", "the Idempotency-Key header and the idempotencyKey argument "
                               "differ", code=ErrorCode.IDEMPOTENCY_KEY_MISMATCH)
        return argument if argument is not None else header


Info = StrawberryInfo[Context, None]


def parse_id(value: strawberry.ID | str, field_name: str, kind: str | None = None) -> UUID:
    """The database id of an ID argument, given as a global id (schema/ids.py) or a raw UUID, or an input error
    naming the field. With `kind`, a global id of another type is refused too."""
    try:
        type_name, uuid = decode_id(str(value))
    except ValueError:
        raise InvalidInput(field_name, f"{field_name} is not a valid id: {str(value)[:60]!r}",
                           code=ErrorCode.INVALID_ID) from None
    if kind is not None and type_name is not None and type_name != kind:
        raise InvalidInput(field_name, f"{field_name} is the id of a {type_name}, not of a {kind}",
                           code=ErrorCode.INVALID_ID)
    return uuid
