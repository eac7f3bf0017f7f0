"""Customer identity: CPF with check digits, phone in E.164."""

from __future__ import annotations

import re
from dataclasses import dataclass
from uuid import UUID

from domain.errors import InvalidInput

_E164 = re.compile(r"^\+[1-9][0-9]{7,14}$")  # ASCII digits only: \d would accept any script's digits


def normalize_cpf(raw: str, field: str = "cpf") -> str:
    """Return the 11 digits of a valid CPF, or refuse naming the field."""
    digits = re.sub(r"[.\-\s]", "", raw)
    if not re.fullmatch(r"[0-9]{11}", digits):
        raise InvalidInput(field, "CPF must have 11 digits", code="invalid_cpf")
    if digits == digits[0] * 11:
        raise InvalidInput(field, "CPF is not valid", code="invalid_cpf")
    if complete_cpf(digits[:9]) != digits:
        raise InvalidInput(field, "CPF check digits do not match", code="invalid_cpf")
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
        raise InvalidInput(field, "phone must be in E.164 form, e.g. +5511999990000", code="invalid_phone")
    return compact


@dataclass(frozen=True)
class CustomerIdentity:
    """Who is asking: at least one of CPF or phone, already validated."""

    cpf: str | None = None
    phone: str | None = None
    name: str | None = None
    email: str | None = None

    @classmethod
    def parse(
        cls, cpf: str | None, phone: str | None, name: str | None = None, email: str | None = None
    ) -> CustomerIdentity:
        """Validate the raw identity fields of an input."""
        if not cpf and not phone:
            raise InvalidInput("customer", "a customer needs a CPF or a phone", code="customer_required")
        return cls(
            cpf=normalize_cpf(cpf, "customer.cpf") if cpf else None,
            phone=normalize_phone(phone, "customer.phone") if phone else None,
            name=name.strip() if name else None,
            email=email.strip() if email else None,
        )


@dataclass(frozen=True)
class Customer:
    """A stored customer."""

    id: UUID
    identity: CustomerIdentity
    blacklisted: bool = False
