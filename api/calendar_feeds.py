"""Calendar feeds at their URL (issue 23): `GET /calendar/{secret}.ics`, an iCalendar (RFC 5545) document built with
the `icalendar` library from what domain/calendar_feeds.py says the feed shows.

Each booking is one VEVENT: UID `<booking id>@slothold` (the same for the life of the booking, so apps update the
event in place), DTSTART/DTEND in UTC, SUMMARY the service or field (and, in staff feeds, the customer's name; a
booking not yet confirmed says "a confirmar", since most apps do not show STATUS:TENTATIVE), STATUS TENTATIVE or
CONFIRMED, LOCATION the field and the venue, DESCRIPTION the status in words and the booking's link, URL that link,
SEQUENCE the booking's version and LAST-MODIFIED/DTSTAMP its last change: the document is a function of the
bookings alone, so its ETag (a digest of the body) stays the same until one of them changes, and a poll with
If-None-Match is answered 304 without a body. A secret that is no live feed's — malformed, unknown or revoked — is a
404 with an empty body, the same for each. The link to a booking is its REST address (`/v1/bookings/{id}`), where a
signed-in client reads it.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from icalendar import Calendar, Event
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from domain.calendar_feeds import PATH, STATUS_LABELS, SUFFIX, FeedCalendar, FeedEvent, FeedScope, feed_calendar
from domain.claim_links import PATHS as CLAIM_PATHS
from schema.ids import Kind, global_id

MEDIA_TYPE = "text/calendar; charset=utf-8"
REFRESH_MINUTES = 15
"""What the document suggests as a polling interval (REFRESH-INTERVAL, X-PUBLISHED-TTL)."""
_HEADERS = {"cache-control": "private, no-cache", "referrer-policy": "no-referrer", "x-robots-tag": "noindex"}
_NOT_FOUND = {"cache-control": "no-store", "referrer-policy": "no-referrer", "x-robots-tag": "noindex"}


def logged_path(path: str) -> str:
    """A request path as the request log writes it: a feed's secret, or a claim link's token, never reaches the
    logs (each is named by its route instead)."""
    if path.startswith(PATH):
        return f"{PATH}{{secret}}{SUFFIX}"
    for prefix in CLAIM_PATHS.values():
        if path.startswith(prefix):
            return prefix + "{token}"
    return path


def booking_link(base_url: str, booking_id: Any) -> str:
    """Where a booking is read (the REST door's address of it)."""
    return f"{base_url}/v1/bookings/{global_id(Kind.BOOKING, booking_id)}"


def _calendar_name(cal: FeedCalendar) -> str:
    if cal.feed.scope is FeedScope.CUSTOMER:
        return f"Minhas reservas · {cal.unit_name}"
    if cal.feed.scope is FeedScope.RESOURCE:
        return f"Agenda · {cal.resource_name or ''} · {cal.unit_name}"
    return f"Agenda · {cal.unit_name}"


def _event(e: FeedEvent, cal: FeedCalendar, base_url: str) -> Event:
    where = ", ".join(e.resources)
    what = " · ".join(x for x in (e.service, where) if x) or "Reserva"
    staff = cal.feed.scope.staff
    summary = f"{what} — {e.customer_name}" if staff and e.customer_name else what
    if e.tentative:
        summary += " (a confirmar)"
    link = booking_link(base_url, e.booking_id)
    lines = [f"Situação: {STATUS_LABELS[e.status]}"]
    if where:
        lines.append(f"Local: {where} · {cal.unit_name}")
    if e.quantity > 1:
        lines.append(f"Quantidade: {e.quantity}")
    if staff and e.customer_name:
        lines.append(f"Cliente: {e.customer_name}")
    lines.append(f"Reserva: {link}")
    event = Event()
    event.add("uid", f"{e.booking_id}@slothold")
    event.add("dtstamp", e.updated_at)
    event.add("last-modified", e.updated_at)
    event.add("sequence", e.version)
    event.add("dtstart", e.starts_at)
    event.add("dtend", e.ends_at)
    event.add("summary", summary)
    event.add("location", " · ".join(x for x in (where, cal.unit_name) if x))
    event.add("description", "\n".join(lines))
    event.add("url", link)
    event.add("status", "TENTATIVE" if e.tentative else "CONFIRMED")
    event.add("transp", "OPAQUE")
    return event


def render(cal: FeedCalendar, base_url: str) -> bytes:
    """The feed as an iCalendar document (CRLF lines folded at 75 octets, as the library writes them)."""
    doc = Calendar()
    doc.add("prodid", "-//Slothold//Calendar feed//PT-BR")
    doc.add("version", "2.0")
    doc.add("calscale", "GREGORIAN")
    name = _calendar_name(cal)
    doc.add("name", name)  # RFC 7986
    doc.add("x-wr-calname", name)  # the older spelling most apps read
    doc.add("x-wr-timezone", cal.timezone)
    doc.add("refresh-interval", timedelta(minutes=REFRESH_MINUTES), parameters={"VALUE": "DURATION"})
    doc.add("x-published-ttl", f"PT{REFRESH_MINUTES}M")
    for e in cal.events:
        doc.add_component(_event(e, cal, base_url))
    body: bytes = doc.to_ical()
    return body


def _matches(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match header names this ETag (weakly, as RFC 9110 asks for GET), or is `*`."""
    tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    return "*" in tags or etag in tags


def calendar_routes(state: dict[str, Any]) -> list[BaseRoute]:
    """The feeds' route (HEAD too, as Starlette adds it to GET routes)."""

    async def feed(request: Request) -> Response:
        deps = state["deps"]
        cal = await feed_calendar(deps, request.path_params["secret"])
        if cal is None:
            return Response(b"", status_code=404, headers=_NOT_FOUND)
        body = render(cal, deps.public_base_url)
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {**_HEADERS, "etag": etag}
        if _matches(request.headers.get("if-none-match", ""), etag):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=MEDIA_TYPE, headers={
            **headers, "content-disposition": 'inline; filename="slothold.ics"'})

    return [Route(f"{PATH}{{secret}}{SUFFIX}", feed, methods=["GET"])]
