"""Services and price bands through the API (issue 18): owners set them up, each change logged and live; a hold
must fit its service; a booking is priced by its band, keeps the version it was held at, and pays the band's
deposit by Pix."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from schema.ids import decode_id, global_id
from tests.conftest import MutableClock
from tests.live import Live, live_api
from tests.venues import arena, at, cpf

FIELDS = "id name active durations durationMinutes resourceIds priceVersion priceCents paymentRule depositPercent " \
         "depositCents bands { weekdays from to priceCents paymentRule depositPercent depositCents }"
RESULT = f"__typename ... on Service {{ {FIELDS} }} ... on InvalidInput {{ field code }} " \
         "... on NotFound { field code }"
CREATE = f"mutation($u: ID!, $i: ServiceInput!) {{ createService(unitId: $u, input: $i) {{ {RESULT} }} }}"
UPDATE = f"mutation($s: ID!, $i: ServiceUpdateInput!) {{ updateService(serviceId: $s, input: $i) {{ {RESULT} }} }}"
DEACTIVATE = f"mutation($s: ID!) {{ deactivateService(serviceId: $s) {{ {RESULT} }} }}"
REACTIVATE = f"mutation($s: ID!) {{ reactivateService(serviceId: $s) {{ {RESULT} }} }}"
BANDS = f"mutation($s: ID!, $b: [PriceBandInput!]!) {{ setPriceBands(serviceId: $s, bands: $b) {{ {RESULT} }} }}"
LIST = f"query($u: ID!, $all: Boolean! = false) {{ services(unitId: $u, includeInactive: $all) {{ {FIELDS} }} }}"
CHANGES = "query($u: ID!) { venueChanges(unitId: $u) { entity entityId action before after session } }"
LIVE = "subscription($u: ID!) { venueChanged(unitId: $u) { entity entityId action session } }"
HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id allocations {
  resourceId } } } ... on InvalidInput { field code } } }"""
QUOTE = """query($b: ID!) { booking(id: $b) { ... on Booking { status paidCents quote { totalCents dueNowCents
  atVenueCents paymentRule priceVersion policySummary } } } }"""
CONFIRM = """mutation($b: ID!) { confirm(bookingId: $b) { __typename ... on BookingPayload { booking { status
  acceptance { totalCents dueNowCents paymentRule priceVersion } } charge { txid amountCents status } } } }"""
RESCHEDULE = """mutation($b: ID!, $i: RescheduleInput!) { reschedule(bookingId: $b, input: $i) { __typename
  ... on BookingPayload { booking { id } } ... on Error { code message } } }"""
PAY = "mutation($t: String!) { sandboxPay(txid: $t) { __typename ... on PaymentOutcome { outcome } } }"
PRICE = """mutation($u: ID!, $s: ID!) { publishServicePrice(unitId: $u, serviceId: $s, priceCents: 22000,
  paymentRule: FULL) { __typename ... on PriceVersion { version } } }"""

WEEK = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"]
DAYTIME = {"weekdays": WEEK, "from": "08:00", "to": "18:00", "priceCents": 15000, "paymentRule": "FULL"}
PRIME = {"weekdays": WEEK, "from": "18:00", "to": "23:00", "priceCents": 30000,
         "paymentRule": "DEPOSIT_PERCENT", "depositPercent": 50}


@dataclass
class Venue:
    live: Live
    unit: str
    fields: dict[str, str]
    tokens: dict[str, str]
    token_ids: dict[str, Any]
    other_unit: str

    async def gql(self, who: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        return await self.live.gql(self.tokens[who], query, variables)

    async def create(self, name: str = "Futebol society", **extra: Any) -> dict[str, Any]:
        i = {"name": name, "durations": [1, 2], "resourceIds": [self.fields["Campo 1"], self.fields["Campo 2"]],
             "priceCents": 20000, "paymentRule": "FULL", **extra}
        made = (await self.gql("owner", CREATE, {"u": self.unit, "i": i}))["createService"]
        assert made["__typename"] == "Service", made
        return made  # type: ignore[no-any-return]

    async def hold(self, service: str, field: str | None, day: int, start: int, end: int, n: int
                   ) -> dict[str, Any]:
        i: dict[str, Any] = {"unitId": self.unit, "startsAt": at(day, start).isoformat(),
                             "endsAt": at(day, end).isoformat(), "customer": {"cpf": cpf(700_000 + n)},
                             "serviceId": service}
        if field is not None:
            i["resourceIds"] = [self.fields[field]]
        return (await self.gql("system", HOLD, {"i": i}))["hold"]  # type: ignore[no-any-return]


@pytest.fixture
async def venue(database_url: str, redis_url: str, clock: MutableClock, pool: Any) -> AsyncIterator[Venue]:
    async with live_api(database_url, redis_url, clock) as live:
        v, other = await arena(pool), await arena(pool)
        tokens: dict[str, str] = {}
        ids: dict[str, Any] = {}
        for role in ("owner", "manager", "operator"):
            ids[role], tokens[role] = await live.access.issue_token(v.tenant_id, v.unit_id, "staff", role, [], role)
        ids["stranger"], tokens["stranger"] = await live.access.issue_token(other.tenant_id, other.unit_id, "staff",
                                                                            "owner", [], "elsewhere")
        _, tokens["system"] = await live.access.issue_token(None, None, "system", None, [], "tests")
        yield Venue(live, str(v.unit_id), {k: str(r) for k, r in v.resource_ids.items()}, tokens, ids,
                    str(other.unit_id))


async def _footprint(pool: Any) -> tuple[int, ...]:
    return tuple(await pool.fetchrow(
        "SELECT (SELECT count(*) FROM services), (SELECT count(*) FROM service_prices), "
        "(SELECT count(*) FROM service_price_bands), (SELECT count(*) FROM service_resources), "
        "(SELECT count(*) FROM venue_changes)"))


async def test_an_owner_sets_up_a_service_and_its_bands_logged_and_live(venue: Venue) -> None:
    v = venue
    async with v.live.subscribe(v.tokens["operator"], LIVE, {"u": v.unit}) as feed:
        made = await v.create()
        sid = made["id"]
        assert (made["durations"], made["durationMinutes"], made["priceVersion"], made["bands"]) == (
            [1, 2], [60, 120], 1, [])
        assert sorted(made["resourceIds"]) == sorted(global_id("Resource", v.fields[f]) for f in ("Campo 1", "Campo 2"))
        event = (await feed.next())["venueChanged"]
        assert event == {"entity": "SERVICE", "entityId": sid, "action": "CREATED",
                         "session": f"staff:{v.token_ids['owner']}"}
        renamed = (await v.gql("owner", UPDATE, {"s": sid, "i": {"name": "Society", "durations": [3, 1, 2]}})
                   )["updateService"]
        assert (renamed["name"], renamed["durations"]) == ("Society", [1, 2, 3])
        assert (await feed.next())["venueChanged"]["action"] == "UPDATED"
        banded = (await v.gql("owner", BANDS, {"s": sid, "b": [DAYTIME, PRIME]}))["setPriceBands"]
        assert banded["priceVersion"] == 2 and banded["priceCents"] == 20000
        assert banded["bands"][1] == {**PRIME, "depositCents": None}
        event = (await feed.next())["venueChanged"]
        assert (event["entity"], event["entityId"], event["action"]) == ("PRICE_BAND", sid, "UPDATED")
        assert (await v.gql("owner", DEACTIVATE, {"s": sid}))["deactivateService"]["active"] is False
        assert (await feed.next())["venueChanged"]["entity"] == "SERVICE"
        assert (await v.live.gql(None, LIST, {"u": v.unit}))["services"] == []  # customers see what is sold
        assert (await v.live.gql(None, LIST, {"u": v.unit, "all": True}))["services"][0]["active"] is False
        assert (await v.gql("owner", DEACTIVATE, {"s": sid}))["deactivateService"]["active"] is False
        await feed.nothing()  # already inactive: nothing changed, nothing logged
        assert (await v.gql("owner", REACTIVATE, {"s": sid}))["reactivateService"]["active"] is True
        assert (await feed.next())["venueChanged"]["action"] == "UPDATED"
    public = (await v.live.gql(None, LIST, {"u": v.unit}))["services"]
    assert [(s["name"], s["priceCents"], s["priceVersion"], len(s["bands"])) for s in public] == [
        ("Society", 20000, 2, 2)]
    logged = (await v.gql("manager", CHANGES, {"u": v.unit}))["venueChanges"]
    assert [(c["entity"], c["action"]) for c in logged] == [
        ("SERVICE", "UPDATED"), ("SERVICE", "UPDATED"), ("PRICE_BAND", "UPDATED"), ("SERVICE", "UPDATED"),
        ("SERVICE", "CREATED")]
    assert logged[-1]["after"]["name"] == "Futebol society" and logged[-1]["after"]["paymentRule"] == "FULL"
    assert logged[-2]["before"] == {"name": "Futebol society", "durations": [1, 2]}
    assert logged[-2]["after"] == {"name": "Society", "durations": [1, 2, 3]}
    assert logged[2]["before"] == {"priceVersion": 1, "bands": []}
    assert logged[2]["after"]["priceVersion"] == 2 and logged[2]["after"]["bands"][1]["from"] == "18:00"
    assert logged[1]["before"] == {"active": True} and logged[1]["after"] == {"active": False}


async def test_refusals_name_the_field_and_write_nothing(venue: Venue, pool: Any) -> None:
    v = venue
    sid = (await v.create())["id"]
    other_field = await pool.fetchval("SELECT id FROM resources WHERE unit_id = $1 LIMIT 1", decode_id(v.other_unit)[1])
    before = await _footprint(pool)
    base = {"name": "Tênis", "durations": [1], "resourceIds": [v.fields["Campo 3"]], "priceCents": 5000}
    for change, field, code in (
        ({"name": "  "}, "name", "required"),
        ({"name": "futebol SOCIETY"}, "name", "name_taken"),
        ({"durations": []}, "durations", "invalid_duration"),
        ({"durations": [0]}, "durations", "invalid_duration"),
        ({"durations": [1, 1]}, "durations", "invalid_duration"),
        ({"resourceIds": []}, "resourceIds", "no_resource"),
        ({"resourceIds": [str(other_field)]}, "resourceIds", "not_found"),
        ({"resourceIds": ["nope"]}, "resourceIds", "invalid_id"),
        ({"priceCents": -1}, "priceCents", "invalid_price"),
        ({"paymentRule": "DEPOSIT_PERCENT"}, "depositPercent", "invalid_price"),
        ({"paymentRule": "DEPOSIT_CENTS"}, "depositCents", "invalid_price"),
        ({"paymentRule": "DEPOSIT_PERCENT", "depositPercent": 101}, "depositPercent", "invalid_price"),
    ):
        got = (await v.gql("owner", CREATE, {"u": v.unit, "i": {**base, **change}}))["createService"]
        assert (got.get("field"), got.get("code")) == (field, code), (change, got)
    for bands, field, code in (
        ([DAYTIME, {**PRIME, "from": "17:00"}], "bands[1]", "bands_overlap"),
        ([{**PRIME, "from": "18:30"}], "bands[0].from", "off_grid"),
        ([{**PRIME, "weekdays": ["MONDAY", "MONDAY"]}], "bands[0].weekdays", "invalid_weekday"),
        ([{**PRIME, "to": "25:00"}], "bands[0].to", "invalid_time"),
        ([{**PRIME, "to": "6pm"}], "bands[0].to", "invalid_time"),
        ([{**PRIME, "depositPercent": None}], "bands[0].depositPercent", "invalid_price"),
    ):
        got = (await v.gql("owner", BANDS, {"s": sid, "b": bands}))["setPriceBands"]
        assert (got.get("field"), got.get("code")) == (field, code), (bands, got)
    for change, field, code in (({}, "input", "nothing_to_change"), ({"durations": [25]}, "durations",
                                                                      "invalid_duration")):
        got = (await v.gql("owner", UPDATE, {"s": sid, "i": change}))["updateService"]
        assert (got.get("field"), got.get("code")) == (field, code), got
    missing = (await v.gql("owner", DEACTIVATE, {"s": "00000000-0000-0000-0000-000000000000"}))
    assert missing["deactivateService"] == {"__typename": "NotFound", "field": "serviceId", "code": "not_found"}
    assert await _footprint(pool) == before


async def test_only_the_units_owner_configures_its_services(venue: Venue, pool: Any) -> None:
    v = venue
    sid = (await v.create())["id"]
    before = await _footprint(pool)
    attempts = [(CREATE, {"u": v.unit, "i": {"name": "X", "durations": [1], "resourceIds": [v.fields["Campo 1"]],
                                             "priceCents": 1}}),
                (UPDATE, {"s": sid, "i": {"name": "Mine now"}}), (DEACTIVATE, {"s": sid}),
                (REACTIVATE, {"s": sid}), (BANDS, {"s": sid, "b": [DAYTIME]})]
    for who in ("stranger", "operator", "manager"):
        for query, variables in attempts:
            body = await v.live.post(v.tokens[who], query, variables)
            assert body["errors"][0]["extensions"]["code"] == "forbidden", (who, query, body)
            assert not body.get("data"), body
    body = await v.live.post(None, UPDATE, {"s": sid, "i": {"name": "Anon"}})
    assert body["errors"][0]["extensions"]["code"] == "unauthenticated"
    assert await _footprint(pool) == before
    # The stranger's own unit does not see, and cannot be given, the other tenant's resources.
    theirs = await v.live.post(v.tokens["stranger"], CREATE, {"u": v.other_unit, "i": {
        "name": "Roubado", "durations": [1], "resourceIds": [v.fields["Campo 1"]], "priceCents": 1}})
    assert theirs["data"]["createService"] == {"__typename": "NotFound", "field": "resourceIds", "code": "not_found"}


async def test_a_hold_must_fit_its_service(venue: Venue) -> None:
    v = venue
    sid = (await v.create())["id"]
    for field, end, refused in (("Campo 3", 21, ("resourceIds", "resource_not_offered")),
                                ("Campo 1", 23, ("endsAt", "duration_not_offered"))):
        got = await v.hold(sid, field, 8, 20, end, 1)
        assert (got["__typename"], got["field"], got["code"]) == ("InvalidInput", *refused), got
    anywhere = await v.hold(sid, None, 8, 20, 22, 2)  # "tanto faz": only the fields the service runs on
    assert str(decode_id(anywhere["booking"]["allocations"][0]["resourceId"])[1]) in (v.fields["Campo 1"],
                                                                                       v.fields["Campo 2"])
    await v.gql("owner", DEACTIVATE, {"s": sid})
    got = await v.hold(sid, "Campo 2", 8, 20, 21, 3)
    assert (got["field"], got["code"]) == ("serviceId", "service_inactive")


async def test_prime_time_costs_more_and_its_deposit_is_paid_by_pix(venue: Venue) -> None:
    v = venue
    sid = (await v.create(durations=[1, 2, 3]))["id"]
    await v.gql("owner", BANDS, {"s": sid, "b": [DAYTIME, PRIME]})
    # Tuesday 8 December, 20:00 (São Paulo): the weeknight band, R$ 300 with a 50 % deposit.
    bid = (await v.hold(sid, "Campo 1", 8, 20, 21, 1))["booking"]["id"]
    quote = (await v.gql("system", QUOTE, {"b": bid}))["booking"]["quote"]
    assert (quote["totalCents"], quote["dueNowCents"], quote["atVenueCents"], quote["paymentRule"],
            quote["priceVersion"]) == (30000, 15000, 15000, "DEPOSIT_PERCENT", 2)
    assert quote["policySummary"].startswith("Campo 1, terça às 20h, 1 hora, R$ 300,00. Pagamento do sinal de 50% "
                                             "(R$ 150,00) agora e R$ 150,00 na arena.")
    done = (await v.gql("system", CONFIRM, {"b": bid}))["confirm"]
    assert done["booking"]["status"] == "PENDING_PAYMENT" and done["charge"]["amountCents"] == 15000
    assert done["booking"]["acceptance"]["dueNowCents"] == 15000
    assert (await v.gql("system", PAY, {"t": done["charge"]["txid"]}))["sandboxPay"]["outcome"] == "CONFIRMED"
    booking = (await v.gql("system", QUOTE, {"b": bid}))["booking"]
    assert (booking["status"], booking["paidCents"], booking["quote"]) == ("CONFIRMED", 15000, None)
    # Across bands, each slot at its own: 17h (daytime, full) + 18h and 19h (prime) = R$ 750, the first's rule.
    across = (await v.hold(sid, "Campo 2", 8, 17, 20, 2))["booking"]["id"]
    q = (await v.gql("system", QUOTE, {"b": across}))["booking"]["quote"]
    assert (q["totalCents"], q["dueNowCents"], q["paymentRule"]) == (75000, 75000, "FULL")
    # Saturday is in no band: the base price and rule.
    weekend = (await v.hold(sid, "Campo 1", 12, 20, 21, 3))["booking"]["id"]
    q = (await v.gql("system", QUOTE, {"b": weekend}))["booking"]["quote"]
    assert (q["totalCents"], q["dueNowCents"]) == (20000, 20000)


async def test_a_hold_keeps_the_price_version_it_was_made_at(venue: Venue) -> None:
    v = venue
    sid = (await v.create())["id"]
    await v.gql("owner", BANDS, {"s": sid, "b": [DAYTIME, PRIME]})
    bid = (await v.hold(sid, "Campo 1", 8, 20, 21, 1))["booking"]["id"]
    # The owner raises prime time to R$ 400, paid in full, while the customer still holds.
    dearer = (await v.gql("owner", BANDS, {"s": sid, "b": [DAYTIME, {**PRIME, "priceCents": 40000,
                                                                        "paymentRule": "FULL"}]}))["setPriceBands"]
    assert dearer["priceVersion"] == 3
    quote = (await v.gql("system", QUOTE, {"b": bid}))["booking"]["quote"]
    assert (quote["totalCents"], quote["dueNowCents"], quote["priceVersion"]) == (30000, 15000, 2)
    done = (await v.gql("system", CONFIRM, {"b": bid}))["confirm"]
    assert done["charge"]["amountCents"] == 15000 and done["booking"]["acceptance"]["priceVersion"] == 2
    # A hold made now gets the new version.
    later = (await v.hold(sid, "Campo 2", 8, 20, 21, 2))["booking"]["id"]
    quote = (await v.gql("system", QUOTE, {"b": later}))["booking"]["quote"]
    assert (quote["totalCents"], quote["dueNowCents"], quote["priceVersion"]) == (40000, 40000, 3)
    # A new base price is a new version that keeps the bands.
    assert (await v.gql("owner", PRICE, {"u": v.unit, "s": sid}))["publishServicePrice"]["version"] == 4
    (listed,) = (await v.live.gql(None, LIST, {"u": v.unit}))["services"]
    assert (listed["priceVersion"], listed["priceCents"], [b["priceCents"] for b in listed["bands"]]) == (
        4, 22000, [15000, 40000])
    latest = (await v.gql("manager", CHANGES, {"u": v.unit}))["venueChanges"][0]
    assert (latest["entity"], latest["entityId"], latest["before"]["priceVersion"], latest["after"]) == (
        "SERVICE", sid, 3, {"priceVersion": 4, "priceCents": 22000, "paymentRule": "FULL", "depositPercent": None,
                            "depositCents": None})


async def test_a_rescheduled_hold_keeps_its_version_and_is_priced_at_its_new_slot(venue: Venue) -> None:
    v = venue
    sid = (await v.create())["id"]
    await v.gql("owner", BANDS, {"s": sid, "b": [DAYTIME, PRIME]})
    bid = (await v.hold(sid, "Campo 1", 8, 16, 17, 1))["booking"]["id"]  # daytime: R$ 150, full
    await v.gql("owner", BANDS, {"s": sid, "b": []})  # version 3: no bands, R$ 200 everywhere
    moved = (await v.gql("system", RESCHEDULE, {"b": bid, "i": {"startsAt": at(8, 20).isoformat(),
                                                                 "endsAt": at(8, 21).isoformat()}}))["reschedule"]
    assert moved["__typename"] == "BookingPayload", moved
    quote = (await v.gql("system", QUOTE, {"b": moved["booking"]["id"]}))["booking"]["quote"]
    assert (quote["totalCents"], quote["dueNowCents"], quote["priceVersion"]) == (30000, 15000, 2)
