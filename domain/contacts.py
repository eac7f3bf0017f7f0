"""The unit's contacts (issue 18): the WhatsApp number that receives operational alerts and the e-mail address of
owner notifications. Owners change them; staff see them on the Unit type; each change is in the venue log (entity
`contacts`).

The WhatsApp number is the same column that `updateUnitParameters(ownerAlertWhatsapp:)` sets: both paths reach it.
Here it is read as people type it (`Deps.phones`, libphonenumber in providers/phones.py: "(11) 99999-0000" is a
Brazilian number, "+44 20 7946 0958" keeps its country) and stored in E.164.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from domain import venue_log
from domain.customers import normalize_email, normalize_phone
from domain.errors import ErrorCode, InvalidInput
from domain.venue_log import ChangeAction, JsonValue, VenueChange, changed_fields

if TYPE_CHECKING:
    from domain.services.deps import Deps

_FIELDS = {"owner_alert_whatsapp": "alertWhatsapp", "owner_email": "ownerEmail"}
"""Column → the GraphQL field naming it."""


@dataclass(frozen=True)
class ContactsChange:
    """New contacts of a unit: None leaves one as it is, "" clears it."""

    unit_id: UUID
    alert_whatsapp: str | None = None
    owner_email: str | None = None


def _checked(deps: Deps, cmd: ContactsChange) -> dict[str, object]:
    out: dict[str, object] = {}
    if cmd.alert_whatsapp is not None:
        raw = cmd.alert_whatsapp.strip()
        if not raw:
            out["owner_alert_whatsapp"] = None
        elif deps.phones is not None:
            out["owner_alert_whatsapp"] = deps.phones.normalize(raw, "alertWhatsapp")
        else:
            out["owner_alert_whatsapp"] = normalize_phone(raw, "alertWhatsapp")
    if cmd.owner_email is not None:
        raw = cmd.owner_email.strip()
        out["owner_email"] = normalize_email(raw, "ownerEmail") if raw else None
    if not out:
        raise InvalidInput("input", "give alertWhatsapp or ownerEmail (\"\" clears one)",
                           code=ErrorCode.NOTHING_TO_CHANGE)
    return out


async def update_contacts(deps: Deps, cmd: ContactsChange, session: str) -> bool:
    """Check and store the unit's contacts, logging what changed with who made it; False: no such unit."""
    changes = _checked(deps, cmd)
    async with deps.uow() as uow:
        current = await uow.unit_settings.read(cmd.unit_id, list(changes))
        if current is None:
            return False
        now: dict[str, JsonValue] = {_FIELDS[k]: _text(v) for k, v in changes.items()}
        before, after = changed_fields({_FIELDS[k]: _text(v) for k, v in current.items()}, now)
        if after:
            await uow.unit_settings.write(cmd.unit_id, changes)
            await venue_log.note(uow, cmd.unit_id, VenueChange("contacts", str(cmd.unit_id), ChangeAction.UPDATED,
                                                               session, before, after), deps.clock.now())
            await uow.commit()
    return True


def _text(value: object) -> str | None:
    return None if value is None else str(value)
