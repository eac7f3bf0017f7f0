"""The venue file (`slothold venue apply`): the sample reads whole; each problem names its place in the file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from slothold.cli.venue_file import VenueFileError, parse_venue, read_venue_file

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "venue.sample.toml"
BASE = """
[tenant]
name = "T"
[organization]
name = "O"
[unit]
name = "U"
[[resources]]
name = "Campo 1"
"""


def test_the_sample_describes_a_whole_arena() -> None:
    v = read_venue_file(SAMPLE)
    assert (v.tenant, v.unit, v.timezone, v.slot_minutes) == ("Arena Pinheiros", "Arena Pinheiros",
                                                              "America/Sao_Paulo", 60)
    assert [r.name for r in v.resources][:4] == ["Campo 1", "Campo 2", "Campo 3", "Campo 4"]
    pooled = v.resources[4]
    assert (pooled.kind, pooled.capacity, pooled.hours is not None) == ("pooled", 8, True)
    assert len(v.hours) == 7 and v.hours[0].opens == 8 * 60 and v.hours[6].closes == 20 * 60
    closed = [e for e in v.exceptions if not e.windows]
    assert [str(e.day) for e in closed] == ["2026-12-25", "2027-01-01"]
    prime = v.services[0].bands[0]
    assert (prime.weekdays, prime.starts, prime.ends, prime.deposit_percent) == ((0, 1, 2, 3, 4), 1080, 1380, 50)
    assert v.blocks[0].resource == "Campo 4" and v.blocks[0].reason
    assert [s.kind for s in v.staff] == ["staff", "staff", "staff", "integrator"]


@pytest.mark.parametrize(("extra", "where"), [
    ("[[resources]]\nname = \"Campo 1\"\n", "resources[1].name"),
    ("[[resources]]\nname = \"Campo 2\"\ncapacity = 3\n", "resources[1].capacity"),
    ("[[resources]]\nname = \"Campo 2\"\nkind = \"shared\"\n", "resources[1].kind"),
    ("[hours]\nmonday = [\"23:00-08:00\"]\n", "hours.monday[0]"),
    ("[hours]\nfunday = [\"08:00-10:00\"]\n", "hours.funday"),
    ("[[closed]]\ndate = \"2026-12-25\"\n", "closed[0].date"),
    ("[[closed]]\ndate = 2026-12-25\nresource = \"Campo 9\"\n", "closed[0].resource"),
    ("[[blocks]]\nresource = \"Campo 1\"\nfrom = 2026-12-15T12:00:00\nto = 2026-12-15T08:00:00\n", "blocks[0].to"),
    ("[[blocks]]\nresource = \"Campo 1\"\nfrom = 2026-12-15T08:00:00-03:00\nto = 2026-12-15T12:00:00\n",
     "blocks[0].from"),
    ("[[services]]\nname = \"S\"\nprice_cents = 100\nresources = [\"Campo 7\"]\n", "services[0].resources[0]"),
    ("[[services]]\nname = \"S\"\nprice_cents = 100\n[[services.bands]]\nweekdays = [\"mon\"]\nfrom = \"18:00\"\n"
     "to = \"23:00\"\nprice_cents = 200\n", "services[0].bands[0].weekdays[0]"),
    ("[[staff]]\nname = \"A\"\nkind = \"robot\"\n", "staff[0].kind"),
    ("colour = \"blue\"\n", "resources[0].colour"),
    ("[colours]\nfield = \"green\"\n", "colours"),
])
def test_each_problem_names_its_place(extra: str, where: str) -> None:
    with pytest.raises(VenueFileError) as refused:
        parse_venue(tomllib.loads(BASE + extra))
    assert refused.value.where == where


def test_a_file_that_is_not_toml_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "venue.toml"
    bad.write_text("[unit\nname = ", encoding="utf-8")
    with pytest.raises(VenueFileError, match="not valid TOML"):
        read_venue_file(bad)
