"""Hypothesis strategies for single argument values: valid-looking ones (real ids of the test's venue, by what the
argument's name says it is), boundary values (empty, huge and odd strings, extreme integers, naive or
out-of-range datetimes) and values of the wrong type."""

from __future__ import annotations

import math
from typing import Any
from uuid import UUID

from hypothesis import strategies as st

from tests.fuzz.world import World

ODD_STRINGS = ["", " ", "\x00", "a\x00b", "null", "undefined", "NaN", "-1", "0", "true", "{}", "[]", "'", '"',
               "\\", "' OR 1=1 --", "'; DROP TABLE bookings; --", "%s%n%x", "${jndi:ldap://x}", "<script>x</script>",
               "\u202e\u200b\ufeff", "ção 😀 漢字", "\ud7ff\ue000", "\n\r\t", "../../etc/passwd", "%00", "\U0010ffff",
               "\ud800", "a\udfffb"]
"""Strings that have broken parsers, drivers and encoders before."""


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, each as often as its weight (st.one_of draws its distinct branches evenly: repeating
    a branch there does not make it likelier)."""
    picks = [i for i, (weight, _) in enumerate(choices) for _ in range(weight)]
    return st.sampled_from(picks).flatmap(lambda i: choices[i][1])


def huge(n: int) -> st.SearchStrategy[str]:
    return st.sampled_from(["x" * n, "ç" * (n // 2), "😀" * (n // 4), "9" * n])


def text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=40), st.sampled_from(ODD_STRINGS), huge(20_000))


def uuids() -> st.SearchStrategy[str]:
    return st.one_of(st.uuids().map(str), st.sampled_from([str(UUID(int=0)), str(UUID(int=2**128 - 1))]))


def garbage_ids() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(["", "1", "-1", "not-a-uuid", "00000000-0000-0000-0000-00000000000",
                                      "00000000-0000-0000-0000-0000000000000", "{00000000-0000-0000-0000-000000000000}",
                                      "urn:uuid:00000000-0000-0000-0000-000000000000", "ZZZZZZZZ-0000-0000-0000-"
                                      "000000000000", "0" * 32, "0" * 1000]),
                     st.uuids().map(lambda u: u.hex), st.uuids().map(lambda u: str(u).upper()),
                     st.uuids().map(lambda u: f" {u} "), text())


ID_KINDS: dict[str, str] = {
    "unitid": "unit", "bookingid": "booking", "resourceid": "resource", "resourceids": "resource",
    "eventid": "seat_event", "seatids": "seat", "seatmapid": "seat_map", "entryid": "walk_in", "itemid": "queue_item",
    "endpointid": "webhook", "deliveryid": "delivery", "serviceid": "service", "ids": "notification",
}
ID_OF_FIELD = {"unit": "unit", "booking": "booking", "slotWaitlistEntry": "slot_entry",
               "capacityWaitlistEntry": "capacity_entry"}


def ids(world: World, kind: str | None) -> st.SearchStrategy[str]:
    """Mostly real ids of the right kind; also real ids of another kind or venue, random UUIDs and garbage."""
    every = sorted({i for values in world.ids.values() for i in values})
    right = world.ids.get(kind or "", []) or every
    return weighted((8, st.sampled_from(right)), (1, st.sampled_from(every)), (1, uuids()), (1, garbage_ids()))


def datetimes(strict: bool) -> st.SearchStrategy[str]:
    """ISO 8601 around the test's week, with and without offsets, and beyond what a datetime can hold (strict:
    what a datetime parser takes, naive ones and odd offsets included)."""
    aware = st.builds(lambda day, hour, minute, offset: f"2026-12-{day:02d}T{hour:02d}:{minute:02d}:00{offset}",
                      st.integers(6, 14), st.integers(0, 23), st.sampled_from([0, 0, 30, 15, 59]),
                      st.sampled_from(["-03:00", "-03:00", "Z", "+00:00", "+14:00", "-12:00", "+05:45"]))
    odd = st.sampled_from([
        "2026-12-08T10:00:00", "2026-12-08", "10:00", "2026-12-08T10:00:00.123456789-03:00", "2026-02-30T10:00:00Z",
        "2026-12-08T24:00:00Z", "0001-01-01T00:00:00+14:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59-12:00",
        "9999-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z",
        "2026-12-08T10:00:00+25:00", "2026-12-08T10:00:00+23:59", "2026-12-08T10:00:00-03", "2026-W50-1T10:00Z",
        "2026-12-08 10:00:00-03:00", "20261208T100000Z", "2026-12-08T10:00:00-03:00[America/Sao_Paulo]",
        "2026-10-18T00:30:00-03:00", "2027-02-21T23:30:00-03:00", "now", "", "  2026-12-08T10:00:00Z  "])
    parseable = st.one_of(st.datetimes().map(lambda d: d.isoformat()),
                          st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
                          st.sampled_from(["2026-12-08T10:00:00", "0001-01-01T00:00:00+14:00", "0001-01-01T00:00:00Z",
                                           "9999-12-31T23:59:59-12:00", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z",
                                           "2026-12-08T10:00:00+23:59", "2026-10-18T00:30:00-03:00",
                                           "2027-02-21T23:30:00-03:00", "2026-12-08T10:00:00.999999-03:00"]))
    if strict:
        return weighted((3, aware), (1, parseable))
    return weighted((2, aware), (1, odd), (1, parseable))


INT_HINTS: dict[str, list[int]] = {
    "first": [1, 10, 500, 501, 0, -1], "limit": [1, 10, 100, 1000, 0, -1], "since": [0, 1, 10, -1, 10**9],
    "slots": [1, 2, 3, 0, -1, 1000], "quantity": [1, 2, 12, 13, 0, -1], "partysize": [1, 2, 12, 13, 0, -1],
    "pricecents": [1000, 0, -1, 10**9], "depositpercent": [50, 0, 100, 101, -1], "depositcents": [500, 0, -1],
    "percent": [0, 50, 100, 101, -1], "ttlseconds": [0, 59, 60, 3600, 2_592_000, 2_592_001, -1],
}


def integers(name: str) -> st.SearchStrategy[int]:
    hints = INT_HINTS.get(name.lower(), [0, 1, -1, 5, 30, 60, 100])
    return st.one_of(st.sampled_from(hints), st.sampled_from([2**31 - 1, -(2**31)]), st.integers(-(2**31), 2**31 - 1))


STRING_HINTS: dict[str, list[str]] = {  # closed vocabularies are enums: their values come from the schema
    "phone": ["+5511912345678", "+55 11 91234-5678", "11912345678", "+1", "+999999999999999999", "+5511"],
    "email": ["ana@example.com", "ANA@EXAMPLE.COM", "a@b", "@", "a" * 300 + "@example.com"],
    "token": ["a" * 64, "0" * 64, "t", "x" * 65],
    "holdtype": ["CART", "RESERVED", "WAITLIST_OFFER", "cart", "FUZZ_TYPE", "PARTNER_HOLD", "A" * 200],
    "name": ["CART", "RESERVED", "FUZZ_TYPE", "Palco", "Ana", "lower_case", "WAITLIST_OFFER"],
    "url": ["https://hooks.example.com/b", "http://localhost:1/x", "http://127.0.0.1/x", "http://10.0.0.1/x",
            "https://[::1]/x", "ftp://example.com", "javascript:alert(1)", "https://", "https://x.com:99999/",
            "https://user:pass@example.com/", "file:///etc/passwd"],
    "displaycolor": ["#112233", "#FFF", "red", "#GGGGGG", "#1122334"],
    "code": ["000000", "123456", "1", "abcdef", "0" * 7],
    "contact": ["+5511912345678", "ana@example.com"],
    "to": ["+5511900000001", "ana@example.com"],
    "user": ["u1", "u9", ""],
}


def strings(world: World, name: str) -> st.SearchStrategy[str]:
    key = name.lower()
    hinted = list(STRING_HINTS.get(key, []))
    if key == "cpf":
        hinted += [*world.strings.get("cpf", []), "529.982.247-25", "52998224725", "52998224724", "000.000.000-00",
                   "111.111.111-11", "1234"]
    if key in ("phone", "contact", "to"):
        hinted += world.strings.get("phone", [])
    if key == "txid":
        hinted += [*world.strings.get("txid", []), "nope"]
    if hinted:
        return weighted((2, st.sampled_from(hinted)), (1, text()))
    return text()


def wrong_values() -> st.SearchStrategy[Any]:
    """Values of some other JSON type than the one expected."""
    return st.one_of(st.sampled_from([True, False, 0, -1, 2**31, -(2**31) - 1, 2**53 + 1, 10**30, 1.5, -0.0, 1e308,
                                      math.inf, -math.inf, math.nan, "", "1", [], {}, [None], {"a": 1}]),
                     st.text(max_size=10), st.floats(allow_nan=True))
