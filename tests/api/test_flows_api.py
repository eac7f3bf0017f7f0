"""Flows that differ by venue (issue 18) through the API: payments recorded by hand, check-in optional, the
notification matrix as a parameter — each both ways, each refusal with its code, each change in the venue log and
live."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest

from domain.services import CounterCommand, Deps, complete_past, counter_booking
from schema.ids import decode_id, global_id
from store.venues import ResourceSpec, VenueSpec, create_venue, every_day
from tests.conftest import MutableClock
from tests.live import live_api
from tests.venues import at, cpf, customer

PARAMS = ("mutation($u: ID!, $i: UnitParametersInput!) { updateUnitParameters(unitId: $u, input: $i) { __typename "
          "... on Unit { parameters { manualPaymentsEnabled checkInRequired notificationMatrix { event customer "
          "staff } } } ... on InvalidInput { field code } } }")
CHANGES = "query($u: ID!) { venueChanges(unitId: $u, first: 10) { entity entityId action before after session } }"
VENUE_LIVE = "subscription($u: ID!) { venueChanged(unitId: $u) { entity action session } }"
HOLD = ("mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id customerId } } "
        "... on Error { code } } }")
CONFIRM = ("mutation($b: ID!) { confirm(bookingId: $b) { __typename ... on BookingPayload { booking { status } "
           "charge { txid status } } } }")
RECORD = ("mutation($b: ID!, $i: ManualPaymentInput!) { recordManualPayment(bookingId: $b, input: $i) { __typename "
          "... on ManualPaymentPayload { booking { status paidCents } payment { method amountCents reason actor "
          "session recordedAt } } ... on InvalidInput { field code } ... on InvalidTransition { code currentState } "
          "} }")
BOOKING = ("query($b: ID!) { booking(id: $b) { ... on Booking { status paidCents history { oldStatus newStatus actor "
           "reason session } } } }")
CHARGES = "query($b: ID!) { charges(bookingId: $b) { txid status } }"
SUMMARY = ("query($u: ID!, $f: DateTime!, $t: DateTime!) { paymentsSummary(unitId: $u, from: $f, to: $t) { "
           "__typename ... on PaymentsSummary { pixCount pixCents manualCents manual { method count totalCents } } } }")
PAY = 'mutation($t: String!) { sandboxPay(txid: $t) { ... on PaymentOutcome { outcome } ... on Error { code } } }'
CASH = {"method": "CASH", "amountCents": 10000, "reason": "pagou no balcão"}


@pytest.fixture
async def live(database_url: str, redis_url: str, clock: MutableClock) -> Any:
    async with live_api(database_url, redis_url, clock) as server:
        yield server


async def paid_venue(pool: Any, **params: Any) -> Any:
    return await create_venue(pool, VenueSpec(
        unit_name=f"Arena flows {uuid4()}", hours=every_day(8, 23),
        resources=[ResourceSpec(name=f"Campo {i}") for i in (1, 2, 3)],
        services=[{"name": "Campo 1h", "duration_minutes": 60, "price_cents": 20000,
                   "payment_rule": "deposit_percent", "deposit_percent": 50}], params=params))


async def staff(live: Any, v: Any, role: str) -> tuple[str, str]:
    token_id, token = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", role, [], role)
    return str(token_id), token


async def pending(live: Any, system: str, v: Any, hour: int, n: int) -> tuple[str, str, str]:
    """A booking awaiting its Pix: (booking id, txid, customer id)."""
    r = (await live.gql(system, HOLD, {"i": {
        "unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])], "startsAt": at(12, hour).isoformat(),
        "endsAt": at(12, hour + 1).isoformat(), "customer": {"cpf": cpf(610_000 + n)},
        "serviceId": str(v.service_ids["Campo 1h"])}}))["hold"]
    bid = r["booking"]["id"]
    c = (await live.gql(system, CONFIRM, {"b": bid}))["confirm"]
    assert c["booking"]["status"] == "PENDING_PAYMENT", c
    return bid, c["charge"]["txid"], r["booking"]["customerId"]


async def system_token(live: Any) -> str:
    return str((await live.access.issue_token(None, None, "system", None, [], "tests"))[1])


async def test_a_payment_recorded_by_hand_confirms_is_audited_and_reported_apart_from_pix(
        live: Any, pool: Any, clock: MutableClock) -> None:
    v, other = await paid_venue(pool), await paid_venue(pool)
    system = await system_token(live)
    manager_id, manager = await staff(live, v, "manager")
    _, operator = await staff(live, v, "operator")
    _, stranger = await live.access.issue_token(other.tenant_id, None, "staff", "owner", [], "elsewhere")
    bid, txid, customer_id = await pending(live, system, v, 19, 1)
    _, own = await live.access.open_session(v.unit_id, v.tenant_id, decode_id(customer_id)[1], clock.now(),
                                            timedelta(hours=1))
    # The customer says they paid: that never confirms (seed 001), and they cannot record a payment, even their own.
    claimed = await live.gql(own, "mutation($b: ID!) { claimPaid(bookingId: $b) { ... on BookingPayload { booking "
                                   "{ status } } } }", {"b": bid})
    assert claimed["claimPaid"]["booking"]["status"] == "VERIFYING"
    for caller in (own, operator, stranger):
        body = await live.post(caller, RECORD, {"b": bid, "i": CASH})
        assert body["errors"][0]["extensions"]["code"] == "forbidden", body
    bad = [({**CASH, "amountCents": 0}, "input.amountCents", "invalid_amount"),
           ({**CASH, "reason": "  "}, "input.reason", "reason_required")]
    for given, field, code in bad:
        refused = (await live.gql(manager, RECORD, {"b": bid, "i": given}))["recordManualPayment"]
        assert refused == {"__typename": "InvalidInput", "field": field, "code": code}
    async with live.subscribe(operator, "subscription($b: ID!) { bookingChanged(bookingId: $b) { status oldStatus "
                                        "} }", {"b": bid}) as feed:
        done = (await live.gql(manager, RECORD, {"b": bid, "i": CASH}))["recordManualPayment"]
        assert (await feed.next())["bookingChanged"] == {"status": "CONFIRMED", "oldStatus": "VERIFYING"}
    assert done["booking"] == {"status": "CONFIRMED", "paidCents": 10000}
    assert done["payment"]["method"] == "CASH" and done["payment"]["amountCents"] == 10000
    assert done["payment"]["reason"] == "pagou no balcão" and done["payment"]["session"] == f"staff:{manager_id}"
    assert done["payment"]["actor"] == "staff" and done["payment"]["recordedAt"]
    # Its Pix charge is cancelled; the queue item of the claim is resolved; the history says who, how and why.
    assert (await live.gql(manager, CHARGES, {"b": bid}))["charges"] == [{"txid": txid, "status": "CANCELLED"}]
    assert (await live.gql(manager, "query($u: ID!) { queue(unitId: $u) { id } }", {"u": str(v.unit_id)}))[
        "queue"] == []
    last = (await live.gql(manager, BOOKING, {"b": bid}))["booking"]["history"][-1]
    assert last == {"oldStatus": "VERIFYING", "newStatus": "CONFIRMED", "actor": "staff",
                    "reason": "manual payment (cash): pagou no balcão", "session": f"staff:{manager_id}"}
    # A Pix paid late on that cancelled charge does not confirm twice: it becomes the customer's credit.
    assert (await live.gql(system, PAY, {"t": txid}))["sandboxPay"]["outcome"] == "CREDITED"
    assert (await live.gql(manager, BOOKING, {"b": bid}))["booking"]["paidCents"] == 10000
    assert await pool.fetchval("SELECT count(*) FROM customer_credits WHERE customer_id = $1",
                               decode_id(customer_id)[1]) == 1
    again = (await live.gql(manager, RECORD, {"b": bid, "i": CASH}))["recordManualPayment"]
    assert again == {"__typename": "InvalidTransition", "code": "invalid_transition", "currentState": "confirmed"}
    # Another booking paid by Pix, one by card: the summary keeps Pix apart from payments by hand, by method.
    _, txid2, _ = await pending(live, system, v, 20, 2)
    assert (await live.gql(system, PAY, {"t": txid2}))["sandboxPay"]["outcome"] == "CONFIRMED"
    bid3, _, _ = await pending(live, system, v, 21, 3)
    card = (await live.gql(manager, RECORD, {"b": bid3, "i": {"method": "CARD", "amountCents": 20000,
                                                              "reason": "cartão na maquininha"}}))
    assert card["recordManualPayment"]["booking"]["status"] == "CONFIRMED"
    day = {"u": str(v.unit_id), "f": at(7, 0).isoformat(), "t": at(8, 0).isoformat()}
    summary = (await live.gql(operator, SUMMARY, day))["paymentsSummary"]
    assert summary == {"__typename": "PaymentsSummary", "pixCount": 1, "pixCents": 10000, "manualCents": 30000,
                       "manual": [{"method": "CASH", "count": 1, "totalCents": 10000},
                                  {"method": "CARD", "count": 1, "totalCents": 20000}]}
    body = await live.post(stranger, SUMMARY, day)
    assert body["errors"][0]["extensions"]["code"] == "forbidden"
    # The record is kept as given.
    with pytest.raises(Exception, match="append-only"):
        await pool.execute("UPDATE manual_payments SET amount_cents = 1 WHERE booking_id = $1", decode_id(bid)[1])


async def test_a_venue_turns_payments_by_hand_off_logged_and_live(live: Any, pool: Any) -> None:
    v = await paid_venue(pool)
    system = await system_token(live)
    owner_id, owner = await staff(live, v, "owner")
    _, manager = await staff(live, v, "manager")
    u = str(v.unit_id)
    bid, _, _ = await pending(live, system, v, 19, 4)
    async with live.subscribe(manager, VENUE_LIVE, {"u": u}) as feed:
        off = (await live.gql(owner, PARAMS, {"u": u, "i": {"manualPaymentsEnabled": False}}))["updateUnitParameters"]
        assert off["parameters"]["manualPaymentsEnabled"] is False
        assert (await feed.next())["venueChanged"] == {"entity": "PARAMETERS", "action": "UPDATED",
                                                       "session": f"staff:{owner_id}"}
    logged = (await live.gql(manager, CHANGES, {"u": u}))["venueChanges"][0]
    assert (logged["before"], logged["after"]) == ({"manualPaymentsEnabled": True}, {"manualPaymentsEnabled": False})
    refused = (await live.gql(manager, RECORD, {"b": bid, "i": CASH}))["recordManualPayment"]
    assert refused == {"__typename": "InvalidInput", "field": "bookingId", "code": "manual_payments_off"}
    assert (await live.gql(manager, BOOKING, {"b": bid}))["booking"]["status"] == "PENDING_PAYMENT"
    bad = (await live.gql(owner, PARAMS, {"u": u, "i": {"checkInRequired": None, "notificationMatrix": []}}))
    assert bad["updateUnitParameters"] == {"__typename": "InvalidInput", "field": "notificationMatrix",
                                           "code": "invalid_parameter"}
    await live.gql(owner, PARAMS, {"u": u, "i": {"manualPaymentsEnabled": True}})
    done = (await live.gql(manager, RECORD, {"b": bid, "i": CASH}))["recordManualPayment"]
    assert done["booking"]["status"] == "CONFIRMED"
    # Only a booking awaiting its payment (accepted) or being verified: a bare hold has accepted nothing yet.
    held = (await live.gql(system, HOLD, {"i": {
        "unitId": u, "resourceIds": [str(v.resource_ids["Campo 2"])], "startsAt": at(12, 19).isoformat(),
        "endsAt": at(12, 20).isoformat(), "customer": {"cpf": cpf(610_009)}}}))["hold"]["booking"]["id"]
    refused = (await live.gql(manager, RECORD, {"b": held, "i": CASH}))["recordManualPayment"]
    assert refused == {"__typename": "InvalidTransition", "code": "invalid_transition", "currentState": "held"}


async def test_without_check_in_confirmed_bookings_complete_after_their_end_live(
        live: Any, pool: Any, clock: MutableClock) -> None:
    """checkInRequired off: the worker's sweep completes confirmed bookings after their end (audited, live) and no
    no-show suggestion is raised; on (the default): they stay confirmed, and the suggestion comes."""
    from jobs.attendance import suggest_no_shows
    from store.attendance import PgAttendance
    from store.uow import PgUnitOfWork

    deps = Deps(uow=lambda: PgUnitOfWork(pool), clock=clock)
    with_check_in, without = await paid_venue(pool), await paid_venue(pool)
    owner_id, owner = await staff(live, without, "owner")
    _, operator = await staff(live, without, "operator")
    u = str(without.unit_id)
    async with live.subscribe(operator, VENUE_LIVE, {"u": u}) as feed:
        r = (await live.gql(owner, PARAMS, {"u": u, "i": {"checkInRequired": False}}))["updateUnitParameters"]
        assert r["parameters"]["checkInRequired"] is False
        assert (await feed.next())["venueChanged"]["session"] == f"staff:{owner_id}"
    booked = {}
    for v in (with_check_in, without):
        b = await counter_booking(deps, CounterCommand(v.unit_id, at(7, 10), at(7, 11), (v.resource_ids["Campo 1"],),
                                                       customer=customer(71)))
        booked[v.unit_id] = b.booking.id
    clock.set(at(7, 11, 30))
    window = {"u": u, "f": at(7, 0).isoformat(), "t": at(8, 0).isoformat()}
    async with live.subscribe(operator, "subscription($u: ID!, $f: DateTime!, $t: DateTime!) { slotChanged("
                                        "unitId: $u, from: $f, to: $t) { bookingId status oldStatus } }",
                              window) as slots:
        assert await complete_past(deps) >= 1
        change = (await slots.next())["slotChanged"]
        while change["oldStatus"] is None:  # the booking's birth, if the relay published it only now
            change = (await slots.next())["slotChanged"]
        assert change == {"bookingId": global_id("Booking", booked[without.unit_id]), "status": "COMPLETED",
                          "oldStatus": "CONFIRMED"}
    await suggest_no_shows({"deps": deps, "attendance": PgAttendance(pool)})
    status = {k: await pool.fetchval("SELECT status FROM bookings WHERE id = $1", b) for k, b in booked.items()}
    assert status == {with_check_in.unit_id: "confirmed", without.unit_id: "completed"}
    suggestions = {k: await pool.fetchval("SELECT count(*) FROM queue_items WHERE booking_id = $1 AND type = "
                                          "'no_show_suggestion'", b) for k, b in booked.items()}
    assert suggestions == {with_check_in.unit_id: 1, without.unit_id: 0}
    system = await system_token(live)
    history = (await live.gql(system, BOOKING, {"b": str(booked[without.unit_id])}))["booking"]["history"]
    assert history[-1] == {"oldStatus": "CONFIRMED", "newStatus": "COMPLETED", "actor": "system",
                           "reason": "ended; the venue has no check-in", "session": None}
    # Check-in on again: no new completions, and a no-show stays a person's decision.
    await live.gql(owner, PARAMS, {"u": u, "i": {"checkInRequired": True}})
    b = await counter_booking(deps, CounterCommand(without.unit_id, at(7, 12), at(7, 13),
                                                   (without.resource_ids["Campo 2"],), customer=customer(72)))
    clock.set(at(7, 13, 30))
    await complete_past(deps)
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", b.booking.id) == "confirmed"


async def test_the_notification_matrix_is_a_parameter_changed_by_event(live: Any, pool: Any) -> None:
    v = await paid_venue(pool)
    owner_id, owner = await staff(live, v, "owner")
    _, manager = await staff(live, v, "manager")
    u = str(v.unit_id)
    default = (await live.gql(owner, PARAMS, {"u": u, "i": {"checkInRequired": True}}))["updateUnitParameters"]
    assert default["parameters"]["notificationMatrix"] == [
        {"event": "CREATED", "customer": True, "staff": False}, {"event": "PAID", "customer": True, "staff": True},
        {"event": "CANCELLED", "customer": True, "staff": True},
        {"event": "COMPLETED", "customer": True, "staff": False},
        {"event": "EXPIRED", "customer": True, "staff": True}]
    rows = [{"event": "CANCELLED", "customer": True, "staff": False}, {"event": "CREATED", "customer": True,
                                                                       "staff": True}]
    changed = (await live.gql(owner, PARAMS, {"u": u, "i": {"notificationMatrix": rows}}))["updateUnitParameters"]
    got = {r["event"]: (r["customer"], r["staff"]) for r in changed["parameters"]["notificationMatrix"]}
    assert got == {"CREATED": (True, True), "PAID": (True, True), "CANCELLED": (True, False),
                   "COMPLETED": (True, False), "EXPIRED": (True, True)}
    # A later change of one event keeps the others.
    later = [{"event": "COMPLETED", "customer": False, "staff": False}]
    changed = (await live.gql(owner, PARAMS, {"u": u, "i": {"notificationMatrix": later}}))["updateUnitParameters"]
    got = {r["event"]: (r["customer"], r["staff"]) for r in changed["parameters"]["notificationMatrix"]}
    assert got["CANCELLED"] == (True, False) and got["COMPLETED"] == (False, False)
    logged = (await live.gql(manager, CHANGES, {"u": u}))["venueChanges"][0]
    assert logged["after"] == {"notificationMatrix": {"cancelled": {"customer": True, "staff": False},
                                                      "created": {"customer": True, "staff": True},
                                                      "completed": {"customer": False, "staff": False}}}
    assert logged["session"] == f"staff:{owner_id}"
    for bad, field in (([{"event": "PAID", "customer": True, "staff": True}] * 2, "notificationMatrix.event"),):
        refused = (await live.gql(owner, PARAMS, {"u": u, "i": {"notificationMatrix": bad}}))["updateUnitParameters"]
        assert refused == {"__typename": "InvalidInput", "field": field, "code": "invalid_parameter"}
    unknown = await live.post(owner, PARAMS, {"u": u, "i": {"notificationMatrix": [
        {"event": "BORN", "customer": True, "staff": True}]}})  # not a NotificationEvent: refused by the schema
    assert unknown["errors"][0]["extensions"]["code"] == "invalid_variables", unknown
