"""HTTP caching of GraphQL answers: public reads by GET may be kept by a CDN, everything else by nobody.

An answer is public (``Cache-Control: public, max-age=N`` and a strong ``ETag``; ``If-None-Match`` → 304) when the
request is a GET without ``Authorization``, the operation it ran is a query whose root fields are all public reads
(the same answer for every anonymous caller: ``unit``, ``bookableSlots``, ``holdTypes``, ``seatMap``, ...), and the
answer has no error. Any other answer of the endpoint (POST, authenticated, errors, refusals) is
``Cache-Control: private, no-store``. Every answer varies on ``Accept`` (its media type), ``Authorization`` and
``Origin`` (the CORS headers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from typing import TYPE_CHECKING, Final

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
)
from starlette.responses import Response

from api.graphql.operations import parse_document

if TYPE_CHECKING:
    from starlette.requests import Request

PRIVATE: Final = "private, no-store"
VARY: Final = ("Accept", "Authorization", "Origin")
CACHEABLE_STATE: Final = "graphql_public_read"
"""The request-state flag the view sets when the answer it is building may be public."""


def _root_fields(selection_set: SelectionSetNode, fragments: dict[str, FragmentDefinitionNode],
                 seen: frozenset[str] = frozenset()) -> list[str] | None:
    """The names of the root fields an operation selects (through its fragments); None when it cannot tell."""
    names: list[str] = []
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            names.append(selection.name.value)
            continue
        if isinstance(selection, InlineFragmentNode):
            inner = _root_fields(selection.selection_set, fragments, seen)
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            fragment = fragments.get(name)
            if fragment is None or name in seen:
                return None
            inner = _root_fields(fragment.selection_set, fragments, seen | {name})
        else:
            return None
        if inner is None:
            return None
        names += inner
    return names


def reads_only(query: str | None, operation_name: str | None, public_fields: Collection[str],
               max_tokens: int | None = None) -> bool:
    """Whether the operation a request runs is a query of public root fields only (`__typename` included)."""
    if not isinstance(query, str) or not public_fields:
        return False
    document = parse_document(query, max_tokens)
    return document is not None and document_reads_only(document, operation_name, public_fields)


def document_reads_only(document: DocumentNode, operation_name: str | None, public_fields: Collection[str]) -> bool:
    """Whether the operation to run is a query whose root fields (through fragments too) are all `public_fields`
    or `__typename` (slothold/read_routing.py routes the same operations to a replica)."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = [op for op in operations if operation_name is None or (op.name and op.name.value == operation_name)]
    if len(chosen) != 1 or chosen[0].operation is not OperationType.QUERY:
        return False
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    names = _root_fields(chosen[0].selection_set, fragments)
    return bool(names) and all(name in public_fields or name == "__typename" for name in names or ())


def public_request(request: Request) -> bool:
    """A GET from an anonymous caller: the only requests whose answers may be shared."""
    return request.method == "GET" and "authorization" not in request.headers


def apply_cache_headers(request: Request, response: Response, max_age: int) -> Response:
    """Cache-Control, Vary and (for a public answer) ETag on one of the endpoint's answers; a 304 when the caller
    already holds the answer (If-None-Match)."""
    vary = [v.strip() for v in response.headers.get("vary", "").split(",") if v.strip()]
    response.headers["vary"] = ", ".join([*vary, *(v for v in VARY if v.lower() not in {x.lower() for x in vary})])
    public = (max_age > 0 and response.status_code == 200 and public_request(request)
              and getattr(request.state, CACHEABLE_STATE, False))
    if not public:
        response.headers.setdefault("cache-control", PRIVATE)
        return response
    response.headers["cache-control"] = f"public, max-age={max_age}"
    body = getattr(response, "body", b"")
    etag = '"' + hashlib.sha256(body + response.headers.get("content-type", "").encode()).hexdigest()[:32] + '"'
    response.headers["etag"] = etag
    wanted = {tag.strip().removeprefix("W/") for tag in request.headers.get("if-none-match", "").split(",")}
    if etag in wanted or "*" in wanted:
        kept = {k: v for k, v in response.headers.items() if k in ("cache-control", "etag", "vary")}
        return Response(status_code=304, headers=kept)
    return response
