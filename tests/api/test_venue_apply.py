"""`slothold venue apply`: a venue file applied in one transaction — made from nothing, applied again with nothing
to change, a dry run that changes nothing, a refusal that leaves nothing half made (issue 18)."""

from __future__ import annotations

import asyncio
import re
import secrets
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from schema.ids import decode_id
from slothold.cli import main
from tests.live import live_api
from tests.venues import cpf

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
    assert code == 0 and re.fullmatch(r"Arena Pinheiros \(unit [0-9a-f-]{36}\): nothing to change", out.strip()), out
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


GRID = """query($u: ID!, $f: DateTime!, $t: DateTime!) { availabilityGrid(unitId: $u, from: $f, to: $t) {
  ... on Grid { rows { resource { name } segments { startsAt endsAt state bookingId } } } } }"""
HOLD = """mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id } }
  ... on Error { code message } } }"""
QUOTE = """query($b: ID!) { booking(id: $b) { ... on Booking { status paidCents quote { totalCents dueNowCents
  paymentRule } } } }"""
CONFIRM = """mutation($b: ID!) { confirm(bookingId: $b) { __typename ... on BookingPayload { booking { status }
  charge { txid amountCents } } ... on Error { code message } } }"""
PAY = "mutation($t: String!) { sandboxPay(txid: $t) { __typename ... on PaymentOutcome { outcome } } }"
ME = "{ me { kind role unitId } }"


def _dated(today: date) -> dict[str, str]:
    """The sample's dates moved to days after `today` (so the test does not age): a block, a holiday, special
    hours; and a prime-time Tuesday between now and the block."""
    return {"2026-12-15T08:00:00": f"{today + timedelta(days=14)}T08:00:00",
            "2026-12-15T12:00:00": f"{today + timedelta(days=14)}T12:00:00",
            "date = 2026-12-25": f"date = {today + timedelta(days=24)}",
            "date = 2027-01-01": f"date = {today + timedelta(days=31)}",
            "date = 2026-12-24": f"date = {today + timedelta(days=23)}"}


def _secrets(out: str) -> dict[str, str]:
    return dict(re.findall(r"secret of '([^']+)' \(shown only now\): (\S+)", out))


async def test_a_venue_built_from_nothing_by_the_cli_sells_prime_time_at_its_band(
        database_url: str, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 18's proof: no SQL, no seed-demo — the CLI applies the venue file (tenant, unit, four fields and a
    class, hours with a holiday, a maintenance block, a service with two price bands, staff tokens); then, through
    the API, the arena's app holds a weeknight slot for a customer, who sees the band's price and deposit and pays,
    and the grid shows it with the block and the holiday."""
    tz = ZoneInfo("America/Sao_Paulo")
    today = datetime.now(tz).date()
    path, _ = venue_file(tmp_path, **_dated(today))
    code, out = await run(database_url, capsys, str(path))
    assert code == 0, out
    tokens = _secrets(out)
    assert set(tokens) == {"Dono", "Recepção", "Gerência", "App da arena"}
    async with live_api(database_url, redis_url) as live:
        me = (await live.gql(tokens["Dono"], ME))["me"]
        assert (me["kind"], me["role"]) == ("STAFF", "OWNER")
        unit = me["unitId"]
        services = (await live.gql(None, "query($u: ID!) { services(unitId: $u) { id name } }", {"u": unit}))
        society = next(s["id"] for s in services["services"] if s["name"] == "Futebol society")
        fields = {r["resource"]["name"]: r for r in (await live.gql(tokens["Recepção"], GRID, {
            "u": unit, "f": datetime.now(tz).isoformat(), "t": (datetime.now(tz) + timedelta(hours=1)).isoformat()}
        ))["availabilityGrid"]["rows"]}
        assert set(fields) == {"Campo 1", "Campo 2", "Campo 3", "Campo 4", "Aula de beach tennis"}
        ids = (await live.gql(tokens["Dono"], "query($u: ID!) { venueResources(unitId: $u) { id name } }",
                              {"u": unit}))["venueResources"]
        campo = {r["name"]: r["id"] for r in ids}
        # The first Tuesday at least two days away, 20:00: the weeknight band (R$ 250, 50 % deposit).
        tuesday = today + timedelta(days=2 + (1 - (today + timedelta(days=2)).weekday()) % 7)
        start = datetime.combine(tuesday, time(20), tz)
        held = (await live.gql(tokens["App da arena"], HOLD, {"i": {
            "unitId": unit, "resourceIds": [campo["Campo 1"]], "serviceId": society, "startsAt": start.isoformat(),
            "endsAt": (start + timedelta(hours=1)).isoformat(), "customer": {"cpf": cpf(771_001), "name": "Lia"}}}))
        assert held["hold"]["__typename"] == "BookingPayload", held
        bid = held["hold"]["booking"]["id"]
        quote = (await live.gql(tokens["App da arena"], QUOTE, {"b": bid}))["booking"]["quote"]
        assert (quote["totalCents"], quote["dueNowCents"], quote["paymentRule"]) == (25000, 12500, "DEPOSIT_PERCENT")
        done = (await live.gql(tokens["App da arena"], CONFIRM, {"b": bid}))["confirm"]
        assert done["charge"]["amountCents"] == 12500, done
        assert (await live.gql(None, PAY, {"t": done["charge"]["txid"]}))["sandboxPay"]["outcome"] == "CONFIRMED"
        booking = (await live.gql(tokens["Recepção"], QUOTE, {"b": bid}))["booking"]
        assert (booking["status"], booking["paidCents"]) == ("CONFIRMED", 12500)

        async def states(day: date, name: str) -> set[str]:
            begin = datetime.combine(day, time(0), tz)
            grid = (await live.gql(tokens["Recepção"], GRID, {"u": unit, "f": begin.isoformat(),
                                                              "t": (begin + timedelta(days=1)).isoformat()}))
            row = next(r for r in grid["availabilityGrid"]["rows"] if r["resource"]["name"] == name)
            return {s["state"] for s in row["segments"] if s["bookingId"] == bid} or {s["state"] for s in
                                                                                    row["segments"]}

        assert await states(tuesday, "Campo 1") >= {"BOOKED"}
        assert "BLOCKED" in await states(today + timedelta(days=14), "Campo 4")
        assert await states(today + timedelta(days=24), "Campo 2") == {"CLOSED"}


async def test_a_change_that_would_orphan_a_live_booking_is_refused_naming_it(
        database_url: str, redis_url: str, pool: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tz = ZoneInfo("America/Sao_Paulo")
    today = datetime.now(tz).date()
    path, _ = venue_file(tmp_path, **_dated(today))
    code, out = await run(database_url, capsys, str(path))
    assert code == 0, out
    app = _secrets(out)["App da arena"]
    async with live_api(database_url, redis_url) as live:
        unit = (await live.gql(_secrets(out)["Dono"], ME))["me"]["unitId"]
        campo = {r["name"]: r["id"] for r in (await live.gql(_secrets(out)["Dono"], "query($u: ID!) { "
                                                             "venueResources(unitId: $u) { id name } }",
                                                             {"u": unit}))["venueResources"]}
        start = datetime.combine(today + timedelta(days=3), time(10), tz)
        held = (await live.gql(app, HOLD, {"i": {
            "unitId": unit, "resourceIds": [campo["Campo 4"]], "startsAt": start.isoformat(),
            "endsAt": (start + timedelta(hours=1)).isoformat(), "customer": {"cpf": cpf(771_002)}}}))
        bid = held["hold"]["booking"]["id"]
    # The file without Campo 4 (and a parameter changed): deactivating it would orphan the hold.
    text = path.read_text(encoding="utf-8")
    text = text.replace('[[resources]]\nname = "Campo 4"\ngroup = "Society"\n\n', "")
    text = text.replace('"Campo 3", "Campo 4"]', '"Campo 3"]').replace("maxAdvanceDays = 60", "maxAdvanceDays = 45")
    text = text.replace('resource = "Campo 4"', 'resource = "Campo 3"')
    path.write_text(text, encoding="utf-8")
    for dry in (["--dry-run"], []):
        code, out = await run(database_url, capsys, str(path), *dry)
        assert code == 2, out
        assert "refused, nothing applied" in out and str(decode_id(bid)[1]) in out, out  # the CLI prints UUIDs
    assert await pool.fetchval("SELECT max_advance_days FROM units WHERE id = $1", decode_id(unit)[1]) == 60
    assert await pool.fetchval("SELECT active FROM resources WHERE id = $1", decode_id(campo["Campo 4"])[1])
