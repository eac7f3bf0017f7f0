"""One error pipeline (schema/refusals.py): a refusal a resolver raises becomes the member of the field's result union
that carries it, else a top-level error with its code — for queries, mutations and subscriptions alike."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import httpx
import pytest
import websockets
from graphql import GraphQLEnumType, GraphQLNonNull, GraphQLObjectType, GraphQLUnionType
from websockets.typing import Subprotocol

from domain import errors as de
from domain import login, queries, waitlist
from domain.access import Forbidden, Unauthenticated
from domain.errors import ErrorCode
from schema.refusals import MEMBERS, member_for, top_level_extensions
from slothold.app import create_app
from slothold.schema import schema
from slothold.settings import Settings
from tests.live import serving
from tests.unit.test_error_codes import _refusal_classes
from tests.venues import arena, at, cpf


class Live:
    """A real server (websockets need one) with a system token and a venue."""

    def __init__(self, port: int, token: str, unit_id: UUID, resource_id: UUID) -> None:
        self.port, self.token, self.unit_id, self.resource_id = port, token, unit_id, resource_id

    async def post(self, query: str, variables: dict[str, Any], signed_in: bool = True) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {self.token}"} if signed_in else {}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{self.port}") as http:
            r = await http.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    async def subscribe(self, query: str, variables: dict[str, Any], signed_in: bool = True) -> list[dict[str, Any]]:
        """Every message the subscription gets within half a second."""
        async with websockets.connect(f"ws://127.0.0.1:{self.port}/graphql",
                                      subprotocols=[Subprotocol("graphql-transport-ws")]) as ws:
            await ws.send(json.dumps({"type": "connection_init",
                                      "payload": {"authorization": f"Bearer {self.token}"} if signed_in else {}}))
            assert json.loads(await ws.recv())["type"] == "connection_ack"
            await ws.send(json.dumps({"id": "1", "type": "subscribe",
                                      "payload": {"query": query, "variables": variables}}))
            messages: list[dict[str, Any]] = []
            try:
                while True:
                    messages.append(json.loads(await asyncio.wait_for(ws.recv(), 0.5)))
            except (TimeoutError, websockets.ConnectionClosed):
                return messages


@pytest.fixture(scope="module")
async def live(database_url: str, redis_url: str, pool: Any) -> AsyncIterator[Live]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=5, log_level="WARNING"))
    async with serving(app) as port:
        _, token = await app.state.slothold["access"].issue_token(None, None, "system", None, [], "pipeline")
        v = await arena(pool)
        yield Live(port, token, v.unit_id, v.resource_ids["Campo 1"])


# --- the table -------------------------------------------------------------------------------------------------


def test_a_refusal_matches_one_entry_at_most_so_the_order_of_the_table_does_not_matter() -> None:
    for a in MEMBERS:
        for b in MEMBERS:
            assert a is b or not issubclass(a.exception_type, b.exception_type), (a, b)


def test_every_refusal_has_a_result_type_except_the_access_refusals_which_are_always_top_level() -> None:
    carried = {cls for cls in _refusal_classes() if any(issubclass(cls, m.exception_type) for m in MEMBERS)}
    assert _refusal_classes() - carried == {de.DomainError, Unauthenticated, Forbidden}


def test_every_error_type_of_a_result_union_is_built_by_the_table() -> None:
    built = {m.type_name for m in MEMBERS}
    error = schema._schema.type_map["Error"]
    members = {t.name for kind in schema._schema.type_map.values() if isinstance(kind, GraphQLUnionType)
               for t in kind.types if error in t.interfaces}
    assert members and members <= built


def test_the_sdl_types_every_code_with_the_error_code_enum_whose_values_are_the_wire_strings() -> None:
    enum = schema._schema.type_map["ErrorCode"]
    assert isinstance(enum, GraphQLEnumType)
    assert list(enum.values) == [c.value for c in ErrorCode]
    for kind in schema._schema.type_map.values():
        if isinstance(kind, GraphQLObjectType) and "code" in kind.fields and kind.interfaces:
            code = kind.fields["code"].type
            assert isinstance(code, GraphQLNonNull) and code.of_type is enum, kind.name


def test_the_member_is_found_by_the_names_of_a_union_and_a_top_level_refusal_names_its_field() -> None:
    refusal = de.InvalidInput("input.name", "too long", code=ErrorCode.TOO_LONG)
    member = member_for(refusal, {"BookingPayload", "InvalidInput"})
    assert member is not None and (member.code, member.message) == (ErrorCode.TOO_LONG, "too long")
    assert member_for(refusal, {"BookingPayload", "NotFound"}) is None
    assert top_level_extensions(refusal) == {"code": "too_long", "field": "input.name"}
    assert top_level_extensions(login.WrongCode("no")) == {"code": "wrong_code"}


# --- queries and mutations -------------------------------------------------------------------------------------

UNIT = "query($u: ID!) { unit(id: $u) { __typename ... on Error { code message } ... on InvalidInput { field } } }"
CANCEL = "mutation($b: ID!) { cancel(bookingId: $b) { __typename ... on Error { code message } } }"
JOIN = ("mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { joinSlotWaitlist(unitId: $u, resourceId: $r, "
        'startsAt: $s, endsAt: $e, customer: {cpf: "' + cpf(8642) + '"}) { __typename } }')


async def test_a_refusal_whose_union_carries_it_is_that_member_with_its_code(live: Live) -> None:
    body = await live.post(UNIT, {"u": "nope"})
    assert body == {"data": {"unit": {"__typename": "InvalidInput", "code": "invalid_id",
                                      "message": "id is not a valid id: 'nope'", "field": "id"}}}


async def test_an_access_refusal_is_a_top_level_error_even_where_the_union_carries_other_refusals(live: Live) -> None:
    body = await live.post(CANCEL, {"b": str(uuid4())}, signed_in=False)
    assert body["data"] is None
    (error,) = body["errors"]
    assert error["extensions"] == {"code": "unauthenticated"} and error["path"] == ["cancel"]


async def test_busy_is_the_busy_member_where_the_union_has_one_and_a_top_level_error_where_not(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def busy(*args: Any, **kwargs: Any) -> Any:
        raise de.Busy("the database connection was lost; try again (with the same idempotency key)")

    monkeypatch.setattr(queries, "booking", busy)
    monkeypatch.setattr(queries, "unit_with_resources", busy)
    cancelled = await live.post(CANCEL, {"b": str(uuid4())})
    assert cancelled == {"data": {"cancel": {
        "__typename": "Busy", "code": "busy",
        "message": "the database connection was lost; try again (with the same idempotency key)"}}}
    unit = await live.post(UNIT, {"u": str(live.unit_id)})  # UnitResult has no Busy member
    assert unit["data"] is None
    assert [(e["extensions"], e["message"], e["path"]) for e in unit["errors"]] == [
        ({"code": "busy"}, "the database connection was lost; try again (with the same idempotency key)", ["unit"])]


@pytest.mark.parametrize("refusal", [
    de.SlotTaken("that slot was taken", [uuid4()], datetime(2026, 12, 8, 12, tzinfo=UTC),
                 datetime(2026, 12, 8, 13, tzinfo=UTC)),
    login.TooManyAttempts("too many codes; wait"),
], ids=["slot_taken", "too_many_attempts"])
async def test_a_refusal_whose_union_lacks_it_is_a_top_level_error_with_its_code_not_an_internal_one(
    live: Live, monkeypatch: pytest.MonkeyPatch, refusal: de.DomainError
) -> None:
    async def refuse(*args: Any, **kwargs: Any) -> Any:
        raise refusal

    monkeypatch.setattr(waitlist, "join_slot_waitlist", refuse)  # SlotWaitlistResult has neither member
    body = await live.post(JOIN, {"u": str(live.unit_id), "r": str(live.resource_id), "s": at(8, 12).isoformat(),
                                  "e": at(8, 13).isoformat()})
    assert body["data"] is None
    assert [(e["message"], e["extensions"], e["path"]) for e in body["errors"]] == [
        (refusal.message, {"code": str(refusal.code)}, ["joinSlotWaitlist"])]


# --- subscriptions -----------------------------------------------------------------------------------------------

SLOTS = ("subscription($u: ID!, $from: DateTime!, $to: DateTime!, $since: Int) { slotChanged(unitId: $u, "
         "from: $from, to: $to, since: $since) { seq } }")
BOOKING = "subscription($b: ID!) { bookingChanged(bookingId: $b) { seq } }"


def _refused(message: str, extensions: dict[str, str]) -> list[dict[str, Any]]:
    """What a subscription refused while it is set up gets: one `next` with the error and no data, then `complete`
    (the shape it has had since subscriptions exist)."""
    return [{"id": "1", "type": "next", "payload": {"data": None, "errors": [
        {"message": message, "extensions": extensions}]}}, {"id": "1", "type": "complete"}]


async def test_a_subscription_refused_while_it_is_set_up_gets_the_error_with_its_code_and_field(live: Live) -> None:
    window = {"u": str(live.unit_id), "from": at(8, 9).isoformat(), "to": at(8, 9).isoformat()}
    assert await live.subscribe(SLOTS, window) == _refused("`to` must be after `from`",
                                                            {"code": "invalid_range", "field": "to"})
    assert await live.subscribe(SLOTS, {**window, "u": "nope"}) == _refused(
        "unitId is not a valid id: 'nope'", {"code": "invalid_id", "field": "unitId"})
    missing = str(uuid4())
    assert await live.subscribe(BOOKING, {"b": missing}) == _refused(
        f"booking {missing} not found", {"code": "not_found", "field": "bookingId"})
    refused = await live.subscribe(BOOKING, {"b": missing}, signed_in=False)
    assert refused[0]["payload"]["errors"][0]["extensions"] == {"code": "unauthenticated"}
    assert [m["type"] for m in refused] == ["next", "complete"]


async def test_a_refusal_while_a_subscription_replays_is_answered_the_same_way(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def busy(*args: Any, **kwargs: Any) -> Any:
        raise de.Busy("the database connection was lost; try again (with the same idempotency key)")

    async def five(*args: Any, **kwargs: Any) -> int:
        return 5

    monkeypatch.setattr(queries, "events_since", busy)
    # The unit is at seq 5 (no relay runs here): a subscriber resuming at 0 must read what it missed (one already
    # at the group's position joins it without reading anything).
    monkeypatch.setattr(queries, "last_seq", five)
    window = {"u": str(live.unit_id), "from": at(8, 9).isoformat(), "to": at(8, 10).isoformat(), "since": 0}
    assert await live.subscribe(SLOTS, window) == _refused(
        "the database connection was lost; try again (with the same idempotency key)", {"code": "busy"})
