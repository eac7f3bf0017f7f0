"""An in-memory Pix provider for use-case tests (the HTTP providers have their own tests)."""

from __future__ import annotations

import uuid
from datetime import datetime

from domain.payments import ChargeLookup, ProviderCharge, ProviderUnavailable, ReceivedPix
from domain.pix import brcode


class FakeBank:
    """Charges kept in a dict; `failing` simulates an outage; `pay` is the customer paying."""

    name = "fake"

    def __init__(self) -> None:
        self.charges: dict[str, dict[str, object]] = {}
        self.failing = False
        self.cancelled: list[str] = []

    async def create_charge(self, txid: str, amount_cents: int, expires_at: datetime, description: str
                            ) -> ProviderCharge:
        if self.failing:
            raise ProviderUnavailable("bank down")
        self.charges[txid] = {"amount": amount_cents, "status": "pending", "payments": []}
        return ProviderCharge(txid, brcode(amount_cents=amount_cents, merchant_name="Arena", merchant_city="SP",
                                           txid=txid[:25], location=f"bank.test/qr/{txid}"))

    async def cancel_charge(self, txid: str, provider_ref: str) -> None:
        if self.failing:
            raise ProviderUnavailable("bank down")
        self.cancelled.append(txid)
        self.charges[txid]["status"] = "cancelled"

    async def lookup_charge(self, txid: str, provider_ref: str) -> ChargeLookup:
        if txid not in self.charges:  # another test's charge (the series crons look at every unit's)
            raise ProviderUnavailable("unknown charge")
        c = self.charges[txid]
        return ChargeLookup(str(c["status"]), tuple(c["payments"]))  # type: ignore[arg-type]

    async def parse_webhook(self, headers: dict[str, str], query: dict[str, str], body: bytes) -> list[ReceivedPix]:
        raise NotImplementedError

    async def refund(self, payment: ReceivedPix, amount_cents: int, refund_id: str) -> str:
        return refund_id

    def pay(self, txid: str, at: datetime, amount_cents: int | None = None) -> ReceivedPix:
        c = self.charges[txid]
        pix = ReceivedPix("E" + uuid.uuid4().hex[:31], txid, amount_cents or int(str(c["amount"])), at)
        c["status"] = "paid"
        c["payments"].append(pix)  # type: ignore[union-attr]
        return pix
