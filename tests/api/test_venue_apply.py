"""`slothold venue apply`: a venue file applied in one transaction — made from nothing, applied again with nothing
to change, a dry run that changes nothing, a refusal that leaves nothing half made (issue 18)."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest

from slothold.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "venue.sample.toml"


def venue_file(tmp_path: Path, text: str | None = None, **replace: str) -> tuple[Path, str]:
    """The sample (or `text`) under a tenant name of this test's own; (its path, the tenant's name)."""
    tenant = f"Arena {secrets.token_hex(4)}"
    body = (text or SAMPLE.read_text(encoding="utf-8")).replace('name = "Arena Pinheiros"\n', f'name = "{tenant}"\n', 1)
    for old, new in replace.items():
        assert old in body, old
        body = body.replace(old, new)
    path = tmp_path / "venue.toml"
    path.write_text(body, encoding="utf-8")
    return path, tenant


async def run(database_url: str, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = await asyncio.get_running_loop().run_in_executor(
        None, main, ["venue", "--database-url", database_url, "apply", *args])
    return code, capsys.readouterr().out


async def counts(pool: Any, tenant: str) -> dict[str, int]:
    row = await pool.fetchrow(
        "SELECT (SELECT count(*) FROM tenants WHERE name = $1) AS tenants, "
        "(SELECT count(*) FROM units u JOIN organizations o ON o.id = u.organization_id JOIN tenants t "
        " ON t.id = o.tenant_id WHERE t.name = $1) AS units, "
        "(SELECT count(*) FROM access_tokens a JOIN tenants t ON t.id = a.tenant_id WHERE t.name = $1) AS tokens, "
        "(SELECT count(*) FROM venue_changes c JOIN units u ON u.id = c.unit_id JOIN organizations o "
        " ON o.id = u.organization_id JOIN tenants t ON t.id = o.tenant_id WHERE t.name = $1) AS changes", tenant)
    return dict(row)


async def test_a_venue_is_made_from_its_file_and_applying_it_again_changes_nothing(
        database_url: str, pool: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, tenant = venue_file(tmp_path)
    code, out = await run(database_url, capsys, str(path), "--dry-run")
    assert code == 0, out
    assert "+ unit Arena Pinheiros" in out and "+ staff token Recepção" in out and "dry run" in out
    assert "slh_" not in out  # no secret of a token that was not made
    assert await counts(pool, tenant) == {"tenants": 0, "units": 0, "tokens": 0, "changes": 0}

    code, out = await run(database_url, capsys, str(path))
    assert code == 0, out
    assert out.count("(shown only now)") == 4 and "dry run" not in out
    made = await counts(pool, tenant)
    assert (made["tenants"], made["units"], made["tokens"]) == (1, 1, 4)
    sessions = await pool.fetch("SELECT DISTINCT session FROM venue_changes c JOIN units u ON u.id = c.unit_id "
                                "JOIN organizations o ON o.id = u.organization_id JOIN tenants t ON t.id = o.tenant_id "
                                "WHERE t.name = $1", tenant)
    assert [r["session"] for r in sessions] == ["cli"]

    code, out = await run(database_url, capsys, str(path))
    assert (code, out.strip()) == (0, "Arena Pinheiros: nothing to change")
    assert await counts(pool, tenant) == made

    # A changed parameter is one change, printed with its values before and after.
    path.write_text(path.read_text(encoding="utf-8").replace("maxAdvanceDays = 60", "maxAdvanceDays = 45"),
                    encoding="utf-8")
    code, out = await run(database_url, capsys, str(path))
    assert code == 0, out
    assert "~ parameters: maxAdvanceDays: 60 → 45" in out


async def test_a_refusal_anywhere_leaves_nothing_applied(database_url: str, pool: Any, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # The staff section comes last: by then the tenant, unit and contacts were made — in the same transaction.
    path, tenant = venue_file(tmp_path, **{'name = "Gerência"\nrole = "manager"': 'name = "Gerência"\nrole = "boss"'})
    code, out = await run(database_url, capsys, str(path))
    assert code == 2, out
    assert "staff[2].role" in out and "nothing applied" in out, out
    assert await counts(pool, tenant) == {"tenants": 0, "units": 0, "tokens": 0, "changes": 0}
    # A bad value a use case refuses is named by its field, and nothing is made either.
    path, tenant = venue_file(tmp_path, **{'alert_whatsapp = "+5511999990000"': 'alert_whatsapp = "12"'})
    code, out = await run(database_url, capsys, str(path))
    assert code == 2 and "refused, nothing applied: alertWhatsapp" in out, out
    assert await counts(pool, tenant) == {"tenants": 0, "units": 0, "tokens": 0, "changes": 0}
    # A problem in the file itself is named by its place, before anything runs.
    path, _ = venue_file(tmp_path, **{"slot_minutes = 60": "slot_minutes = \"sixty\""})
    code, out = await run(database_url, capsys, str(path))
    assert code == 2 and "unit.slot_minutes" in out, out
