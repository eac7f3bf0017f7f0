"""Best available on a seat map (seed 004): the best free seats chosen and locked in one transaction under the
event's lock — in display order, side by side in one row unless told otherwise; never the same seat twice, even
with many buyers at once, and racing chosen-seat buyers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from domain import seatmaps as sm
from domain.errors import InvalidInput, NotFound, SeatsUnavailable
from domain.hold_types import Releaser, SeatState
from domain.services import Deps
from store.bookings import _LAPSED, _TAKEN_OR_BUSY, lock_key
from store.seatmaps import GUESS_AGE
from tests.services.test_seatmaps import cmd, states, theatre
from tests.venues import customer

A, L = SeatState.ACTIVE, SeatState.LOCKED


def best(e: sm.SeatEvent, count: int, n: int = 1, **kw: Any) -> sm.BestSeatsCommand:
    kw.setdefault("customer", customer(n))
    kw.setdefault("placed_by", Releaser.CUSTOMER)
    return sm.BestSeatsCommand(e.id, count, **kw)


def seats_of(result: Any) -> list[Any]:
    return [a.resource_id for a in result.booking.allocations]


async def test_the_best_seats_are_the_first_free_ones_side_by_side(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)  # Plateia rows A, B, C of 10 (sort 0-29), Balcão
    first = await sm.lock_best_seats(deps, best(e, 3))
    assert sorted(seats_of(first), key=seats.index) == seats[0:3]
    assert first.booking.hold_type == "CART" and first.booking.status.value == "held"
    # A-5 taken by a chosen-seat buyer: four together no longer fit in A-4..A-7, so A-6..A-9.
    await sm.lock_seats(deps, cmd(e, [seats[4]], n=2))
    four = await sm.lock_best_seats(deps, best(e, 4, n=3))
    assert sorted(seats_of(four), key=seats.index) == seats[5:9]
    # Two together: are free but apart; the first pair is B-1, B-2.
    pair = await sm.lock_best_seats(deps, best(e, 2, n=4))
    assert sorted(seats_of(pair), key=seats.index) == seats[10:12]
    # Not together: the best free wherever they are.
    apart = await sm.lock_best_seats(deps, best(e, 2, n=5, together=False))
    assert sorted(seats_of(apart), key=seats.index) == [seats[3], seats[9]]
    # Of a section, of a row.
    balcony = await sm.lock_best_seats(deps, best(e, 2, n=6, section="Balcão"))
    assert sorted(seats_of(balcony), key=seats.index) == seats[30:32]
    row_c = await sm.lock_best_seats(deps, best(e, 1, n=7, section="Plateia", row="C"))
    assert seats_of(row_c) == [seats[20]]
    s = await states(deps, e)
    assert sum(1 for x in seats if s[x] is L) == 3 + 1 + 4 + 2 + 2 + 2 + 1


async def test_not_enough_free_seats_changes_nothing(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    with pytest.raises(SeatsUnavailable) as err:
        await sm.lock_best_seats(deps, best(e, 3, section="Balcão"))
    assert "not 3 free seats side by side" in str(err.value)
    await sm.lock_seats(deps, cmd(e, [seats[31]], n=2))
    with pytest.raises(SeatsUnavailable):
        await sm.lock_best_seats(deps, best(e, 2, section="Balcão", together=False))
    assert (await states(deps, e))[seats[30]] is A  # nothing was locked
    for count, code in [(0, "no_seat"), (21, "too_many_seats")]:
        with pytest.raises(InvalidInput) as bad:
            await sm.lock_best_seats(deps, best(e, count))
        assert bad.value.code == code
    with pytest.raises(NotFound) as missing:
        await sm.lock_best_seats(deps, best(e, 1, section="Camarote"))
    assert missing.value.field == "section"
    with pytest.raises(NotFound) as missing:
        await sm.lock_best_seats(deps, best(e, 1, section="Balcão", row="B"))
    assert missing.value.field == "row"
    with pytest.raises(NotFound):
        await sm.lock_best_seats(deps, sm.BestSeatsCommand(seats[0], 1, customer=customer(1)))


async def test_a_lapsed_hold_is_free_to_the_best_available(deps: Deps, pool: Any, clock: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    stale = (await sm.lock_best_seats(deps, best(e, 2))).booking
    clock.advance(minutes=11)  # CART: 10 minutes
    again = await sm.lock_best_seats(deps, best(e, 2, n=2))
    assert sorted(seats_of(again), key=seats.index) == seats[0:2]
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", stale.id) == "expired"


async def test_a_seat_out_of_use_is_never_chosen(deps: Deps, pool: Any) -> None:
    _, e, seats = await theatre(deps, pool)
    await pool.execute("UPDATE resources SET active = false WHERE id = $1", seats[1])
    first = await sm.lock_best_seats(deps, best(e, 2))
    assert sorted(seats_of(first), key=seats.index) == seats[2:4]  # A-1 alone is not two together
    single = await sm.lock_best_seats(deps, best(e, 1, n=2))
    assert seats_of(single) == [seats[0]]
    apart = await sm.lock_best_seats(deps, best(e, 3, n=3, together=False))
    assert seats[1] not in seats_of(apart)


async def test_a_blocked_seat_is_never_chosen(deps: Deps, pool: Any) -> None:
    """A block's allocation has no booking status: the choice must still count it as taken (it chose blocked seats,
    hit the exclusion constraint three times and answered SeatsUnavailable with the rest of the map free)."""
    _, e, seats = await theatre(deps, pool)
    await sm.block_seats(deps, sm.SeatCommand(e.id, tuple(seats[0:2]), reason="camera"))
    first = await sm.lock_best_seats(deps, best(e, 2))
    assert sorted(seats_of(first), key=seats.index) == seats[2:4]
    await sm.block_seats(deps, sm.SeatCommand(e.id, (seats[5],), reason="broken"))
    apart = await sm.lock_best_seats(deps, best(e, 2, n=2, together=False))
    assert sorted(seats_of(apart), key=seats.index) == [seats[4], seats[6]]
    row_b = await sm.lock_best_seats(deps, best(e, 3, n=3, section="Plateia", row="A"))
    assert sorted(seats_of(row_b), key=seats.index) == seats[7:10]


async def test_seats_freed_since_the_last_choice_are_the_best_again(deps: Deps, pool: Any, clock: Any) -> None:
    """A process guesses the best row from what it last read of the event; a row that was full then and has room
    now (a hold unlocked, a hold lapsed) is still chosen first: the guess is checked against a fresh read."""
    _, e, seats = await theatre(deps, pool)
    row_a = await sm.lock_best_seats(deps, best(e, 10))  # row A full: the last read says so
    assert sorted(seats_of(row_a), key=seats.index) == seats[0:10]
    await sm.unlock_seats(deps, cmd(e, seats[0:10]))
    again = await sm.lock_best_seats(deps, best(e, 2, n=2))
    assert sorted(seats_of(again), key=seats.index) == seats[0:2]
    row_b = await sm.lock_best_seats(deps, best(e, 10, n=3))  # row B full, then B's hold lapses
    assert sorted(seats_of(row_b), key=seats.index) == seats[10:20]
    clock.advance(minutes=11)  # CART: 10 minutes (A-1, A-2 lapse too)
    lapsed = await sm.lock_best_seats(deps, best(e, 10, n=4))
    assert sorted(seats_of(lapsed), key=seats.index) == seats[0:10]
    b = await sm.lock_best_seats(deps, best(e, 3, n=5))
    assert sorted(seats_of(b), key=seats.index) == seats[10:13]


async def test_a_row_freed_elsewhere_is_the_best_again_once_the_process_guess_is_older_than_its_age(
        deps: Deps, pool: Any, clock: Any) -> None:
    """After a row's lock a choice reads only that row (not the event): a row this process last read as full and
    that was freed since (by another process's request, say) may be passed over for free seats elsewhere while
    the guess is younger than GUESS_AGE, never for a taken seat; once older, the whole event is read and it is best
    again."""
    _, e, seats = await theatre(deps, pool)
    await sm.lock_best_seats(deps, best(e, 10))  # row A (what it read of A came before its own insert: "free")
    row_b = await sm.lock_best_seats(deps, best(e, 10, n=2))  # A locked and read: full, so B
    assert sorted(seats_of(row_b), key=seats.index) == seats[10:20]
    await sm.unlock_seats(deps, cmd(e, seats[0:10]))  # the guess still says A is full (and B free: stale too)
    soon = await sm.lock_best_seats(deps, best(e, 2, n=3))
    assert sorted(seats_of(soon), key=seats.index) == seats[20:22]  # B read after its lock: full, so C
    clock.advance(seconds=GUESS_AGE.total_seconds())
    later = await sm.lock_best_seats(deps, best(e, 2, n=4))
    assert sorted(seats_of(later), key=seats.index) == seats[0:2]


async def test_seats_apart_are_the_first_free_ones_across_rows(deps: Deps, pool: Any) -> None:
    """Not side by side, the choice locks rows one at a time in order until they hold enough free seats: the end of
    row A and the start of row B, the first free seats in display order; and again after A is freed."""
    _, e, seats = await theatre(deps, pool)
    first = await sm.lock_best_seats(deps, best(e, 9))
    assert sorted(seats_of(first), key=seats.index) == seats[0:9]
    apart = await sm.lock_best_seats(deps, best(e, 3, n=2, together=False))
    assert sorted(seats_of(apart), key=seats.index) == [seats[9], seats[10], seats[11]]
    await sm.unlock_seats(deps, cmd(e, seats[0:9]))  # this process last read row A as taken
    again = await sm.lock_best_seats(deps, best(e, 4, n=3, together=False, section="Plateia"))
    assert sorted(seats_of(again), key=seats.index) == seats[0:4]
    with pytest.raises(SeatsUnavailable):
        await sm.lock_best_seats(deps, best(e, 3, n=4, together=False, section="Balcão"))


async def test_a_retry_with_its_key_gets_its_first_answer(deps: Deps, pool: Any) -> None:
    _, e, _ = await theatre(deps, pool)
    first = await sm.lock_best_seats(deps, best(e, 2, idempotency_key="best-1"))
    again = await sm.lock_best_seats(deps, best(e, 2, idempotency_key="best-1"))
    assert again.replayed and again.booking.id == first.booking.id
    other = await sm.lock_best_seats(deps, best(e, 2, idempotency_key="best-2"))
    assert not set(seats_of(other)) & set(seats_of(first))


async def test_many_buyers_at_once_never_share_a_seat(deps: Deps, pool: Any) -> None:
    """24 best-available buyers of 1-4 seats and 8 chosen-seat buyers racing them on the same 32 seats: every
    seat locked at most once, every winner got what it asked for, and the losers were told (nothing half done)."""
    _, e, seats = await theatre(deps, pool)
    wanted = [1 + n % 4 for n in range(24)]
    jobs: list[Any] = [sm.lock_best_seats(deps, best(e, k, n=n, together=n % 3 != 0)) for n, k in enumerate(wanted)]
    jobs += [sm.lock_seats(deps, cmd(e, [seats[2 * n], seats[2 * n + 1]], n=100 + n)) for n in range(8)]
    results = await asyncio.gather(*jobs, return_exceptions=True)
    won = [r for r in results if not isinstance(r, BaseException)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(x, SeatsUnavailable) for x in lost), lost
    locked = [s for r in won for s in seats_of(r)]
    assert len(locked) == len(set(locked))
    for n, r in enumerate(results[:24]):
        if not isinstance(r, BaseException):
            assert len(seats_of(r)) == wanted[n]
    rows = await pool.fetch("SELECT resource_id, count(*) AS n FROM allocations WHERE unit_id = $1 AND occupies "
                            "GROUP BY resource_id", e.unit_id)
    assert all(r["n"] == 1 for r in rows) and {r["resource_id"] for r in rows} == set(locked)
    s = await states(deps, e)
    assert sum(1 for x in seats if s[x] is L) == len(locked)
    assert len(locked) >= 28  # 72 seats asked for 32: the map is (nearly) sold out, not left half empty


async def test_a_cold_map_is_loaded_once_for_many_buyers_at_once(deps: Deps, pool: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A sale opening on a cold process: the concurrent misses wait for one load of the map."""
    from store import seatmaps as store_seatmaps

    _, e, _ = await theatre(deps, pool)
    store_seatmaps._maps.clear()
    loads = 0
    real = store_seatmaps.PgSeatMaps._load_map

    async def counted(self: Any, seat_map_id: Any) -> Any:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0.05)  # long enough for every other request to miss too
        return await real(self, seat_map_id)

    monkeypatch.setattr(store_seatmaps.PgSeatMaps, "_load_map", counted)
    results = await asyncio.gather(*(sm.lock_best_seats(deps, best(e, 1, n=n)) for n in range(12)))
    assert loads == 1
    assert len({seats_of(r)[0] for r in results}) == 12
    assert not store_seatmaps._loading


def _nodes(plan: dict[str, Any], depth: int = 0) -> str:
    """A plan's nodes, one a line: type, index, rows and buffers (what a failing assertion shows)."""
    line = (f"{'  ' * depth}{plan['Node Type']} {plan.get('Index Name', plan.get('Relation Name', ''))} "
            f"rows={plan.get('Actual Rows')} loops={plan.get('Actual Loops')} "
            f"buffers={plan.get('Shared Hit Blocks', 0) + plan.get('Shared Read Blocks', 0)}"
            f" {plan.get('Index Cond', '')} {plan.get('Filter', '')}")
    return "\n".join([line, *(_nodes(p, depth + 1) for p in plan.get("Plans", ()))])


async def test_the_lapsed_check_of_a_hold_reads_its_seats_not_the_event(deps: Deps, pool: Any, clock: Any) -> None:
    """Every hold first looks for lapsed holds in its way (store/bookings.py `_LAPSED`, the gated insert's `lapsed`).
    On a seat event every allocation has the same range, and a plan made without statistics (a table filled by a
    sale is not analysed yet) read the unit's allocations over the event by their gist and filtered them: 4,000
    buffers, 3 ms a hold at 5,000 sold seats — a quarter of the flash sale's database time. It must read the asked
    seats' own allocations, with statistics or without, in a custom plan or a generic one."""
    _, e, seats = await theatre(deps, pool, rows=30, per_row=30)  # 902 seats: the event's read ~70 buffers
    for i in range(1, len(seats), 20):  # 20 seats a command at most
        await sm.block_seats(deps, sm.SeatCommand(e.id, tuple(seats[i:i + 20]), reason="sold elsewhere"))
    if await pool.fetchval("SELECT current_setting('is_superuser')") != "on":
        pytest.skip("clearing a table's statistics for the test needs a superuser (the suite's servers run as one)")
    async with pool.acquire() as conn, conn.transaction():
        # As the sale sees it: no statistics on allocations yet (rolled back with the transaction).
        await conn.execute("DELETE FROM pg_statistic WHERE starelid = 'allocations'::regclass")
        await conn.execute("UPDATE pg_class SET reltuples = -1 WHERE oid = 'allocations'::regclass")
        await conn.execute(f"PREPARE lapsed (uuid, uuid[], timestamptz, timestamptz, timestamptz) AS {_LAPSED}")
        # and the look of a contended hold (what is visibly taken, else whether the seat is busy): the same reads
        await conn.execute("PREPARE probe (uuid, uuid[], timestamptz, timestamptz, timestamptz, bigint[], bool) AS "
                           f"{_TAKEN_OR_BUSY}")
        literal = (f"'{e.unit_id}', ARRAY['{seats[0]}'::uuid], '{e.starts_at.isoformat()}', "
                   f"'{e.ends_at.isoformat()}', '{clock.now().isoformat()}'")
        for statement, args in (("lapsed", literal), ("probe", f"{literal}, ARRAY[{lock_key(seats[0])}], false")):
            for mode in ("force_custom_plan", "force_generic_plan"):
                await conn.execute(f"SET LOCAL plan_cache_mode = {mode}")
                got = await conn.fetchval(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE {statement}({args})")
                plan = (json.loads(got) if isinstance(got, str) else got)[0]["Plan"]
                assert plan["Shared Hit Blocks"] + plan["Shared Read Blocks"] < 20, (statement, mode, _nodes(plan))
