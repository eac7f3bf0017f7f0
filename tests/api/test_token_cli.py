"""`slothold token create|list|revoke` against the test database."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from slothold.cli import main
from store.access import PgAccess
from tests.venues import arena


async def test_tokens_are_issued_listed_and_revoked_from_the_cli(
    database_url: str, pool: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    v = await arena(pool)
    loop = asyncio.get_running_loop()

    def cli(*args: str) -> int:
        return main(["token", "--database-url", database_url, *args])

    code = await loop.run_in_executor(None, cli, "create", "--unit", str(v.unit_id), "--role", "manager",
                                      "--name", "Recepção")
    out = capsys.readouterr().out
    assert code == 0, out
    token = out.strip().splitlines()[-1]
    token_id = out.split()[1]
    principal = await PgAccess(pool).principal(token, datetime.now(UTC))
    assert principal is not None and principal.role == "manager" and principal.unit_id == v.unit_id
    assert await loop.run_in_executor(None, cli, "list") == 0
    listed = capsys.readouterr().out
    assert token_id in listed and "manager" in listed and token not in listed  # never the secret
    assert await loop.run_in_executor(None, cli, "revoke", token_id) == 0
    capsys.readouterr()
    assert await PgAccess(pool).principal(token, datetime.now(UTC)) is None
    assert await loop.run_in_executor(None, cli, "revoke", token_id) == 1  # already revoked
    capsys.readouterr()
    bad = await loop.run_in_executor(None, cli, "create", "--unit", str(v.unit_id), "--scopes", "read,fly",
                                     "--name", "x")
    assert bad == 2 and "unknown scope 'fly'" in capsys.readouterr().out


async def test_the_demo_owner_token_is_reused_while_live(database_url: str, pool: Any) -> None:
    from slothold.cli.demo import DEMO_UNIT_ID, demo_owner_token, seed_demo

    await seed_demo(database_url)
    first = await demo_owner_token(database_url, None)
    assert await demo_owner_token(database_url, first) == first
    who = await PgAccess(pool).principal(first, datetime.now(UTC))
    assert who is not None and who.role == "owner" and who.unit_id == DEMO_UNIT_ID
    await pool.execute("UPDATE access_tokens SET revoked_at = now() WHERE id = $1", who.token_id)
    second = await demo_owner_token(database_url, first)
    assert second != first and await PgAccess(pool).principal(second, datetime.now(UTC)) is not None
