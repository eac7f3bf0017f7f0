"""Orphan Pix (RN-HLD-06 "Vincular pagamento"): a payment that matched no charge, kept so staff can apply it.

A Pix paid by hand to the key carries no txid of ours. When it arrives, the system looks for whose it can be:

1. the payer the bank names (a CPF) had a Pix to pay at exactly one unit within the last day — that unit;
2. else, exactly one unit has a booking whose customer says they paid ("paguei", `verifying`) with a charge of
   that very amount — that unit.

An attributed orphan is one of that unit's payments. Anything else (no payer and no such claim, or several units)
stays unattributed, in a table of its own (`unattributed_payments`: platform data, no unit's): no tenant's staff
see it, since showing one tenant another's payments (amount, payer) would leak them. The unit's staff list its
orphans with `orphan_payments` and apply one with `settlement.link_payment`, which refuses another unit's orphan;
linking an unattributed one (by its id) makes it that unit's payment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from uuid import UUID, uuid4

from domain.errors import NotFound
from domain.payments import PaymentRow, ReceivedPix

if TYPE_CHECKING:
    from domain.ports import UnitOfWork
    from domain.services.deps import Deps

PAYER_WINDOW = timedelta(days=1)
"""How far back a payer's charges count as theirs to pay (rule 1)."""


@dataclass(frozen=True)
class OrphanPayment:
    """A received Pix of the unit that no charge claimed yet."""

    id: UUID
    unit_id: UUID
    amount_cents: int
    payer_name: str | None
    payer_document: str | None
    txid: str | None
    end_to_end_id: str
    received_at: datetime


class OrphanPayments(Protocol):
    """Orphan payments in the unit of work's transaction (store/orphans.py)."""

    async def units_of_payer(self, document: str, since: datetime) -> list[UUID]:
        """The units where a customer with that CPF had a charge payable at some time since `since`."""
        ...

    async def units_claiming(self, amount_cents: int) -> list[UUID]:
        """The units with a `verifying` booking that has a charge of exactly that amount."""
        ...

    async def keep_unattributed(self, payment_id: UUID, provider: str, pix: ReceivedPix) -> None:
        """Keep a (claimed) Pix that no unit can be told for, with its payer."""
        ...

    async def take_unattributed(self, payment_id: UUID) -> tuple[str, ReceivedPix] | None:
        """Remove an unattributed Pix to make it a unit's payment: its provider and what the bank said (None: no
        such unattributed Pix)."""
        ...

    async def of_unit(self, unit_id: UUID, limit: int) -> list[OrphanPayment]:
        """The unit's orphans not linked yet, newest first."""
        ...


async def attribute(uow: UnitOfWork, provider: str, pix: ReceivedPix) -> UUID | None:
    """Keep a claimed Pix that matched no charge: the payment of the one unit it can be told for (see the module),
    else unattributed; the unit."""
    units: list[UUID] = []
    if pix.payer_document:
        units = await uow.orphans.units_of_payer(pix.payer_document, pix.paid_at - PAYER_WINDOW)
    if not units:
        units = await uow.orphans.units_claiming(pix.amount_cents)
    if len(units) != 1:
        await uow.orphans.keep_unattributed(uuid4(), provider, pix)
        return None
    await uow.payments.record_payment(provider, pix, units[0], None, None, "orphan")
    return units[0]


async def payment_for(uow: UnitOfWork, payment_id: UUID, unit_id: UUID) -> PaymentRow:
    """A payment to link to a booking of `unit_id`, locked: the unit's own, or an unattributed one made the unit's
    now (rolled back with the transaction if the link is refused)."""
    loose = await uow.orphans.take_unattributed(payment_id)
    if loose is not None:
        provider, pix = loose
        await uow.payments.record_payment(provider, pix, unit_id, None, None, "orphan", payment_id=payment_id)
    try:
        return await uow.payments.payment(payment_id)
    except NotFound:
        raise NotFound("payment", payment_id, field="paymentId") from None


async def orphan_payments(deps: Deps, unit_id: UUID, limit: int) -> list[OrphanPayment]:
    """Staff: the unit's orphan Pix, newest first, for "Vincular pagamento"."""
    async with deps.uow() as uow:
        return await uow.orphans.of_unit(unit_id, limit)
