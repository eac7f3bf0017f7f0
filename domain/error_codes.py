"""The stable codes of refusals: one closed vocabulary, in code (this enum) and in the SDL (enum ErrorCode)."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Every stable code a client can meet: `code` of a refusal in a result union, `extensions.code` of a top-level
    error. The values are the wire strings (the GraphQL enum ErrorCode uses them as its value names)."""

    # What kind of refusal it is: the code of each DomainError class (and of the access and sign-in refusals).
    DOMAIN_ERROR = "domain_error"
    SLOT_TAKEN = "slot_taken"
    SLOT_HELD = "slot_held"
    INVALID_TRANSITION = "invalid_transition"
    INVALID_INPUT = "invalid_input"
    NOT_FOUND = "not_found"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    IDEMPOTENCY_IN_PROGRESS = "idempotency_in_progress"
    BUSY = "busy"
    PAYMENT_UNAVAILABLE = "payment_unavailable"
    PAYMENT_NOT_FOUND = "payment_not_found"
    OPEN_HOLD_EXISTS = "open_hold_exists"
    COOLDOWN = "cooldown"
    HOLD_CEILING = "hold_ceiling"
    BLACKLISTED = "blacklisted"
    SEATS_UNAVAILABLE = "seats_unavailable"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    WRONG_CODE = "wrong_code"
    IDENTITY_CONFLICT = "identity_conflict"
    BOOKINGS_IN_THE_WAY = "bookings_in_the_way"
    CHECK_IN_OUTSIDE_WINDOW = "check_in_outside_window"
    SERIES_CONFLICTS = "series_conflicts"

    # Which input was refused, and why: the codes an InvalidInput gives itself.
    ACCEPTED_SIZE_CHANGED = "accepted_size_changed"
    ALREADY_BLOCKED = "already_blocked"
    ALREADY_WAITING = "already_waiting"
    BANDS_OVERLAP = "bands_overlap"
    CPF_REQUIRED = "cpf_required"
    CUSTOMER_BLOCKED = "customer_blocked"
    CUSTOMER_REQUIRED = "customer_required"
    DATETIME_OUT_OF_RANGE = "datetime_out_of_range"
    DELIVERY_IN_PROGRESS = "delivery_in_progress"
    DESTINATION_REQUIRED = "destination_required"
    DUPLICATE_RESOURCE = "duplicate_resource"
    DUPLICATE_SEAT = "duplicate_seat"
    DURATION_NOT_OFFERED = "duration_not_offered"
    EMPTY_DEFINITION = "empty_definition"
    EVENT_OVER = "event_over"
    FIRST_WITH_LAST = "first_with_last"
    HOLD_TOO_SHORT = "hold_too_short"
    HOLD_TYPE_IN_USE = "hold_type_in_use"
    HOLD_TYPE_NOT_ALLOWED = "hold_type_not_allowed"
    HOLD_TYPE_STATE_INVALID = "hold_type_state_invalid"
    HTTPS_REQUIRED = "https_required"
    IDEMPOTENCY_KEY_MISMATCH = "idempotency_key_mismatch"
    INTERNAL_HOLD_TYPE = "internal_hold_type"
    INVALID_AMOUNT = "invalid_amount"
    INVALID_CAPACITY = "invalid_capacity"
    INVALID_CHANNEL = "invalid_channel"
    INVALID_COLOR = "invalid_color"
    INVALID_CPF = "invalid_cpf"
    INVALID_CURSOR = "invalid_cursor"
    INVALID_CURRENCY = "invalid_currency"
    INVALID_DISPLAY_ICON = "invalid_display_icon"
    INVALID_DISPLAY_NAME = "invalid_display_name"
    INVALID_DURATION = "invalid_duration"
    INVALID_EMAIL = "invalid_email"
    INVALID_FLAG = "invalid_flag"
    INVALID_HOLD_TYPE = "invalid_hold_type"
    INVALID_HOLD_TYPE_NAME = "invalid_hold_type_name"
    INVALID_ID = "invalid_id"
    INVALID_IDEMPOTENCY_KEY = "invalid_idempotency_key"
    INVALID_LABEL = "invalid_label"
    INVALID_NAME = "invalid_name"
    INVALID_ORIGIN = "invalid_origin"
    INVALID_PAGE_SIZE = "invalid_page_size"
    INVALID_PARAMETER = "invalid_parameter"
    INVALID_PARTY_SIZE = "invalid_party_size"
    INVALID_PHONE = "invalid_phone"
    INVALID_POLICY = "invalid_policy"
    INVALID_PRICE = "invalid_price"
    INVALID_QUANTITY = "invalid_quantity"
    INVALID_RANGE = "invalid_range"
    INVALID_RELEASE_API = "invalid_release_api"
    INVALID_ROLE = "invalid_role"
    INVALID_SCOPE = "invalid_scope"
    INVALID_SLOT_MINUTES = "invalid_slot_minutes"
    INVALID_STATUS = "invalid_status"
    INVALID_TIME = "invalid_time"
    INVALID_TIMEZONE = "invalid_timezone"
    INVALID_TTL = "invalid_ttl"
    INVALID_URL = "invalid_url"
    INVALID_VALID_STATES = "invalid_valid_states"
    INVALID_WEEKDAY = "invalid_weekday"
    IN_THE_PAST = "in_the_past"
    LOCKED_STATE_REQUIRED = "locked_state_required"
    MANUAL_PAYMENTS_OFF = "manual_payments_off"
    MIXED_SEAT_STATES = "mixed_seat_states"
    NAIVE_DATETIME = "naive_datetime"
    NAME_TAKEN = "name_taken"
    NOTHING_TO_CHANGE = "nothing_to_change"
    NOT_DEFINED_HERE = "not_defined_here"
    NOT_POOLED = "not_pooled"
    NOT_SANDBOX = "not_sandbox"
    NOT_STARTED = "not_started"
    NOT_WAITING = "not_waiting"
    NO_EVENT_TYPES = "no_event_types"
    NO_RESOURCE = "no_resource"
    NO_SEAT = "no_seat"
    NO_SEATS = "no_seats"
    OFFER_OF_ANOTHER_USER = "offer_of_another_user"
    OFF_GRID = "off_grid"
    OTHER_UNIT = "other_unit"
    OVERLAPPING_WINDOWS = "overlapping_windows"
    PAGE_TOO_LARGE = "page_too_large"
    PARTIAL_BOOKING = "partial_booking"
    PAYMENT_NOT_ORPHAN = "payment_not_orphan"
    RANGE_TOO_LONG = "range_too_long"
    REASON_REQUIRED = "reason_required"
    RELEASE_NOT_ALLOWED = "release_not_allowed"
    REQUIRED = "required"
    RESOURCE_NOT_OFFERED = "resource_not_offered"
    SAME_SLOT = "same_slot"
    SANDBOX_REFUSED = "sandbox_refused"
    SERVICE_INACTIVE = "service_inactive"
    SKIP_LOCKED_NEEDS_SOLD = "skip_locked_needs_sold"
    SLOT_BLOCKED = "slot_blocked"
    TERMS_NOT_ACCEPTED = "terms_not_accepted"
    TOO_FAR = "too_far"
    TOO_LONG = "too_long"
    TOO_MANY_CALENDAR_FEEDS = "too_many_calendar_feeds"
    TOO_MANY_HOLD_TYPES = "too_many_hold_types"
    TOO_MANY_IDS = "too_many_ids"
    TOO_MANY_ORIGINS = "too_many_origins"
    TOO_MANY_OCCURRENCES = "too_many_occurrences"
    NO_OCCURRENCES = "no_occurrences"
    SERIES_PAID_BY_PERIOD = "series_paid_by_period"
    TOO_MANY_SEATS = "too_many_seats"
    TOO_MANY_WEBHOOKS = "too_many_webhooks"
    TOO_SOON = "too_soon"
    UNIT_REQUIRED = "unit_required"
    UNKNOWN_EVENT_TYPE = "unknown_event_type"
    UNKNOWN_FIELD = "unknown_field"
    UNKNOWN_HOLD_TYPE = "unknown_hold_type"
    USER_REQUIRED = "user_required"
    WAITLIST_CLOSED = "waitlist_closed"
    WAITLIST_DISABLED = "waitlist_disabled"
    WEBHOOK_DISABLED = "webhook_disabled"

    # The API's own refusals, before or around the resolvers (document, limits, transport): top-level errors only.
    BAD_REQUEST = "bad_request"
    BODY_TOO_LARGE = "body_too_large"
    FIELD_ERROR = "field_error"
    INTERNAL_ERROR = "internal_error"
    INVALID_DOCUMENT = "invalid_document"
    INVALID_SYNTAX = "invalid_syntax"
    INVALID_TEXT = "invalid_text"
    INVALID_VARIABLES = "invalid_variables"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    OPERATION_NAME_REQUIRED = "operation_name_required"
    QUERY_TOO_COSTLY = "query_too_costly"
    QUERY_TOO_DEEP = "query_too_deep"
    QUERY_TOO_LARGE = "query_too_large"
    RATE_LIMITED = "rate_limited"
    SLOW_SUBSCRIBER = "slow_subscriber"
    TOO_MANY_ALIASES = "too_many_aliases"
    TOO_MANY_SUBSCRIPTIONS = "too_many_subscriptions"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"

    # The persisted-query protocol's codes (api/graphql/persisted.py), spelled as Apollo's clients and servers spell
    # them, uppercase: Apollo's clients match on PERSISTED_QUERY_NOT_FOUND / _NOT_SUPPORTED to send the document
    # again; _NOT_IN_LIST and QUERY_NOT_IN_SAFELIST are Apollo Router's safelisting codes.
    PERSISTED_QUERY_HASH_MISMATCH = "PERSISTED_QUERY_HASH_MISMATCH"
    PERSISTED_QUERY_NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND"
    PERSISTED_QUERY_NOT_IN_LIST = "PERSISTED_QUERY_NOT_IN_LIST"
    PERSISTED_QUERY_NOT_SUPPORTED = "PERSISTED_QUERY_NOT_SUPPORTED"
    PERSISTED_QUERY_VERSION_NOT_SUPPORTED = "PERSISTED_QUERY_VERSION_NOT_SUPPORTED"
    QUERY_NOT_IN_SAFELIST = "QUERY_NOT_IN_SAFELIST"


DESCRIPTIONS: dict[ErrorCode, str] = {
    # What kind of refusal it is.
    ErrorCode.DOMAIN_ERROR: "A refusal of the engine without a more precise code (none is sent today).",
    ErrorCode.SLOT_TAKEN: "The slot is held, booked or blocked: the answer lists the 3 nearest free options and the "
    "slot's waitlist (SlotTaken).",
    ErrorCode.SLOT_HELD: "A counter booking met a customer's live hold or a payment being verified: drop the hold "
    "first (SlotTaken.heldBookingId).",
    ErrorCode.INVALID_TRANSITION: "The current state of the booking (or queue item) does not allow the change "
    "(InvalidTransition names both states).",
    ErrorCode.INVALID_INPUT: "An argument is malformed or out of range; `field` names it (the codes below refine it).",
    ErrorCode.NOT_FOUND: "The referenced object does not exist or is not visible to the caller (the same answer for "
    "both).",
    ErrorCode.IDEMPOTENCY_KEY_REUSED: "The idempotency key was already used for a different request.",
    ErrorCode.IDEMPOTENCY_IN_PROGRESS: "A request with the same idempotency key is still running: retry shortly.",
    ErrorCode.BUSY: "The engine is busy with this slot or unit (or the server is overloaded, HTTP 503): retry in a "
    "moment.",
    ErrorCode.PAYMENT_UNAVAILABLE: "The bank could not create the Pix charge; the hold was cancelled: ask again.",
    ErrorCode.PAYMENT_NOT_FOUND: "The payment provider does not show that payment; nothing was confirmed.",
    ErrorCode.OPEN_HOLD_EXISTS: "The customer already has an open hold (RN-HLD-05): move it with swapHold "
    "(HoldLimitReached).",
    ErrorCode.COOLDOWN: "Too many of the customer's holds expired lately (RN-HLD-05): only the counter can book for "
    "them until `until` (CooldownActive).",
    ErrorCode.HOLD_CEILING: "The unit's open holds reached their ceiling for that day (RN-HLD-05): try again in a few "
    "minutes.",
    ErrorCode.BLACKLISTED: "The customer is blacklisted: no self-service holds, no waitlists.",
    ErrorCode.SEATS_UNAVAILABLE: "Some seats are not in the state the operation needs; nothing changed "
    "(SeatsUnavailable lists them).",
    ErrorCode.UNAUTHENTICATED: "No credentials, or credentials that are unknown, expired or revoked.",
    ErrorCode.FORBIDDEN: "The caller is known but may not do this here (role, scope or unit).",
    ErrorCode.TOO_MANY_ATTEMPTS: "Too many sign-in codes asked for, or too many wrong codes: wait, then ask for a new "
    "code.",
    ErrorCode.WRONG_CODE: "The sign-in code is wrong, already used or expired.",
    ErrorCode.IDENTITY_CONFLICT: "A CPF or e-mail in the request belongs to another customer record of the tenant.",
    ErrorCode.BOOKINGS_IN_THE_WAY: "Live bookings stand in the way of a set-up change: cancel or move them first "
    "(BookingsInTheWay lists them).",
    # Which input was refused, and why.
    ErrorCode.ACCEPTED_SIZE_CHANGED: "A customer's reschedule must keep the length and quantity that were accepted "
    "and paid (staff may change them).",
    ErrorCode.ALREADY_BLOCKED: "The range overlaps another block of the resource.",
    ErrorCode.ALREADY_WAITING: "The customer is already in that waitlist.",
    ErrorCode.BANDS_OVERLAP: "Two price bands cover the same weekday and time.",
    ErrorCode.CPF_REQUIRED: "The slot waitlist is joined by CPF: give one.",
    ErrorCode.CUSTOMER_BLOCKED: "The customer may not join waitlists (blacklisted or in cooldown).",
    ErrorCode.CUSTOMER_REQUIRED: "The operation needs the customer's CPF or phone.",
    ErrorCode.DATETIME_OUT_OF_RANGE: "A date-time is outside the range the engine stores.",
    ErrorCode.DELIVERY_IN_PROGRESS: "The webhook delivery is being sent right now: replay it once this attempt ends.",
    ErrorCode.DESTINATION_REQUIRED: "Give a phone or an e-mail to send the sign-in code to (one of them).",
    ErrorCode.DUPLICATE_RESOURCE: "A resource is listed twice.",
    ErrorCode.DUPLICATE_SEAT: "A seat is listed twice (in an operation, or a label twice in a seat map row).",
    ErrorCode.DURATION_NOT_OFFERED: "The service is not sold for that length.",
    ErrorCode.EMPTY_DEFINITION: "A hold type definition needs at least one field to set.",
    ErrorCode.EVENT_OVER: "The seat event is over.",
    ErrorCode.HOLD_TOO_SHORT: "The hold would last less than the unit's minimum (hold_min, RN-HLD-02): the slot "
    "starts too soon.",
    ErrorCode.HOLD_TYPE_IN_USE: "Live bookings use the hold type that the removal would make vanish.",
    ErrorCode.HOLD_TYPE_NOT_ALLOWED: "The caller may not place holds of this type (no payment, straight to sold, or "
    "not releasable by customers).",
    ErrorCode.HOLD_TYPE_STATE_INVALID: "The hold type is not valid in the state the operation would put the thing "
    "in.",
    ErrorCode.HTTPS_REQUIRED: "Webhook URLs need https (http only to localhost or 127.0.0.1).",
    ErrorCode.IDEMPOTENCY_KEY_MISMATCH: "The Idempotency-Key header and the idempotencyKey argument differ.",
    ErrorCode.INTERNAL_HOLD_TYPE: "The hold type is the engine's own (the waitlist's offers): callers cannot place or "
    "change it.",
    ErrorCode.INVALID_AMOUNT: "An amount must be a positive number of cents (at most the engine's maximum).",
    ErrorCode.INVALID_CAPACITY: "A pooled capacity must be 1 to 10000.",
    ErrorCode.INVALID_CHANNEL: "The channel is not allowed here (COUNTER is for counterBooking only).",
    ErrorCode.INVALID_COLOR: "displayColor must be a hex colour like #8B008B.",
    ErrorCode.INVALID_CPF: "The CPF does not have 11 digits or fails its check digits.",
    ErrorCode.INVALID_CURRENCY: "Not an ISO 4217 currency code the engine knows.",
    ErrorCode.INVALID_DISPLAY_ICON: "displayIcon must be an icon name or URL of 1 to 500 characters, without spaces.",
    ErrorCode.INVALID_DISPLAY_NAME: "displayName must be 1 to 60 characters.",
    ErrorCode.INVALID_DURATION: "A length (in slots) is out of range, or none was given.",
    ErrorCode.INVALID_EMAIL: "Not an e-mail address.",
    ErrorCode.INVALID_FLAG: "A hold type flag must be true or false.",
    ErrorCode.INVALID_HOLD_TYPE: "Not a hold type name (1 to 64 characters, no surrounding spaces).",
    ErrorCode.INVALID_HOLD_TYPE_NAME: "A hold type name is upper case letters, digits and underscores, starting with "
    "a letter (e.g. PARTNER_HOLD).",
    ErrorCode.INVALID_ID: "Not an id: a global id as the API gave it, or a raw UUID (of the right type).",
    ErrorCode.INVALID_IDEMPOTENCY_KEY: "An idempotency key must be 1 to 255 characters.",
    ErrorCode.INVALID_LABEL: "A seat map name or label is empty or too long.",
    ErrorCode.INVALID_NAME: "A name is empty or too long.",
    ErrorCode.INVALID_PAGE_SIZE: "`first` must be at least 1.",
    ErrorCode.INVALID_PARAMETER: "A unit parameter is outside its allowed range; `field` names it.",
    ErrorCode.INVALID_PARTY_SIZE: "A party must be at least 1 and at most the resource's capacity.",
    ErrorCode.INVALID_PHONE: "The phone is not in E.164 form (e.g. +5511999990000).",
    ErrorCode.INVALID_POLICY: "A cancellation policy needs at least one tier, each with 0 to 100 % and non-negative "
    "hours.",
    ErrorCode.INVALID_PRICE: "A price or deposit is negative, or does not fit its payment rule.",
    ErrorCode.INVALID_QUANTITY: "The quantity is below 1 or above what the resource holds.",
    ErrorCode.INVALID_RANGE: "The range ends before (or when) it starts.",
    ErrorCode.INVALID_RELEASE_API: "releaseApi must list known releasers (CUSTOMER, ADMIN, SYSTEM, API).",
    ErrorCode.INVALID_ROLE: "A staff token needs a role (operator, manager or owner); an integrator token has scopes, "
    "not a role.",
    ErrorCode.INVALID_SCOPE: "An integrator token needs known scopes; a staff token has a role, not scopes.",
    ErrorCode.INVALID_SLOT_MINUTES: "The grid's slot must be 5 to 240 minutes and divide a day into whole slots.",
    ErrorCode.INVALID_STATUS: "Not a status of that list.",
    ErrorCode.INVALID_TIME: "Not a time of the day as HH:MM.",
    ErrorCode.INVALID_TIMEZONE: "Not an IANA time zone (e.g. America/Sao_Paulo).",
    ErrorCode.INVALID_TTL: "ttlSeconds must be 0 (no TTL of its own) or 60 seconds to the maximum.",
    ErrorCode.INVALID_URL: "Not an absolute URL the engine will call (no credentials, no fragment, at most 2000 "
    "characters).",
    ErrorCode.INVALID_VALID_STATES: "validStates must list LOCKED and/or SOLD only.",
    ErrorCode.INVALID_WEEKDAY: "A weekday is out of range or listed twice (or none is given).",
    ErrorCode.IN_THE_PAST: "The time is in the past.",
    ErrorCode.LOCKED_STATE_REQUIRED: "A hold type that does not skip the locked state must list LOCKED among its "
    "validStates.",
    ErrorCode.MANUAL_PAYMENTS_OFF: "The venue turned off payments recorded by hand (manualPaymentsEnabled).",
    ErrorCode.MIXED_SEAT_STATES: "Sell either free seats or locked seats in one request, not both.",
    ErrorCode.NAIVE_DATETIME: "A date-time needs a UTC offset (e.g. 2026-12-01T19:00:00-03:00).",
    ErrorCode.NAME_TAKEN: "The unit already has one with that name.",
    ErrorCode.NOTHING_TO_CHANGE: "The request changes nothing: give at least one field.",
    ErrorCode.NOT_DEFINED_HERE: "The hold type has no definition at that level to remove.",
    ErrorCode.NOT_POOLED: "The resource is not POOLED (sold by places).",
    ErrorCode.NOT_SANDBOX: "Only with the sandbox payment or notification provider (development and tests).",
    ErrorCode.NOT_STARTED: "The booking has not started yet (a no-show is marked only after the start).",
    ErrorCode.NOT_WAITING: "The walk-in party is not in the state the operation needs.",
    ErrorCode.NO_EVENT_TYPES: "A webhook endpoint needs at least one event type.",
    ErrorCode.NO_RESOURCE: "Give at least one resource.",
    ErrorCode.NO_SEAT: "Give at least one seat.",
    ErrorCode.NO_SEATS: "A seat map needs sections, rows and seats.",
    ErrorCode.OFFER_OF_ANOTHER_USER: "The waitlist offer belongs to another user.",
    ErrorCode.OFF_GRID: "A time does not fall on the unit's slot grid.",
    ErrorCode.OTHER_UNIT: "The objects belong to different units.",
    ErrorCode.OVERLAPPING_WINDOWS: "Two opening windows of the same weekday (or date) overlap.",
    ErrorCode.PAGE_TOO_LARGE: "`first` is above the list's maximum (500 unless said otherwise).",
    ErrorCode.PARTIAL_BOOKING: "A booking holds more seats than the request names: name all of them.",
    ErrorCode.PAYMENT_NOT_ORPHAN: "Only an orphan payment (one that matched no charge) can be linked.",
    ErrorCode.RANGE_TOO_LONG: "The range spans more days than the field allows.",
    ErrorCode.REASON_REQUIRED: "Say why: the operation needs a reason.",
    ErrorCode.RELEASE_NOT_ALLOWED: "The hold type's releaseApi does not let this caller release it.",
    ErrorCode.REQUIRED: "A required value is empty.",
    ErrorCode.RESOURCE_NOT_OFFERED: "The service is not sold on that resource (or on any resource of the unit).",
    ErrorCode.SAME_SLOT: "That is the booking's current slot.",
    ErrorCode.SANDBOX_REFUSED: "The sandbox provider refused to pay the charge (unknown txid, or not payable).",
    ErrorCode.SERVICE_INACTIVE: "The service is not sold now (deactivated).",
    ErrorCode.SKIP_LOCKED_NEEDS_SOLD: "A hold type that skips the locked state must list SOLD among its validStates.",
    ErrorCode.SLOT_BLOCKED: "The slot is blocked (out of sale): it has no waitlist.",
    ErrorCode.TERMS_NOT_ACCEPTED: "One-step checkout needs acceptTerms: true.",
    ErrorCode.TOO_FAR: "The time is beyond how far ahead the unit books (maxAdvanceDays) or the field allows.",
    ErrorCode.TOO_LONG: "A text is longer than its maximum.",
    ErrorCode.TOO_MANY_HOLD_TYPES: "At most 50 hold types are defined per tenant or organization.",
    ErrorCode.TOO_MANY_IDS: "At most 500 ids at a time.",
    ErrorCode.TOO_MANY_SEATS: "Too many seats for one seat map (5,000) or one operation.",
    ErrorCode.TOO_MANY_WEBHOOKS: "At most 20 enabled webhook endpoints per unit: disable one first.",
    ErrorCode.TOO_SOON: "The slot starts sooner than the unit's minimum advance (minAdvanceSeconds).",
    ErrorCode.UNIT_REQUIRED: "Name the unit (unitId).",
    ErrorCode.UNKNOWN_EVENT_TYPE: "Not a webhook event type.",
    ErrorCode.UNKNOWN_FIELD: "Not a field of a hold type definition.",
    ErrorCode.UNKNOWN_HOLD_TYPE: "No hold type of that name for the unit's organization.",
    ErrorCode.USER_REQUIRED: "The capacity waitlist needs a signed-in user (or `user` given by staff).",
    ErrorCode.WAITLIST_CLOSED: "The slot starts in less than the minimum advance: its waitlist is closed.",
    ErrorCode.WAITLIST_DISABLED: "The venue turned this waitlist off (setWaitlistEnabled).",
    ErrorCode.WEBHOOK_DISABLED: "The webhook endpoint is disabled: enable it before replaying.",
    # The API's own refusals (top-level errors only).
    ErrorCode.BAD_REQUEST: "The HTTP request is not a GraphQL request the server can read (HTTP 400).",
    ErrorCode.BODY_TOO_LARGE: "The request body is larger than the server accepts (HTTP 413).",
    ErrorCode.FIELD_ERROR: "A field failed for a reason of its own (a top-level error with a path).",
    ErrorCode.INTERNAL_ERROR: "Something failed on the server; it is logged: quote the request id.",
    ErrorCode.INVALID_DOCUMENT: "The document does not validate against the schema.",
    ErrorCode.INVALID_SYNTAX: "The document is not valid GraphQL syntax.",
    ErrorCode.INVALID_TEXT: "A text argument holds characters the database cannot store (e.g. NUL).",
    ErrorCode.INVALID_VARIABLES: "A variable's value does not match its type (an unknown enum value included).",
    ErrorCode.METHOD_NOT_ALLOWED: "The HTTP method is not allowed here (mutations need POST; HTTP 405).",
    ErrorCode.NOT_ACCEPTABLE: "None of the Accept header's media types can be served (HTTP 406).",
    ErrorCode.OPERATION_NAME_REQUIRED: "The document has several operations: name the one to run (operationName).",
    ErrorCode.QUERY_TOO_COSTLY: "The query's estimated cost is above the limit (extensions: cost, maxCost).",
    ErrorCode.QUERY_TOO_DEEP: "The query nests deeper than the limit (extensions: depth, maxDepth).",
    ErrorCode.QUERY_TOO_LARGE: "The document has more tokens than the limit (extensions: maxTokens).",
    ErrorCode.RATE_LIMITED: "Too many requests: wait retryAfterSeconds (extensions).",
    ErrorCode.SLOW_SUBSCRIBER: "The subscriber read too slowly and fell behind: the subscription ended; resubscribe "
    "with `since`.",
    ErrorCode.TOO_MANY_ALIASES: "The query uses more aliases than the limit (extensions: aliases, maxAliases).",
    ErrorCode.TOO_MANY_SUBSCRIPTIONS: "The connection has as many subscriptions as allowed (extensions: "
    "maxSubscriptions).",
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: "The request's Content-Type is not one the server reads (HTTP 415).",
    # The persisted-query protocol (api/graphql/persisted.py).
    ErrorCode.PERSISTED_QUERY_HASH_MISMATCH: "The persisted query's sha256Hash is not the hash of the query sent with "
    "it (HTTP 400); nothing was stored.",
    ErrorCode.PERSISTED_QUERY_NOT_FOUND: "APQ: no document is stored under that hash (or it expired): send the hash "
    "with the query (Apollo's PersistedQueryNotFound).",
    ErrorCode.PERSISTED_QUERY_NOT_IN_LIST: "Allow-list mode: the manifest lists no document with that hash (HTTP 404).",
    ErrorCode.PERSISTED_QUERY_NOT_SUPPORTED: "Persisted queries are off on this server: send plain documents.",
    ErrorCode.PERSISTED_QUERY_VERSION_NOT_SUPPORTED: "extensions.persistedQuery.version is not 1 (HTTP 400).",
    ErrorCode.QUERY_NOT_IN_SAFELIST: "Allow-list mode: the document's hash is not in the manifest; only listed "
    "documents run (HTTP 403).",
    # Issues 19 to 21.
    ErrorCode.CHECK_IN_OUTSIDE_WINDOW: "Check-in is open from checkInOpensMinutes before the start until the end; "
    "the message gives the window (InvalidTransition).",
    ErrorCode.FIRST_WITH_LAST: "A connection takes `first` or `last`, not both.",
    ErrorCode.INVALID_CURSOR: "The cursor is malformed or belongs to another list (`after`/`before` names it).",
    ErrorCode.INVALID_ORIGIN: "An allowed origin must be scheme://host[:port]: no path, wildcard, user or `null` "
    "(the message names it).",
    ErrorCode.TOO_MANY_ORIGINS: "A unit registers at most 20 allowed origins.",
    ErrorCode.TOO_MANY_CALENDAR_FEEDS: "A customer has at most 10 working calendar feeds per unit, a unit at most 50 "
    "staff ones: revoke one first.",
    ErrorCode.SERIES_CONFLICTS: "Occurrences of a series are taken (held, booked): nothing was written; the answer "
    "lists each conflicting occurrence with its nearest free options.",
    ErrorCode.TOO_MANY_OCCURRENCES: "A series has at most 60 occurrences (occurrences or until asks for more).",
    ErrorCode.SERIES_PAID_BY_PERIOD: "The series has an amount due by Pix (paid by period) and no payment provider "
    "is set up in this installation (a counter series, or a service paid at the venue, is accepted).",
    ErrorCode.NO_OCCURRENCES: "The series has no occurrence to hold: give occurrences or until (on or after the first "
    "day), or every occurrence falls on a closed day or a block.",
}
"""What each code means, for people: the description of each value of the GraphQL enum ErrorCode (schema/errors.py).
A new code needs its line here (tests/unit/test_schema_described.py fails without it)."""
