"""Who may do what (SPEC §14): roles, integrator scopes, customers, and the checks every operation makes.

Every GraphQL operation names one *action*; a principal may perform it on a unit when

* staff (operator < manager < owner): their role reaches the action's minimum role, on their unit (or every
  unit of their tenant when the token is not bound to one);
* an integrator token (API client): the action is among its scopes, on its unit or tenant;
* a customer (a session proven with a one-time code): only `book` and `read`, and on existing bookings only
  their own; never the unit's grid, queue or waitlists;
* anyone, signed in or not: `public` (the unit's description and its bookable slots);
* the system (a platform token issued with the CLI: operations, tests, benchmarks): everything, everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from uuid import UUID

from domain.customers import CustomerIdentity
from domain.errors import DomainError, ErrorCode
from domain.hold_types import Releaser


class Role(StrEnum):
    OPERATOR = "operator"
    MANAGER = "manager"
    OWNER = "owner"


RANK = {Role.OPERATOR: 1, Role.MANAGER: 2, Role.OWNER: 3}


class Action(StrEnum):
    PUBLIC = "public"
    """The unit's description and bookable slots."""
    READ = "read"
    """The unit's grid, queue, waitlists, any of its bookings and charges, and their live feeds."""
    BOOK = "book"
    """Hold, accept, pay, swap, cancel, join or claim waitlists: customers for themselves, staff for anyone."""
    COUNTER = "counter"
    """Counter bookings, check-in, completion, the staff queue, payments confirmed by hand, walk-ins."""
    DROP = "drop"
    """Drop a customer's hold."""
    MANAGE = "manage"
    """The unit's customers (blacklist), and grid blocks: taking a resource out of sale for a while."""
    CONFIGURE = "configure"
    """Prices, cancellation policies, parameters, hold types, resources and opening hours."""
    WEBHOOKS = "webhooks"
    """Outgoing webhook endpoints: register, list, replay deliveries."""
    RECORD_PAYMENT = "record_payment"
    """Record a payment taken outside Pix (cash, card, transfer), which confirms the booking (issue 18)."""
    PLATFORM = "platform"
    """The venue's top levels: create tenants, organizations and units (system tokens and the CLI only)."""


MIN_ROLE = {
    Action.READ: Role.OPERATOR, Action.BOOK: Role.OPERATOR, Action.COUNTER: Role.OPERATOR,
    Action.DROP: Role.MANAGER, Action.MANAGE: Role.MANAGER, Action.CONFIGURE: Role.OWNER,
    Action.WEBHOOKS: Role.OWNER, Action.RECORD_PAYMENT: Role.MANAGER,
}


class Scope(StrEnum):
    """What an integrator token may do: one scope per Action but PUBLIC (anyone's) and PLATFORM (no integrator's);
    see Action for each one's meaning."""

    READ = Action.READ.value
    BOOK = Action.BOOK.value
    COUNTER = Action.COUNTER.value
    DROP = Action.DROP.value
    MANAGE = Action.MANAGE.value
    CONFIGURE = Action.CONFIGURE.value
    WEBHOOKS = Action.WEBHOOKS.value
    RECORD_PAYMENT = Action.RECORD_PAYMENT.value


SCOPES = frozenset(s.value for s in Scope)
"""The scopes an integrator token may carry: one per action (the platform's is no integrator's)."""
assert SCOPES == {a.value for a in Action if a not in (Action.PUBLIC, Action.PLATFORM)}, "a scope per action"


class CallerKind(StrEnum):
    """Who is calling (Principal.kind): the values are the stored token kinds and the session's."""

    ANONYMOUS = "anonymous"
    STAFF = "staff"
    INTEGRATOR = "client"
    CUSTOMER = "customer"
    SYSTEM = "system"


class Unauthenticated(DomainError):
    """No credentials, or credentials that are unknown, expired or revoked."""

    code = ErrorCode.UNAUTHENTICATED


class Forbidden(DomainError):
    """The caller is known but may not do this here."""

    code = ErrorCode.FORBIDDEN


@dataclass(frozen=True)
class Principal:
    """The authenticated caller of one request or websocket connection."""

    kind: str  # anonymous | staff | client | customer | system
    tenant_id: UUID | None = None
    unit_id: UUID | None = None
    """Staff and client tokens: the one unit they act on (None: every unit of the tenant)."""
    role: Role | None = None
    scopes: frozenset[str] = frozenset()
    token_id: UUID | None = None
    """The token or customer session."""
    customer_id: UUID | None = None
    identity: CustomerIdentity | None = None
    """Customers: what the session proved (a phone, or an e-mail) and the customer's stored identity."""
    name: str = ""

    @property
    def is_customer(self) -> bool:
        return self.kind == "customer"

    @property
    def is_staff(self) -> bool:
        return self.kind == "staff"

    @property
    def actor(self) -> str:
        """How the audit trail names the caller's role in a change."""
        return "staff" if self.kind == "staff" else "customer"

    @property
    def releaser(self) -> Releaser | None:
        """Which of a hold type's releaseApi this caller is when placing a hold (None: the platform)."""
        return {"customer": Releaser.CUSTOMER, "staff": Releaser.ADMIN, "client": Releaser.API,
                "anonymous": Releaser.CUSTOMER}.get(self.kind)

    def releasers(self, action: Action) -> frozenset[Releaser] | None:
        """Who the caller counts as when releasing a hold by an operation of `action` (None: the platform). An
        integrator cancelling or moving a hold with its `book` scope acts for its customer: CUSTOMER or API; with
        `drop` (a staff operation) it is API only."""
        one = self.releaser
        if one is None:
            return None
        if one is Releaser.API and action is Action.BOOK:
            return frozenset({Releaser.API, Releaser.CUSTOMER})
        return frozenset({one})

    @property
    def key(self) -> str:
        """A stable name for limits and logs: the token or session id, never the secret."""
        return f"{self.kind}:{self.token_id}" if self.token_id else self.kind

    def covers(self, tenant_id: UUID, unit_id: UUID) -> bool:
        """Whether the principal's reach includes this unit."""
        if self.kind == "system":
            return True
        if self.tenant_id != tenant_id:
            return False
        if self.kind == "customer":
            return True  # a customer's identity belongs to the tenant; what they may touch is checked per booking
        return self.unit_id is None or self.unit_id == unit_id

    def allows(self, action: Action) -> bool:
        """Whether the role or scopes include the action (wherever it is done)."""
        if action is Action.PUBLIC or self.kind == "system":
            return True
        if action is Action.PLATFORM:
            return False
        if self.kind == "staff":
            return self.role is not None and RANK[self.role] >= RANK[MIN_ROLE[action]]
        if self.kind == "client":
            return action.value in self.scopes
        if self.kind == "customer":
            return action in (Action.BOOK, Action.READ)
        return False


ANONYMOUS = Principal("anonymous")


def require_signed_in(principal: Principal, why: str = "") -> None:
    """Refuse anonymous callers (`why` says what needs the sign-in)."""
    if principal.kind == "anonymous":
        raise Unauthenticated(f"sign in first{': ' + why if why else ''}: send 'Authorization: Bearer <token>' "
                              "(a staff or integrator token, or a customer session from verifyLoginCode)")


def authorize_platform(principal: Principal) -> None:
    """Refuse unless the caller is the platform (a system token): only it creates tenants, organizations and
    units."""
    require_signed_in(principal)
    if not principal.allows(Action.PLATFORM):
        raise Forbidden("only the platform's operators (a system token, or the `slothold venue` command) create "
                        "tenants, organizations and units")


def authorize(principal: Principal, action: Action, tenant_id: UUID, unit_id: UUID,
              own_booking: bool | None = None) -> None:
    """Refuse unless `principal` may perform `action` on the unit.

    `own_booking` is given for operations on one booking: whether it is the customer's own (customers may only
    touch their own bookings; staff and clients are checked on the unit). None: a unit-level operation.
    """
    if action is Action.PUBLIC:
        return
    require_signed_in(principal)
    if not principal.covers(tenant_id, unit_id):
        raise Forbidden("this token has no access to that unit")
    if not principal.allows(action):
        if action is Action.PLATFORM:
            raise Forbidden("only the platform's operators (a system token) may do this")
        if principal.kind == "staff":
            assert principal.role is not None
            raise Forbidden(f"'{action.value}' needs the {MIN_ROLE[action].value} role or above; this token is "
                            f"{principal.role.value}")
        if principal.kind == "client":
            raise Forbidden(f"this integrator token lacks the '{action.value}' scope")
        raise Forbidden(f"customers may not do '{action.value}'; staff can")
    if principal.kind == "customer":
        if own_booking is None and action is Action.READ:
            raise Forbidden("customers see only their own bookings")
        if own_booking is False:
            raise Forbidden("customers may only see and change their own bookings")
