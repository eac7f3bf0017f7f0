"""Page sizes of list fields: the `first` argument, its bounds and its description in the SDL."""

from __future__ import annotations

from typing import Final

from domain.errors import ErrorCode, InvalidInput

MAX_PAGE_SIZE: Final = 500
"""The most items one `first` argument may ask for."""
PAGE_ARGUMENT: Final = "first"


def page_size(first: int, maximum: int = MAX_PAGE_SIZE, argument: str = PAGE_ARGUMENT) -> int:
    """`first` if it is a page size the API serves; else an InvalidInput naming the argument (`first`, or `last`
    of a connection)."""
    if first > maximum:
        raise InvalidInput(argument, f"`{argument}` may be at most {maximum} (it was {first})",
                           code=ErrorCode.PAGE_TOO_LARGE)
    if first < 1:
        raise InvalidInput(argument, f"`{argument}` must be at least 1", code=ErrorCode.INVALID_PAGE_SIZE)
    return first


def page_description(default: int) -> str:
    """The SDL description of a `first` argument whose default is `default`."""
    return f"How many items to return at most (default {default}, at most {MAX_PAGE_SIZE})."
