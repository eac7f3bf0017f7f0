"""Seat maps, their events, and seat blocks (domain/seatmaps.py) in PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import chain
from typing import Any
from uuid import UUID

import asyncpg
from asyncpg import Range

from domain.errors import ErrorCode, InvalidInput, NotFound, SlotTaken
from domain.seatmaps import Occupant, Seat, SeatEvent, SeatMap, best_free, best_rows
from domain.services import BestSeats
from domain.single_flight import SingleFlight
from store.bookings import ConnGetter

# What takes seats over an event, of the whole unit (the map's seats are picked out of it on the process's copy of the
# map): joined with `seats` here, a plan made without statistics read the event's allocations once a seat — 4.3 s for
# a sold-out 5,000-seat event (measured in bench.flash); alone, the two partial indexes of its arms (a BitmapOr).
_OCCUPANTS = """
SELECT a.resource_id, a.booking_id, a.status, a.hold_type, a.hold_expires_at, a.block_id
FROM allocations a
WHERE a.unit_id = $1::uuid AND a.during && tstzrange($2::timestamptz, $3::timestamptz)
  AND (a.occupies OR a.status = 'completed')
ORDER BY a.occupies, lower(a.during)
"""
# Given seats ($5: a few) are read by seat, on allocations_seat (migration 0031s); a plan made without statistics
# takes the unit's gists whenever it can (their default selectivities look tiny), so nothing here lets it: no
# `unit_id =` (the seats are the map's, checked on `seats`; a resource's id is its own), no `during &&` (the overlap
# with [$3, $4) written on the bounds, which is the same for the [) ranges allocations hold). Until 0031s one
# statement served both with `$5 IS NULL OR …`, and for 3 seats read the whole event once a seat.
_SEAT_OVER = "upper(a.during) > {start}::timestamptz AND lower(a.during) < {end}::timestamptz"
_OCCUPANTS_OF = f"""
SELECT a.resource_id, a.booking_id, a.status, a.hold_type, a.hold_expires_at, a.block_id
FROM allocations a
WHERE a.resource_id = ANY($5::uuid[]) AND {_SEAT_OVER.format(start="$3", end="$4")}
  AND (a.occupies OR a.status = 'completed')
  AND EXISTS (SELECT 1 FROM seats s WHERE s.unit_id = $1::uuid AND s.seat_map_id = $2::uuid
              AND s.resource_id = a.resource_id)
ORDER BY a.occupies, lower(a.during)
"""

EVENT_LOCK_SPACE = 5_107_006
"""The first key of the two-key advisory locks of best-available choices: per row of a seat event, and per event
(a choice whose rows changed under it ROW_TRIES times); customers use 5_107_005, resources one-key locks (another
space)."""

# What takes a seat over an event, as `seat_state` says (SPEC guarantee 5: a lapsed hold does not): an occupying
# allocation (a booking's, whatever its status but a lapsed hold's, or a block's — which has no status: hence the
# coalesce), a completed booking's (it no longer occupies, but its seat is SOLD), or the seat's resource being out of
# use. $1 unit, $2/$3 the event's range, $4 now. Each is read by index (the exclusion constraint's gist; partial
# indexes of completed allocations and inactive resources, migration 0030s): never a scan of the venue's history.
_NOT_LAPSED = ("NOT coalesce(a.status IN ('held', 'pending_payment', 'verifying') "
               "AND a.hold_expires_at <= $4::timestamptz, false)")
# The ids come as one bytea of 16-byte ids: a uuid[] of the 5,000 seats of a sold-out event took 3.4 ms to build and
# decode, this 1.1 ms.
_TAKEN = f"""
SELECT coalesce(string_agg(uuid_send(t.resource_id), ''::bytea), ''::bytea) FROM (
    SELECT a.resource_id FROM allocations a
    WHERE a.unit_id = $1::uuid AND a.occupies AND NOT a.pooled
      AND a.during && tstzrange($2::timestamptz, $3::timestamptz) AND {_NOT_LAPSED}
    UNION ALL
    SELECT a.resource_id FROM allocations a
    WHERE a.unit_id = $1::uuid AND a.status = 'completed' AND a.during && tstzrange($2::timestamptz, $3::timestamptz)
    UNION ALL
    SELECT r.id FROM resources r WHERE r.unit_id = $1::uuid AND NOT r.active
) t"""
# The same for given seats ($5: the rows a choice locked), read by seat as `_OCCUPANTS_OF` is: 0.2 ms for a row of 50
# at a sold-out 5,000-seat event without statistics, where `_TAKEN` takes 2.5–3 ms (and this statement with the unit's
# conditions written as there, 2.9 ms: a BitmapOr of the unit's gists over the whole event).
_TAKEN_OF = f"""
SELECT coalesce(string_agg(uuid_send(t.resource_id), ''::bytea), ''::bytea) FROM (
    SELECT a.resource_id FROM allocations a
    WHERE a.resource_id = ANY($5::uuid[]) AND {_SEAT_OVER.format(start="$2", end="$3")}
      AND (a.occupies OR a.status = 'completed') AND {_NOT_LAPSED}
    UNION ALL
    SELECT r.id FROM resources r WHERE r.unit_id = $1::uuid AND r.id = ANY($5::uuid[]) AND NOT r.active
) t"""
# A row's lock: two keys, the space and hashtext('<event>:<section>:<row>'). Of the rows given best first ($2
# sections, $3 rows), the first whose lock is free is taken (pg_try_advisory_xact_lock, tried in that order,
# stopping at the first taken: a Limit over the CTE's rows in order); none free: no row.
_ROW_KEY = "hashtext($1::uuid::text || ':' || {section} || ':' || {row})"
_TRY_ROWS = f"""
WITH c AS MATERIALIZED (
    SELECT o, {_ROW_KEY.format(section="u.section", row="u.row_label")} AS key
    FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(section, row_label, o) ORDER BY o
)
SELECT o FROM c WHERE pg_try_advisory_xact_lock({EVENT_LOCK_SPACE}, key) LIMIT 1
"""
_LOCK_ROW = f"SELECT pg_advisory_xact_lock({EVENT_LOCK_SPACE}, {_ROW_KEY.format(section='$2::text', row='$3::text')})"
_LOCK_EVENT = f"SELECT pg_advisory_xact_lock({EVENT_LOCK_SPACE}, hashtext($1::uuid::text))"
ROW_TRIES = 4
"""Rows a best-available choice tries (each a lock taken, then its run read afresh) before it locks the event."""
ROWS_TRIED = 64
"""Of the rows with room, the best this many are offered to one try of their locks (the first free one is taken):
more than the choices that can run at once (the database connections of every API process)."""

_maps: dict[UUID, SeatMap] = {}
"""Seat maps never change once made: kept per process."""
_loading: dict[UUID, asyncio.Lock] = {}
"""The maps being loaded, so that concurrent misses wait for one load."""
_by_bytes: dict[UUID, dict[bytes, int]] = {}
"""Per map: its seats' `sort` by their ids' 16 bytes."""
_seen: dict[UUID, tuple[datetime, set[int]]] = {}
"""Per event: when this process last read in full what is taken (by the use case's clock), and what was then, with
the rows its choices have read since put in (`choose_best`'s guess of the best rows)."""
GUESS_AGE = timedelta(seconds=1)
"""The oldest full read a choice starts from; an older one is read again. Another process's takes and frees reach
this process's guess only through rows it reads after their locks, and through full reads: a seat freed elsewhere
(unlocked, cancelled) may be passed over for the next-best one for this long (a taken seat is never chosen: a row's
seats are always read after its lock). A lapsed hold counts as free by the clock, so a guess outlives none."""
_reading: SingleFlight[set[int]] = SingleFlight()
"""Per event: the full read a choice of this process is making, which others may wait for instead of making their
own (`_Choice.read_shared`)."""
_events: dict[UUID, SeatEvent] = {}
"""Nor do seat events (their name, map and range): kept per process too."""


def _taken(seat_map: SeatMap, packed: bytes) -> set[int]:
    """The `sort` of the map's seats among `_TAKEN`'s ids (a bytea, 16 bytes an id: 5,000 UUIDs decoded and hashed
    cost more than the read)."""
    sorts = _by_bytes.get(seat_map.id)
    if sorts is None:
        if len(_by_bytes) > 1000:
            _by_bytes.clear()
        sorts = _by_bytes[seat_map.id] = {s.id.bytes: s.sort for s in seat_map.seats}
    taken: set[int | None] = set(map(sorts.get, [packed[i:i + 16] for i in range(0, len(packed), 16)]))
    taken.discard(None)  # another resource of the unit
    return taken  # type: ignore[return-value]  # None is gone


Row = tuple[str, str]
"""(section, row label)"""


class _Choice:
    """One best-available choice under rows' locks (`PgSeatMaps.choose_best`)."""

    def __init__(self, conn: asyncpg.Connection, seat_map: SeatMap, best: BestSeats, event_id: UUID,
                 span: tuple[UUID, datetime, datetime, datetime]) -> None:
        self.conn, self.map, self.best, self.event_id, self.span = conn, seat_map, best, event_id, span
        guess = _seen.get(event_id)
        now = span[3]
        if guess is not None and not (now - GUESS_AGE < guess[0] <= now):  # too old (or of a clock set back)
            guess = None
        self.taken: set[int] = guess[1] if guess is not None else set()
        self.fresh = False
        """Whether `taken` was read in full by this choice (else it is the process's guess, rows read since put in)."""
        self.started = guess is not None
        self.began = time.monotonic()

    async def read(self) -> set[int]:
        """What is taken over the whole event, read now."""
        self.taken = _taken(self.map, await self.conn.fetchval(_TAKEN, *self.span))
        self.fresh = True
        if len(_seen) > 1000:
            _seen.clear()
        _seen[self.event_id] = (self.span[3], self.taken)
        return self.taken

    async def read_rows(self, rows: Sequence[Row]) -> None:
        """What is taken in `rows`, read now (after their locks) and put into `taken` and the process's guess: the
        rest of the event is not read again (`_TAKEN_OF`: a row's 50 seats by index, not the event's 5,000)."""
        await self.read_seats([s for r in rows for s in self.map.row_seats[r]])

    async def read_seats(self, seats: Sequence[Seat]) -> None:
        got = _taken(self.map, await self.conn.fetchval(_TAKEN_OF, *self.span, [s.id for s in seats]))
        sorts = {s.sort for s in seats}
        self.taken = (self.taken - sorts) | got
        current = _seen.get(self.event_id)
        if current is not None:  # into the newest full read this process has (another choice's may be newer)
            _seen[self.event_id] = (current[0], (current[1] - sorts) | got)

    async def start(self) -> None:
        """The guess to start from: the process's, or (too old) the event read again."""
        if not self.started:
            self.started = True
            await self.read_shared(float("-inf"))

    async def read_shared(self, since: float) -> None:
        """What is taken over the whole event, read now: by this choice, or by another of this process whose read
        began at `since` (time.monotonic) or later, waited for instead of made again — when a guess ages or a
        section sells out, every choice of a sale in progress would read the event at once. `fresh` when the read
        began after this choice did."""
        self.taken, began = await _reading.run(self.event_id, self.read, since)
        self.fresh = self.fresh or began >= self.began

    def rows(self, count: int, leave: Sequence[Row] = ()) -> list[Row]:
        """The rows with a run of `count` free seats, best first, but those in `leave`."""
        b = self.best
        found = best_rows(self.map, self.taken, count, b.section, b.row, limit=ROWS_TRIED + len(leave))
        return [r for r in found if r not in leave][:ROWS_TRIED]

    async def try_rows(self, rows: Sequence[Row]) -> Row | None:
        """The first of `rows` whose lock no other choice holds, now locked; None: every one is held."""
        if not rows:
            return None
        got = await self.conn.fetchval(_TRY_ROWS, self.event_id, [s for s, _ in rows], [r for _, r in rows])
        return None if got is None else rows[got - 1]

    async def wait_row(self, row: Row) -> Row:
        await self.conn.execute(_LOCK_ROW, self.event_id, *row)
        return row

    async def in_a_row(self) -> list[Seat] | None:
        """Side by side: the seats, or [] (no row has that many side by side), or None (go to the event's lock)."""
        await self.start()
        count, tried = self.best.count, list[Row]()
        while len(tried) < ROW_TRIES:
            rows = self.rows(count, tried)
            if not rows:
                if not self.fresh:  # the guess may be stale: look again before saying there is no such row
                    await self.read_shared(self.began)
                    continue
                return None if tried else []
            target = await self.try_rows(rows)
            if target is None:  # every such row is being chosen in
                if tried:
                    return None  # holding a row's lock, never wait for another's (two choices would deadlock)
                target = await self.wait_row(rows[0])  # holding none: wait for the best
            await self.read_rows([target])  # after the lock: what its last holder took, committed
            # The guess may have been stale (a hold lapsed, a seat was freed): a better row than ours whose lock is
            # free is taken instead (not waited for: we hold ours), and read again after that lock.
            better = self.rows(count, tried)
            if (other := await self.try_rows(better[:better.index(target)] if target in better else better)):
                target = other
                await self.read_rows([target])
            seats = best_free(self.map.row_seats[target], self.taken, count, True)
            if len(seats) == count:
                return seats
            tried.append(target)
        return None

    async def apart(self) -> list[Seat] | None:
        """Not side by side: the seats (fewer: not that many are free), or None (go to the event's lock). Rows are
        locked one at a time, best first, until the rows held have the seats; the best seats of the whole map
        when no other choice holds their rows."""
        await self.start()
        count, held = self.best.count, list[Row]()
        for _ in range(count + ROW_TRIES):
            ideal = best_free(self.map, self.taken, count, False, self.best.section, self.best.row)
            if len(ideal) < count and not self.fresh:
                await self.read_shared(self.began)
                continue
            if len(ideal) < count or all((s.section, s.row) in held for s in ideal):
                return ideal
            mine = best_free(sorted(chain.from_iterable(self.map.row_seats[r] for r in held),
                                    key=lambda s: s.sort), self.taken, count, False) if held else []
            wanted = [r for r in dict.fromkeys((s.section, s.row) for s in ideal) if r not in held]
            row = await self.try_rows(wanted)
            if row is None and len(mine) == count:
                return mine  # the better rows are being chosen in
            if row is None:
                row = await self.try_rows([r for r in self.rows(1, held) if r not in wanted])
            if row is None:
                if held:
                    return None  # holding rows' locks, never wait for another's
                row = await self.wait_row(wanted[0])
            held.append(row)
            await self.read_rows([row])
        return None


class PgSeatMaps:
    """SeatMapRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def create_map(self, seat_map: SeatMap, group_id: UUID) -> None:
        conn = await self._conn()
        u = seat_map.unit_id
        try:
            async with conn.transaction():  # a savepoint: a taken name is an answer, not a broken transaction
                await conn.execute("INSERT INTO resource_groups (id, unit_id, name, sort) VALUES ($1, $2, $3, 1000)",
                                   group_id, u, seat_map.name)
                await conn.execute("INSERT INTO seat_maps (id, unit_id, group_id, name) VALUES ($1, $2, $3, $4)",
                                   seat_map.id, u, group_id, seat_map.name)
                await conn.execute(
                    "INSERT INTO resources (id, unit_id, group_id, name, kind, capacity, sort, on_grid) "
                    "SELECT r.id, $1::uuid, $2::uuid, r.name, 'exclusive', 1, r.sort, false "
                    "FROM unnest($3::uuid[], $4::text[], $5::int[]) AS r(id, name, sort)",
                    u, group_id, [s.id for s in seat_map.seats],
                    [f"{seat_map.name} · {s.name}" for s in seat_map.seats], [s.sort for s in seat_map.seats])
                await conn.execute(
                    "INSERT INTO seats (unit_id, resource_id, seat_map_id, section, row_label, seat_label, sort) "
                    "SELECT $1::uuid, r.id, $2::uuid, r.section, r.row_label, r.seat_label, r.sort "
                    "FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[]) "
                    "AS r(id, section, row_label, seat_label, sort)",
                    u, seat_map.id, [s.id for s in seat_map.seats], [s.section for s in seat_map.seats],
                    [s.row for s in seat_map.seats], [s.label for s in seat_map.seats],
                    [s.sort for s in seat_map.seats])
        except asyncpg.UniqueViolationError:
            raise InvalidInput("name", f"the unit already has a seat map, resource group or resource named "
                               f"{seat_map.name!r}", code=ErrorCode.NAME_TAKEN) from None
        except asyncpg.ForeignKeyViolationError:
            raise NotFound("unit", u, field="unitId") from None

    async def create_event(self, event: SeatEvent) -> None:
        conn = await self._conn()
        await conn.execute(
            "INSERT INTO seat_events (id, unit_id, seat_map_id, name, during) "
            "VALUES ($1, $2, $3, $4, tstzrange($5::timestamptz, $6::timestamptz))",
            event.id, event.unit_id, event.seat_map_id, event.name, event.starts_at, event.ends_at)

    async def seat_map(self, seat_map_id: UUID) -> SeatMap:
        cached = _maps.get(seat_map_id)
        if cached is not None:
            return cached
        # One load at a time per map: when a sale opens on a cold process, hundreds of requests miss at once, and
        # each building 5,000 seats made a garbage-collection storm (a quarter of a worker's time in a flash sale).
        lock = _loading.setdefault(seat_map_id, asyncio.Lock())
        try:
            async with lock:
                return _maps.get(seat_map_id) or await self._load_map(seat_map_id)
        finally:
            if _loading.get(seat_map_id) is lock:
                del _loading[seat_map_id]  # locks bind to the event loop that waits on them: none is kept

    async def _load_map(self, seat_map_id: UUID) -> SeatMap:
        conn = await self._conn()
        row = await conn.fetchrow("SELECT id, unit_id, name FROM seat_maps WHERE id = $1", seat_map_id)
        if row is None:
            raise NotFound("seat map", seat_map_id, field="seatMapId")
        seats = await conn.fetch("SELECT resource_id, section, row_label, seat_label, sort FROM seats "
                                 "WHERE unit_id = $1 AND seat_map_id = $2 ORDER BY sort", row["unit_id"], row["id"])
        found = SeatMap(row["id"], row["unit_id"], row["name"],
                        tuple(Seat(s["resource_id"], s["section"], s["row_label"], s["seat_label"], s["sort"])
                              for s in seats))
        if len(_maps) > 1000:
            _maps.clear()
        _maps[seat_map_id] = found
        return found

    async def event(self, event_id: UUID) -> SeatEvent:
        cached = _events.get(event_id)
        if cached is not None:
            return cached
        conn = await self._conn()
        row = await conn.fetchrow("SELECT id, unit_id, seat_map_id, name, during FROM seat_events WHERE id = $1",
                                  event_id)
        if row is None:
            raise NotFound("event", event_id, field="eventId")
        during: Any = row["during"]
        found = SeatEvent(row["id"], row["unit_id"], row["seat_map_id"], row["name"], during.lower, during.upper)
        if len(_events) > 10_000:
            _events.clear()
        _events[event_id] = found
        return found

    async def events_of(self, unit_id: UUID) -> list[SeatEvent]:
        conn = await self._conn()
        rows = await conn.fetch("SELECT id, unit_id, seat_map_id, name, during FROM seat_events WHERE unit_id = $1 "
                                "ORDER BY lower(during), name LIMIT 500", unit_id)
        return [SeatEvent(r["id"], r["unit_id"], r["seat_map_id"], r["name"], r["during"].lower, r["during"].upper)
                for r in rows]

    async def choose_best(self, unit_id: UUID, best: BestSeats, starts_at: datetime, ends_at: datetime,
                          now: datetime, event_id: UUID) -> list[UUID]:
        """The best free seats under rows' advisory locks, so that buyers choose in different rows at once and never
        wait for each other unless every row with room is being chosen in. Side by side (or one seat): the best row
        with a run of that many free seats whose lock no other choice holds. Not side by side: rows taken in order,
        as many as the best free seats need, each the best one whose lock is free. After each lock what is taken in
        that row is read afresh (a statement after the lock sees what its last holder committed). Rows that changed
        under us ROW_TRIES times: the event's lock, then the best free seats anywhere. No deadlock: a row's lock is
        waited for only while holding none, the event's after rows' locks, and nothing holding the event's lock
        waits for a row's.

        Which rows to try first comes from what this process last read of the whole event, at most GUESS_AGE ago,
        with the rows read since put in (`_seen`: only a guess, checked after each lock against a fresh read of the
        row); what is taken is read by index (`_TAKEN`, `_TAKEN_OF`) and the runs found here on the process's copy
        of the map (`domain.seatmaps`). Until 0031s every lock was followed by a read of the whole event; until 0030s
        one statement scanned and sorted every seat and allocation of the event, twice a choice (25–40 ms at 5,000
        seats), and a choice not side by side always waited for the event's lock: the flash sale's ceiling."""
        conn = await self._conn()
        seat_map = await self.seat_map(best.seat_map_id)
        choice = _Choice(conn, seat_map, best, event_id, (unit_id, starts_at, ends_at, now))
        chosen = await (choice.in_a_row() if best.together or best.count == 1 else choice.apart())
        if chosen is not None:
            return [s.id for s in chosen]
        await conn.execute(_LOCK_EVENT, event_id)
        taken = await choice.read()
        return [s.id for s in best_free(seat_map, taken, best.count, best.together, best.section, best.row)]

    async def occupants(self, event: SeatEvent, seat_ids: Sequence[UUID] | None = None) -> dict[UUID, Occupant]:
        conn = await self._conn()
        if seat_ids is None:
            seats = (await self.seat_map(event.seat_map_id)).by_id
            rows = [r for r in await conn.fetch(_OCCUPANTS, event.unit_id, event.starts_at, event.ends_at)
                    if r["resource_id"] in seats]
        else:
            rows = await conn.fetch(_OCCUPANTS_OF, event.unit_id, event.seat_map_id, event.starts_at, event.ends_at,
                                    list(seat_ids))
        return {r["resource_id"]: Occupant(r["booking_id"], r["status"], r["hold_type"], r["hold_expires_at"],
                                           r["block_id"]) for r in rows}

    async def add_blocks(self, event: SeatEvent, seat_ids: list[UUID], reason: str, actor: str, now: datetime,
                         new_id: Any) -> None:
        conn = await self._conn()
        ids = [new_id() for _ in seat_ids]
        during = Range(event.starts_at, event.ends_at)
        try:
            async with conn.transaction():
                await conn.execute(
                    "INSERT INTO blocks (id, unit_id, resource_id, during, reason, created_by, created_at, "
                    "seat_event_id) SELECT b.id, $1::uuid, b.r, $2::tstzrange, $3, $4, $5, $6 "
                    "FROM unnest($7::uuid[], $8::uuid[]) AS b(id, r)",
                    event.unit_id, during, reason, actor, now, event.id, ids, seat_ids)
                await conn.execute(
                    "INSERT INTO allocations (unit_id, block_id, resource_id, during, quantity, pooled, occupies) "
                    "SELECT $1::uuid, b.id, b.r, $2::tstzrange, 1, false, true "
                    "FROM unnest($3::uuid[], $4::uuid[]) AS b(id, r)",
                    event.unit_id, during, ids, seat_ids)
        except asyncpg.ExclusionViolationError:
            raise SlotTaken("a seat was taken meanwhile", seat_ids, event.starts_at, event.ends_at) from None

    async def remove_blocks(self, event: SeatEvent, seat_ids: list[UUID], now: datetime) -> int:
        conn = await self._conn()
        rows = await conn.fetch(
            "DELETE FROM allocations a USING blocks b WHERE a.block_id = b.id AND a.unit_id = $1 "
            "AND a.resource_id = ANY($2::uuid[]) AND a.during && tstzrange($3::timestamptz, $4::timestamptz) "
            "RETURNING b.id, a.resource_id", event.unit_id, seat_ids, event.starts_at, event.ends_at)
        await conn.execute("DELETE FROM blocks WHERE id = ANY($1::uuid[])", [r["id"] for r in rows])
        return len({r["resource_id"] for r in rows})
