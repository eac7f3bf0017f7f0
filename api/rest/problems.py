"""RFC 9457 problem details: the REST door's refusals, with the same `code` as GraphQL gives for the same refusal.

A problem is ``{"type", "title", "status", "detail", "code", "instance", ...}`` with `application/problem+json`;
the extension members are the fields of the GraphQL refusal (SlotTaken's `alternatives` and `waitlist`,
InvalidInput's `field`, CooldownActive's `until`...) or of a top-level error's `extensions` (`field`,
`retryAfterSeconds`). `type` is ``urn:slothold:problem:<code>``; `title` depends on the code alone.

The HTTP status is chosen by code (`status_of`): 400 bad input, 401 unauthenticated, 403 forbidden, 404 not found,
409 a conflict with the state of things (the slot was taken, the booking is in another state, a request under the
same key is in progress), 422 a rule refuses a well-formed request (too soon, cooldown, key reused for another
request), 429 too many, 503 retry shortly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from starlette.responses import Response

from domain.errors import ErrorCode

PROBLEM_JSON: Final = "application/problem+json"
TYPE_PREFIX: Final = "urn:slothold:problem:"

_STATUS: Final[dict[str, int]] = {
    # access
    ErrorCode.UNAUTHENTICATED: 401, ErrorCode.FORBIDDEN: 403, ErrorCode.NOT_FOUND: 404,
    # conflicts with the state of things
    ErrorCode.SLOT_TAKEN: 409, ErrorCode.SLOT_HELD: 409, ErrorCode.INVALID_TRANSITION: 409,
    ErrorCode.IDEMPOTENCY_IN_PROGRESS: 409, ErrorCode.OPEN_HOLD_EXISTS: 409, ErrorCode.SEATS_UNAVAILABLE: 409,
    ErrorCode.IDENTITY_CONFLICT: 409, ErrorCode.BOOKINGS_IN_THE_WAY: 409, ErrorCode.SLOT_BLOCKED: 409,
    ErrorCode.ALREADY_WAITING: 409,
    # a rule refuses a well-formed request
    ErrorCode.IDEMPOTENCY_KEY_REUSED: 422, ErrorCode.COOLDOWN: 422, ErrorCode.HOLD_CEILING: 422,
    ErrorCode.BLACKLISTED: 422, ErrorCode.CUSTOMER_BLOCKED: 422, ErrorCode.TOO_SOON: 422, ErrorCode.TOO_FAR: 422,
    ErrorCode.HOLD_TOO_SHORT: 422, ErrorCode.IN_THE_PAST: 422, ErrorCode.OFF_GRID: 422,
    ErrorCode.DURATION_NOT_OFFERED: 422, ErrorCode.RESOURCE_NOT_OFFERED: 422, ErrorCode.SERVICE_INACTIVE: 422,
    ErrorCode.TERMS_NOT_ACCEPTED: 422, ErrorCode.HOLD_TYPE_NOT_ALLOWED: 422, ErrorCode.RELEASE_NOT_ALLOWED: 422,
    ErrorCode.NOT_STARTED: 422, ErrorCode.EVENT_OVER: 422, ErrorCode.WAITLIST_CLOSED: 422,
    ErrorCode.WAITLIST_DISABLED: 422, ErrorCode.WRONG_CODE: 422, ErrorCode.PAYMENT_NOT_FOUND: 422,
    # too many, or not now
    ErrorCode.RATE_LIMITED: 429, ErrorCode.TOO_MANY_ATTEMPTS: 429,
    ErrorCode.BUSY: 503, ErrorCode.PAYMENT_UNAVAILABLE: 503,
    # the transport's own
    ErrorCode.METHOD_NOT_ALLOWED: 405, ErrorCode.NOT_ACCEPTABLE: 406, ErrorCode.BODY_TOO_LARGE: 413,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415, ErrorCode.INTERNAL_ERROR: 500,
}
"""The status of a refusal by its code; any other code (a malformed input, a document error) is 400."""

_RETRY_AFTER: Final = {503: "1"}
"""Retry-After of the statuses that always have one (429 takes the limiter's own)."""


def status_of(code: str) -> int:
    """The HTTP status of a refusal with this ErrorCode wire string."""
    return _STATUS.get(code, 400)


def title_of(code: str) -> str:
    """The problem type's short summary, the same for every problem of that code ("slot_taken" → "Slot taken")."""
    return code.replace("_", " ").capitalize()


def problem(code: str, detail: str, instance: str | None = None, status: int | None = None,
            extensions: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None) -> Response:
    """An `application/problem+json` response for a refusal with ErrorCode wire string `code`."""
    status = status or status_of(code)
    body: dict[str, Any] = {"type": TYPE_PREFIX + code, "title": title_of(code), "status": status,
                            "detail": detail, "code": code}
    if instance is not None:
        body["instance"] = instance
    for name, value in (extensions or {}).items():
        body.setdefault(name, value)  # a member never overrides the standard ones
    out = dict(headers or {})
    if status in _RETRY_AFTER:
        out.setdefault("retry-after", _RETRY_AFTER[status])
    if status == 401:
        out.setdefault("www-authenticate", 'Bearer error="invalid_token"')
    if status == 429 and "retryAfterSeconds" in body:
        out.setdefault("retry-after", str(body["retryAfterSeconds"]))
    return Response(json.dumps(body, separators=(",", ":"), ensure_ascii=False), status_code=status,
                    headers=out, media_type=PROBLEM_JSON)


def bad_request(detail: str, instance: str | None = None, code: str = ErrorCode.BAD_REQUEST,
                field: str | None = None) -> Response:
    """A 400 for a request the door cannot even hand to GraphQL (its JSON, a header it requires)."""
    return problem(code, detail, instance, 400, {"field": field} if field is not None else None)
