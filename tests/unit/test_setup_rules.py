"""The set-up's pure rules (domain/setup.py, domain/staff_tokens.py): what a unit may be made of, and what a token
may hand out — including the cases no API caller can reach today (only owners issue, and owner is the top role)."""

from __future__ import annotations

from uuid import uuid4

import pytest

from domain.access import Forbidden, Principal, Role
from domain.errors import InvalidInput
from domain.setup import checked_currency, checked_slot_minutes, checked_timezone
from domain.staff_tokens import IssueToken, TokenKind, _checked_rights, _within_reach, checked_name

T, U = uuid4(), uuid4()


def test_a_unit_takes_iana_zones_slots_that_divide_a_day_and_iso_currencies() -> None:
    assert checked_timezone(" America/Sao_Paulo ") == "America/Sao_Paulo"
    assert checked_slot_minutes(90) == 90 and checked_slot_minutes(5) == 5 and checked_slot_minutes(240) == 240
    assert checked_currency("usd") == "USD"
    for bad in ("Mars/Olympus", "../etc/passwd", "", "america/sao_paulo"):
        with pytest.raises(InvalidInput) as e:
            checked_timezone(bad)
        assert e.value.field == "timezone" and e.value.code == "invalid_timezone"
    for minutes in (4, 7, 50, 241, 480, 0, -60):
        with pytest.raises(InvalidInput, match="divide a day"):
            checked_slot_minutes(minutes)
    for code in ("XAU", "XTS", "BR", "REAL", ""):
        with pytest.raises(InvalidInput):
            checked_currency(code)
    assert checked_name("  Arena   Sul ", "name", 20) == "Arena Sul"


def test_no_token_hands_out_more_than_it_holds() -> None:
    manager = Principal("staff", T, U, Role.MANAGER)
    owner = Principal("staff", T, U, Role.OWNER)
    reader = Principal("client", T, None, scopes=frozenset({"read"}))
    with pytest.raises(Forbidden, match="owner role is above"):
        _checked_rights(manager, IssueToken(U, T, TokenKind.STAFF, "x", role="owner"))
    assert _checked_rights(manager, IssueToken(U, T, TokenKind.STAFF, "x", role="operator")) == (Role.OPERATOR, ())
    with pytest.raises(Forbidden, match="'drop'"):
        _checked_rights(Principal("staff", T, U, Role.OPERATOR), IssueToken(U, T, TokenKind.INTEGRATOR, "x",
                                                                              scopes=("read", "drop")))
    with pytest.raises(Forbidden, match="'book'"):
        _checked_rights(reader, IssueToken(U, T, TokenKind.INTEGRATOR, "x", scopes=("book",)))
    assert _checked_rights(owner, IssueToken(U, T, TokenKind.INTEGRATOR, "x", scopes=("webhooks", "read"))) == (
        None, ("read", "webhooks"))
    # Reach: a unit's token covers that unit only (never the tenant); a tenant's, any of its units; the platform all.
    assert _within_reach(owner, T, U) and not _within_reach(owner, T, None) and not _within_reach(owner, T, uuid4())
    wide = Principal("staff", T, None, Role.OWNER)
    assert _within_reach(wide, T, None) and _within_reach(wide, T, uuid4()) and not _within_reach(wide, uuid4(), None)
    assert _within_reach(Principal("system"), uuid4(), None)
