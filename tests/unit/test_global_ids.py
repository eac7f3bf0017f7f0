"""Global ids (schema/ids.py): typed, opaque, URL-safe, and raw UUIDs still accepted."""

from uuid import uuid4

import pytest

from domain.errors import InvalidInput
from resolvers.context import parse_id
from schema.ids import decode_id, global_id


def test_a_global_id_round_trips_and_is_url_safe() -> None:
    uid = uuid4()
    gid = global_id("Booking", uid)
    assert str(uid) not in gid and "=" not in gid and "/" not in gid and "+" not in gid
    assert decode_id(gid) == ("Booking", uid)
    assert parse_id(gid, "bookingId", "Booking") == uid


def test_a_raw_uuid_is_still_taken() -> None:
    uid = uuid4()
    assert decode_id(str(uid)) == (None, uid)
    assert parse_id(str(uid), "bookingId", "Booking") == uid


@pytest.mark.parametrize("bad", ["", "x", "Qm9va2luZzpub3QtYS11dWlk", "====", "🙂", "a" * 300])
def test_anything_else_is_an_invalid_id_naming_the_field(bad: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_id(bad, "bookingId")
    assert refused.value.field == "bookingId"


def test_a_global_id_of_another_type_is_refused() -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_id(global_id("Unit", uuid4()), "bookingId", "Booking")
    assert "Unit" in refused.value.message
