"""Every text input has a maximum length: an over-long one is refused with code ``too_long``, naming the field.

**What is limited.** Every ``String`` and ``ID`` the API takes: the arguments of every field (queries, mutations,
subscriptions and nested fields), inside lists and input objects at any depth, whether the request wrote them as
literals or sent them as variables. The limit is looked up by the name of the argument or input field in `LIMITS`
(a list's items by the list's name); a name not in it gets `DEFAULT_ID` for an ID and `DEFAULT_TEXT` otherwise.
A JSON argument's strings get the limit of the argument's name. Lists are not limited in length here: a seat map
of 5,000 seats is a long list of short labels (the domain bounds its size, the body size limit the request's).

**Where.** `guard_text_lengths` wraps, once when the schema is built, the resolver (for a subscription: the
``subscribe`` function) of each field that takes text anywhere in its arguments. The wrapper walks the arguments as
graphql-core coerced them, before the resolver runs, so a refused field reads, authorizes and writes nothing; a field
added tomorrow is covered without anyone remembering to. Fields without text arguments are not wrapped and pay
nothing. Being checked before authorization, ``too_long`` answers before ``forbidden``, as a malformed variable does.

**How it answers.** Like any other ``InvalidInput`` of the domain (`domain.errors.InvalidInput`, code ``too_long``,
``field`` the path of the input, e.g. ``input.customer.name`` or ``input.sections[0].rows[2].label``): when the
field's result union has the ``InvalidInput`` member, the wrapper returns that typed result (`schema.refusals`
builds it, as it does for every refusal a resolver raises: the wrapper runs in front of strawberry's resolver, so
strawberry's exception handlers do not see its refusal); otherwise it raises the domain error and
`slothold.schema.Masking` answers it as a top-level error with ``extensions.code`` and ``extensions.field``, as for
every refusal whose union lacks it. This was preferred to a schema extension walking the document before execution,
which can only refuse the whole request with a top-level error (never the typed result the union offers), and to
checks in each resolver or use case, which is how a field gets forgotten. The domain keeps its own, stricter checks
with their own codes below these limits (a seat label of 21 characters is ``invalid_label``, an idempotency key
over 255 ``too_long`` from `domain.services` when it comes as the Idempotency-Key header).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    default_field_resolver,
    get_named_type,
)

from domain.errors import ErrorCode
from domain.errors import InvalidInput as DomainInvalidInput
from schema.refusals import member_for

NAME: Final = 200
EMAIL: Final = 254
PHONE: Final = 32
FREE_TEXT: Final = 2_000
MESSAGE: Final = 4_000
URL: Final = 2_048
SHORT: Final = 50
DEFAULT_ID: Final = 100
"""Ids are UUIDs (36 characters); 100 leaves room for any other spelling a client may send."""
DEFAULT_TEXT: Final = 1_000

LIMITS: Final[Mapping[str, int]] = {
    # names of people and things: customers, walk-in parties and areas, seat maps, events, sections, hold types
    "name": NAME, "displayName": NAME, "area": NAME, "user": NAME,
    # contacts
    "email": EMAIL, "contact": EMAIL, "to": EMAIL, "phone": PHONE, "ownerAlertWhatsapp": PHONE, "cpf": PHONE,
    "alertWhatsapp": PHONE, "ownerEmail": EMAIL, "ownerTokenName": NAME,
    # what people write
    "reason": FREE_TEXT, "note": FREE_TEXT, "description": FREE_TEXT,
    "message": MESSAGE, "text": MESSAGE, "body": MESSAGE,
    "url": URL,
    # keys, credentials and codes
    "idempotencyKey": 255, "token": 128, "code": 32, "txid": DEFAULT_ID,
    # words from short vocabularies and labels (each item of a list)
    "channel": SHORT, "paymentRule": SHORT, "status": SHORT, "statuses": SHORT, "notificationLocale": 35,
    "holdType": 64, "eventTypes": DEFAULT_ID, "displayColor": 32, "label": DEFAULT_ID, "seats": DEFAULT_ID,
}
"""The most characters a text input may have, by the name of the argument or input field."""

TEXT_SCALARS: Final = frozenset({"String", "ID", "JSON"})
CODE: Final = ErrorCode.TOO_LONG
_GUARDED: Final = "_slothold_text_limits"


def limit_for(name: str, scalar: str) -> int:
    """The maximum length of a text input named `name` of the scalar type `scalar`."""
    return LIMITS.get(name, DEFAULT_ID if scalar == "ID" else DEFAULT_TEXT)


def too_long(path: str, limit: int, length: int) -> DomainInvalidInput:
    return DomainInvalidInput(path, f"{path} is too long: at most {limit} characters are allowed (it has {length})",
                              code=CODE)


# --- the walk ----------------------------------------------------------------------------------------------------


def _takes_text(kind: GraphQLInputType, seen: set[str]) -> bool:
    named = get_named_type(kind)
    if isinstance(named, GraphQLScalarType):
        return named.name in TEXT_SCALARS
    if isinstance(named, GraphQLInputObjectType):
        if named.name in seen:
            return False
        seen.add(named.name)
        return any(_takes_text(f.type, seen) for f in named.fields.values())
    return False  # enums


def _over(value: Any, kind: GraphQLInputType, name: str, path: str) -> DomainInvalidInput | None:
    """The refusal for the first over-long text in a coerced value of type `kind`, or None."""
    if value is None:
        return None
    if isinstance(kind, GraphQLNonNull):
        kind = kind.of_type
    if isinstance(kind, GraphQLList):
        if isinstance(value, list | tuple):
            for i, item in enumerate(value):
                if found := _over(item, kind.of_type, name, f"{path}[{i}]"):
                    return found
        return None
    if isinstance(kind, GraphQLInputObjectType):
        if isinstance(value, Mapping):
            for field_name, f in kind.fields.items():
                key = f.out_name or field_name
                if key in value and (found := _over(value[key], f.type, field_name, f"{path}.{field_name}")):
                    return found
        return None
    if isinstance(kind, GraphQLScalarType) and kind.name in TEXT_SCALARS:
        return _over_json(value, limit_for(name, kind.name), path)
    return None


def _over_json(value: Any, limit: int, path: str) -> DomainInvalidInput | None:
    if isinstance(value, str):
        return too_long(path, limit, len(value)) if len(value) > limit else None
    if isinstance(value, Mapping):
        for k, v in value.items():
            if found := _over_json(str(k), limit, path) or _over_json(v, limit, f"{path}.{k}"):
                return found
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            if found := _over_json(v, limit, f"{path}[{i}]"):
                return found
    return None


def over_long(arguments: Mapping[str, Any], definitions: Mapping[str, GraphQLArgument]) -> DomainInvalidInput | None:
    """The refusal for the first over-long text among a field's coerced `arguments`, or None."""
    for name, argument in definitions.items():
        key = argument.out_name or name
        if key in arguments and (found := _over(arguments[key], argument.type, name, name)):
            return found
    return None


# --- the schema ----------------------------------------------------------------------------------------------------


def _members(field: GraphQLField) -> frozenset[str]:
    """The names of the types of the field's result union (none without a union)."""
    union = get_named_type(field.type)
    return frozenset(t.name for t in union.types) if isinstance(union, GraphQLUnionType) else frozenset()


def _guarded(resolve: Callable[..., Any], field: GraphQLField, members: frozenset[str]) -> Callable[..., Any]:
    definitions = field.args

    def guarded(source: Any, info: Any, **arguments: Any) -> Any:
        refusal = over_long(arguments, definitions)
        if refusal is None:
            return resolve(source, info, **arguments)
        member = member_for(refusal, members)
        if member is None:
            raise refusal
        return member

    setattr(guarded, _GUARDED, True)
    return guarded


def guard_text_lengths(schema: GraphQLSchema) -> int:
    """Wrap every field of `schema` that takes text so that over-long text is refused before it runs; returns how
    many fields were wrapped. Idempotent."""
    wrapped = 0
    subscription = schema.subscription_type
    for kind in schema.type_map.values():
        if not isinstance(kind, GraphQLObjectType) or kind.name.startswith("__"):
            continue
        for field in kind.fields.values():
            if not any(_takes_text(a.type, set()) for a in field.args.values()):
                continue
            if kind is subscription and field.subscribe is not None:
                if not getattr(field.subscribe, _GUARDED, False):
                    field.subscribe = _guarded(field.subscribe, field, frozenset())
                    wrapped += 1
                continue
            resolve = field.resolve or default_field_resolver
            if not getattr(resolve, _GUARDED, False):
                field.resolve = _guarded(resolve, field, _members(field))
                wrapped += 1
    return wrapped


def text_inputs(schema: GraphQLSchema) -> list[tuple[str, str, int]]:
    """(path, scalar, limit) of every text input of the schema's root fields, e.g. ("hold.input.customer.name",
    "String", 200): what the limits are, for people and for tests."""
    out: list[tuple[str, str, int]] = []

    def walk(kind: GraphQLInputType, name: str, path: str, seen: frozenset[str]) -> None:
        named = get_named_type(kind)
        if isinstance(named, GraphQLScalarType) and named.name in TEXT_SCALARS:
            out.append((path, named.name, limit_for(name, named.name)))
        elif isinstance(named, GraphQLInputObjectType) and named.name not in seen:
            for field_name, f in named.fields.items():
                walk(f.type, field_name, f"{path}.{field_name}", seen | {named.name})

    for root in (schema.query_type, schema.mutation_type, schema.subscription_type):
        for field_name, field in (root.fields if root else {}).items():
            for name, argument in field.args.items():
                walk(argument.type, name, f"{field_name}.{name}", frozenset())
    return out

