"""GraphQL types of hold types (SPEC §10) and seat states (seed 004)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import strawberry

from domain import hold_types as dh
from schema.errors import InvalidInput, NotFound

# The domain's enums are the schema's: strawberry.enum registers each (and returns it unchanged).
SeatState = dh.SeatState
HoldReleaser = dh.Releaser
HoldTypeLevel = dh.Level
strawberry.enum(SeatState, description="A seat's lifecycle state on a seat map (seed 004): ACTIVE free, LOCKED held "
                "(held, pending_payment, verifying), SOLD (confirmed, checked_in, completed), BLOCKED (a block).")
strawberry.enum(HoldReleaser, description="Who may release a hold: CUSTOMER (a customer session), ADMIN (staff), "
                "SYSTEM (the platform's own expiry), API (integrator tokens).")
strawberry.enum(HoldTypeLevel, description="Where a hold type definition lives; lookups merge ORGANIZATION over "
                "TENANT over PLATFORM field by field.")


@strawberry.enum(description="Where defineHoldType writes: the unit's organization, or its whole tenant.")
class HoldTypeScope(Enum):
    TENANT = "TENANT"
    ORGANIZATION = "ORGANIZATION"


@strawberry.type(description="A hold type as the unit's organization sees it: platform, tenant and organization "
                 "definitions merged field by field.")
class HoldTypeDefinition:
    name: str
    valid_states: list[SeatState] = strawberry.field(description="Lifecycle states a thing may be placed in with "
                                                     "this type: LOCKED, and SOLD for types that sell.")
    ttl_seconds: int | None = strawberry.field(description="How long a hold of this type lasts; null: the unit's "
                                               "hold TTL when SYSTEM releases it, else until the held range ends.")
    expires_automatically: bool = strawberry.field(description="Whether holds of this type end by a deadline of "
                                                   "their own (a TTL), rather than with the held range.")
    release_api: list[HoldReleaser]
    payment_required: bool
    skip_locked_state: bool = strawberry.field(description="Box office: placing it sells at once (ACTIVE → SOLD).")
    display_name: str
    display_color: str
    display_icon: str | None
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
    unit_id: strawberry.ID
    hold_types: list[HoldTypeDefinition]


@strawberry.input(description="Fields of a hold type definition at one level. Leave a field out to keep it; set it "
                  "to null to drop this level's value (it is inherited again). ttlSeconds 0: no TTL of its own.")
class HoldTypeFieldsInput:
    valid_states: list[SeatState] | None = strawberry.UNSET
    ttl_seconds: int | None = strawberry.UNSET
    release_api: list[HoldReleaser] | None = strawberry.UNSET
    payment_required: bool | None = strawberry.UNSET
    skip_locked_state: bool | None = strawberry.UNSET
    display_name: str | None = strawberry.UNSET
    display_color: str | None = strawberry.UNSET
    display_icon: str | None = strawberry.UNSET

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


HoldTypesResult = Annotated[HoldTypeList | NotFound | InvalidInput, strawberry.union("HoldTypesResult")]
HoldTypeResult = Annotated[HoldTypeDefinition | NotFound | InvalidInput, strawberry.union("HoldTypeResult")]
