"""Customer sign-in with a one-time code sent to their phone (WhatsApp) or e-mail (SPEC §14).

The code goes out through the notification channels (an outbox `notification`, kind `login_code`); the
sandbox keeps it readable to the caller for development and tests (`sandboxMessages`). A verified code opens a
customer session: a bearer token that stands for that customer in the unit's tenant.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from domain.customers import normalize_email, normalize_phone
from domain.errors import DomainError, ErrorCode, InvalidInput
from domain.events import LoginCodeSent
from domain.ports import LoginAccess
from domain.services import Deps

CODE_TTL = timedelta(minutes=10)
SESSION_TTL = timedelta(days=30)
MAX_ATTEMPTS = 5
CODES_PER_WINDOW = 3
CODE_WINDOW = timedelta(minutes=15)
LOGIN_TEXT = "Seu código de acesso é {code}. Ele vale 10 minutos; não o compartilhe."


class TooManyAttempts(DomainError):
    """Too many codes asked for, or too many wrong guesses: wait, then ask for a new code."""

    code = ErrorCode.TOO_MANY_ATTEMPTS


class WrongCode(DomainError):
    """The code is wrong, used or expired."""

    code = ErrorCode.WRONG_CODE


def destination(phone: str | None, email: str | None) -> tuple[str, str]:
    """(channel, normalised address) from exactly one of phone and e-mail."""
    if bool(phone) == bool(email):
        raise InvalidInput("phone", "give a phone or an e-mail (one of them)", code=ErrorCode.DESTINATION_REQUIRED)
    if phone:
        return "whatsapp", normalize_phone(phone, "phone")
    assert email is not None
    return "email", normalize_email(email, "email")


@dataclass(frozen=True)
class CodeSent:
    channel: str
    expires_at: datetime


@dataclass(frozen=True)
class Session:
    id: UUID
    token: str
    customer_id: UUID
    expires_at: datetime


async def request_code(deps: Deps, access: LoginAccess, unit_id: UUID, phone: str | None, email: str | None
                       ) -> CodeSent:
    """Send a new code. For an e-mail nobody in the tenant has, nothing is sent but the answer is the same
    (so that the question cannot be used to learn who is a customer)."""
    channel, to = destination(phone, email)
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
    if await access.codes_sent_since(unit_id, to, now - CODE_WINDOW) >= CODES_PER_WINDOW:
        raise TooManyAttempts(f"{CODES_PER_WINDOW} codes were sent to this address in the last "
                              f"{int(CODE_WINDOW.total_seconds() // 60)} minutes; wait before asking again")
    code = f"{secrets.randbelow(10**6):06d}"
    known = channel == "whatsapp" or await access.customer_by_email(unit.tenant_id, to) is not None
    message = LoginCodeSent(channel=channel, to=to, text=LOGIN_TEXT.format(code=code))
    await access.add_code(unit_id, to, code, now, CODE_TTL, message if known else None)
    return CodeSent(channel, now + CODE_TTL)


async def verify_code(deps: Deps, access: LoginAccess, unit_id: UUID, phone: str | None, email: str | None,
                      code: str) -> Session:
    """Open a customer session with the code just sent."""
    channel, to = destination(phone, email)
    now = deps.clock.now()
    async with deps.uow() as uow:
        unit = await uow.units.get(unit_id)
    sent = await access.open_code(unit_id, to, now)
    if sent is None:
        raise WrongCode("no open code for this address: ask for a new one")
    if sent.attempts >= MAX_ATTEMPTS:
        raise TooManyAttempts(f"{MAX_ATTEMPTS} wrong codes: ask for a new one")
    if not sent.matches(code.strip()):
        await access.count_attempt(sent.id)
        raise WrongCode("that code is not the one sent")
    if not await access.use_code(sent.id, now):
        raise WrongCode("that code was already used: ask for a new one")
    async with deps.uow() as uow:  # the record whose contact the code reached: that contact is now proved
        found = await uow.customers.signed_in(unit.tenant_id, channel, to, now, create=channel == "whatsapp")
        await uow.commit()
    if found is None:  # an e-mail nobody has: a code was stored but never sent, so nobody can know it
        raise WrongCode("that code is not the one sent")
    customer_id = found
    session_id, token = await access.open_session(unit_id, unit.tenant_id, customer_id, now, SESSION_TTL)
    return Session(session_id, token, customer_id, now + SESSION_TTL)
