"""Access (SPEC §14): a customer sees and changes only their own bookings, books only for their own phone, joins
waitlists as themselves, and signing out ends the session. The world is the access matrix's (test_access.py)."""

from __future__ import annotations

import asyncio

from schema.ids import decode_id
from tests.api.test_access import HOLD, World, _hold_input, world  # noqa: F401 (fixtures)
from tests.venues import at, cpf


async def test_customers_see_and_change_only_their_own_bookings(world: World) -> None:  # noqa: F811
    mine = await world.gql("customer", HOLD, {"i": _hold_input(world.unit, world.fields[2], 14, cpf(900_003),
                                                               world.customer_phone)})
    assert mine["data"] and mine["data"]["hold"]["__typename"] == "BookingPayload", mine
    booking = mine["data"]["hold"]["booking"]
    q = "query($b: ID!) { booking(id: $b) { __typename ... on Booking { id } } }"
    assert (await world.gql("customer", q, {"b": booking["id"]}))["data"]["booking"]["id"] == booking["id"]
    other = await world.gql("customer", q, {"b": str(world.booking)})
    assert other["errors"][0]["extensions"]["code"] == "forbidden" and other["data"] is None
    # Booking for someone else's phone is refused; a CPF of their own may be added.
    theirs = await world.gql("customer", HOLD, {"i": _hold_input(world.unit, world.fields[3], 15, cpf(1),
                                                                 "+5511911112222")})
    assert theirs["errors"][0]["extensions"]["code"] == "forbidden"
    cancel = 'mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on BookingPayload { booking { status } } } }'
    refused = await world.gql("customer", cancel, {"b": str(world.booking)})
    assert refused["errors"][0]["extensions"]["code"] == "forbidden"
    done = await world.gql("customer", cancel, {"b": booking["id"]})
    assert done["data"]["cancel"]["booking"]["status"] == "CANCELLED", done
    actor = await world.pool.fetchval("SELECT actor FROM booking_events WHERE booking_id = $1 AND new_status = "
                                      "'cancelled'", decode_id(booking["id"])[1])
    assert actor == "customer"
    # Capacity waitlists: a customer is themselves, without naming a user.
    join = await world.gql("customer", "mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { "
                           "joinCapacityWaitlist(unitId: $u, resourceId: $r, startsAt: $s, endsAt: $e, partySize: 2) "
                           "{ __typename } }", {"u": str(world.unit), "r": str(world.fields[-1]),
                                                "s": at(8, 9).isoformat(), "e": at(8, 10).isoformat()})
    assert "errors" not in join and join["data"]["joinCapacityWaitlist"]["__typename"], join
    # Signing out ends the session.
    assert (await world.gql("customer", "mutation { signOut }"))["data"]["signOut"] is True
    world_token = world.tokens["customer"]
    await asyncio.sleep(2.1)  # the authenticator's cache
    r = await world.client.post("/graphql", json={"query": "{ me { kind } }"},
                                headers={"authorization": f"Bearer {world_token}"})
    assert r.json()["errors"][0]["extensions"]["code"] == "unauthenticated"
