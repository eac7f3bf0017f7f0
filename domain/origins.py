"""The web origins allowed to call the API from a browser (CORS, issue 19): a venue's booking widget on its own site.

An owner lists their unit's origins (`setAllowedOrigins`); the platform adds its own (SLOTHOLD_CORS_ORIGINS). An
origin is what a browser sends in its `Origin` header: `scheme://host[:port]`, lower-case, without a path and
without the scheme's default port — https, or http only for localhost, 127.0.0.1 and [::1] (development). No
wildcard: each site is listed by name. Each change is in the venue log (entity `allowed_origins`).

A preflight names no unit, so the API lets in the union of every unit's origins and the platform's list
(api/cors.py); which unit a caller may act on is still decided by its token (domain/access.py). The API
authenticates by bearer token, never by cookie, so it never sends Access-Control-Allow-Credentials.
"""

from __future__ import annotations

import ipaddress
import string
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from domain import venue_log
from domain.errors import ErrorCode, InvalidInput
from domain.venue_log import ChangeAction, VenueChange

if TYPE_CHECKING:
    from domain.services.deps import Deps

MAX_ORIGINS = 20
"""At most this many origins per unit."""
MAX_LENGTH = 300
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
"""The hosts an origin may reach over plain http (a developer's machine)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}
_LABEL = frozenset(string.ascii_lowercase + string.digits + "-")
ENTITY = venue_log.VenueEntity.ALLOWED_ORIGINS.value
"""The venue log's entity of a change to a unit's origins."""


@dataclass(frozen=True)
class AllowedOrigin:
    """One origin a unit's owner registered."""

    origin: str
    created_at: datetime
    created_by: str
    """Who added it (Principal.key)."""


def _refuse(field: str, shown: str, why: str, code: ErrorCode = ErrorCode.INVALID_ORIGIN) -> InvalidInput:
    return InvalidInput(field, f"{shown[:80]!r}: {why}", code=code)


def _host(raw: str, field: str, shown: str) -> str:
    """The host part, lower-case and checked: a DNS name (IDN as punycode), an IPv4 address or a bracketed IPv6."""
    if raw.startswith("["):
        try:
            return f"[{ipaddress.IPv6Address(raw[1:-1]).compressed}]" if raw.endswith("]") else ""
        except ValueError:
            raise _refuse(field, shown, "not an IPv6 address") from None
    host = raw.lower()
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise _refuse(field, shown, "not a valid international domain name") from None
    labels = host.split(".")
    if all(label.isdigit() for label in labels):
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            raise _refuse(field, shown, "not an IPv4 address") from None
    if len(host) > 253 or any(not label or len(label) > 63 or not set(label) <= _LABEL or label[0] == "-"
                              or label[-1] == "-" for label in labels):
        raise _refuse(field, shown, "not a valid host name (letters, digits and hyphens between dots)")
    return host


def normalize_origin(raw: str, field: str = "origins") -> str:
    """The origin as a browser sends it (`scheme://host[:port]`, lower-case, default port left out), or
    InvalidInput naming it and what is wrong."""
    text = (raw or "").strip()
    if not text:
        raise InvalidInput(field, "an origin cannot be empty", code=ErrorCode.INVALID_ORIGIN)
    if len(text) > MAX_LENGTH:
        raise _refuse(field, text, f"an origin is at most {MAX_LENGTH} characters", ErrorCode.INVALID_ORIGIN)
    if "*" in text:
        raise _refuse(field, text, "wildcards are not accepted: list each site's origin, e.g. "
                      "https://www.example.com")
    if text.lower() == "null":
        raise _refuse(field, text, "the 'null' origin (sandboxed frames, local files) cannot be allowed")
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in _DEFAULT_PORTS:
        raise _refuse(field, text, "an origin starts with https:// (e.g. https://www.example.com)")
    if any(c in rest for c in "/?#\\"):
        raise _refuse(field, text, "an origin has no path, query or fragment: scheme://host[:port], e.g. "
                      "https://www.example.com")
    if "@" in rest:
        raise _refuse(field, text, "an origin has no user name or password")
    if not rest or any(not c.isprintable() or c.isspace() for c in rest):
        raise _refuse(field, text, "no host, or spaces or control characters in it")
    host_part, port_text = rest, ""
    colon = rest.rfind(":")
    if colon > rest.rfind("]"):
        host_part, port_text = rest[:colon], rest[colon + 1:]
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise _refuse(field, text, "the port must be a number from 1 to 65535")
    host = _host(host_part, field, text)
    if not host:
        raise _refuse(field, text, "not a valid host")
    if scheme == "http" and host not in LOCAL_HOSTS:
        raise _refuse(field, text, "a site needs https (http only for localhost, 127.0.0.1 or [::1], during "
                      "development)", ErrorCode.HTTPS_REQUIRED)
    port = int(port_text) if port_text else _DEFAULT_PORTS[scheme]
    return f"{scheme}://{host}" + ("" if port == _DEFAULT_PORTS[scheme] else f":{port}")


def checked_origins(origins: Sequence[str], field: str = "origins") -> tuple[str, ...]:
    """The unit's new list: each origin normalised, duplicates dropped, sorted; at most MAX_ORIGINS."""
    out = sorted({normalize_origin(o, field) for o in origins})
    if len(out) > MAX_ORIGINS:
        raise InvalidInput(field, f"at most {MAX_ORIGINS} origins per unit ({len(out)} given)",
                           code=ErrorCode.TOO_MANY_ORIGINS)
    return tuple(out)


def platform_origins(text: str) -> frozenset[str]:
    """The platform's list (SLOTHOLD_CORS_ORIGINS, comma-separated), normalised; ValueError naming a bad one."""
    out = set()
    for item in (t.strip() for t in text.split(",")):
        if item:
            try:
                out.add(normalize_origin(item, "SLOTHOLD_CORS_ORIGINS"))
            except InvalidInput as e:
                raise ValueError(f"SLOTHOLD_CORS_ORIGINS: {e}") from None
    return frozenset(out)


async def set_allowed_origins(deps: Deps, unit_id: UUID, origins: Sequence[str], session: str
                              ) -> list[AllowedOrigin] | None:
    """Replace the unit's origins (checked first; an origin kept keeps when it was added), logging the change
    with who made it. None: no such unit."""
    wanted = checked_origins(origins)
    async with deps.uow() as uow:
        current = await uow.allowed_origins.lock(unit_id)
        if current is None:
            return None
        before = sorted(o.origin for o in current)
        if before == list(wanted):
            return current
        now = deps.clock.now()
        await uow.allowed_origins.replace(unit_id, wanted, session, now)
        await venue_log.note(uow, unit_id, VenueChange(ENTITY, str(unit_id), ChangeAction.UPDATED, session,
                                                       {"origins": list(before)}, {"origins": list(wanted)}), now)
        found = await uow.allowed_origins.of_unit(unit_id)
        await uow.commit()
    return found


async def allowed_origins(deps: Deps, unit_id: UUID) -> list[AllowedOrigin]:
    """The unit's registered origins, alphabetically."""
    async with deps.uow() as uow:
        return await uow.allowed_origins.of_unit(unit_id)
