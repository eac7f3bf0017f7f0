"""Cursors of the Relay connections (schema/connections.py): opaque, URL-safe, checked on the way in."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from domain.errors import InvalidInput
from domain.listings import BOOKINGS, QUEUE, UNIT_HISTORY
from schema.connections import DEFAULT_PAGE, decode_cursor, encode_cursor, page_request


def test_a_cursor_round_trips_and_is_url_safe() -> None:
    key = (datetime(2026, 12, 8, 12, 30, 0, 123456, tzinfo=UTC), uuid4())
    cursor = encode_cursor(BOOKINGS, key)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", cursor)
    assert decode_cursor(BOOKINGS, cursor, "after") == key
    assert decode_cursor(UNIT_HISTORY, encode_cursor(UNIT_HISTORY, (42,)), "before") == (42,)


@pytest.mark.parametrize("argument", ["after", "before"])
def test_another_lists_cursor_or_garbage_is_refused_naming_the_argument(argument: str) -> None:
    queue = encode_cursor(QUEUE, (0, datetime(2026, 12, 8, tzinfo=UTC), uuid4()))
    for bad in (queue, "!!", "", "a" * 401, encode_cursor(UNIT_HISTORY, (True,)), "W10", "bnVsbA"):
        with pytest.raises(InvalidInput) as refused:
            decode_cursor(BOOKINGS, bad, argument)
        assert refused.value.field == argument and refused.value.code == "invalid_cursor"


def test_page_arguments() -> None:
    assert page_request(BOOKINGS, None, None, None, None).limit == DEFAULT_PAGE
    back = page_request(BOOKINGS, None, None, 7, None)
    assert back.backward and back.limit == 7
    with pytest.raises(InvalidInput) as both:
        page_request(BOOKINGS, 1, None, 1, None)
    assert both.value.code == "first_with_last" and both.value.field == "last"
    with pytest.raises(InvalidInput) as big:
        page_request(BOOKINGS, None, None, 501, None)
    assert big.value.code == "page_too_large" and big.value.field == "last"
