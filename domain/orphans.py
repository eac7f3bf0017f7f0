"""Orphan Pix (RN-HLD-06 "Vincular pagamento"): a payment that matched no charge, kept so staff can apply it.

A Pix paid by hand to the key carries no txid of ours. When it arrives, the system looks for whose it can be:

1. the payer the bank names (a CPF) had a Pix to pay at exactly one unit within the last day — that unit;
2. else, exactly one unit has a booking whose customer says they paid ("paguei", `verifying`) with a charge of
   that very amount — that unit.

Anything else (no payer and no such claim, or several units) stays unattributed: no tenant's staff see it, since
showing one tenant another's payments (amount, payer) would leak them. The unit's staff list its orphans with
`orphan_payments` and apply one with `settlement.link_payment`, which refuses another unit's orphan.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from domain.payments import ReceivedPix

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

    async def keep(self, payment_id: UUID, unit_id: UUID | None, payer_name: str | None,
                   payer_document: str | None) -> None:
        """Record the orphan's payer and the unit it is attributed to (None: nobody's yet)."""
        ...

    async def of_unit(self, unit_id: UUID, limit: int) -> list[OrphanPayment]:
        """The unit's orphans not linked yet, newest first."""
        ...


async def attribute(uow: UnitOfWork, payment_id: UUID, pix: ReceivedPix) -> UUID | None:
    """Keep an orphan's payer and attribute it to the one unit it can be told for (see the module); the unit."""
    units: list[UUID] = []
    if pix.payer_document:
        units = await uow.orphans.units_of_payer(pix.payer_document, pix.paid_at - PAYER_WINDOW)
    if not units:
        units = await uow.orphans.units_claiming(pix.amount_cents)
    unit_id = units[0] if len(units) == 1 else None
    await uow.orphans.keep(payment_id, unit_id, pix.payer_name, pix.payer_document)
    return unit_id


async def orphan_payments(deps: Deps, unit_id: UUID, limit: int) -> list[OrphanPayment]:
    """Staff: the unit's orphan Pix, newest first, for "Vincular pagamento"."""
    async with deps.uow() as uow:
        return await uow.orphans.of_unit(unit_id, limit)
