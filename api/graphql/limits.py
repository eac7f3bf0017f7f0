"""Limits against abuse of the API itself: query shape (depth, cost, aliases, tokens), page sizes and hold rates.

Every refusal is a GraphQL error that names the problem in ``extensions.code``:

* ``query_too_deep``, ``query_too_costly``, ``too_many_aliases`` (validation rules, checked once per distinct
  document thanks to the validation cache) and ``query_too_large`` (more tokens than allowed: parsing stops);
  all four are request errors, so nothing runs;
* ``page_too_large`` / ``invalid_page_size`` (``schema/pages.py``'s ``page_size``): an ``InvalidInput`` on ``first``;
* ``rate_limited`` with ``retryAfterSeconds`` (``limit_holds``): hold creation per caller (token, else client
  address) and per customer (CPF and phone, each), counted in Redis. It is checked before the use case runs, so
  a refused request writes nothing. When Redis is unreachable the limiter steps aside (logged once per outage):
  holds never depend on Redis. A retry is not counted: a request with an idempotency key counts the first time
  its caller sends it under that key; the same request again under the same key (the same arguments, within the
  idempotency retention) is let through uncounted, so 20 concurrent duplicates of one hold all get its one answer
  (the use case replays it). Another request under a used key counts like any other (the use case answers it
  IdempotencyKeyReused, or runs it when the first stored nothing). Whatever a key lets through uncounted, one key
  yields at most one booking, so no more holds are made than were counted.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
    get_named_type,
)
from graphql.execution.values import VariableValues, get_argument_values
from graphql.type.definition import GraphQLField, GraphQLInterfaceType, GraphQLObjectType
from strawberry.extensions import SchemaExtension

from domain.customers import CustomerIdentity, normalize_cpf, normalize_phone
from domain.errors import DomainError, ErrorCode
from domain.services import IDEMPOTENCY_RETENTION, fingerprint
from schema.nodes import NODES_MAX
from schema.pages import MAX_PAGE_SIZE as MAX_PAGE_SIZE
from schema.pages import PAGE_ARGUMENT

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from resolvers.context import Info

log = logging.getLogger("slothold.limits")

DEFAULT_LIST_SIZE: Final = 10
"""How many items the cost estimate assumes for a list without a page-size argument (e.g. a grid's rows)."""
IDS_ARGUMENT: Final = "ids"
"""A list argument of ids (nodes): the list it answers has one item per id."""
RETRY_RETENTION: Final = IDEMPOTENCY_RETENTION
"""How long a request sent under an idempotency key is known as counted: as long as the key's result is kept."""
CODES: Final = frozenset({ErrorCode.QUERY_TOO_DEEP, ErrorCode.QUERY_TOO_COSTLY, ErrorCode.TOO_MANY_ALIASES,
                          ErrorCode.QUERY_TOO_LARGE, ErrorCode.RATE_LIMITED})


# --- query shape -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryLimits:
    """How big a GraphQL document may be (slothold/settings.py: SLOTHOLD_MAX_QUERY_*)."""

    max_depth: int = 10
    max_cost: int = 10_000
    max_aliases: int = 30
    max_tokens: int = 2_000

    @classmethod
    def from_settings(cls, settings: Any) -> QueryLimits:
        """The limits of a slothold.settings.Settings."""
        return cls(max_depth=settings.max_query_depth, max_cost=settings.max_query_cost,
                   max_aliases=settings.max_query_aliases, max_tokens=settings.max_query_tokens)


def _refusal(message: str, code: ErrorCode, nodes: Any = None, **extensions: object) -> GraphQLError:
    return GraphQLError(message, nodes, extensions={"code": code, **extensions})


def _fragments(context: ValidationContext) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in context.document.definitions if isinstance(d, FragmentDefinitionNode)}


def _is_introspection(node: FieldNode) -> bool:
    return node.name.value.startswith("__")


def _field_def(parent: Any, name: str) -> GraphQLField | None:
    if isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
        field: GraphQLField | None = parent.fields.get(name)
        return field
    return None


def _is_list(field: GraphQLField) -> bool:
    kind = field.type
    if isinstance(kind, GraphQLNonNull):
        kind = kind.of_type
    return isinstance(kind, GraphQLList)


def _page_argument(node: FieldNode, field: GraphQLField) -> int | None:
    """The page size a field asks for: its `first` literal, MAX_PAGE_SIZE for a variable (unknown when the
    document is validated), the argument's default when absent; None when the field takes no `first`."""
    argument = field.args.get(PAGE_ARGUMENT)
    if argument is None:
        return _ids_count(node, field)
    for given in node.arguments or ():
        if given.name.value == PAGE_ARGUMENT:
            if isinstance(given.value, IntValueNode):
                return max(0, int(given.value.value))
            return MAX_PAGE_SIZE
    default = argument.default_value
    return default if isinstance(default, int) else MAX_PAGE_SIZE


def _ids_count(node: FieldNode, field: GraphQLField) -> int | None:
    """A field that takes a list of ids (nodes(ids:)) answers one item per id: the literal list's length,
    NODES_MAX for a variable; None when the field takes no `ids`."""
    if IDS_ARGUMENT not in field.args:
        return None
    for given in node.arguments or ():
        if given.name.value == IDS_ARGUMENT:
            return len(given.value.values) if isinstance(given.value, ListValueNode) else NODES_MAX
    return None


class _Shape:
    """Depth, cost and aliases of an operation, in one walk (fragments are walked once per page size: a document
    that spreads fragments into fragments cannot make this exponential)."""

    def __init__(self, schema: GraphQLSchema, fragments: Mapping[str, FragmentDefinitionNode]) -> None:
        self.schema = schema
        self.fragments = fragments
        self._memo: dict[tuple[str, int | None, bool], tuple[int, int, int]] = {}
        self._open: set[str] = set()

    def walk(self, parent: Any, selection_set: SelectionSetNode | None, page: int | None,
             introspection: bool = False) -> tuple[int, int, int]:
        """(depth, cost, aliases) of a selection set on `parent`.

        Cost counts the fields the response may hold: each field 1, a list's items times its page size. Fragments
        on the several types of a union or interface all count (an upper bound). A page size applies to the first
        list at or below the field that takes it (`bookableSlots(first:)` pages its `slots`); other lists count
        DEFAULT_LIST_SIZE items. Introspection fields count for aliases only: graphql-core's
        MaxIntrospectionDepthRule bounds them, and GraphiQL's own introspection query (14 levels) must work.
        """
        depth = cost = aliases = 0
        if selection_set is None:
            return depth, cost, aliases
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                d, c, a = self._field(parent, selection, page, introspection)
            elif isinstance(selection, InlineFragmentNode):
                on = self.schema.get_type(selection.type_condition.name.value) if selection.type_condition else parent
                d, c, a = self.walk(on, selection.selection_set, page, introspection)
            elif isinstance(selection, FragmentSpreadNode):
                d, c, a = self._spread(selection.name.value, page, introspection)
            else:  # pragma: no cover - no other selection kinds exist
                continue
            depth, cost, aliases = max(depth, d), cost + c, aliases + a
        return depth, cost, aliases

    def _spread(self, name: str, page: int | None, introspection: bool) -> tuple[int, int, int]:
        fragment = self.fragments.get(name)
        if fragment is None or name in self._open:  # unknown or cyclic: other rules report it
            return 0, 0, 0
        key = (name, page, introspection)
        if key not in self._memo:
            self._open.add(name)
            try:
                on = self.schema.get_type(fragment.type_condition.name.value)
                self._memo[key] = self.walk(on, fragment.selection_set, page, introspection)
            finally:
                self._open.discard(name)
        return self._memo[key]

    def _field(self, parent: Any, node: FieldNode, page: int | None, introspection: bool) -> tuple[int, int, int]:
        alias = int(node.alias is not None)
        if introspection or node.name.value.startswith("__"):
            _, _, aliases = self.walk(None, node.selection_set, None, True)
            return 0, 0, alias + aliases
        field = _field_def(parent, node.name.value)
        if field is None:  # an unknown field: FieldsOnCorrectTypeRule reports it
            return 1, 1, alias
        own_page = _page_argument(node, field)
        inherited = own_page if own_page is not None else page
        child = get_named_type(field.type)
        if _is_list(field):
            depth, cost, aliases = self.walk(child, node.selection_set, None)
            items = inherited if inherited is not None else DEFAULT_LIST_SIZE
            return 1 + depth, 1 + items * cost, alias + aliases
        depth, cost, aliases = self.walk(child, node.selection_set, inherited)
        return 1 + depth, 1 + cost, alias + aliases


def query_limit_rules(limits: QueryLimits) -> list[type[ASTValidationRule]]:
    """Validation rules enforcing `limits` on every operation of a document.

    Build them once per schema: the validation cache is keyed by the rule classes.
    """

    class QueryShapeRule(ValidationRule):
        def enter_operation_definition(self, node: OperationDefinitionNode, *_: object) -> None:
            context = self.context
            root = context.schema.get_root_type(node.operation)
            depth, cost, aliases = _Shape(context.schema, _fragments(context)).walk(root, node.selection_set, None)
            name = f"operation {node.name.value!r}" if node.name else "the operation"
            if depth > limits.max_depth:
                context.report_error(_refusal(
                    f"The query is too deep: {name} nests fields {depth} levels deep; at most {limits.max_depth} "
                    "are allowed.", ErrorCode.QUERY_TOO_DEEP, node, depth=depth, maxDepth=limits.max_depth))
            if aliases > limits.max_aliases:
                context.report_error(_refusal(
                    f"Too many aliases: {name} uses {aliases}; at most {limits.max_aliases} are allowed.",
                    ErrorCode.TOO_MANY_ALIASES, node, aliases=aliases, maxAliases=limits.max_aliases))
            if cost > limits.max_cost:
                context.report_error(_refusal(
                    f"The query is too costly: {name} may return about {cost} fields (each field counts 1, a "
                    f"list its page size `first`, else {DEFAULT_LIST_SIZE}, times its fields); at most "
                    f"{limits.max_cost} are allowed. Ask for fewer fields, smaller pages or fewer aliases.",
                    ErrorCode.QUERY_TOO_COSTLY, node, cost=cost, maxCost=limits.max_cost))

    return [QueryShapeRule]


class DocumentSizeLimiter(SchemaExtension):
    """Stop parsing a document past `max_tokens` tokens (strawberry's MaxTokensLimiter) and say so with a code."""

    def __init__(self, max_tokens: int) -> None:
        self.max_tokens = max_tokens

    def on_operation(self) -> Iterator[None]:
        self.execution_context.parse_options["max_tokens"] = self.max_tokens
        try:
            yield
        except GraphQLError as error:  # raised by ParserCache's parse, before the operation's result exists
            self._name(error)
            raise
        for found in self.execution_context.pre_execution_errors or ():
            self._name(found)

    def _name(self, error: GraphQLError) -> None:
        if "tokens. Parsing aborted" in error.message and not error.extensions:
            error.message = (f"The query is too large: a document may have at most {self.max_tokens} tokens "
                             "(names, punctuation and values).")
            error.args = (error.message,)
            error.extensions = {"code": ErrorCode.QUERY_TOO_LARGE, "maxTokens": self.max_tokens}


# --- hold rates ------------------------------------------------------------------------------------------------


class RateLimited(GraphQLError):
    """Too many holds in the window: a top-level error with `extensions.code = rate_limited`."""

    def __init__(self, who: str, limit: int, window_seconds: float, retry_after: int) -> None:
        super().__init__(
            f"Too many holds: at most {limit} per {window_seconds:g} s per {who}. Retry in {retry_after} s.",
            extensions={"code": ErrorCode.RATE_LIMITED, "retryAfterSeconds": retry_after, "limit": limit,
                        "windowSeconds": window_seconds, "per": who})


# GCRA (a sliding window without a log): each key holds its "theoretical arrival time" (TAT) in microseconds of
# the Redis clock. A request is allowed when tat + interval - window <= now, i.e. up to `limit` at once and then
# one every window/limit. All keys are checked first; only when every key allows is any of them advanced, so a
# refused request costs nothing. Returns 0 (allowed) or the index (1-based) and wait in microseconds of the key
# that refused with the longest wait.
# KEYS: the counters, then (when ARGV[2] is not empty) the retry marker of (caller, idempotency key). ARGV: the
# window, the request's fingerprint (or ''), the marker's lifetime in ms, then each counter's limit. A marker that
# holds this fingerprint means the request was counted before: allowed, nothing counted. An allowed request sets
# the marker to its fingerprint (a refused one does not: its retry is counted).
_GCRA: Final = """
if redis.replicate_commands then redis.replicate_commands() end
local n = #ARGV - 3
local seen = ARGV[2]
if seen ~= '' and redis.call('GET', KEYS[n + 1]) == seen then return {0, 0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local tats = {}
local worst, worst_wait = 0, 0
for i = 1, n do
  local key = KEYS[i]
  local interval = window / tonumber(ARGV[i + 3])
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local new_tat = tat + interval
  local wait = new_tat - window - now
  if wait > worst_wait then worst, worst_wait = i, wait end
  tats[i] = new_tat
end
if worst > 0 then return {worst, math.ceil(worst_wait)} end
for i = 1, n do
  redis.call('SET', KEYS[i], string.format('%.0f', tats[i]), 'PX', math.max(1, math.ceil((tats[i] - now) / 1000)))
end
if seen ~= '' then redis.call('SET', KEYS[n + 1], seen, 'PX', ARGV[3]) end
return {0, 0}
"""


@dataclass(frozen=True)
class _Counter:
    key: str
    who: str
    limit: int


class HoldRateLimiter:
    """Hold creation per caller and per customer, counted in Redis; steps aside while Redis is unreachable."""

    def __init__(self, redis: Redis, per_caller: int, per_customer: int, window_seconds: float = 60,
                 retry_redis_seconds: float = 5, retry_seconds: float = RETRY_RETENTION.total_seconds()) -> None:
        """`per_caller` / `per_customer` holds per `window_seconds` (0 turns that limit off); a request sent again
        under its idempotency key within `retry_seconds` is a retry, not counted."""
        self.redis = redis
        self.retry_seconds = retry_seconds
        self.per_caller = per_caller
        self.per_customer = per_customer
        self.window_seconds = window_seconds
        self.retry_redis_seconds = retry_redis_seconds
        self._script = redis.register_script(_GCRA)
        self._down_until = 0.0
        self._down = False

    @property
    def enabled(self) -> bool:
        return self.per_caller > 0 or self.per_customer > 0

    async def limit_holds(self, info: Info, customer: CustomerIdentity | None = None) -> None:
        """Count a hold against the caller (and the customer, when given); raise RateLimited when either is over
        its limit. Call it after authorization (a refused caller must not spend a customer's allowance) and before
        the use case (resolvers.permissions.limit_holds). System tokens (the platform's own operations, tests,
        benchmarks) are not limited. A retry under an idempotency key (the `idempotencyKey` argument or the
        Idempotency-Key header) with the same arguments is not counted again (`retry_of`)."""
        if self.enabled and info.context.principal.kind != "system":
            await self.check(info.context.rate_subject(), customer_keys(customer), retry_of(info))

    async def check(self, caller: str, customers: Sequence[str] = (), retry: tuple[str, str] | None = None) -> None:
        """Count one hold for `caller` and each of `customers`, or raise RateLimited (counting nothing).

        `retry`: (idempotency key, fingerprint of the request). When `caller` sent this very request under this key
        before and it was counted, it is a retry: allowed, and nothing is counted."""
        counters: list[_Counter] = []
        if self.per_caller > 0:
            who = "client address" if caller.startswith("ip:") else "token"  # Context.rate_subject()
            counters.append(_Counter(f"slothold:rate:hold:caller:{caller}", who, self.per_caller))
        if self.per_customer > 0:
            counters += [_Counter(f"slothold:rate:hold:customer:{c}", "customer", self.per_customer)
                         for c in customers]
        if not counters or time.monotonic() < self._down_until:
            return
        keys, seen = [c.key for c in counters], ""
        if retry is not None:
            key, seen = retry
            keys.append(f"slothold:rate:hold:seen:{caller}:{hashlib.sha256(key.encode()).hexdigest()[:32]}")
        try:
            refused, wait_us = await self._script(keys=keys, args=[int(self.window_seconds * 1_000_000), seen,
                                                                   max(1, int(self.retry_seconds * 1000)),
                                                                   *(c.limit for c in counters)])
        except Exception as e:  # Redis down, slow or misbehaving: holds go on without limits
            self._down_until = time.monotonic() + self.retry_redis_seconds
            if not self._down:
                self._down = True
                log.warning("hold rate limits are off while Redis is unreachable: %s: %s", type(e).__name__, e)
            return
        if self._down:
            self._down = False
            log.warning("hold rate limits are on again (Redis is back)")
        if refused:
            counter = counters[int(refused) - 1]
            raise RateLimited(counter.who, counter.limit, self.window_seconds,
                              max(1, math.ceil(int(wait_us) / 1_000_000)))


def customer_keys(customer: Any) -> list[str]:
    """Who a hold is for, as rate-limit keys: the CPF and the phone, normalised like domain/customers.py and hashed
    (no personal data in Redis). Malformed ones are skipped: the use case refuses them anyway."""
    if customer is None:
        return []
    keys = []
    for kind, raw, normalize in (("cpf", getattr(customer, "cpf", None), normalize_cpf),
                                 ("phone", getattr(customer, "phone", None), normalize_phone)):
        if raw:
            try:
                value = normalize(raw)
            except DomainError:
                continue
            keys.append(hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()[:32])
    return keys


IDEMPOTENCY_ARGUMENT: Final = "idempotencyKey"


def retry_of(info: Info) -> tuple[str, str] | None:
    """(idempotency key, fingerprint of the request) of the mutation being resolved, or None without a key.

    The fingerprint is made of the operation's field and all its arguments as GraphQL coerced them (literals and
    variables alike), the key left out. It is stricter than the use case's (a CPF spelt another way is another
    request here): when in doubt, a request counts."""
    raw = info._raw_info
    variables = raw.variable_values  # strawberry's executor hands resolvers the coerced dict itself
    if not isinstance(variables, VariableValues):
        variables = VariableValues(sources={}, coerced=variables)
    try:
        field = raw.parent_type.fields[raw.field_name]
        arguments = get_argument_values(field, raw.field_nodes[0], variables)
        key = info.context.idempotency_key(arguments.pop(IDEMPOTENCY_ARGUMENT, None))
        if not key:
            return None
        return key, fingerprint(raw.field_name, arguments)
    except (DomainError, TypeError, KeyError):  # a key that disagrees with its header, a value without an encoding
        return None
