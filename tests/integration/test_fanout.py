"""Shared subscriptions (slothold/fanout.py): one execution per distinct subscription, every subscriber served.

A real uvicorn server runs in this process (so the test can look at its groups) with the relay beside it;
clients are real websockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Coroutine
from datetime import UTC, datetime
from typing import Any

import pytest
import strawberry
import uvicorn
from graphql import parse
from graphql.execution import Executor

from api.graphql.executor import SharedEventExecutor
from api.realtime.fanout import BACKLOG_LIMIT, Group, Member, SharedSubscriptions, share_key
from domain import queries
from jobs.relay import Relay
from providers.clock import SystemClock
from slothold.app import create_app
from slothold.cli.embedded import free_port
from slothold.settings import Settings
from store.relay import PgOutboxSource
from tests.integration.cluster import WsClient, issue_system_token, wait_until
from tests.integration.test_realtime import SLOTS, hold_on, slot_seqs, window
from tests.venues import arena


class Server:
    def __init__(self, app: Any, port: int) -> None:
        self.app, self.port = app, port

    @property
    def shared(self) -> SharedSubscriptions:
        return self.app.state.graphql_view.shared_subscriptions  # type: ignore[no-any-return]

    @property
    def hub_subscribers(self) -> int:
        return self.app.state.slothold["hub"].subscriber_count  # type: ignore[no-any-return]


@pytest.fixture
async def server(database_url: str, redis_url: str) -> AsyncIterator[Server]:
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=10,
                              log_level="WARNING"))
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    stop = asyncio.Event()
    relay = Relay(PgOutboxSource(database_url), redis_url, SystemClock())
    tasks = [asyncio.create_task(srv.serve()), asyncio.create_task(relay.run(stop))]
    try:
        assert await wait_until(lambda: _true(srv.started), timeout=20)
        assert await wait_until(lambda: _true(app.state.slothold["hub"].connected.is_set()), timeout=10)
        issue_system_token(database_url)
        yield Server(app, port)
    finally:
        stop.set()
        srv.should_exit = True
        await asyncio.wait(tasks, timeout=15)
        for t in tasks:
            t.cancel()


async def _true(value: bool) -> bool:
    return value


async def _len_is(found: Coroutine[Any, Any, list[int]], n: int) -> bool:
    return len(await found) == n


async def test_identical_subscriptions_share_one_execution_and_each_gets_every_event_in_order(
    server: Server, pool: Any
) -> None:
    v = await arena(pool)
    clients = [await WsClient.connect(server.port) for _ in range(4)]
    for i, ws in enumerate(clients):
        for j in range(5):  # 5 operations per socket, ids of the client's choosing
            await ws.subscribe(SLOTS, window(v), sub_id=f"op-{i}-{j}")
    assert await wait_until(lambda: _true(server.shared.subscriber_count == 20))
    assert len(server.shared.groups) == 1
    assert await wait_until(lambda: _true(server.hub_subscribers == 1))  # one feed for all 20
    made = [await hold_on(server.port, v, f"Campo {1 + i % 4}", 9 + i // 4, i) for i in range(6)]
    for ws in clients:
        got: dict[str, list[dict[str, Any]]] = {}
        while sum(len(x) for x in got.values()) < 30:
            msg = await ws.next()
            assert msg["type"] == "next", msg
            got.setdefault(msg["id"], []).append(msg["payload"]["data"]["slotChanged"])
        assert sorted(got) == sorted(k for k in got if k.startswith("op-")) and len(got) == 5
        for events in got.values():
            assert [e["bookingId"] for e in events] == [m["id"] for m in made]
            seqs = [e["seq"] for e in events]
            assert seqs == list(range(seqs[0], seqs[0] + 6))
        with pytest.raises(TimeoutError):
            await ws.next(timeout=0.3)
    # One socket ends one operation: only that one stops.
    await clients[0].ws.send(json.dumps({"id": "op-0-0", "type": "complete"}))
    assert await wait_until(lambda: _true(server.shared.subscriber_count == 19))
    extra = await hold_on(server.port, v, "Campo 1", 15, 50)
    ids = set()
    for _ in range(4):
        msg = await clients[0].next()
        ids.add(msg["id"])
        assert msg["payload"]["data"]["slotChanged"]["bookingId"] == extra["id"]
    assert ids == {"op-0-1", "op-0-2", "op-0-3", "op-0-4"}
    # Sockets closing leave the group; the last one closes the shared feed.
    for ws in clients:
        await ws.close()
    assert await wait_until(lambda: _true(not server.shared.groups and server.hub_subscribers == 0))


async def test_different_variables_do_not_share_and_a_resumed_subscription_joins_after_its_replay(
    server: Server, pool: Any
) -> None:
    v = await arena(pool)
    ws = await WsClient.connect(server.port)
    await ws.subscribe(SLOTS, window(v), sub_id="a")
    await ws.subscribe(SLOTS, {**window(v), "from": datetime(2020, 1, 1, tzinfo=UTC).isoformat()}, sub_id="b")
    first = await hold_on(server.port, v, "Campo 1", 9, 1)
    got = {(await ws.next())["id"] for _ in range(2)}
    assert got == {"a", "b"}
    assert len(server.shared.groups) == 2
    # since: this subscriber replays from its own position, then joins the group of "a".
    await ws.subscribe(SLOTS, {**window(v), "since": 0}, sub_id="c")
    replayed = await ws.next()
    assert replayed["id"] == "c" and replayed["payload"]["data"]["slotChanged"]["bookingId"] == first["id"]
    assert await wait_until(lambda: _true(server.shared.replaying == 0))
    assert len(server.shared.groups) == 2 and server.shared.subscriber_count == 3
    assert await wait_until(lambda: _true(server.hub_subscribers == 2))  # the replay's feed is gone
    second = await hold_on(server.port, v, "Campo 2", 9, 2)
    msgs = [await ws.next() for _ in range(3)]
    assert sorted(m["id"] for m in msgs) == ["a", "b", "c"]
    assert {m["payload"]["data"]["slotChanged"]["bookingId"] for m in msgs} == {second["id"]}
    with pytest.raises(TimeoutError):
        await ws.next(timeout=0.3)
    await ws.close()


async def test_resumed_subscriptions_hand_over_to_the_group_with_nothing_lost_or_doubled(
    server: Server, pool: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dashboards resume while holds keep coming: the events committed during their (slowed) replay reach each
    of them once, in order, and afterwards they are members of the one live group (one feed for all)."""
    v = await arena(pool)
    before = [await hold_on(server.port, v, f"Campo {1 + i % 4}", 8, i) for i in range(4)]
    # Numbered before the live group starts: resuming before them needs the database, not the group's memory.
    assert await wait_until(lambda: _len_is(slot_seqs(pool, v.unit_id), len(before)), timeout=10)
    live = await WsClient.connect(server.port)
    await live.subscribe(SLOTS, window(v), sub_id="live")
    assert await wait_until(lambda: _true(server.hub_subscribers == 1))
    reads: list[int] = []  # holds made when each replay read its events
    made: list[dict[str, Any]] = []
    real = queries.events_since

    base = (await slot_seqs(pool, v.unit_id))[0] - 1
    resumes = {f"r{i}": base for i in range(5)} | {"r-mid": base + 2}
    stop = asyncio.Event()

    async def slow_events_since(deps: Any, unit_id: Any, seq: int, limit: int = 1000) -> list[Any]:
        found = await real(deps, unit_id, seq, limit)  # an old snapshot: what commits meanwhile comes live
        if seq not in resumes.values():
            return found  # not a replay's read: the live group catching up after the hub's resync
        reads.append(len(made))
        # Hold the replay back until two more holds have committed (however slow the machine is), never past the
        # end of the traffic: no hold would come.
        assert await wait_until(lambda: _true(len(made) >= reads[-1] + 2 or stop.is_set()), timeout=30, every=0.05)
        return found

    monkeypatch.setattr(queries, "events_since", slow_events_since)

    async def traffic() -> None:
        i = 4
        while not stop.is_set() and i < 40:
            made.append(await hold_on(server.port, v, f"Campo {1 + i % 4}", 8 + i // 4, i))
            i += 1
            await asyncio.sleep(0.05)

    flow = asyncio.create_task(traffic())
    await asyncio.sleep(0.2)

    async def resume(name: str, since: int) -> WsClient:
        ws = await WsClient.connect(server.port)
        await ws.subscribe(SLOTS, {**window(v), "since": since}, sub_id=name)
        return ws

    clients = dict(zip(resumes, await asyncio.gather(*(resume(n, s) for n, s in resumes.items())), strict=True))
    assert await wait_until(lambda: _true(server.shared.replaying == 0), timeout=15)
    await asyncio.sleep(0.5)
    # The hub loses Redis and is back (as when its ping times out on a busy machine) while the last holds come:
    # every feed reads what it may have missed; nothing is lost or doubled for the dashboards handed over.
    server.app.state.slothold["hub"]._resync_all()
    stop.set()
    await flow
    assert reads  # the replay read the database (and waited for two more holds meanwhile)
    # The relay numbers the last holds' events a pass after their commits (a CI run read the numbers first: 8 of 9).
    assert await wait_until(lambda: _len_is(slot_seqs(pool, v.unit_id), len(before) + len(made)), timeout=10)
    want = await slot_seqs(pool, v.unit_id)
    assert len(want) == len(before) + len(made)
    for name, ws in clients.items():
        got: list[int] = []
        expected = [s for s in want if s > resumes[name]]
        while len(got) < len(expected):
            msg = await ws.next(timeout=10)
            assert msg["type"] == "next" and msg["id"] == name, msg
            got.append(msg["payload"]["data"]["slotChanged"]["seq"])
        assert got == expected, name
        with pytest.raises(TimeoutError):
            await ws.next(timeout=0.2)
    assert len(reads) < len(resumes)  # one replay read for those resuming from the same point, not one each
    assert len(server.shared.groups) == 1 and server.shared.subscriber_count == 1 + len(resumes)
    assert server.hub_subscribers == 1
    # One more resumes later from the same point: served from the group's memory, no database read.
    n = len(reads)
    late = await resume("late", base)
    got = [m["slotChanged"]["seq"] for m in await late.collect(len(want))]
    assert got == want and len(reads) == n
    for ws in [live, late, *clients.values()]:
        await ws.close()


async def test_refusals_reach_every_subscriber_of_the_group_as_errors(server: Server, pool: Any) -> None:
    clients = [await WsClient.connect(server.port) for _ in range(3)]
    await clients[0].subscribe("subscription { nope }", {}, sub_id="v")  # validation: an `error` message
    msg = await clients[0].next()
    assert msg["type"] == "error" and msg["id"] == "v" and "nope" in msg["payload"][0]["message"], msg
    bad = {"unit": "not-a-uuid", "from": "2026-12-01T00:00:00Z", "to": "2026-12-02T00:00:00Z"}
    for ws in clients:
        await ws.subscribe(SLOTS, bad, sub_id="x")
    for ws in clients:  # as strawberry does for one subscriber: a result with the error, then the end
        msg = await ws.next()
        assert msg["type"] == "next" and msg["id"] == "x", msg
        assert msg["payload"]["data"] is None
        assert msg["payload"]["errors"][0]["extensions"] == {"code": "invalid_id", "field": "unitId"}
        assert await ws.next() == {"id": "x", "type": "complete"}
    assert await wait_until(lambda: _true(not server.shared.groups))
    # The socket stays usable: a valid subscription on the same id works afterwards.
    v = await arena(pool)
    await clients[0].subscribe(SLOTS, window(v), sub_id="x")
    assert await wait_until(lambda: _true(server.shared.subscriber_count == 1))
    made = await hold_on(server.port, v, "Campo 2", 10, 7)
    msg = await clients[0].next()
    assert msg["id"] == "x" and msg["payload"]["data"]["slotChanged"]["bookingId"] == made["id"]
    for ws in clients:
        await ws.close()


def test_share_key_keeps_history_requests_apart() -> None:
    q = SLOTS
    base = {"unit": "u", "from": "a", "to": "b"}
    assert share_key(q, None, base, ()) == share_key(q, None, dict(reversed(base.items())), ())
    assert share_key(q, None, {**base, "since": None}, ()) == share_key(q, None, base, ())
    assert share_key(q, None, {**base, "since": 3}, ()) is None
    assert share_key(q, None, base, ("staff", 1)) != share_key(q, None, base, ("staff", 2))
    literal = 'subscription { slotChanged(unitId: "u", from: "a", to: "b", since: 4) { seq } }'
    assert share_key(literal, None, {}, ()) is None
    null = 'subscription { slotChanged(unitId: "u", from: "a", to: "b", since: null) { seq } }'
    assert share_key(null, None, {}, ()) is not None
    default = ('subscription($s: Int = 7) { slotChanged(unitId: "u", from: "a", to: "b", since: $s) { seq } }')
    assert share_key(default, None, {}, ()) is None
    assert share_key(default, None, {"s": None}, ()) is not None
    fragment = ('subscription { ...F } fragment F on Subscription { '
                'slotChanged(unitId: "u", from: "a", to: "b", since: 1) { seq } }')
    assert share_key(fragment, None, {}, ()) is None
    assert share_key("query { unit(id: 1) { id } }", None, {}, ()) is None
    assert share_key("subscription {", None, {}, ()) is None  # strawberry answers the syntax error


class _FakeOperation:
    def __init__(self, op_id: str) -> None:
        self.id = op_id


async def test_a_slow_socket_waits_alone_and_is_told_to_resubscribe_when_far_behind() -> None:
    group = Group(SharedSubscriptions(json.dumps), ("k",))
    gate = asyncio.Event()
    sent: dict[str, list[str]] = {"fast": [], "slow": []}

    def sender(name: str, blocking: bool) -> Any:
        async def send(text: str) -> None:
            if blocking:
                await gate.wait()
            sent[name].append(text)

        def start(text: str) -> Coroutine[Any, Any, None]:
            return send(text)
        return start

    fast = Member(group, _FakeOperation("f"), sender("fast", False))  # type: ignore[arg-type]
    slow = Member(group, _FakeOperation("s"), sender("slow", True))  # type: ignore[arg-type]
    group.add(fast)
    group.add(slow)
    for i in range(5):
        for m in list(group.members.values()):
            m.deliver(json.dumps({"n": i}))
    assert [json.loads(t)["payload"]["n"] for t in sent["fast"]] == [0, 1, 2, 3, 4]  # written at once
    assert sent["slow"] == [] and slow.pending is not None and len(slow.backlog) == 4
    gate.set()
    await slow.pending
    assert [json.loads(t)["payload"]["n"] for t in sent["slow"]] == [0, 1, 2, 3, 4]  # in order, none lost
    assert json.loads(sent["slow"][0])["id"] == "s"
    # Far behind: dropped from the group with a clear error, the others go on.
    gate.clear()
    for i in range(BACKLOG_LIMIT + 2):
        for m in list(group.members.values()):
            m.deliver(json.dumps({"n": i}))
    final = await slow.ended
    assert final is not None and final["type"] == "error"
    assert final["payload"][0]["extensions"]["code"] == "slow_subscriber"
    assert id(slow) not in group.members and id(fast) in group.members
    assert len(sent["fast"]) == 5 + BACKLOG_LIMIT + 2
    assert slow.pending is not None
    slow.pending.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await slow.pending


@strawberry.type
class Thing:
    n: int


@strawberry.type
class ThingQuery:
    x: int = 0


@strawberry.type
class ThingSubscription:
    @strawberry.subscription
    async def things(self) -> AsyncIterator[Thing]:  # pragma: no cover - executed per event, not run
        yield Thing(n=1)


def test_per_event_executors_do_not_keep_earlier_events() -> None:
    schema = strawberry.Schema(query=ThingQuery, subscription=ThingSubscription,
                               execution_context_class=SharedEventExecutor)
    base = SharedEventExecutor.build(schema._schema, parse("subscription { things { n } }"))
    assert isinstance(base, Executor)
    for i in range(50):
        event = base.build_per_event_executor(Thing(n=i))  # strawberry: the event is the field value
        assert event.execute_operation().data == {"things": {"n": i}}
    assert len(base._relevant_sub_fields) == 0  # graphql-core 3.3.2 alone keeps one entry per event
