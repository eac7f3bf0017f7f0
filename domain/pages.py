"""Keyset pages of the lists that grow (issue 19): which rows of an ordered list to read, and what was read.

Every such list has an `Ordering`: a name and the types of its sort key, which always ends with the row's own id
so that no two rows share a key. A page is asked for by the key it starts after and/or the key it ends before
(Relay's `after`/`before` cursors, decoded) and how many rows it may hold, read forwards (`first`) or backwards
(`last`). Reading by key, never by OFFSET, is what keeps the walk stable while rows are added: every row that
existed when a walk began is met exactly once, wherever new rows land. The store turns a PageRequest into SQL
(store/keyset.py); schema/connections.py turns it into a Relay connection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar
from uuid import UUID

T = TypeVar("T")
U = TypeVar("U")

KeyValue = datetime | UUID | int | str
Key = tuple[KeyValue, ...]


@dataclass(frozen=True)
class Ordering:
    """How one list is sorted: `name` tells its cursors from those of other lists, `types` are those of its key
    (the sort columns, the id last). `descending`: newest first."""

    name: str
    types: tuple[type, ...]
    descending: bool = False


@dataclass(frozen=True)
class PageRequest:
    """At most `limit` rows strictly after `after` and strictly before `before` (both keys of the ordering, either
    may be None), the first ones of that window, or its last ones when `backward`."""

    limit: int
    backward: bool = False
    after: Key | None = None
    before: Key | None = None


@dataclass(frozen=True)
class Page(Generic[T]):
    """The rows read, in the list's order, with each one's key; whether rows exist beyond each end of them."""

    items: list[T]
    keys: list[Key]
    has_next: bool
    has_previous: bool

    def map(self, convert: Callable[[T], U]) -> Page[U]:
        """The same page with each item converted."""
        return Page([convert(i) for i in self.items], self.keys, self.has_next, self.has_previous)
