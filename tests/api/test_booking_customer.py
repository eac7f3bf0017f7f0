"""Booking.customer (issue 20): the front desk sees who a booking is for — name, phone, the CPF masked — through the
same access rules as booking(id): staff of the unit, the customer themselves; customer A never sees B's, and another
tenant's staff get nothing."""

from __future__ import annotations

from tests.api.test_access import HOLD, World, _hold_input, world  # noqa: F401 (fixtures)
from tests.venues import cpf

Q = """query($b: ID!) { booking(id: $b) { __typename
  ... on Booking { id customerId customer { name phone cpfMasked } } ... on Error { code } } }"""


async def test_staff_of_the_unit_see_the_customer_with_the_cpf_masked(world: World) -> None:  # noqa: F811
    full = cpf(900_001)
    for role in ("operator", "manager", "owner"):
        r = await world.gql(role, Q, {"b": str(world.booking)})
        customer = r["data"]["booking"]["customer"]
        assert customer["cpfMasked"] == f"***.{full[3:6]}.{full[6:9]}-**", r
        assert full not in str(r)


async def test_a_customer_sees_their_own_but_never_another_customers(world: World) -> None:  # noqa: F811
    mine = await world.gql("customer", HOLD, {"i": _hold_input(world.unit, world.fields[2], 14, "",
                                                               world.customer_phone)})
    booking = mine["data"]["hold"]["booking"]["id"]
    own = await world.gql("customer", Q, {"b": booking})
    assert own["data"]["booking"]["customer"]["phone"] == world.customer_phone, own
    other = await world.gql("customer", Q, {"b": str(world.booking)})
    assert other["data"] is None and other["errors"][0]["extensions"]["code"] == "forbidden"
    assert cpf(900_001)[3:9] not in str(other)


async def test_another_tenants_staff_and_anonymous_callers_get_nothing(world: World) -> None:  # noqa: F811
    for caller in ("stranger", "anonymous"):
        r = await world.gql(caller, Q, {"b": str(world.booking)})
        assert r["data"] is None or r["data"]["booking"] is None or "customer" not in r["data"]["booking"], r
        assert cpf(900_001)[3:9] not in str(r)
