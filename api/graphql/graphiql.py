"""GraphiQL served offline: strawberry's page with its unpkg assets pointed at this package's static files, and the
routes that serve them."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Final

from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from strawberry.http.ides import get_graphql_ide_html

STATIC_DIR: Final = Path(__file__).resolve().parents[1] / "static"


_UNPKG_PREFIX = "https://unpkg.com/"
# A <script ...> or <link ...> start tag; attribute values may contain ">" (the favicon's data: URI does).
_ASSET_TAG = re.compile(r"""<(?:script|link)\b(?:[^>"']|"[^"]*"|'[^']*')*>""", re.IGNORECASE)
_URL_ATTR = re.compile(r"""\b(src|href)\s*=\s*(["'])(.*?)\2""", re.IGNORECASE | re.DOTALL)
_DROPPED_ATTRS = re.compile(
    r"""\s+(?:integrity\s*=\s*(["']).*?\1|crossorigin(?:\s*=\s*(["']).*?\2)?)(?=[\s/>])""",
    re.IGNORECASE | re.DOTALL,
)


def static_routes() -> list[BaseRoute]:
    """Routes serving ``api/static`` (GraphiQL's assets) at ``/static``."""
    return [Mount("/static", StaticFiles(directory=STATIC_DIR), name="static")]


@functools.cache
def offline_graphiql_html(static_url: str = "/static/graphiql/") -> str:
    """Strawberry's GraphiQL page with its unpkg assets pointed at ``static_url``; fails if any is missing."""
    html = get_graphql_ide_html("graphiql")

    def rewrite_tag(tag: re.Match[str]) -> str:
        text = _URL_ATTR.sub(
            lambda m: (
                f"{m[1]}={m[2]}{static_url}{m[3].removeprefix(_UNPKG_PREFIX)}{m[2]}"
                if m[3].startswith(_UNPKG_PREFIX)
                else m[0]
            ),
            tag[0],
        )
        # Subresource-integrity and CORS attributes only make sense for the CDN copies.
        return _DROPPED_ATTRS.sub("", text)

    html = _ASSET_TAG.sub(rewrite_tag, html)

    for tag in _ASSET_TAG.finditer(html):
        for attr in _URL_ATTR.finditer(tag[0]):
            url = attr[3].strip()
            if url.startswith("data:"):
                continue
            if "://" in url or url.startswith("//"):
                raise RuntimeError(f"GraphiQL page still loads an external asset: {url}")
            if (
                url.startswith(static_url)
                and not (STATIC_DIR / "graphiql" / url.removeprefix(static_url)).is_file()
            ):
                raise RuntimeError(
                    f"GraphiQL asset {url} is not shipped under {STATIC_DIR / 'graphiql'}; "
                    "strawberry's template probably moved to new versions: fetch them from npm"
                )
    return html
