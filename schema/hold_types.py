"""GraphQL types of hold types (SPEC §10) and seat states (seed 004)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import strawberry

from domain import hold_types as dh
from schema.enums import described_enum
from schema.errors import InvalidInput, NotFound

# The domain's enums are the schema's: strawberry.enum registers each (and returns it unchanged).
SeatState = dh.SeatState
HoldReleaser = dh.Releaser
HoldTypeLevel = dh.Level
described_enum(SeatState, description="A seat's lifecycle state on a seat map (seed 004): ACTIVE free, LOCKED held "
               "(held, pending_payment, verifying), SOLD (confirmed, checked_in, completed), BLOCKED (a block).",
               values={"ACTIVE": "Free: on sale.",
                       "LOCKED": "Held for a customer (held, pending payment or verifying) until the hold's deadline.",
                       "SOLD": "Sold: its booking is confirmed, checked in or completed.",
                       "BLOCKED": "Out of sale for the event (a broken seat)."})
described_enum(HoldReleaser, description="Who may release a hold: CUSTOMER (a customer session), ADMIN (staff), "
               "SYSTEM (the platform's own expiry), API (integrator tokens).",
               values={"CUSTOMER": "The customer it is held for, with their session.",
                       "ADMIN": "The unit's staff.",
                       "SYSTEM": "The platform's own expiry at the hold's deadline.",
                       "API": "Integrator tokens."})
described_enum(HoldTypeLevel, description="Where a hold type definition lives; lookups merge ORGANIZATION over "
               "TENANT over PLATFORM field by field.",
               values={"PLATFORM": "The engine's defaults (CART, RESERVED, the waitlist's offers).",
                       "TENANT": "The tenant's definitions, for all its organizations.",
                       "ORGANIZATION": "The organization's definitions, for its units."})


class HoldTypeScope(Enum):
    TENANT = "TENANT"
    ORGANIZATION = "ORGANIZATION"


described_enum(HoldTypeScope, description="Where defineHoldType writes: the unit's organization, or its whole tenant.",
               values={"TENANT": "The whole tenant (needs a tenant-wide token).",
                       "ORGANIZATION": "The unit's organization."})


@strawberry.type(description="A hold type as the unit's organization sees it: platform, tenant and organization "
                 "definitions merged field by field.")
class HoldTypeDefinition:
    name: str = strawberry.field(description="The hold type's name (e.g. CART), as bookings carry it in holdType.")
    valid_states: list[SeatState] = strawberry.field(description="Lifecycle states a thing may be placed in with "
                                                     "this type: LOCKED, and SOLD for types that sell.")
    ttl_seconds: int | None = strawberry.field(description="How long a hold of this type lasts; null: the unit's "
                                               "hold TTL when SYSTEM releases it, else until the held range ends.")
    expires_automatically: bool = strawberry.field(description="Whether holds of this type end by a deadline of "
                                                   "their own (a TTL), rather than with the held range.")
    release_api: list[HoldReleaser] = strawberry.field(description="Who may release a hold of this type.")
    payment_required: bool = strawberry.field(description="Whether a hold of this type is paid (a Pix charge) before "
                                              "it is sold.")
    skip_locked_state: bool = strawberry.field(description="Box office: placing it sells at once (ACTIVE → SOLD).")
    display_name: str = strawberry.field(description="How grids and legends name it (e.g. Hold do bot).")
    display_color: str = strawberry.field(description="How grids and seat maps paint it (#RRGGBB).")
    display_icon: str | None = strawberry.field(description="An icon name or URL for legends; null when none.")
    internal: bool = strawberry.field(description="Placed by the engine only (the waitlist's offers).")
    defined_by: list[HoldTypeLevel] = strawberry.field(description="The layers that define it, lowest first.")

    @classmethod
    def from_domain(cls, ht: dh.HoldType) -> HoldTypeDefinition:
        return cls(
            name=ht.name, valid_states=[dh.SeatState(s) for s in sorted(ht.valid_states)], ttl_seconds=ht.ttl_seconds,
            expires_automatically=bool(ht.ttl_seconds) or ht.uses_unit_ttl,
            release_api=[dh.Releaser(r) for r in sorted(ht.release_api)], payment_required=ht.payment_required,
            skip_locked_state=ht.skip_locked_state, display_name=ht.display_name, display_color=ht.display_color,
            display_icon=ht.display_icon, internal=ht.internal, defined_by=list(ht.defined_by),
        )


@strawberry.type(description="The hold types a unit's organization may use.")
class HoldTypeList:
    unit_id: strawberry.ID = strawberry.field(description="The unit asked about.")
    hold_types: list[HoldTypeDefinition] = strawberry.field(description="Every hold type the unit may use, by name.")


@strawberry.input(description="Fields of a hold type definition at one level. Leave a field out to keep it; set it "
                  "to null to drop this level's value (it is inherited again). ttlSeconds 0: no TTL of its own.")
class HoldTypeFieldsInput:
    valid_states: list[SeatState] | None = strawberry.field(default=strawberry.UNSET, description="LOCKED and/or SOLD.")
    ttl_seconds: int | None = strawberry.field(default=strawberry.UNSET, description="How long its holds last, in "
                                               "seconds: 60 up to the maximum, or 0 for no TTL of its own.")
    release_api: list[HoldReleaser] | None = strawberry.field(default=strawberry.UNSET, description="Who may release "
                                                              "its holds.")
    payment_required: bool | None = strawberry.field(default=strawberry.UNSET, description="Whether its holds are "
                                                     "paid before they are sold.")
    skip_locked_state: bool | None = strawberry.field(default=strawberry.UNSET, description="Box office: placing it "
                                                      "sells at once (needs SOLD in validStates).")
    display_name: str | None = strawberry.field(default=strawberry.UNSET, description="Its display name, 1 to 60 "
                                                "characters.")
    display_color: str | None = strawberry.field(default=strawberry.UNSET, description="Its colour, #RRGGBB.")
    display_icon: str | None = strawberry.field(default=strawberry.UNSET, description="An icon name or URL, 1 to 500 "
                                                "characters without spaces.")

    def changes(self) -> dict[str, object]:
        """The given fields, in the seed's configuration names."""
        out: dict[str, object] = {}
        for attr, key in (("valid_states", "validStates"), ("ttl_seconds", "ttlSeconds"),
                          ("release_api", "releaseApi"), ("payment_required", "paymentRequired"),
                          ("skip_locked_state", "skipLockedState"), ("display_name", "displayName"),
                          ("display_color", "displayColor"), ("display_icon", "displayIcon")):
            value = getattr(self, attr)
            if value is strawberry.UNSET:
                continue
            out[key] = [v.value for v in value] if isinstance(value, list) else value
        return out


HoldTypesResult = Annotated[HoldTypeList | NotFound | InvalidInput, strawberry.union(
    "HoldTypesResult", description=(
    "What holdTypes and removeHoldType answer: HoldTypeList, or the refusal (an Error) that stopped it."))]
HoldTypeResult = Annotated[HoldTypeDefinition | NotFound | InvalidInput, strawberry.union(
    "HoldTypeResult", description=(
    "What defineHoldType answers: HoldTypeDefinition, or the refusal (an Error) that stopped it."))]
