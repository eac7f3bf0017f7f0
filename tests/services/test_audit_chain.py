"""The booking_events hash chain (migration 0013; chained by the relay since 0032a) and `slothold audit verify`."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import pytest

from domain.errors import SlotTaken
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, hold
from slothold.cli import main
from slothold.cli.audit import verify
from store.audit_chain import chain_all_pending
from tests.venues import arena, at, customer


async def _chained(pool: Any) -> int:
    """What the worker's relay does after commits: chain what is pending (no relay runs in these tests)."""
    async with pool.acquire() as conn:
        return await chain_all_pending(conn)


async def _chain(pool: Any, unit_id: Any) -> list[Any]:
    await _chained(pool)
    return await pool.fetch(
        "SELECT id, chain_seq, prev_hash, hash, booking_event_canonical(e) AS canon FROM booking_events e "
        "WHERE unit_id = $1 ORDER BY chain_seq", unit_id)


def _assert_one_chain(rows: list[Any]) -> None:
    """Contiguous 1..n, each prev_hash the previous hash, each hash sha256(prev || canonical text)."""
    assert [r["chain_seq"] for r in rows] == list(range(1, len(rows) + 1))
    previous = None
    for r in rows:
        assert r["prev_hash"] == previous
        assert bytes(r["hash"]) == hashlib.sha256((previous or b"") + r["canon"].encode()).digest()
        previous = r["hash"]


async def test_rows_are_chained_in_order_per_unit_and_units_are_independent(deps: Deps, pool: Any) -> None:
    a, b = await arena(pool), await arena(pool)
    r1 = await hold(deps, HoldCommand(a.unit_id, at(8, 10), at(8, 11), (a.resource_ids["Campo 1"],),
                                      customer=customer(1)))
    await hold(deps, HoldCommand(b.unit_id, at(8, 10), at(8, 11), (b.resource_ids["Campo 1"],),
                                 customer=customer(2)))
    await cancel(deps, ChangeCommand(r1.booking.id, reason="test"))
    await hold(deps, HoldCommand(a.unit_id, at(8, 12), at(8, 13), (a.resource_ids["Campo 2"],),
                                 customer=customer(3)))
    rows_a, rows_b = await _chain(pool, a.unit_id), await _chain(pool, b.unit_id)
    assert len(rows_a) >= 3 and len(rows_b) >= 1
    _assert_one_chain(rows_a)
    _assert_one_chain(rows_b)
    assert [r["id"] for r in rows_a] == sorted(r["id"] for r in rows_a)  # sequential inserts: id order
    assert rows_b[0]["prev_hash"] is None  # b's chain starts afresh, whatever a did in between
    # The canonical text: the row's columns in a fixed order, NULLs explicit, times as epoch microseconds.
    canon = rows_a[0]["canon"]
    assert canon.startswith(f'[{rows_a[0]["id"]}, "{a.unit_id}", "{r1.booking.id}", null, "held"')
    assert (await verify(pool, a.unit_id))[1] == []


async def test_concurrent_inserts_of_one_unit_form_one_chain(deps: Deps, pool: Any) -> None:
    # 40 holds on one day of 60 slots: above the default 30 % ceiling (RN-HLD-05), which a hold refuses once it sees
    # 18 open — whether it sees them depends only on timing, so the ceiling is out of this test's way.
    v = await arena(pool, hold_ceiling_percent=100)
    fields = [v.resource_ids[f"Campo {i}"] for i in range(1, 5)]
    results = await asyncio.gather(
        *(hold(deps, HoldCommand(v.unit_id, at(10, h), at(10, h + 1), (f,), customer=customer(10 * h + i)))
          for h in range(8, 18) for i, f in enumerate(fields)),
        return_exceptions=True)
    assert not [r for r in results if isinstance(r, BaseException) and not isinstance(r, SlotTaken)]
    rows = await _chain(pool, v.unit_id)
    assert len(rows) == 40
    _assert_one_chain(rows)
    head = await pool.fetchrow("SELECT last_seq, last_hash FROM booking_event_chain_heads WHERE unit_id = $1",
                               v.unit_id)
    assert head["last_seq"] == 40 and head["last_hash"] == rows[-1]["hash"]
    assert (await verify(pool, v.unit_id))[1] == []


async def _tamper(pool: Any, sql: str, *args: Any) -> None:
    """Do what a superuser could: lift the append-only trigger for one statement, then put it back."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("ALTER TABLE booking_events DISABLE TRIGGER booking_events_no_update_delete")
        try:
            await conn.execute(sql, *args)
        finally:
            await conn.execute("ALTER TABLE booking_events ENABLE TRIGGER booking_events_no_update_delete")


async def test_the_verifier_catches_an_edited_row_and_the_cli_says_so(
    deps: Deps, pool: Any, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    v = await arena(pool)
    for h in (10, 11, 12):
        await hold(deps, HoldCommand(v.unit_id, at(11, h), at(11, h + 1), (v.resource_ids["Campo 1"],),
                                     customer=customer(h)))
    rows = await _chain(pool, v.unit_id)
    loop = asyncio.get_running_loop()

    def cli(*args: str) -> int:
        return main(["audit", "--database-url", database_url, "verify", *args])

    assert await loop.run_in_executor(None, cli, "--unit", str(v.unit_id)) == 0
    assert "OK: 1 unit chain(s) intact" in capsys.readouterr().out
    assert await loop.run_in_executor(None, cli, "--unit", "not-a-uuid") == 2
    capsys.readouterr()

    edited = rows[1]["id"]
    await _tamper(pool, "UPDATE booking_events SET actor = 'someone else' WHERE id = $1", edited)
    # The protection is back in place.
    with pytest.raises(Exception, match="append-only"):
        await pool.execute("UPDATE booking_events SET actor = 'x' WHERE id = $1", edited)

    _, breaks = await verify(pool, v.unit_id)
    assert len(breaks) == 1 and breaks[0].event_id == edited and "recomputed" in breaks[0].problem
    assert await loop.run_in_executor(None, cli, "--unit", str(v.unit_id)) == 1
    out = capsys.readouterr().out
    assert f"BROKEN unit {v.unit_id} at event {edited}" in out
    # Every unit: this unit's break is reported (and the command fails), other units' chains are checked too.
    assert await loop.run_in_executor(None, cli) == 1
    out = capsys.readouterr().out
    assert f"BROKEN unit {v.unit_id} at event {edited}" in out

    # A re-hashed edit (content and hash both rewritten) breaks the next row's prev_hash link instead.
    await _tamper(pool, "UPDATE booking_events e SET hash = sha256(coalesce(prev_hash, ''::bytea) || "
                        "convert_to(booking_event_canonical(e), 'UTF8')) WHERE id = $1", edited)
    breaks = (await verify(pool, v.unit_id))[1]
    assert breaks[0].event_id == rows[2]["id"] and "prev_hash" in breaks[0].problem

    # A deleted row leaves a gap in chain_seq.
    w = await arena(pool)
    for h in (10, 11, 12):
        await hold(deps, HoldCommand(w.unit_id, at(11, h), at(11, h + 1), (w.resource_ids["Campo 1"],),
                                     customer=customer(h)))
    wrows = await _chain(pool, w.unit_id)
    await _tamper(pool, "DELETE FROM booking_events WHERE id = $1", wrows[1]["id"])
    breaks = (await verify(pool, w.unit_id))[1]
    assert breaks[0].event_id == wrows[2]["id"] and "missing" in breaks[0].problem


async def test_the_session_is_recorded_and_covered_by_the_chain(deps: Deps, pool: Any) -> None:
    from domain.events import AUDIT_SESSION

    v = await arena(pool)
    token = AUDIT_SESSION.set("staff:00000000-0000-4000-8000-00000000beef")
    try:
        await hold(deps, HoldCommand(v.unit_id, at(11, 10), at(11, 11), (v.resource_ids["Campo 1"],),
                                     customer=customer(1)))
    finally:
        AUDIT_SESSION.reset(token)
    await hold(deps, HoldCommand(v.unit_id, at(11, 12), at(11, 13), (v.resource_ids["Campo 1"],),
                                 customer=customer(2)))
    await _chained(pool)
    rows = await pool.fetch("SELECT id, session FROM booking_events WHERE unit_id = $1 ORDER BY chain_seq",
                            v.unit_id)
    assert [r["session"] for r in rows] == ["staff:00000000-0000-4000-8000-00000000beef", None]
    assert (await verify(pool, v.unit_id))[1] == []  # rows with and without a session verify
    await _tamper(pool, "UPDATE booking_events SET session = 'staff:someone-else' WHERE id = $1", rows[0]["id"])
    breaks = (await verify(pool, v.unit_id))[1]
    assert breaks and breaks[0].event_id == rows[0]["id"]


_EVENT = ("INSERT INTO booking_events (unit_id, booking_id, old_status, new_status, actor, channel, at) "
          "VALUES ($1, $2, 'held', 'held', 'staff', 'counter', now()) RETURNING id")


async def test_a_commit_never_waits_for_the_units_chain_head_and_the_chainer_chains_only_what_committed(
        deps: Deps, pool: Any, database_url: str) -> None:
    """Migration 0032a: a booking's transaction no longer touches the unit's chain head — with the head's row locked
    (as the chainer holds it while it chains), a hold on the unit still commits at once (before 0032a its COMMIT
    waited for that lock; every commit of a unit waited for the previous one's WAL flush). Until the chainer runs,
    the committed rows have no chain; it chains what committed, in id order, whatever the order of the commits; a
    rolled-back row leaves no gap; a still-open transaction's row waits for the next pass; a chained row cannot be
    re-chained or unchained, and an insert cannot bring chain values of its own."""
    import asyncpg

    v = await arena(pool)
    b = (await hold(deps, HoldCommand(v.unit_id, at(11, 10), at(11, 11), (v.resource_ids["Campo 1"],),
                                      customer=customer(1)))).booking
    await _chained(pool)  # the head exists now
    head_conn, a_conn, b_conn, c_conn = [await asyncpg.connect(database_url) for _ in range(4)]
    try:
        head_tx = head_conn.transaction()
        await head_tx.start()
        await head_conn.execute("SELECT 1 FROM booking_event_chain_heads WHERE unit_id = $1 FOR UPDATE", v.unit_id)
        second = await asyncio.wait_for(hold(deps, HoldCommand(  # before 0032a: its COMMIT waited for the head
            v.unit_id, at(11, 12), at(11, 13), (v.resource_ids["Campo 1"],), customer=customer(2))), 5)
        assert await pool.fetchval("SELECT hash FROM booking_events WHERE booking_id = $1", second.booking.id) is None
        await head_tx.rollback()

        a_tx = a_conn.transaction()
        await a_tx.start()
        a_id = await a_conn.fetchval(_EVENT, v.unit_id, b.id)
        b_tx = b_conn.transaction()
        await b_tx.start()
        b_id = await b_conn.fetchval(_EVENT, v.unit_id, b.id)
        await b_tx.commit()
        c_tx = c_conn.transaction()
        await c_tx.start()
        await c_conn.fetchval(_EVENT, v.unit_id, b.id)
        await c_tx.rollback()
        rows = await _chain(pool, v.unit_id)  # A is still open: its row is not seen
        assert a_id not in {r["id"] for r in rows if r["hash"] is not None}
        assert rows[-1]["id"] == b_id
        await a_tx.commit()
    finally:
        for c in (head_conn, a_conn, b_conn, c_conn):
            await c.close()
    rows = await _chain(pool, v.unit_id)
    _assert_one_chain(rows)
    assert [r["id"] for r in rows][-2:] == [b_id, a_id]  # A committed last, chained last
    assert (await verify(pool, v.unit_id))[1] == []
    with pytest.raises(Exception, match="append-only"):
        await pool.execute("UPDATE booking_events SET chain_seq = NULL, hash = NULL, prev_hash = NULL "
                           "WHERE id = $1", a_id)
    with pytest.raises(Exception, match="append-only"):
        await pool.execute("UPDATE booking_events SET hash = sha256('x') WHERE id = $1", a_id)
    forged = await pool.fetchval(
        "INSERT INTO booking_events (unit_id, booking_id, old_status, new_status, actor, channel, at, chain_seq, "
        "hash) VALUES ($1, $2, 'held', 'held', 'staff', 'counter', now(), 1, sha256('x')) RETURNING id",
        v.unit_id, b.id)
    assert await pool.fetchval("SELECT hash FROM booking_events WHERE id = $1", forged) is None
    rows = await _chain(pool, v.unit_id)
    _assert_one_chain(rows)
    assert rows[-1]["id"] == forged and rows[-1]["chain_seq"] == len(rows)


async def test_two_chainers_at_once_chain_each_row_once(deps: Deps, pool: Any, database_url: str) -> None:
    """A relay leader handing over can leave two chainers running for a moment: each locks the rows it chains, and
    the second skips what the first chained meanwhile — one chain, no row chained twice, no gap."""
    import asyncpg

    from store.audit_chain import chain_pending

    v = await arena(pool)
    b = (await hold(deps, HoldCommand(v.unit_id, at(11, 10), at(11, 11), (v.resource_ids["Campo 1"],),
                                      customer=customer(1)))).booking
    await _chained(pool)
    await pool.execute("INSERT INTO booking_events (unit_id, booking_id, old_status, new_status, actor, channel, "
                       "at) SELECT $1, $2, 'held', 'held', 'staff', 'counter', now() FROM generate_series(1, 300)",
                       v.unit_id, b.id)
    conns = [await asyncpg.connect(database_url) for _ in range(2)]
    try:
        async def chain(conn: Any) -> int:
            async with conn.transaction():
                n = await chain_pending(conn, 1_000_000)
                await asyncio.sleep(0.2)  # the other waits on this one's row locks meanwhile
                return n

        counts = await asyncio.gather(*(chain(c) for c in conns))
    finally:
        for c in conns:
            await c.close()
    assert sorted(counts) == [0, 300]  # the second found every row chained by the first
    rows = await _chain(pool, v.unit_id)
    _assert_one_chain(rows)
    assert len(rows) == 301
    assert (await verify(pool, v.unit_id))[1] == []


async def test_an_event_left_unchained_past_the_grace_is_reported(
    deps: Deps, pool: Any, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No relay has run for minutes (the worker is down): verify says so, naming the first unchained event; a
    recent unchained event is not a break (the relay chains it within a pass)."""
    v = await arena(pool)
    b = (await hold(deps, HoldCommand(v.unit_id, at(11, 10), at(11, 11), (v.resource_ids["Campo 1"],),
                                      customer=customer(1)))).booking
    assert (await verify(pool, v.unit_id))[1] == []  # recorded just now, not chained yet: not a break
    old = await pool.fetchval(
        "INSERT INTO booking_events (unit_id, booking_id, old_status, new_status, actor, channel, at, recorded_at) "
        "VALUES ($1, $2, 'held', 'held', 'staff', 'counter', now(), now() - interval '5 minutes') RETURNING id",
        v.unit_id, b.id)
    breaks = (await verify(pool, v.unit_id))[1]
    assert len(breaks) == 1 and breaks[0].event_id == old and "no chain yet" in breaks[0].problem
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, main, ["audit", "--database-url", database_url, "verify", "--unit",
                                                   str(v.unit_id)]) == 1
    assert "relay running" in capsys.readouterr().out
    await _chained(pool)
    assert (await verify(pool, v.unit_id))[1] == []
