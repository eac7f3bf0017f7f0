"""The GraphQL documents the REST door runs: one fixed document per endpoint, written once from the schema itself.

Each REST endpoint is one root field of the GraphQL schema. Its document declares every argument of that field as
a variable of the same name and type (read from the schema, so a type the schema changes — a String that becomes an
enum — changes here with it), selects the success member of the field's result union with the selection below, and
every other member of the union (the field's refusals) with all its fields, so that a problem answer carries
whatever GraphQL's refusal carries (SlotTaken's `alternatives` and `waitlist`, InvalidInput's `field`, ...).

The result is aliased `result`; `__typename` says which member answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from graphql import (
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    Undefined,
    get_named_type,
    is_leaf_type,
)

BOOKING: Final = """
  id unitId status holdType channel startsAt endsAt holdExpiresAt createdAt customerId
  allocations { resourceId startsAt endsAt quantity }
  dueNowCents paidCents refundedCents
  quote { ...acceptance } acceptance { ...acceptance }
  refunds { id paymentId paidCents amountCents percent policyVersion hoursBeforeStart status provider providerRef
            attempts error createdAt updatedAt }
  swappedFrom swappedTo rescheduledFrom rescheduledTo
"""
"""What the REST door shows of a booking (the OpenAPI document's Booking schema, api/rest/openapi.py)."""

CHARGE: Final = "id txid provider amountCents status copiaECola qrCodePng expiresAt"
"""What it shows of a Pix charge."""

FRAGMENTS: Final = """
fragment acceptance on Acceptance {
  at channel contact priceVersion policyVersion paymentRule totalCents dueNowCents atVenueCents policySummary
}
"""

_NESTING: Final = 2
"""How deep the refusals' object fields are selected (SlotTaken.alternatives { ... } is depth 1)."""


@dataclass(frozen=True)
class Operation:
    """One REST endpoint's GraphQL operation: the root field it runs and what it selects of the success member."""

    name: str
    """The operation's name (it shows in the API's logs and metrics as any GraphQL operation's does)."""
    kind: Literal["query", "mutation"]
    field: str
    """The root field (camelCase, as in the SDL)."""
    success: str
    """The GraphQL type name of the success member of the field's result union."""
    selection: str
    """The selection of the success member."""


AVAILABILITY: Final = Operation("RestAvailability", "query", "bookableSlots", "BookableSlots",
                                "unitId slots { resourceId startsAt endsAt }")
HOLD: Final = Operation("RestHold", "mutation", "hold", "BookingPayload", f"replayed booking {{ {BOOKING} }}")
CONFIRM: Final = Operation("RestConfirm", "mutation", "confirm", "BookingPayload",
                           f"replayed booking {{ {BOOKING} }} charge {{ {CHARGE} }}")
CANCEL: Final = Operation("RestCancel", "mutation", "cancel", "BookingPayload", f"replayed booking {{ {BOOKING} }}")
BOOKING_READ: Final = Operation("RestBooking", "query", "booking", "Booking", BOOKING)

OPERATIONS: Final = (AVAILABILITY, HOLD, CONFIRM, CANCEL, BOOKING_READ)


def document(schema: GraphQLSchema, op: Operation) -> str:
    """The GraphQL document of `op` over `schema`."""
    root = schema.query_type if op.kind == "query" else schema.mutation_type
    assert root is not None
    field = root.fields[op.field]
    declared, passed = [], []
    for name, arg in field.args.items():
        arg_type = arg.type
        if isinstance(arg_type, GraphQLNonNull) and arg.default_value is not Undefined:
            arg_type = arg_type.of_type  # an argument with a default may be left out: its variable too
        declared.append(f"${name}: {arg_type}")
        passed.append(f"{name}: ${name}")
    union = get_named_type(field.type)
    members = union.types if isinstance(union, GraphQLUnionType) else (union,)
    spreads = [f"... on {op.success} {{ {op.selection} }}"]
    spreads += [f"... on {m.name} {{ {_all_fields(m, _NESTING)} }}" for m in members if m.name != op.success]
    variables = f"({', '.join(declared)})" if declared else ""
    arguments = f"({', '.join(passed)})" if passed else ""
    fragments = FRAGMENTS if "...acceptance" in op.selection else ""
    return (f"{op.kind} {op.name}{variables} {{ result: {op.field}{arguments} {{ __typename {' '.join(spreads)} }} }}"
            f"{fragments}")


def _all_fields(t: GraphQLObjectType, depth: int) -> str:
    """Every field of `t` that takes no required argument; object fields with theirs, `depth` levels down."""
    out = []
    for name, f in t.fields.items():
        if any(isinstance(a.type, GraphQLNonNull) and a.default_value is Undefined for a in f.args.values()):
            continue
        inner = get_named_type(f.type)
        if is_leaf_type(inner):
            out.append(name)
        elif depth > 0 and isinstance(inner, GraphQLObjectType):
            out.append(f"{name} {{ {_all_fields(inner, depth - 1)} }}")
    return " ".join(out)
