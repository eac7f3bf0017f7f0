"""Types of sign-in (customers: one-time code → session), who am I, and the sandbox's message box."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from domain.access import Principal
from schema.errors import InvalidInput, NotFound, TooManyAttempts, WrongCode
from schema.ids import Kind, opt_ref


@strawberry.type(description="A one-time code is on its way (to WhatsApp or e-mail).")
class LoginCodeSent:
    channel: str
    expires_at: datetime


@strawberry.type(description="A customer session: send `Authorization: Bearer <token>` (or, on websockets, "
                 "{\"authorization\": \"Bearer <token>\"} in connection_init) to act as this customer.")
class CustomerSession:
    token: str
    customer_id: strawberry.ID
    expires_at: datetime


@strawberry.type(description="Who the caller is.")
class Me:
    kind: str = strawberry.field(description="anonymous, staff, client (integrator) or customer.")
    role: str | None = strawberry.field(description="Staff: operator, manager or owner.")
    scopes: list[str] = strawberry.field(description="Integrators: the actions the token may perform.")
    tenant_id: strawberry.ID | None
    unit_id: strawberry.ID | None = strawberry.field(description="The unit the token is bound to (null: every "
                                                     "unit of the tenant; customers: where they signed in).")
    customer_id: strawberry.ID | None
    name: str

    @classmethod
    def from_domain(cls, p: Principal) -> Me:
        return cls(kind=p.kind, role=p.role.value if p.role else None, scopes=sorted(p.scopes),
                   tenant_id=opt_ref(Kind.TENANT, p.tenant_id), unit_id=opt_ref(Kind.UNIT, p.unit_id),
                   customer_id=opt_ref(Kind.CUSTOMER, p.customer_id), name=p.name)


@strawberry.type(description="A message the sandbox notification channel would have delivered.")
class SandboxMessage:
    to: str
    channel: str
    kind: str
    text: str
    sent_at: datetime


CodeResult = Annotated[LoginCodeSent | InvalidInput | NotFound | TooManyAttempts,
                       strawberry.union("LoginCodeResult")]
SessionResult = Annotated[CustomerSession | InvalidInput | NotFound | TooManyAttempts | WrongCode,
                          strawberry.union("CustomerSessionResult")]
