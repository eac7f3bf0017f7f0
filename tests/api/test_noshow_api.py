"""markNoShow and the attendance unit parameters through the API (roles: tests/api/test_access.py)."""

from __future__ import annotations

from typing import Any

from tests.venues import arena, at

COUNTER = ("mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename "
           "... on BookingPayload { booking { id status } } } }")
MARK = ("mutation($b: ID!) { markNoShow(bookingId: $b) { __typename ... on BookingPayload { booking { status } } "
        "... on Error { code } ... on InvalidTransition { currentState } } }")
PARAMS = ("mutation($u: ID!, $i: UnitParametersInput!) { updateUnitParameters(unitId: $u, input: $i) { __typename "
          "... on Unit { parameters { noShowGraceMinutes appointmentReminderMinutes } } "
          "... on InvalidInput { field code } } }")


async def test_staff_mark_a_no_show_after_the_start(api: Any, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    made = await api.gql(COUNTER, {"i": {"unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids["Campo 1"])],
                                         "startsAt": at(7, 10).isoformat(), "endsAt": at(7, 11).isoformat()}})
    booking = made["counterBooking"]["booking"]
    early = await api.gql(MARK, {"b": booking["id"]})
    assert early["markNoShow"] == {"__typename": "InvalidInput", "code": "not_started"}
    clock.set(at(7, 10, 20))
    done = await api.gql(MARK, {"b": booking["id"]})
    assert done["markNoShow"] == {"__typename": "BookingPayload", "booking": {"status": "NO_SHOW"}}
    again = await api.gql(MARK, {"b": booking["id"]})
    assert again["markNoShow"]["__typename"] == "InvalidTransition" and again["markNoShow"]["currentState"] == "no_show"


async def test_owners_set_the_grace_and_the_reminder_offsets(api: Any, pool: Any) -> None:
    v = await arena(pool)
    u = str(v.unit_id)
    shown = await api.gql("query($u: ID!) { unit(id: $u) { ... on Unit { parameters { noShowGraceMinutes "
                          "appointmentReminderMinutes } } } }", {"u": u})
    assert shown["unit"]["parameters"] == {"noShowGraceMinutes": 15, "appointmentReminderMinutes": [1440, 120]}
    changed = await api.gql(PARAMS, {"u": u, "i": {"noShowGraceMinutes": 30, "appointmentReminderMinutes": [60, 180]}})
    assert changed["updateUnitParameters"]["parameters"] == {"noShowGraceMinutes": 30,
                                                              "appointmentReminderMinutes": [180, 60]}
    off = await api.gql(PARAMS, {"u": u, "i": {"appointmentReminderMinutes": []}})
    assert off["updateUnitParameters"]["parameters"]["appointmentReminderMinutes"] == []
    for bad in ({"appointmentReminderMinutes": [0]}, {"noShowGraceMinutes": -1}):
        refused = await api.gql(PARAMS, {"u": u, "i": bad})
        assert refused["updateUnitParameters"] == {"__typename": "InvalidInput", "field": next(iter(bad)),
                                                   "code": "invalid_parameter"}


CHECK_IN = ("mutation($b: ID!) { checkIn(bookingId: $b) { __typename ... on BookingPayload { booking { status } } "
            "... on InvalidTransition { code message currentState } } }")


async def test_check_in_is_accepted_only_inside_the_units_window(api: Any, pool: Any, clock: Any) -> None:
    """Issue 20 (8): check-in was accepted 28 hours before the start. It opens `checkInOpensMinutes` (120 by
    default) before the start and closes at the end; outside, a typed refusal naming the window."""
    v = await arena(pool)
    u, field = str(v.unit_id), str(v.resource_ids["Campo 1"])

    async def booked(hour: int) -> str:
        made = await api.gql(COUNTER, {"i": {"unitId": u, "resourceIds": [field], "startsAt": at(7, hour).isoformat(),
                                             "endsAt": at(7, hour + 1).isoformat()}})
        return str(made["counterBooking"]["booking"]["id"])

    morning, noon, evening = await booked(10), await booked(12), await booked(16)
    clock.set(at(6, 6))  # 28 hours before
    early = (await api.gql(CHECK_IN, {"b": morning}))["checkIn"]
    assert early["__typename"] == "InvalidTransition" and early["code"] == "check_in_outside_window", early
    assert early["currentState"] == "confirmed" and at(7, 8).isoformat() in early["message"], early
    clock.set(at(7, 7, 59))
    assert (await api.gql(CHECK_IN, {"b": morning}))["checkIn"]["code"] == "check_in_outside_window"
    clock.set(at(7, 8))
    assert (await api.gql(CHECK_IN, {"b": morning}))["checkIn"]["booking"]["status"] == "CHECKED_IN"
    clock.set(at(7, 13))  # noon's booking ended
    assert (await api.gql(CHECK_IN, {"b": noon}))["checkIn"]["code"] == "check_in_outside_window"

    changed = await api.gql(PARAMS.replace("noShowGraceMinutes", "noShowGraceMinutes checkInOpensMinutes"),
                            {"u": u, "i": {"checkInOpensMinutes": 30}})
    assert changed["updateUnitParameters"]["parameters"]["checkInOpensMinutes"] == 30
    clock.set(at(7, 15, 29))
    assert (await api.gql(CHECK_IN, {"b": evening}))["checkIn"]["code"] == "check_in_outside_window"
    clock.set(at(7, 15, 30))
    assert (await api.gql(CHECK_IN, {"b": evening}))["checkIn"]["booking"]["status"] == "CHECKED_IN"
    refused = await api.gql(PARAMS, {"u": u, "i": {"checkInOpensMinutes": 1441}})
    assert refused["updateUnitParameters"] == {"__typename": "InvalidInput", "field": "checkInOpensMinutes",
                                               "code": "invalid_parameter"}
