"""The media types of GraphQL-over-HTTP: negotiating ``application/graphql-response+json`` or ``application/json``
from an Accept header, and the MIME type of a Content-Type."""

from __future__ import annotations

from typing import Final

from strawberry.http.parse_content_type import parse_content_type

GRAPHQL_RESPONSE_JSON: Final = "application/graphql-response+json"
APPLICATION_JSON: Final = "application/json"


def _parse_accept(header: str) -> list[tuple[str, str, float]]:
    ranges: list[tuple[str, str, float]] = []
    for part in header.split(","):
        media, *params = (piece.strip() for piece in part.split(";"))
        kind, slash, subtype = media.lower().partition("/")
        if not slash or not kind or not subtype:
            continue
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        ranges.append((kind, subtype, quality))
    return ranges


def negotiate_media_type(accept: str | None, default: str = APPLICATION_JSON) -> str | None:
    """Pick ``application/graphql-response+json`` or ``application/json`` for an Accept header; None → 406.

    An absent or empty header, and wildcards that rank both the same, give ``default``; when both types
    are listed explicitly with equal quality, ``application/graphql-response+json`` wins.
    """
    if accept is None or not accept.strip():
        return default
    ranges = _parse_accept(accept)
    best: tuple[float, int, bool] | None = None
    chosen: str | None = None
    for candidate in (GRAPHQL_RESPONSE_JSON, APPLICATION_JSON):
        kind, subtype = candidate.split("/")
        match: tuple[int, float] | None = None  # (specificity, quality) of the most specific range
        for range_kind, range_subtype, quality in ranges:
            if (range_kind, range_subtype) == (kind, subtype):
                specificity = 2
            elif range_kind == kind and range_subtype == "*":
                specificity = 1
            elif (range_kind, range_subtype) == ("*", "*"):
                specificity = 0
            else:
                continue
            if match is None or specificity > match[0]:
                match = (specificity, quality)
        if match is None or match[1] <= 0:
            continue
        preferred = candidate == GRAPHQL_RESPONSE_JSON if match[0] == 2 else candidate == default
        key = (match[1], match[0], preferred)
        if best is None or key > best:
            best, chosen = key, candidate
    return chosen


def _mime_type(content_type: str | None) -> str | None:
    if not content_type:
        return None
    return parse_content_type(content_type)[0].lower()
