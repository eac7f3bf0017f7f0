"""The outside world's services a use case calls: the clock it reads the time from, and the Pix provider it
charges through (implemented in providers/)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from domain.payments import ChargeLookup, ProviderCharge, ReceivedPix


class Clock(Protocol):
    """Where use cases read the time, once each."""

    def now(self) -> datetime: ...


class PaymentProvider(Protocol):
    """A Pix provider: the sandbox, a bank's standard Pix API, MercadoPago.

    Calls raise ProviderUnavailable when the provider fails; `parse_webhook` raises WebhookRejected
    for anything not authentic.
    """

    name: str

    async def create_charge(
        self, txid: str, amount_cents: int, expires_at: datetime, description: str
    ) -> ProviderCharge: ...

    async def cancel_charge(self, txid: str, provider_ref: str) -> None: ...

    async def lookup_charge(self, txid: str, provider_ref: str) -> ChargeLookup: ...

    async def parse_webhook(
        self, headers: dict[str, str], query: dict[str, str], body: bytes
    ) -> list[ReceivedPix]: ...

    async def refund(self, payment: ReceivedPix, amount_cents: int, refund_id: str) -> str: ...


class PhoneNumbers(Protocol):
    """Reads a phone number as people type it and writes it in E.164 (providers/phones.py, with libphonenumber)."""

    def normalize(self, raw: str, field: str) -> str:
        """The number in E.164 (+5511999990000), or InvalidInput naming `field` (code invalid_phone)."""
        ...
