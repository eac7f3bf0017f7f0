"""The nearest alternatives to a taken slot (RN-ATD-07): the nearest (same resource first on ties), in time order."""

from __future__ import annotations

from datetime import timedelta

from domain.availability import nearest_alternatives
from domain.units import Resource, Unit
from tests.unit._availability_helpers import DAY, S, field, hhmm, local, make_unit, occ, options, pool


def four_fields(unit: Unit) -> list[Resource]:
    return [field(unit, f"Campo {i}", i) for i in range(1, 5)]


def test_rn_atd_07_the_three_nearest_options_for_20_00_on_campo_2() -> None:
    """Seed 001: "19h no Campo 2, 20h no Campo 1 e 21h no Campo 2" — chosen by distance, shown in time order."""
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    taken = occ(c2, 20, 21, S.HELD, expires=local(12) + timedelta(minutes=10))
    alts = nearest_alternatives(unit, fields, [taken], c2, local(20), local(21), local(12))
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 2", "19:00", "20:00"),
        ("Campo 1", "20:00", "21:00"),
        ("Campo 2", "21:00", "22:00"),
    ]


def test_the_nearest_are_chosen_before_the_time_order_is_applied() -> None:
    """A far earlier option never displaces a nearer later one: 17h is 3 steps away, 21h and 22h are nearer."""
    unit = make_unit()
    fields = [field(unit, "Campo 1", 1)]
    c1 = fields[0]
    occs = [occ(c1, 18, 20), occ(c1, 20, 21)]
    alts = nearest_alternatives(unit, fields, occs, c1, local(20), local(21), local(12))
    assert [hhmm(o.starts_at) for o in alts] == ["17:00", "21:00", "22:00"]
    fields.append(field(unit, "Campo 2", 2))  # 20h on Campo 2 is 1 step; 19h on Campo 2 (2 steps) loses to 22h
    alts = nearest_alternatives(unit, fields, occs, c1, local(20), local(21), local(12))  # on Campo 1 (2, same field)
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 2", "20:00", "21:00"),
        ("Campo 1", "21:00", "22:00"),
        ("Campo 1", "22:00", "23:00"),
    ]


def test_another_resource_at_the_same_time_follows_the_order_of_the_resources() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    occs = [occ(c2, 19, 20), occ(c2, 20, 21), occ(fields[0], 20, 21)]
    alts = nearest_alternatives(unit, fields, occs, c2, local(20), local(21), local(12))
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 3", "20:00", "21:00"),
        ("Campo 4", "20:00", "21:00"),
        ("Campo 2", "21:00", "22:00"),
    ]


def test_alternatives_respect_the_minimum_advance() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    alts = nearest_alternatives(unit, fields, [occ(c2, 20, 21)], c2, local(20), local(21), local(18.5))
    assert options(alts, {f.id: f.name for f in fields}) == [
        ("Campo 1", "20:00", "21:00"),
        ("Campo 3", "20:00", "21:00"),
        ("Campo 2", "21:00", "22:00"),
    ]


def test_alternatives_keep_the_asked_number_of_slots() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    alts = nearest_alternatives(unit, fields, [occ(c2, 20, 21)], c2, local(19), local(21), local(12))
    assert all(o.ends_at - o.starts_at == timedelta(hours=2) for o in alts)
    assert options(alts, {f.id: f.name for f in fields})[0] == ("Campo 2", "18:00", "20:00")


def test_when_only_one_slot_is_free_nearby_only_it_is_offered() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    days = (DAY - timedelta(days=1), DAY, DAY + timedelta(days=1))
    occs = [occ(f, 0, 24, day=d) for f in fields for d in days]
    occs = [o for o in occs if not (o.resource_id == fields[3].id and o.starts_at.date() == DAY)]
    occs += [occ(fields[3], 8, 22), occ(fields[3], 23, 24)]
    alts = nearest_alternatives(unit, fields, occs, c2, local(20), local(21), local(12))
    assert options(alts, {f.id: f.name for f in fields}) == [("Campo 4", "22:00", "23:00")]


def test_when_nothing_is_free_nearby_there_are_no_alternatives() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    occs = [
        occ(f, 0, 24, S.HELD, expires=local(12) + timedelta(minutes=5), day=d)
        for f in fields
        for d in (DAY - timedelta(days=1), DAY, DAY + timedelta(days=1))
    ]
    assert nearest_alternatives(unit, fields, occs, fields[1], local(20), local(21), local(12)) == []


def test_alternatives_only_look_one_day_either_side() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    occs = [occ(f, 0, 24, day=d) for f in fields for d in (DAY, DAY + timedelta(days=1))]
    assert nearest_alternatives(unit, fields, occs, fields[1], local(20), local(21), local(12)) == []


def test_alternatives_never_include_the_wanted_slot_itself() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    c2 = fields[1]
    alts = nearest_alternatives(unit, fields, [], c2, local(20), local(21), local(12))
    assert all(not (o.resource_id == c2.id and o.starts_at == local(20)) for o in alts)
    assert len(alts) == 3


def test_alternatives_stay_with_resources_of_the_same_kind() -> None:
    unit = make_unit()
    c1 = field(unit, "Campo 1", 1)
    p = pool(unit, 12)
    taken = [occ(c1, 20, 21)]
    alts = nearest_alternatives(unit, [c1, p], taken, c1, local(20), local(21), local(12), limit=10)
    assert {o.resource_id for o in alts} == {c1.id}


def test_alternatives_for_a_pooled_resource_need_room_for_the_quantity() -> None:
    unit = make_unit()
    p = pool(unit, 12)
    occs = [occ(p, 19, 20, quantity=11), occ(p, 20, 21, quantity=12)]
    alts = nearest_alternatives(unit, [p], occs, p, local(20), local(21), local(12), quantity=2)
    assert [hhmm(o.starts_at) for o in alts] == ["18:00", "21:00", "22:00"]


def test_the_limit_caps_the_number_of_alternatives() -> None:
    unit = make_unit()
    fields = four_fields(unit)
    alts = nearest_alternatives(unit, fields, [], fields[1], local(20), local(21), local(12), limit=5)
    assert len(alts) == 5
