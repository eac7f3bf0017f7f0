"""Best available, the pure part (domain.seatmaps.free_runs / best_free / best_rows): checked against the
definition the SQL choice used until migration 0030s — the free seats of each (section, row), an island where
`sort - row_number()` changes — on random maps (rows split in two, sections named twice) and random taken seats."""

from __future__ import annotations

from itertools import groupby
from uuid import uuid4

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.seatmaps import Seat, SeatMap, best_free, best_rows, free_runs


def _map(layout: list[tuple[str, str, int]]) -> SeatMap:
    seats: list[Seat] = []
    for section, row, n in layout:
        for _ in range(n):
            seats.append(Seat(uuid4(), section, row, str(len(seats)), len(seats)))
    return SeatMap(uuid4(), uuid4(), "m", tuple(seats))


def _reference_runs(seats: tuple[Seat, ...], taken: set[int], section: str | None,
                    row: str | None) -> list[tuple[Seat, ...]]:
    """The old `_RUNS`: free seats partitioned by (section, row), islands by sort − row_number, runs ordered by their
    first seat."""
    free = [s for s in seats if s.sort not in taken and section in (None, s.section) and row in (None, s.row)]
    runs: list[tuple[Seat, ...]] = []
    for _, group in groupby(sorted(free, key=lambda s: (s.section, s.row, s.sort)), key=lambda s: (s.section, s.row)):
        in_row = list(group)
        for _, island in groupby(enumerate(in_row), key=lambda p: p[1].sort - p[0]):
            runs.append(tuple(s for _, s in island))
    return sorted(runs, key=lambda r: r[0].sort)


layouts = st.lists(st.tuples(st.sampled_from(["Plateia", "Balcão"]), st.sampled_from(["A", "B", "C"]),
                             st.integers(1, 6)), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
@given(layouts, st.data(), st.integers(1, 5), st.booleans())
def test_the_choice_is_the_old_definition(layout: list[tuple[str, str, int]], data: st.DataObject, count: int,
                                          together: bool) -> None:
    m = _map(layout)
    taken = data.draw(st.sets(st.integers(0, len(m.seats) - 1)))
    section = data.draw(st.sampled_from([None, "Plateia", "Balcão"]))
    row = data.draw(st.sampled_from([None, "A", "B"]))
    ref = _reference_runs(m.seats, taken, section, row)
    for seats in (m, m.seats):  # a map (stretches skipped by set) and plain seats give the same
        assert list(free_runs(seats, taken, section, row)) == ref
        want = (next((list(r[:count]) for r in ref if len(r) >= count), []) if together
                else [s for r in ref for s in r][:count])
        assert best_free(seats, taken, count, together, section, row) == want
        rows = list(dict.fromkeys((r[0].section, r[0].row) for r in ref if len(r) >= count))
        assert best_rows(seats, taken, count, section, row, limit=3) == rows[:3]


def test_a_row_drawn_in_two_places_has_two_stretches() -> None:
    m = _map([("Plateia", "A", 2), ("Plateia", "B", 2), ("Plateia", "A", 2)])
    assert [[s.sort for s in seg] for seg in m.segments] == [[0, 1], [2, 3], [4, 5]]
    assert best_free(m, set(), 3, True, row="A") == []  # A's four seats are not side by side
    assert [s.sort for s in best_free(m, {0}, 3, False, row="A")] == [1, 4, 5]
    assert best_rows(m, {2}, 2) == [("Plateia", "A")]  # A's first stretch; B has one seat left
