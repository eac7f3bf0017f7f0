"""`slothold venue create` against the test database: tenant → organization → unit and its first owner token, by
the same use cases as GraphQL's createUnit, logged with the session "cli"."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest

from slothold.cli import main
from store.access import PgAccess


def _ids(out: str) -> dict[str, UUID]:
    return {m[0]: UUID(m[1]) for m in re.findall(r"^(tenant|organization|unit|owner token)\s+([0-9a-f-]{36})", out,
                                                 re.MULTILINE)}


async def test_venue_create_makes_a_unit_and_its_owner(database_url: str, pool: Any,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    loop = asyncio.get_running_loop()

    def cli(*args: str) -> int:
        return main(["venue", "--database-url", database_url, "create", *args])

    code = await loop.run_in_executor(None, cli, "--tenant", "Arena Norte Ltda", "--unit", "Arena Norte",
                                      "--timezone", "America/Recife", "--slot-minutes", "30", "--currency", "brl",
                                      "--owner-token-name", "Seu Zé")
    out = capsys.readouterr().out
    assert code == 0, out
    ids = _ids(out)
    assert set(ids) == {"tenant", "organization", "unit", "owner token"}, out
    secret = out.strip().splitlines()[-1]
    row = await pool.fetchrow("SELECT u.name, u.timezone, u.slot_minutes, u.currency, o.tenant_id, o.name AS org "
                              "FROM units u JOIN organizations o ON o.id = u.organization_id WHERE u.id = $1",
                              ids["unit"])
    assert dict(row) == {"name": "Arena Norte", "timezone": "America/Recife", "slot_minutes": 30, "currency": "BRL",
                         "tenant_id": ids["tenant"], "org": "Arena Norte Ltda"}
    owner = await PgAccess(pool).principal(secret, datetime.now(UTC))
    assert owner is not None and owner.role == "owner" and owner.unit_id == ids["unit"]
    assert owner.token_id == ids["owner token"]
    logged = await pool.fetch("SELECT entity, session FROM venue_changes WHERE unit_id = $1 ORDER BY id",
                              ids["unit"])
    assert [(r["entity"], r["session"]) for r in logged] == [("unit", "cli"), ("staff_token", "cli")]
    # A second unit of the same organization, without an owner token.
    code = await loop.run_in_executor(None, cli, "--organization-id", str(ids["organization"]), "--unit", "Anexo",
                                      "--no-owner-token")
    out = capsys.readouterr().out
    assert code == 0 and set(_ids(out)) == {"unit"} and "slh_s_" not in out, out
    # A bad value is refused by name before anything is created.
    tenants = await pool.fetchval("SELECT count(*) FROM tenants")
    for args, says in ((("--tenant", "T", "--unit", "U", "--timezone", "Mars/Base"), "--timezone"),
                       (("--tenant", "T", "--unit", "U", "--slot-minutes", "7"), "--slot-minutes"),
                       (("--tenant", "T", "--unit", "U", "--currency", "XXX"), "--currency"),
                       (("--unit", "U"), "give one of --tenant"),
                       (("--organization-id", "00000000-0000-4000-8000-000000000000", "--unit", "U"),
                        "organizationId")):
        code = await loop.run_in_executor(None, cli, *args)
        out = capsys.readouterr().out
        assert code == 2 and says in out and "Traceback" not in out, (args, out)
    assert await pool.fetchval("SELECT count(*) FROM tenants") == tenants
