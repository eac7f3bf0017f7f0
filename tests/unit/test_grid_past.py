"""Past slots on the staff grid (issue 20, bug 5): a free slot that has begun shows PAST (it can no longer be
booked); taken slots keep their state; slots still ahead stay FREE."""

from __future__ import annotations

from domain.availability import SlotState, grid_rows, mark_past, segments
from tests.unit._availability_helpers import field, local, make_unit, occ, pool, whole_day


def test_free_slots_that_began_show_past_and_taken_ones_keep_their_state() -> None:
    unit = make_unit()
    court, aula = field(unit, "Campo 1"), pool(unit)
    start, end = whole_day()
    rows = grid_rows(unit, [court, aula], [occ(court, 9, 10)], start, end, local(12.5))
    mark_past(rows, local(12.5))
    by_hour: dict[int, SlotState] = {}
    for s in segments(rows[court.id]):
        for h in range(s.starts_at.astimezone(local(0).tzinfo).hour, s.ends_at.astimezone(local(0).tzinfo).hour):
            by_hour[h] = s.state
    assert by_hour[12] is SlotState.PAST  # begun at 12:00, not over yet: no longer bookable
    assert by_hour[13] is SlotState.FREE and by_hour[9] is SlotState.BOOKED and by_hour[10] is SlotState.PAST
    pooled = segments(rows[aula.id])
    assert all(s.state is SlotState.PAST and s.available == 0 for s in pooled if s.starts_at < local(12.5))
    assert all(s.state is SlotState.FREE for s in pooled if s.starts_at >= local(12.5))
