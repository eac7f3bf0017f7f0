"""Customer identity: CPF with check digits, phone in E.164, and what a request has proved (issue 16).

A request that names a customer carries *claims* (a CPF, a phone, an e-mail, a name: typed by someone) and,
when it comes from a customer, a *proof*: the customer session's own record, or a phone that the channel itself
authenticated (a WhatsApp message). The rules (applied by the store's `identify`, README "Access"):

* with a proof, the request acts only as the proved record (the session's, or the phone's, made on first sight).
  A CPF or e-mail it gives is attached to that record only if no other record of the tenant holds it; otherwise
  `IdentityConflict`, which says nothing of the other record. It never changes another record;
* without a proof (staff, integrators, the platform), records are found by CPF, else by phone, made on first sight,
  and corrected from what the request gives — by staff and the platform; an integrator's request only fills what the
  record lacks (`CustomerIdentity.corrects`); each change is kept in `customer_changes` with who made it and
  whether the value replaced was proved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from uuid import UUID

from domain.errors import ErrorCode, InvalidInput

_E164 = re.compile(r"^\+[1-9][0-9]{7,14}$")  # ASCII digits only: \d would accept any script's digits


def normalize_cpf(raw: str, field: str = "cpf") -> str:
    """Return the 11 digits of a valid CPF, or refuse naming the field."""
    digits = re.sub(r"[.\-\s]", "", raw)
    if not re.fullmatch(r"[0-9]{11}", digits):
        raise InvalidInput(field, "CPF must have 11 digits", code=ErrorCode.INVALID_CPF)
    if digits == digits[0] * 11:
        raise InvalidInput(field, "CPF is not valid", code=ErrorCode.INVALID_CPF)
    if complete_cpf(digits[:9]) != digits:
        raise InvalidInput(field, "CPF check digits do not match", code=ErrorCode.INVALID_CPF)
    return digits


def complete_cpf(nine_digits: str) -> str:
    """Append the two check digits to the first nine digits of a CPF."""
    digits = nine_digits
    for n in (9, 10):
        total = sum(int(d) * w for d, w in zip(digits[:n], range(n + 1, 1, -1), strict=True))
        digits += str((total * 10) % 11 % 10)
    return digits


def normalize_phone(raw: str, field: str = "phone") -> str:
    """Return a phone in E.164 (+5511999990000), or refuse naming the field."""
    compact = re.sub(r"[\s().\-]", "", raw)
    if not _E164.match(compact):
        raise InvalidInput(field, "phone must be in E.164 form, e.g. +5511999990000", code=ErrorCode.INVALID_PHONE)
    return compact


class IdentityConflict(InvalidInput):
    """A customer's request gives a CPF or e-mail that belongs to another record of the tenant (or replaces one of
    their own that was proved). It names the field, never the other record."""

    code = ErrorCode.IDENTITY_CONFLICT

    def __init__(self, field: str, message: str | None = None) -> None:
        super().__init__(field, message or "this identifier cannot be used with your account: if it is yours, ask "
                         "the venue to correct your record", code=self.code)


@dataclass(frozen=True)
class Proof:
    """What the request itself proved about its customer: the record of a customer session, or a phone a channel
    authenticated (WhatsApp: the message came from it)."""

    customer_id: UUID | None = None
    phone: str | None = None


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def normalize_email(raw: str, field: str = "customer.email") -> str:
    """An e-mail address in lower case, or refuse naming the field (records are matched case-insensitively)."""
    address = raw.strip().lower()
    if not _EMAIL.match(address) or len(address) > 254:
        raise InvalidInput(field, f"{raw[:60]!r} is not an e-mail address", code=ErrorCode.INVALID_EMAIL)
    return address


@dataclass(frozen=True)
class CustomerIdentity:
    """Who a request is for: at least one of CPF or phone, already validated; `proof` when the customer asks."""

    cpf: str | None = None
    phone: str | None = None
    name: str | None = None
    email: str | None = None
    proof: Proof | None = None
    corrects: bool = True
    """Without a proof: whether what the request gives replaces the record's stored phone, e-mail and name (staff and
    the platform, who answer for the venue's records), or only fills what the record lacks (integrators: a `book`
    token that names a customer by CPF must not move that customer's phone to one it chose — the next sign-in code
    would go there)."""

    @classmethod
    def parse(
        cls, cpf: str | None, phone: str | None, name: str | None = None, email: str | None = None,
        required: bool = True,
    ) -> CustomerIdentity:
        """Validate the raw identity fields of an input; a CPF or a phone is `required` unless the caller is a
        customer (their session says who they are)."""
        if required and not cpf and not phone:
            raise InvalidInput("customer", "a customer needs a CPF or a phone", code=ErrorCode.CUSTOMER_REQUIRED)
        return cls(
            cpf=normalize_cpf(cpf, "customer.cpf") if cpf else None,
            phone=normalize_phone(phone, "customer.phone") if phone else None,
            name=name.strip() if name else None,
            email=normalize_email(email) if email else None,
        )


@dataclass(frozen=True)
class Customer:
    """A stored customer."""

    id: UUID
    identity: CustomerIdentity
    blacklisted: bool = False
    proved_phone: str | None = None
    """The record's phone, when a sign-in code or the WhatsApp channel proved it."""

    def owns(self, customer_id: UUID | None, phone: str | None) -> bool:
        """Whether a record (its id and phone) is this customer as far as a customer may be told: the same record,
        or one with the phone this one proved."""
        return customer_id == self.id or (self.proved_phone is not None and phone == self.proved_phone)
