"""Types of sign-in (customers: one-time code → session), who am I, and the sandbox's message box."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain.access import CallerKind, Principal, Scope
from domain.notifications import NotificationChannel, NotificationKind
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound, TooManyAttempts, WrongCode
from schema.ids import Kind, opt_ref
from schema.setup import StaffRole

described_enum(CallerKind, description="Who is calling, by the credential of the request.", values={
    "ANONYMOUS": "No credentials: public reads only (a unit, its bookable slots, seat maps).",
    "STAFF": "A staff token (with a role).",
    "INTEGRATOR": "An integrator token (with scopes).",
    "CUSTOMER": "A customer session (from verifyLoginCode).",
    "SYSTEM": "The platform's own token (tenants, organizations, units).",
})
described_enum(NotificationChannel, description="How a notice reaches its recipient.", values={
    "IN_APP": "The in-app feed (notifications, notificationAdded).",
    "EMAIL": "E-mail.",
    "WHATSAPP": "WhatsApp (development default: the log).",
})
described_enum(NotificationKind, description="What a notification is about (SPEC §13).", values={
    "CREATED": "A booking was made.",
    "HOLD_REMINDER": "A hold is about to expire: pay the Pix (\"Pagamento perto de expirar\").",
    "PAYMENT_CONFIRMED": "A booking's payment was confirmed.",
    "CONFIRMED": "A booking was confirmed with nothing to pay.",
    "CANCELLED_BY_CUSTOMER": "The customer cancelled (the Pix is void).",
    "DROPPED": "Staff dropped the hold (\"Horário liberado pela equipe\").",
    "CANCELLED": "A booking was cancelled.",
    "EXPIRED": "A hold or its payment expired.",
    "COMPLETED": "A booking was completed.",
    "APPOINTMENT_REMINDER": "A confirmed booking starts soon.",
    "RESCHEDULED": "A booking was moved to another time.",
    "SWAPPED": "A hold was moved to another slot (the old Pix is void).",
    "CAPACITY_OFFER": "A place of a capacity waitlist is offered: claim it by the link.",
    "OWNER_ALERT": "An operational alert for the unit's staff and owner.",
    "LOGIN_CODE": "A one-time sign-in code (sent to an address only).",
    "WALK_IN_OFFER": "A walk-in party's place is ready (sent to an address only).",
})


@strawberry.type(description="A one-time code is on its way (to WhatsApp or e-mail).")
class LoginCodeSent:
    channel: NotificationChannel = strawberry.field(description="WHATSAPP (to a phone) or EMAIL.")
    expires_at: datetime = strawberry.field(description="When the code stops working.")


@strawberry.type(description="A customer session: send `Authorization: Bearer <token>` (or, on websockets, "
                 "{\"authorization\": \"Bearer <token>\"} in connection_init) to act as this customer.")
class CustomerSession:
    token: str = strawberry.field(description="The session's bearer token (shown once).")
    customer_id: strawberry.ID = strawberry.field(description="The customer record it acts as.")
    expires_at: datetime = strawberry.field(description="When the session ends (30 days after sign-in).")


@strawberry.type(description="Who the caller is.")
class Me:
    kind: CallerKind = strawberry.field(description="Who the credential says the caller is.")
    role: StaffRole | None = strawberry.field(description="Staff: their role; null for anyone else.")
    scopes: list[Scope] = strawberry.field(description="Integrators: the actions the token may perform.")
    tenant_id: strawberry.ID | None = strawberry.field(description="The tenant the credential belongs to; null when "
                                                       "anonymous.")
    unit_id: strawberry.ID | None = strawberry.field(description="The unit the token is bound to (null: every "
                                                     "unit of the tenant; customers: where they signed in).")
    customer_id: strawberry.ID | None = strawberry.field(description="Customers: their record; null for anyone else.")
    name: str = strawberry.field(description="The token's name, or the customer's; empty when none.")

    @classmethod
    def from_domain(cls, p: Principal) -> Me:
        return cls(kind=CallerKind(p.kind), role=p.role, scopes=[Scope(s) for s in sorted(p.scopes)],
                   tenant_id=opt_ref(Kind.TENANT, p.tenant_id), unit_id=opt_ref(Kind.UNIT, p.unit_id),
                   customer_id=opt_ref(Kind.CUSTOMER, p.customer_id), name=p.name)


@strawberry.type(description="A message the sandbox notification channel would have delivered.")
class SandboxMessage:
    to: str = strawberry.field(description="The address: a phone in E.164 or an e-mail.")
    channel: NotificationChannel = strawberry.field(description="How it would have gone.")
    kind: NotificationKind = strawberry.field(description="What it is (e.g. LOGIN_CODE).")
    text: str = strawberry.field(description="The text as sent.")
    sent_at: datetime = strawberry.field(description="When it was sent.")


CodeResult = Annotated[LoginCodeSent | InvalidInput | NotFound | TooManyAttempts,
                       strawberry.union(
                           "LoginCodeResult", description=(
                           "What requestLoginCode answers: LoginCodeSent, or the refusal (an Error) that stopped it."))]
SessionResult = Annotated[CustomerSession | InvalidInput | NotFound | TooManyAttempts | WrongCode,
                          strawberry.union(
                              "CustomerSessionResult", description=(
                              "What verifyLoginCode answers: CustomerSession, or the refusal (an Error) that stopped "
                              "it."))]
