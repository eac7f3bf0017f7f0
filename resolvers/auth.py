"""Sign-in for customers (one-time code → session token), who am I, and the sandbox's message box."""

from __future__ import annotations

from typing import Annotated

import strawberry

from domain import events, login
from domain.access import Action, Forbidden
from domain.errors import ErrorCode
from domain.errors import InvalidInput as DomainInvalidInput
from domain.notifications import NotificationChannel, NotificationKind
from resolvers.context import Info, parse_id
from resolvers.permissions import authorize_unit, signed_in
from schema.auth import CodeResult, CustomerSession, LoginCodeSent, Me, SandboxMessage, SessionResult
from schema.ids import Kind, ref

SignInUnitArg = Annotated[strawberry.ID, strawberry.argument(
    description="The unit (venue) the customer signs in at (its id as the API gave it).")]
CodePhoneArg = Annotated[str | None, strawberry.argument(
    description="The customer's phone (E.164, or a Brazilian number): the code goes to its WhatsApp.")]
CodeEmailArg = Annotated[str | None, strawberry.argument(
    description="Or the customer's e-mail address: the code goes there.")]
CodeArg = Annotated[str, strawberry.argument(description="The one-time code received (6 digits).")]
SentPhoneArg = Annotated[str | None, strawberry.argument(description="The phone the code was sent to (or give email).")]
SentEmailArg = Annotated[str | None, strawberry.argument(
    description="The e-mail address the code was sent to (or give phone).")]
AddressArg = Annotated[str, strawberry.argument(description="The address: a phone in E.164 or an e-mail.")]
LimitArg = Annotated[int, strawberry.argument(
    description="How many messages at most, newest first (1 to 50; default 10).")]


@strawberry.type
class AuthMutation:
    @strawberry.mutation(description="Customers: ask for a one-time sign-in code, sent to the phone's WhatsApp or "
                         "to the e-mail (one of them). At most 3 codes per address per 15 minutes.")
    async def request_login_code(self, info: Info, unit_id: SignInUnitArg, phone: CodePhoneArg = None,
                                 email: CodeEmailArg = None) -> CodeResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.PUBLIC)
        sent = await login.request_code(info.context.deps, info.context.access, uid, phone, email)
        return LoginCodeSent(channel=NotificationChannel(sent.channel), expires_at=sent.expires_at)

    @strawberry.mutation(description="Customers: exchange the code for a session token (valid 30 days). Five wrong "
                         "codes close the code.")
    async def verify_login_code(self, info: Info, unit_id: SignInUnitArg, code: CodeArg, phone: SentPhoneArg = None,
                                email: SentEmailArg = None) -> SessionResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.PUBLIC)
        s = await login.verify_code(info.context.deps, info.context.access, uid, phone, email, code)
        return CustomerSession(token=s.token, customer_id=ref(Kind.CUSTOMER, s.customer_id),
                               expires_at=s.expires_at)

    @strawberry.mutation(description="Customers: end this session (its token stops working).")
    async def sign_out(self, info: Info) -> bool:
        principal = info.context.principal
        if not principal.is_customer or principal.token_id is None:
            return False
        await info.context.access.close_session(principal.token_id)
        info.context.authenticator.forget()
        return True


@strawberry.type
class AuthQuery:
    @strawberry.field(description="Who the caller is (from the bearer token).")
    def me(self, info: Info) -> Me:
        signed_in(info.context, Action.PUBLIC)
        return Me.from_domain(info.context.principal)

    @strawberry.field(description="Sandbox notification channel only (development and tests), for staff and the "
                      "system: the newest messages sent to an address (a phone in E.164 or an e-mail) from the "
                      "caller's units, such as sign-in codes.")
    async def sandbox_messages(self, info: Info, to: AddressArg, limit: LimitArg = 10) -> list[SandboxMessage]:
        signed_in(info.context, Action.READ, "sandbox messages are for staff and the system")
        p = info.context.principal
        if p.kind not in ("staff", "system"):
            raise Forbidden("sandbox messages are for staff (of the units they were sent from) and the system")
        if info.context.sandbox_pay is None:
            raise DomainInvalidInput("to", "the sandbox is not the configured provider", code=ErrorCode.NOT_SANDBOX)
        to = to.strip().lower() if "@" in to else to.strip()
        rows = await info.context.stores.notifications.sent_to(to, max(1, min(limit, 50)), p.tenant_id, p.unit_id)
        sent = [(events.parse_event("notification", r["payload"]), r["created_at"]) for r in rows]
        return [SandboxMessage(to=n.to or "", channel=NotificationChannel(n.channel or "whatsapp"),
                               kind=NotificationKind(str(n.KIND)), text=n.text, sent_at=at)
                for n, at in sent if isinstance(n, events.OwnerAlerted | events.WalkInOfferSent | events.LoginCodeSent)]
