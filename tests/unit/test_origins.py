"""Origins of CORS (domain/origins.py): what an owner or the platform may allow, as browsers send it."""

from __future__ import annotations

import pytest

from domain.errors import ErrorCode, InvalidInput
from domain.origins import MAX_ORIGINS, checked_origins, normalize_origin, platform_origins
from slothold.settings import Settings


@pytest.mark.parametrize(("given", "origin"), [
    ("https://www.example.com", "https://www.example.com"),
    ("  HTTPS://Www.Example.COM ", "https://www.example.com"),
    ("https://example.com:443", "https://example.com"),  # browsers leave the default port out of Origin
    ("https://example.com:8443", "https://example.com:8443"),
    ("http://localhost:5173", "http://localhost:5173"),
    ("http://127.0.0.1", "http://127.0.0.1"),
    ("http://127.0.0.1:80", "http://127.0.0.1"),
    ("http://[::1]:8080", "http://[::1]:8080"),
    ("http://[0:0::1]", "http://[::1]"),
    ("https://203.0.113.7", "https://203.0.113.7"),
    ("https://exämple.com", "https://xn--exmple-cua.com"),  # as the browser sends an international name
    ("https://a-b.example.com.br", "https://a-b.example.com.br"),
])
def test_an_origin_is_kept_as_browsers_send_it(given: str, origin: str) -> None:
    assert normalize_origin(given) == origin


@pytest.mark.parametrize(("given", "code", "why"), [
    ("http://www.example.com", ErrorCode.HTTPS_REQUIRED, "needs https"),
    ("http://10.0.0.5", ErrorCode.HTTPS_REQUIRED, "needs https"),
    ("https://www.example.com/", ErrorCode.INVALID_ORIGIN, "no path"),
    ("https://www.example.com/widget", ErrorCode.INVALID_ORIGIN, "no path"),
    ("https://www.example.com?x=1", ErrorCode.INVALID_ORIGIN, "no path"),
    ("https://*.example.com", ErrorCode.INVALID_ORIGIN, "wildcards"),
    ("*", ErrorCode.INVALID_ORIGIN, "wildcards"),
    ("null", ErrorCode.INVALID_ORIGIN, "'null' origin"),
    ("www.example.com", ErrorCode.INVALID_ORIGIN, "starts with https://"),
    ("ftp://www.example.com", ErrorCode.INVALID_ORIGIN, "starts with https://"),
    ("https://user:pw@www.example.com", ErrorCode.INVALID_ORIGIN, "user name"),
    ("https://www.example.com:0", ErrorCode.INVALID_ORIGIN, "port"),
    ("https://www.example.com:99999", ErrorCode.INVALID_ORIGIN, "port"),
    ("https://www.example.com:x", ErrorCode.INVALID_ORIGIN, "port"),
    ("https://exa mple.com", ErrorCode.INVALID_ORIGIN, "spaces"),
    ("https://under_score.com", ErrorCode.INVALID_ORIGIN, "host name"),
    ("https://-a.com", ErrorCode.INVALID_ORIGIN, "host name"),
    ("https://a..com", ErrorCode.INVALID_ORIGIN, "host name"),
    ("https://999.1.1.1", ErrorCode.INVALID_ORIGIN, "IPv4"),
    ("https://[::zz]", ErrorCode.INVALID_ORIGIN, "IPv6"),
    ("https://", ErrorCode.INVALID_ORIGIN, "no host"),
    ("", ErrorCode.INVALID_ORIGIN, "empty"),
    ("https://" + "a" * 300 + ".com", ErrorCode.INVALID_ORIGIN, "at most 300"),
])
def test_a_bad_origin_is_refused_by_name_with_its_code(given: str, code: ErrorCode, why: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        normalize_origin(given)
    assert refused.value.code == code and refused.value.field == "origins"
    assert why in refused.value.message
    if given.strip():
        assert repr(given.strip()[:80]) in refused.value.message  # it names the origin


def test_a_list_is_normalised_deduplicated_sorted_and_bounded() -> None:
    assert checked_origins(["https://B.example", "https://a.example", "https://b.example:443"]) == (
        "https://a.example", "https://b.example")
    assert checked_origins([]) == ()
    checked_origins([f"https://s{i}.example" for i in range(MAX_ORIGINS)])
    with pytest.raises(InvalidInput) as refused:
        checked_origins([f"https://s{i}.example" for i in range(MAX_ORIGINS + 1)])
    assert refused.value.code == ErrorCode.TOO_MANY_ORIGINS and str(MAX_ORIGINS) in refused.value.message


def test_the_platform_list_comes_from_the_setting_and_a_bad_entry_stops_the_start() -> None:
    assert platform_origins("") == frozenset()
    assert Settings(cors_origins=" https://Portal.example, ,http://localhost:3000 ").cors_origin_list() == {
        "https://portal.example", "http://localhost:3000"}
    with pytest.raises(ValueError, match=r"SLOTHOLD_CORS_ORIGINS: 'http://portal.example': a site needs https"):
        Settings(cors_origins="https://ok.example,http://portal.example").cors_origin_list()


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLOTHOLD_CORS_ORIGINS", "https://a.example,https://b.example")
    assert Settings.from_env().cors_origin_list() == {"https://a.example", "https://b.example"}
