"""Claim links (seed 003): the link an offer's message carries, and the offer a link's token stands for.

A capacity-waitlist offer goes to its customer as `<public base URL>/waitlist/claim/<token>`; a walk-in party's
turn as `<public base URL>/walk-in/claim/<token>`. The token is the whole 64-character secret the claim
mutations take (`claimWaitlistOffer`, `claimWalkIn`); the page at the link (api/claim_pages.py) shows the offer
and claims it. A capacity claim still needs the signed-in customer who joined; a walk-in's, the token alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from uuid import UUID

from domain.services.deps import Deps

TOKEN = re.compile(r"[0-9a-f]{64}")
"""The shape of an offer token (secrets.token_hex(32))."""


class OfferKind(StrEnum):
    CAPACITY = "capacity"
    WALK_IN = "walk_in"


PATHS = {OfferKind.CAPACITY: "/waitlist/claim/", OfferKind.WALK_IN: "/walk-in/claim/"}
"""Where each kind of offer is claimed, under the public base URL."""


def claim_link(deps: Deps, kind: OfferKind, token: str) -> str:
    """The link a message carries for an offer."""
    return f"{deps.public_base_url}{PATHS[kind]}{token}"


@dataclass(frozen=True)
class OfferToClaim:
    """What a claim page shows of an offer."""

    kind: OfferKind
    unit_id: UUID
    unit_name: str
    timezone: str
    status: str
    """offered (claimable), or what became of it: claimed, seated, fulfilled, expired, cancelled."""
    party_size: int
    name: str | None = None
    """Walk-ins: the party's name and area."""
    area: str | None = None
    resource: str | None = None
    """Capacity offers: the class or event, when it starts, until when the offer holds."""
    starts_at: datetime | None = None
    expires_at: datetime | None = None

    @property
    def claimable(self) -> bool:
        return self.status == "offered"


async def offer_to_claim(deps: Deps, kind: OfferKind, token: str) -> OfferToClaim | None:
    """The offer a link's token stands for; None for a token that is not one (never a hint of another's)."""
    if not TOKEN.fullmatch(token):
        return None
    async with deps.uow() as uow:
        row = await uow.waitlists.offer_to_claim(kind.value, token)
    if row is None:
        return None
    return OfferToClaim(kind=kind, unit_id=row["unit_id"], unit_name=row["unit_name"], timezone=row["timezone"],
                        status=row["status"], party_size=row["party_size"], name=row.get("name"),
                        area=row.get("area"), resource=row.get("resource"), starts_at=row.get("starts_at"),
                        expires_at=row.get("expires_at"))
