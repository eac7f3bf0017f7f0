"""Domain refusals → GraphQL answers: the one pipeline, for every query, mutation and subscription field.

A resolver calls its use case and returns the value; a `DomainError` it raises is answered here:

- as the member of the field's result union that carries it: `MEMBERS` are strawberry exception handlers, which
  strawberry matches against each field's union once, when the schema is built (slothold/schema.py passes them);
- else — the union has no member for it, or the field has no union (a list, a subscription) — as a top-level error
  with `extensions.code` (and `extensions.field` for InvalidInput and NotFound): `top_level_extensions`, which
  slothold.schema.Masking applies to any DomainError that reaches the response.

Access refusals (Unauthenticated, Forbidden) have no member in any union: they are always top-level errors.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from strawberry.types.base import get_object_definition

from domain import errors as de
from domain import login
from domain.layout.errors import BookingsInTheWay
from schema import errors as se
from schema.layout import BookingsInTheWay as BookingsInTheWayType
from schema.seatmaps import SeatsUnavailable
from schema.series import SeriesConflicts

R = TypeVar("R", bound=de.DomainError)


@dataclass(frozen=True)
class AsMember(Generic[R]):
    """A strawberry exception handler: a refusal of `exception_type` (or a subclass) becomes `error_type`, built by
    `build`, in every field whose result union has `error_type` as a member."""

    exception_type: type[R]
    error_type: type[se.Error]
    build: Callable[[R], se.Error]

    def handle(self, exception: R, *, field: object, info: object) -> se.Error:
        return self.build(exception)

    @property
    def type_name(self) -> str:
        """The GraphQL name of `error_type`."""
        return get_object_definition(self.error_type, strict=True).name


MEMBERS: tuple[AsMember[Any], ...] = (
    AsMember(de.SlotTaken, se.SlotTaken, se.SlotTaken.from_domain),  # SlotHeld too (code slot_held)
    AsMember(de.InvalidTransition, se.InvalidTransition, se.InvalidTransition.from_domain),
    AsMember(de.InvalidInput, se.InvalidInput, se.InvalidInput.from_domain),  # IdentityConflict too
    AsMember(de.NotFound, se.NotFound, se.NotFound.from_domain),
    AsMember(de.IdempotencyKeyReused, se.IdempotencyKeyReused, se.IdempotencyKeyReused.from_domain),
    AsMember(de.IdempotencyInProgress, se.IdempotencyInProgress, se.IdempotencyInProgress.from_domain),
    AsMember(de.Busy, se.Busy, se.Busy.of),
    AsMember(de.PaymentUnavailable, se.PaymentUnavailable, se.PaymentUnavailable.of),
    AsMember(de.PaymentNotFound, se.PaymentNotFound, se.PaymentNotFound.of),
    AsMember(de.HoldLimitReached, se.HoldLimitReached, se.HoldLimitReached.from_domain),
    AsMember(de.CooldownActive, se.CooldownActive, se.CooldownActive.from_domain),
    AsMember(de.HoldCeilingReached, se.HoldCeilingReached, se.HoldCeilingReached.from_domain),
    AsMember(de.CustomerBlacklisted, se.CustomerBlacklisted, se.CustomerBlacklisted.from_domain),
    AsMember(de.SeatsUnavailable, SeatsUnavailable, SeatsUnavailable.from_domain),
    AsMember(login.TooManyAttempts, se.TooManyAttempts, se.TooManyAttempts.of),
    AsMember(login.WrongCode, se.WrongCode, se.WrongCode.of),
    AsMember(BookingsInTheWay, BookingsInTheWayType, BookingsInTheWayType.from_domain),
    AsMember(de.SeriesConflicts, SeriesConflicts, SeriesConflicts.from_domain),
)
"""Which refusal each error type carries. No refusal class here is a subclass of another, so a refusal matches one
entry at most and their order does not matter (tests/api/test_error_pipeline.py checks both)."""


def member_for(refusal: de.DomainError, members: Collection[str]) -> se.Error | None:
    """The error type carrying `refusal` among `members` (the GraphQL type names of a field's union), or None —
    for code that answers a refusal before the field's resolver runs (slothold/text_limits.py)."""
    for entry in MEMBERS:
        if isinstance(refusal, entry.exception_type) and entry.type_name in members:
            return entry.build(refusal)
    return None


def top_level_extensions(refusal: de.DomainError) -> dict[str, object]:
    """`extensions` of a refusal answered as a top-level error: its code, and the field InvalidInput and NotFound
    name."""
    extensions: dict[str, object] = {"code": str(refusal.code)}
    if isinstance(refusal, de.InvalidInput | de.NotFound):
        extensions["field"] = refusal.field
    return extensions
