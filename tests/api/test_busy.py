"""Busy (a lock timeout, a lost database connection) reaches the client as a retryable answer, whatever the
operation: a typed Busy result where the result union has one, else a top-level error with code busy."""

from __future__ import annotations

from typing import Any

import pytest

from domain import waitlist
from domain.errors import Busy
from tests.api.conftest import Api
from tests.venues import arena, at, cpf

JOIN = ("mutation($u: ID!, $r: ID!, $s: DateTime!, $e: DateTime!) { joinSlotWaitlist(unitId: $u, resourceId: $r, "
        'startsAt: $s, endsAt: $e, customer: {cpf: "' + cpf(4321) + '"}) { __typename } }')


async def test_busy_without_a_union_member_is_a_top_level_busy_error(api: Api, pool: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    v = await arena(pool)

    async def busy(*a: Any, **k: Any) -> Any:
        raise Busy("the database connection was lost; try again")

    monkeypatch.setattr(waitlist, "join_slot_waitlist", busy)
    r = await api.http.post("/graphql", json={"query": JOIN, "variables": {
        "u": str(v.unit_id), "r": str(v.resource_ids["Campo 1"]), "s": at(8, 9).isoformat(),
        "e": at(8, 10).isoformat()}})
    body = r.json()
    assert r.status_code == 200
    assert [e["extensions"]["code"] for e in body["errors"]] == ["busy"], body
    assert "try again" in body["errors"][0]["message"]
