"""The OpenAPI 3.1 document of the REST door, served at /v1/openapi.json.

Kept by hand, next to the documents it describes (api/rest/documents.py selects exactly the properties of the
Booking, Charge and Availability schemas here; tests/api/test_rest_openapi.py validates this document and checks
every response of the end-to-end flow against it).
"""

from __future__ import annotations

from typing import Any, Final

JSON: Final = "application/json"
PROBLEM: Final = "application/problem+json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(required: list[str], optional: dict[str, Any] | None = None, open_: bool = False,
         **props: Any) -> dict[str, Any]:
    """An object schema: `props` (all in `required` unless listed in `optional`)."""
    properties = {**props, **(optional or {})}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if not open_:
        schema["additionalProperties"] = False
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    return {**schema, "type": [schema["type"], "null"]}


STR: Final = {"type": "string"}
INT: Final = {"type": "integer"}
ID: Final = {"type": "string", "description": "An id as the API gives it (GraphQL's id of the same object)."}
TIME: Final = {"type": "string", "format": "date-time", "description": "RFC 3339, with an offset."}
CENTS: Final = {"type": "integer", "description": "Money in cents (BRL)."}
BOOKING_STATUSES: Final = ["HELD", "PENDING_PAYMENT", "VERIFYING", "CONFIRMED", "CHECKED_IN", "COMPLETED",
                           "CANCELLED", "NO_SHOW", "EXPIRED"]
CHARGE_STATUSES: Final = ["CREATING", "PENDING", "PAID", "CANCELLED", "EXPIRED", "FAILED"]
REFUND_STATUSES: Final = ["NOT_DUE", "REQUESTED", "SUCCEEDED", "FAILED"]
_RANGE: Final[dict[str, Any]] = {"resourceId": ID, "startsAt": TIME, "endsAt": TIME}

SCHEMAS: Final[dict[str, Any]] = {
    "Problem": _obj(
        ["type", "title", "status", "detail", "code"], open_=True,
        type={"type": "string", "format": "uri-reference", "description": "urn:slothold:problem:<code>"},
        title={"type": "string", "description": "A short summary of the problem type (the same for every code)."},
        status={"type": "integer", "minimum": 400, "maximum": 599},
        detail={"type": "string", "description": "What went wrong, for people (English)."},
        code={"type": "string", "pattern": "^[a-z_]+$",
              "description": "The same ErrorCode wire string GraphQL answers for this refusal (e.g. slot_taken)."},
        optional={"instance": {"type": "string", "format": "uri-reference"},
                  "field": {"type": "string", "description": "The input refused (a body field, a query or path "
                            "parameter, or a header such as Idempotency-Key)."},
                  "retryAfterSeconds": INT}),
    "SlotTakenProblem": {
        "description": "A 409 of POST /v1/holds: with code slot_taken or slot_held, the nearest free options and "
                       "the slot's waitlist (as GraphQL's SlotTaken).",
        "allOf": [_ref("Problem")],
        "if": {"properties": {"code": {"enum": ["slot_taken", "slot_held"]}}},
        "then": _obj(["alternatives", "waitlist", "resourceIds", "startsAt", "endsAt"], open_=True,
                     resourceIds={"type": "array", "items": ID}, startsAt=TIME, endsAt=TIME,
                     alternatives={"type": "array", "maxItems": 3, "items": _ref("SlotOption"),
                                   "description": "Up to 3 nearest free options, in time order."},
                     waitlist={"type": "array", "items": _ref("SlotOption"),
                               "description": "The waitlist of the taken slot: join it to be offered the slot."},
                     optional={"heldBookingId": _nullable(ID)}),
    },
    "SlotOption": _obj(list(_RANGE), **_RANGE),
    "Availability": _obj(["unitId", "slots"], unitId=ID, slots={"type": "array", "items": _ref("SlotOption")}),
    "Allocation": _obj([*_RANGE, "quantity"], **_RANGE, quantity=INT),
    "Acceptance": _obj(
        ["at", "channel", "contact", "priceVersion", "policyVersion", "paymentRule", "totalCents", "dueNowCents",
         "atVenueCents", "policySummary"],
        at=TIME, channel=STR, contact=_nullable(STR), priceVersion=_nullable(INT), policyVersion=INT,
        paymentRule=STR, totalCents=CENTS, dueNowCents=CENTS, atVenueCents=CENTS,
        policySummary={"type": "string", "description": "What the customer reads before accepting (RN-ATD-09)."}),
    "Refund": _obj(
        ["id", "paymentId", "paidCents", "amountCents", "percent", "policyVersion", "hoursBeforeStart", "status",
         "provider", "providerRef", "attempts", "error", "createdAt", "updatedAt"],
        id=ID, paymentId=ID, paidCents=CENTS, amountCents=CENTS, percent={"type": "integer", "minimum": 0,
                                                                           "maximum": 100},
        policyVersion=INT, hoursBeforeStart={"type": "number"}, status={"enum": REFUND_STATUSES}, provider=STR,
        providerRef=_nullable(STR), attempts=INT, error=_nullable(STR), createdAt=TIME, updatedAt=TIME),
    "Booking": _obj(
        ["id", "unitId", "status", "holdType", "channel", "startsAt", "endsAt", "holdExpiresAt", "createdAt",
         "customerId", "allocations", "dueNowCents", "paidCents", "refundedCents", "quote", "acceptance", "refunds",
         "swappedFrom", "swappedTo", "rescheduledFrom", "rescheduledTo"],
        id=ID, unitId=ID, status={"enum": BOOKING_STATUSES}, holdType=_nullable(STR), channel=STR, startsAt=TIME,
        endsAt=TIME, holdExpiresAt={**_nullable(TIME), "description": "The hold's deadline; null once settled."},
        createdAt=TIME, customerId=_nullable(ID), allocations={"type": "array", "items": _ref("Allocation")},
        dueNowCents={**CENTS, "description": "What is paid by Pix now (the rest at the venue)."},
        paidCents=CENTS, refundedCents=CENTS,
        quote={**_nullable(_ref("Acceptance")), "description": "While held: what confirming would accept."},
        acceptance={**_nullable(_ref("Acceptance")), "description": "What the customer accepted, as accepted."},
        refunds={"type": "array", "items": _ref("Refund")}, swappedFrom=_nullable(ID), swappedTo=_nullable(ID),
        rescheduledFrom=_nullable(ID), rescheduledTo=_nullable(ID)),
    "Charge": _obj(
        ["id", "txid", "provider", "amountCents", "status", "copiaECola", "qrCodePng", "expiresAt"],
        id=ID, txid={"type": "string", "description": "The Pix transaction id."}, provider=STR, amountCents=CENTS,
        status={"enum": CHARGE_STATUSES},
        copiaECola={**_nullable(STR), "description": "The BR Code payload (\"copia e cola\", EMV with CRC16)."},
        qrCodePng={**_nullable(STR), "description": "The QR image as a data: URI (PNG)."},
        expiresAt={**TIME, "description": "The charge expires a margin before the hold's deadline."}),
    "Confirmation": _obj(["booking", "charge"], booking=_ref("Booking"),
                         charge={**_nullable(_ref("Charge")),
                                 "description": "The Pix charge to pay; null when nothing is due (confirmed)."}),
    "Customer": _obj([], optional={"cpf": STR, "phone": {"type": "string", "description": "E.164"},
                                   "name": STR, "email": STR}),
    "HoldRequest": _obj(
        ["unitId", "startsAt", "endsAt", "customer"], unitId=ID, startsAt=TIME, endsAt=TIME,
        customer={**_ref("Customer"), "description": "Who the hold is for (a customer's session: themselves)."},
        optional={"resourceIds": _nullable({"type": "array", "items": ID}), "quantity": {**INT, "default": 1},
                  "serviceId": _nullable(ID), "holdType": _nullable(STR),
                  "channel": {"type": "string", "default": "api"}}),
    "ConfirmRequest": _obj([], optional={"contact": _nullable(STR), "channel": {"type": "string", "default": "api"}}),
    "CancelRequest": _obj([], optional={"reason": _nullable(STR)}),
}

_STATUS_TEXT: Final = {400: "Bad input: the body's JSON, a parameter, a missing Idempotency-Key header.",
                       401: "The bearer token is missing, unknown, expired or revoked.",
                       403: "The token may not do this (a customer books only for themselves; a token only in its "
                            "units).",
                       404: "Not found (an object the caller may not see answers exactly the same).",
                       405: "Another method than the path allows (see Allow).",
                       409: "A conflict with the state of things (the booking's state, a request under the same key "
                            "in progress, an open hold).",
                       413: "The body is too large.", 415: "The body is not application/json.",
                       422: "A rule refuses the request (too soon, cooldown, the key reused for another request...).",
                       429: "Too many requests: see Retry-After.", 503: "Retry shortly: see Retry-After."}
_HEADER: Final = {"schema": STR}


def _problem(status: int, schema: str = "Problem") -> dict[str, Any]:
    response: dict[str, Any] = {"description": _STATUS_TEXT[status],
                                "content": {PROBLEM: {"schema": _ref(schema)}}}
    extra = {405: "Allow", 429: "Retry-After", 503: "Retry-After", 401: "WWW-Authenticate"}.get(status)
    if extra:
        response["headers"] = {extra: _HEADER}
    return response


def _ok(description: str, schema: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {JSON: {"schema": _ref(schema)}}}
    if headers:
        response["headers"] = headers
    return response


def _responses(ok: dict[str, Any], *statuses: int, status: int = 200, **special: str) -> dict[str, Any]:
    out: dict[str, Any] = {str(status): ok}
    for s in statuses:
        out[str(s)] = _problem(s, special.get(f"p{s}", "Problem"))
    return out


_REPLAYED: Final = {"Idempotent-Replayed": {"description": "true when this is the stored answer of an earlier request "
                                                           "with the same Idempotency-Key.", "schema": STR}}
_KEY: Final = {"name": "Idempotency-Key", "in": "header", "required": True, "schema": {"type": "string",
               "minLength": 1, "maxLength": 255},
               "description": "A unique key per request (a UUID); the same key with the same request replays the "
                              "first answer, with another request it is refused (422 idempotency_key_reused)."}
_ID: Final = {"name": "id", "in": "path", "required": True, "schema": STR, "description": "The booking's id."}
_POSTS: Final = (400, 401, 404, 409, 413, 415, 422, 429, 503)


def _query(name: str, description: str, schema: dict[str, Any], required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


def _body(schema: str, required: bool) -> dict[str, Any]:
    return {"required": required, "content": {JSON: {"schema": _ref(schema)}}}


PATHS: Final[dict[str, Any]] = {
    "/v1/availability": {"get": {
        "operationId": "availability", "summary": "Free slots a customer may hold (GraphQL bookableSlots).",
        "security": [{}, {"bearer": []}],
        "parameters": [
            _query("unitId", "The unit.", STR, True), _query("from", "Start of the range.", TIME, True),
            _query("to", "End of the range (excluded).", TIME, True),
            _query("resourceId", "One resource; absent means any.", STR),
            _query("slots", "How many consecutive grid slots.", {**INT, "default": 1}),
            _query("quantity", "Places of a pooled resource.", {**INT, "default": 1}),
            _query("first", "At most this many slots (default 500, at most 500), the earliest first.",
                   {**INT, "default": 500})],
        "responses": _responses(_ok("The free slots, in time order.", "Availability"), 400, 401, 404, 422, 429,
                                503)}},
    "/v1/holds": {"post": {
        "operationId": "hold", "summary": "Hold a slot until its deadline (GraphQL hold).",
        "parameters": [_KEY], "requestBody": _body("HoldRequest", True),
        "responses": _responses(
            _ok("The hold.", "Booking", headers={"Location": {**_HEADER, "description": "/v1/bookings/{id}"},
                                                  **_REPLAYED}),
            403, *_POSTS, status=201, p409="SlotTakenProblem")}},
    "/v1/holds/{id}/confirm": {"post": {
        "operationId": "confirm", "summary": "The customer accepts the hold's summary: confirmed when nothing is due, "
                                             "else pending payment with a Pix charge (GraphQL confirm).",
        "parameters": [_ID, _KEY], "requestBody": _body("ConfirmRequest", False),
        "responses": _responses(_ok("The booking and its Pix charge.", "Confirmation", headers=_REPLAYED),
                                *_POSTS)}},
    "/v1/bookings/{id}/cancel": {"post": {
        "operationId": "cancel", "summary": "Cancel a booking; a paid one is refunded by its accepted policy "
                                            "(GraphQL cancel).",
        "parameters": [_ID, _KEY], "requestBody": _body("CancelRequest", False),
        "responses": _responses(_ok("The cancelled booking, with its refunds.", "Booking", headers=_REPLAYED),
                                *_POSTS)}},
    "/v1/bookings/{id}": {"get": {
        "operationId": "booking", "summary": "One booking as it is now (GraphQL booking).",
        "parameters": [_ID],
        "responses": _responses(_ok("The booking.", "Booking"), 400, 401, 404, 429, 503)}},
    "/v1/openapi.json": {"get": {
        "operationId": "openapi", "summary": "This document.", "security": [{}],
        "responses": {"200": {"description": "The OpenAPI 3.1 document.",
                              "content": {JSON: {"schema": {"type": "object"}}}}}}},
}

OPENAPI: Final[dict[str, Any]] = {
    "openapi": "3.1.0",
    "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
    "info": {
        "title": "Slothold REST door", "version": "1.0.0",
        "description": "The core booking flow over plain HTTP: availability, hold, confirm (with the Pix charge), "
                       "cancel, read. Each endpoint runs the GraphQL API's own operation (same tokens, rules, "
                       "rate limits and Idempotency-Key handling). Refusals are RFC 9457 application/problem+json "
                       "with `code`, the same ErrorCode as GraphQL; another method is 405 (Allow), an unknown path "
                       "404. Ids are GraphQL's; money in cents; times RFC 3339.",
    },
    "security": [{"bearer": []}],
    "paths": PATHS,
    "components": {
        "schemas": SCHEMAS,
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                       "description": "A staff, integrator or customer token (as for GraphQL)."}},
        "responses": {"NotFound": _problem(404), "MethodNotAllowed": _problem(405)},
    },
}
