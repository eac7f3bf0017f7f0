"""Relay cursor connections (issue 19): `XConnection { edges { cursor node } pageInfo { ... } }` for the lists
that grow, with `first`/`after` and `last`/`before` (https://relay.dev/graphql/connections.htm).

* **Pages by key, never by offset** (domain/pages.py, store/keyset.py): walking forwards and back while rows are
  added meets every row that existed when the walk began exactly once.
* **Cursors** are opaque: the unpadded URL-safe base64 of `[list, key...]` — the list's name and the values of
  its sort key (the row's id last). They are not ids: a cursor names a place in one list, and a cursor of another
  list, or anything else, is refused with InvalidInput naming `after` or `before` (code invalid_cursor).
* **first with last** is refused (code first_with_last): the spec allows both but discourages it, and what it
  answers — the last `last` of the first `first` — is never what a client meant. Either bounded like every page
  size (1..500, schema/pages.py); neither: the first DEFAULT_PAGE rows. `after` and `before` may come together.
* **pageInfo** follows the spec's algorithm; where it lets a server answer false (hasPreviousPage of a forward
  page after a cursor, hasNextPage of a backward page before one), one indexed EXISTS answers it right.
* **No totalCount**: counting a filtered list costs a scan of all its matches on every page, unbounded.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import datetime
from typing import Annotated, Any, Final, Generic, TypeVar
from uuid import UUID

import strawberry

from domain.errors import ErrorCode, InvalidInput
from domain.pages import Key, KeyValue, Ordering, Page, PageRequest
from schema.pages import MAX_PAGE_SIZE, page_size

T = TypeVar("T")

DEFAULT_PAGE: Final = 50
"""The page size when neither `first` nor `last` is given."""
MAX_CURSOR: Final = 400
"""The longest cursor accepted (the API's own are well under 200 characters)."""
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")

First = Annotated[int | None, strawberry.argument(description=(
    f"Forwards: at most this many items from the start of the list, or after `after` (1 to {MAX_PAGE_SIZE}; "
    f"without first or last, {DEFAULT_PAGE}). Not with `last`."))]
After = Annotated[str | None, strawberry.argument(description=(
    "A cursor this list gave (an edge's cursor, or pageInfo.endCursor): only the items after it."))]
Last = Annotated[int | None, strawberry.argument(description=(
    f"Backwards: at most this many items from the end of the list, or before `before` (1 to {MAX_PAGE_SIZE}), "
    "still in the list's order. Not with `first`."))]
Before = Annotated[str | None, strawberry.argument(description=(
    "A cursor this list gave (an edge's cursor, or pageInfo.startCursor): only the items before it."))]


@strawberry.type(description="Where a page sits in its whole list (Relay cursor connections).")
class PageInfo:
    has_next_page: bool = strawberry.field(description=(
        "Whether items follow this page: with `first`, more than it asked for; with `last` and `before`, any item "
        "at or after `before`."))
    has_previous_page: bool = strawberry.field(description=(
        "Whether items come before this page: with `last`, more than it asked for; with `first` and `after`, any "
        "item at or before `after`."))
    start_cursor: str | None = strawberry.field(description="The cursor of the page's first edge (null: no edges).")
    end_cursor: str | None = strawberry.field(description="The cursor of the page's last edge (null: no edges).")


@strawberry.type(description="An item of a page, with the cursor of its place in the list.")
class Edge(Generic[T]):
    cursor: str = strawberry.field(description=(
        "Opaque: pass it as `after` (or `before`) to go on from this item. A place in this list, not an id."))
    node: T = strawberry.field(description="The item.")


@strawberry.type(description=(
    "A page of a list, in the list's stable order: its edges (each item with its cursor) and where it sits. Walk on "
    "with first/after pageInfo.endCursor, back with last/before pageInfo.startCursor."))
class Connection(Generic[T]):
    edges: list[Edge[T]] = strawberry.field(description="The page's items, in the list's order.")
    page_info: PageInfo = strawberry.field(description="Whether there is more on either side, and the page's ends.")


def _plain(value: KeyValue) -> str | int:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    return value


def encode_cursor(ordering: Ordering, key: Key) -> str:
    """The cursor of the row with this key in the list."""
    raw = json.dumps([ordering.name, *(_plain(v) for v in key)], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode("ascii").rstrip("=")


def _value(kind: type, value: Any) -> KeyValue:
    """One value of a key as its type, or ValueError."""
    if kind is datetime and isinstance(value, str):
        at = datetime.fromisoformat(value)
        if at.utcoffset() is None:
            raise ValueError("naive")
        return at
    if kind is UUID and isinstance(value, str):
        return UUID(value)
    if kind is int and isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63:
        return value
    if kind is str and isinstance(value, str) and len(value) <= 200:
        return value
    raise ValueError(f"not a {kind.__name__}")


def decode_cursor(ordering: Ordering, cursor: str, argument: str) -> Key:
    """The key a cursor of this list names, or InvalidInput naming `argument` (a malformed cursor, or another
    list's)."""
    refused = InvalidInput(argument, f"`{argument}` is not a cursor of this list: pass back a cursor it gave "
                           "(edges' cursor, pageInfo's startCursor or endCursor)", code=ErrorCode.INVALID_CURSOR)
    if not 0 < len(cursor) <= MAX_CURSOR or not _BASE64URL.fullmatch(cursor):
        raise refused
    try:
        found = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(found, list) or len(found) != len(ordering.types) + 1 or found[0] != ordering.name:
            raise ValueError("another list's")
        return tuple(_value(kind, v) for kind, v in zip(ordering.types, found[1:], strict=True))
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        raise refused from None


def page_request(ordering: Ordering, first: int | None, after: str | None, last: int | None,
                 before: str | None, maximum: int = MAX_PAGE_SIZE) -> PageRequest:
    """What a connection's arguments ask for, checked: sizes in 1..maximum, cursors of this list."""
    if first is not None and last is not None:
        raise InvalidInput("last", "give `first` (with `after`) to walk forwards or `last` (with `before`) to walk "
                           "backwards, not both", code=ErrorCode.FIRST_WITH_LAST)
    after_key = decode_cursor(ordering, after, "after") if after is not None else None
    before_key = decode_cursor(ordering, before, "before") if before is not None else None
    if last is not None:
        return PageRequest(page_size(last, maximum, "last"), backward=True, after=after_key, before=before_key)
    size = page_size(first if first is not None else DEFAULT_PAGE, maximum)
    return PageRequest(size, backward=False, after=after_key, before=before_key)


def connection(page: Page[Any], ordering: Ordering) -> Connection[Any]:
    """The connection of a page read in this list's order (its items already the GraphQL type of the nodes)."""
    edges = [Edge(cursor=encode_cursor(ordering, key), node=node)
             for node, key in zip(page.items, page.keys, strict=True)]
    return Connection(edges=edges, page_info=PageInfo(
        has_next_page=page.has_next, has_previous_page=page.has_previous,
        start_cursor=edges[0].cursor if edges else None, end_cursor=edges[-1].cursor if edges else None))
