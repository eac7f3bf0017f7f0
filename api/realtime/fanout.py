"""Shared subscriptions: one execution per distinct subscription, its results written to every subscriber.

A thousand dashboards watching one unit send the same subscription document with the same variables. Running
strawberry's per-operation pipeline for each of them (an async generator chain, schema extensions on every
result, a JSON message built per subscriber) cost ~180 µs of CPU per delivery, so one event took ~200 ms to
reach the last of 1,000 subscribers. Here the subscribers of one (document, operation, variables, caller scope)
form a *group*: the group runs strawberry's `schema.stream` once, encodes each result once, and writes
`{"id":…,"type":"next","payload":<the shared bytes>}` straight to each subscriber's websocket.

What a subscriber sees is unchanged: the same messages, validation and authorization errors as `error`, the
end of the stream as `complete`. What is not shared:

* callers with different access (`Context.share_scope`) never share a group;
* a `since:` given as a literal in the document (not as a variable) runs alone, as does one whose value is not an
  integer (strawberry reports it);
* the legacy `graphql-ws` protocol, queries and mutations over websockets: strawberry's own path.

A subscription that resumes (`since: $var` given) joins the group of the same subscription without `since`: the
group knows, through the feed it runs (resolvers/feed.py `FeedWatch`), the sequence number of the event behind
each result and how far it has delivered (`position`). A subscriber that resumes at or after that position joins
at once (it skips results of events it already has); one a little behind is served from the group's memory of
its last results (`HISTORY`); one further behind joins a *replay*: a stream of the same subscription from its
`since`, shared by every subscriber resuming from the same point (one database read and one execution per
event for all of them), which hands its subscribers over to the group, on the same sockets and synchronously,
as soon as it has delivered as far as the group has. Nothing is lost or doubled across the hand-over: results
of events at or before a subscriber's `floor` are not sent to it.

The handler also guards the protocol's edges: a document that does not parse or has too many tokens gets an
`error` message with the code HTTP gives (`invalid_syntax`, `query_too_large`; validation ones such as
`query_too_deep` already did), several operations without `operationName` get `operation_name_required`, and
the operation past `max_subscriptions_per_connection` gets `too_many_subscriptions` — never a traceback in the logs
nor a bare `complete`. A socket whose token or session is revoked, expires or changes is closed with 4403
(slothold/auth.py's LiveCredentials).

A subscriber whose socket cannot keep up (the kernel buffer full, its sends waiting) does not hold the others
up: its messages wait in its own backlog; past `BACKLOG_LIMIT` it gets an `error` with code `slow_subscriber`
and the operation ends, so that the client subscribes again with `since` and catches up from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any, cast

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSyntaxError,
    IntValueNode,
    NullValueNode,
    OperationDefinitionNode,
    OperationType,
    VariableNode,
    Visitor,
    get_operation_ast,
    visit,
)
from graphql.language import ArgumentNode
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import BaseGraphQLTransportWSHandler, Operation
from strawberry.types.execution import ExecutionResult, PreExecutionError

from api.graphql.persisted import PersistedQueryError
from api.graphql.view import operation_name_required, parse_document, several_operations
from resolvers.feed import FEED_WATCH
from telemetry import metrics

log = logging.getLogger("slothold.fanout")

BACKLOG_LIMIT = 2_000
"""Messages a subscriber may have waiting for its socket before it is told to resubscribe."""

REPLAY_ARGUMENTS = frozenset({"since"})
"""Arguments that make a subscription start from its own position in history (resolvers/feed.py)."""

HISTORY = 256
"""Results a group keeps (with the sequence number of their event) for subscribers that resume a little behind."""

READY_TIMEOUT = 10.0
"""Seconds a resuming subscriber waits for its live group's feed to start before it is served alone."""


FORBIDDEN_CLOSE = 4403
"""The close code of a socket whose credentials were revoked, expired or changed (as for a bad token at connect)."""


class _ReplayArguments(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[ArgumentNode] = []

    def enter_argument(self, node: ArgumentNode, *_: Any) -> None:
        if node.name.value in REPLAY_ARGUMENTS:
            self.found.append(node)


def _replays(document: DocumentNode, op: OperationDefinitionNode, variables: dict[str, Any]) -> bool:
    """Whether the operation asks for history (a non-null `since`, literal, variable or variable default)."""
    finder = _ReplayArguments()
    visit(document, finder)  # the whole document: fragments may carry the argument too
    defaults = {d.variable.name.value: d.default_value for d in op.variable_definitions or ()}
    for arg in finder.found:
        value = arg.value
        if isinstance(value, NullValueNode):
            continue
        if isinstance(value, VariableNode):
            name = value.name.value
            if name in variables:
                if variables[name] is None:
                    continue
                return True
            default = defaults.get(name)
            if default is None or isinstance(default, NullValueNode):
                continue
        return True
    return False


def _replay_variables(document: DocumentNode) -> set[str] | None:
    """The variables given to `since` arguments; None when one is a literal (not null)."""
    finder = _ReplayArguments()
    visit(document, finder)
    names: set[str] = set()
    for arg in finder.found:
        if isinstance(arg.value, VariableNode):
            names.add(arg.value.name.value)
        elif not isinstance(arg.value, NullValueNode):
            return None
    return names


def _frozen(query: str, operation_name: str | None, variables: dict[str, Any], replay: set[str],
            scope: object) -> tuple[Any, ...] | None:
    # `since` variables count as null in the key: the group serves everyone from now on (a resumed subscriber
    # joins it after its replay).
    try:
        frozen = json.dumps({**variables, **dict.fromkeys(replay)}, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    return (query, operation_name, frozen, scope)


def _subscription(query: str, operation_name: str | None, variables: Any, max_tokens: int | None
                  ) -> tuple[DocumentNode, OperationDefinitionNode, dict[str, Any]] | None:
    document = parse_document(query, max_tokens)
    if document is None:
        return None
    op = get_operation_ast(document, operation_name)
    if op is None or op.operation is not OperationType.SUBSCRIPTION:
        return None
    variables = variables or {}
    if not isinstance(variables, dict):
        return None
    return document, op, variables


def share_key(query: str, operation_name: str | None, variables: dict[str, Any] | None,
              scope: object, max_tokens: int | None = None) -> tuple[Any, ...] | None:
    """The group a subscription may join, or None when it must run alone or replays (a document that does not
    parse among them: strawberry's own path reports it)."""
    found = _subscription(query, operation_name, variables, max_tokens)
    if found is None:
        return None
    document, op, values = found
    replay = _replay_variables(document)
    if replay is None or _replays(document, op, values):
        return None
    return _frozen(query, operation_name, values, replay, scope)


@dataclass(frozen=True)
class Resume:
    """A subscription that resumes: the group it joins once caught up, where it resumes, and the group's
    variables (its `since` null)."""

    key: tuple[Any, ...]
    since: int
    live_variables: dict[str, Any]


def resume_point(query: str, operation_name: str | None, variables: dict[str, Any] | None, scope: object,
                 max_tokens: int | None = None) -> Resume | None:
    """How a subscription with `since: $var` resumes and joins its group; None when it must run alone (a literal
    `since`, a value that is not one integer: strawberry's path validates it)."""
    found = _subscription(query, operation_name, variables, max_tokens)
    if found is None:
        return None
    document, op, values = found
    replay = _replay_variables(document)
    if not replay:
        return None
    defaults = {d.variable.name.value: d.default_value for d in op.variable_definitions or ()}
    points: set[int] = set()
    for name in replay:
        if name in values:
            value = values[name]
        else:
            default = defaults.get(name)
            value = int(default.value) if isinstance(default, IntValueNode) else None
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        points.add(value)
    if len(points) != 1:
        return None
    live = {**values, **dict.fromkeys(replay)}
    key = _frozen(query, operation_name, live, replay, scope)
    return None if key is None else Resume(key, points.pop(), live)


def _is_subscription(operation: Operation[Any, Any], max_tokens: int | None = None) -> bool:
    document = parse_document(operation.query, max_tokens) if isinstance(operation.query, str) else None
    op = get_operation_ast(document, operation.operation_name) if document is not None else None
    return op is not None and op.operation is OperationType.SUBSCRIPTION


def _resume(coro: Coroutine[Any, Any, None], waiting_on: Any) -> Awaitable[None]:
    """Finish a coroutine that was started by hand and suspended on `waiting_on` (what it yielded)."""

    class _Rest:
        def __await__(self) -> Generator[Any, Any, None]:
            pending = waiting_on
            while True:
                try:
                    yield pending  # the event loop's task waits on this future exactly as the coroutine would
                except BaseException as e:  # cancelled while waiting: pass it on into the coroutine
                    pending = coro.throw(e)
                    continue
                try:
                    pending = coro.send(None)
                except StopIteration:
                    return

    return _Rest()


class Member:
    """One subscriber of a group: its websocket, operation id and its own backlog when its socket is slow."""

    __slots__ = ("_send", "backlog", "ended", "floor", "group", "operation", "pending", "prefix")

    def __init__(self, group: Group, operation: Operation[Any, Any], send: Callable[[str], Coroutine[Any, Any, None]],
                 floor: int = -1) -> None:
        self.group = group
        self.floor = floor
        """Results of events up to this sequence number are not for this subscriber (it has them already)."""
        self.operation = operation
        self._send = send
        self.prefix = '{"id":' + json.dumps(operation.id) + ',"type":"next","payload":'
        self.backlog: deque[str] | None = None  # made when the socket first falls behind (an empty deque is 600 B)
        self.pending: asyncio.Task[None] | None = None
        self.ended: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()

    def deliver(self, payload: str) -> None:
        """Write one `next` message now, or queue it behind the ones still waiting for the socket."""
        text = self.prefix + payload + "}"
        if self.pending is not None:
            backlog = self.backlog
            if backlog is None:
                backlog = self.backlog = deque()
            if len(backlog) >= BACKLOG_LIMIT:
                backlog.clear()
                self.end({"id": self.operation.id, "type": "error", "payload": [{
                    "message": "This subscriber reads too slowly; events were dropped. Subscribe again with "
                               "since: <the last seq you received> to catch up.",
                    "extensions": {"code": "slow_subscriber"}}]})
                return
            backlog.append(text)
            return
        coro = self._send(text)
        try:
            waiting_on = coro.send(None)  # almost always runs to the end: the socket takes the frame at once
        except StopIteration:
            return
        except Exception:  # the socket is gone: its handler ends the operation
            self.end(None)
            return
        self.pending = asyncio.ensure_future(self._drain(coro, waiting_on))

    async def _drain(self, coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        try:
            await _resume(coro, waiting_on)
            while self.backlog:
                await self._send(self.backlog.popleft())
        except asyncio.CancelledError:
            raise
        except Exception:
            self.backlog = None
            self.end(None)
        finally:
            self.pending = None
            if not self.backlog:
                self.backlog = None

    def end(self, final: dict[str, Any] | None) -> None:
        """Leave the group; `final` (complete or error) is sent after what is already queued."""
        self.group.discard(self)
        if not self.ended.done():
            self.ended.set_result(final)


class _Watch:
    """What a group's feed tells it (resolvers/feed.py FeedWatch), in the group's task."""

    __slots__ = ("current", "group")

    def __init__(self, group: Group) -> None:
        self.group = group
        self.current: int | None = None

    def started(self, last: int) -> None:
        group = self.group
        group.position = last
        if group.history_from is None:
            group.history_from = last
        group.ready.set()

    def yielding(self, seq: int) -> None:
        self.current = seq

    def processed(self, seq: int) -> bool:
        group = self.group
        if group.position is None or seq > group.position:
            group.position = seq
        return group.replay is not None and group.hand_over()


class Group:
    """The subscribers of one shared subscription and the one stream that feeds them.

    A live group (`replay` None) runs the subscription from now on; a replay group runs it from `replay` (a
    `since`) for the subscribers resuming there, until it can hand them over to the live group of the same key.
    `position`: every result of events up to this sequence number is out, none of a later one.
    """

    def __init__(self, registry: SharedSubscriptions, key: tuple[Any, ...], replay: int | None = None,
                 target: Group | None = None) -> None:
        self.registry = registry
        self.target = target
        """A replay group: the live group that keeps open for it (it hands over to whichever is live then)."""
        self.key = key
        self.replay = replay
        self.members: dict[int, Member] = {}
        self.closed = False
        self.task: asyncio.Task[None] | None = None
        self.delivered = 0
        self.position: int | None = replay
        self.ready = asyncio.Event()
        """Set once the feed has started (position known), or when the group ends."""
        self.history: deque[tuple[int, str]] = deque()
        self.history_from: int | None = replay
        """The group's history holds every result of the events after this one, up to `position`."""
        self.replays = 0
        """Replay groups that will hand their subscribers over to this live group: it stays open for them."""
        self._watch = _Watch(self)

    def add(self, member: Member) -> None:
        member.group = self
        self.members[id(member)] = member

    def discard(self, member: Member) -> None:
        if self.members.pop(id(member), None) is not None:
            self._close_if_unused()

    def _close_if_unused(self) -> None:
        if not self.members and not self.replays and not self.closed and self.task is not None:
            self.task.cancel()  # nobody listens any more: close the stream (and its hub subscription)

    def hand_over(self) -> bool:
        """A replay group: move every subscriber to the live group once this one has delivered as far as it has
        (synchronously: no result is delivered by either in between). True when done: the replay ends."""
        live = self.registry.groups.get(self.key)
        if live is None or live.closed or live.position is None or self.position is None \
                or self.position < live.position:
            return False
        for member in self.members.values():
            member.floor = max(member.floor, self.position)
            live.add(member)
        self.members.clear()
        # The live group now remembers this replay's results too, when they join its own history.
        if (live.history_from is not None and self.history_from is not None and self.history_from < live.history_from
                and self.position >= live.history_from):
            older = [h for h in self.history if h[0] <= live.history_from]
            live.history.extendleft(reversed(older))
            live.history_from = self.history_from
            while len(live.history) > HISTORY:
                live.history_from = live.history.popleft()[0]
        self._leave_live()
        return True

    def _leave_live(self) -> None:
        """A replay group is done: the live group no longer waits for it."""
        if self.registry.replays.get(self.key) is not None:
            waiting = self.registry.replays[self.key]
            if self in waiting:
                waiting.remove(self)
                if not waiting:
                    del self.registry.replays[self.key]
                target, self.target = self.target, None
                if target is not None:
                    target.replays -= 1
                    target._close_if_unused()

    def _remember(self, seq: int, payload: str) -> None:
        history = self.history
        history.append((seq, payload))
        if len(history) > HISTORY:
            self.history_from = history.popleft()[0]

    def serve_history(self, member: Member, since: int) -> bool:
        """Send a resuming subscriber the results after `since` from memory and add it (True), when the history
        reaches back that far."""
        if self.history_from is None or self.position is None or since < self.history_from:
            return False
        for seq, payload in self.history:
            if seq > since:
                member.deliver(payload)
        member.floor = max(since, self.position)
        self.add(member)
        return True

    def _finish(self, kind: str | None, errors: list[Any] | None = None) -> None:
        """End the group: every member gets `kind` (complete or error, with `errors`), or nothing when None."""
        self.closed = True
        self.ready.set()
        if self.replay is None:
            if self.registry.groups.get(self.key) is self:
                del self.registry.groups[self.key]
        else:
            self._leave_live()
        for member in list(self.members.values()):
            final: dict[str, Any] | None = None
            if kind is not None:
                final = {"id": member.operation.id, "type": kind}
                if errors is not None:
                    final["payload"] = errors
            member.end(final)

    async def run(self, handler: BaseGraphQLTransportWSHandler[Any, Any], query: str, variables: dict[str, Any] | None,
                  operation_name: str | None) -> None:
        """Stream the subscription once (with the first subscriber's context) and write each result to all."""
        watch = self._watch
        FEED_WATCH.set(watch)  # this task's context: the one feed this execution runs reports to this group
        try:
            source = await handler.schema.stream(
                query, variable_values=variables, context_value=handler.context,
                root_value=handler.root_value, operation_name=operation_name)
            async with contextlib.aclosing(source):
                first = True
                async for result in source:
                    if first and isinstance(result, PreExecutionError):
                        self._finish("error", [e.formatted for e in result.errors or ()])
                        return
                    if not isinstance(result, ExecutionResult):
                        self._finish("error", [{"message": "Incremental delivery is not supported over "
                                                           "graphql-transport-ws"}])
                        return
                    first = False
                    payload = self.registry.encode(result)
                    seq = watch.current
                    members = list(self.members.values())
                    sent = 0
                    for member in members:
                        if seq is None or seq > member.floor:
                            member.deliver(payload)
                            sent += 1
                    if seq is not None:
                        if self.position is None or seq > self.position:
                            self.position = seq
                        self._remember(seq, payload)
                    self.delivered += 1
                    metrics.delivered(sent)
            self._finish("complete")
        except asyncio.CancelledError:
            self._finish(None)
            raise
        except GraphQLError as error:  # raised by the parsing hook (see SharedTransportWSHandler._send_result_stream)
            _log_refusal(handler.schema, error)
            self._finish("error", [error.formatted])
        except Exception:
            log.exception("shared subscription failed")
            self._finish("complete")


def _log_refusal(schema: Any, error: GraphQLError) -> None:
    """Log a refused document as the schema logs its refusals (limits: one warning line); a client's syntax error
    is not logged (strawberry would log it at error level, as if the server had failed)."""
    if (error.extensions or {}).get("code") != "invalid_syntax":
        schema.process_errors([error])


class SharedSubscriptions:
    """The groups of one API process."""

    def __init__(self, encode: Callable[[object], str]) -> None:
        self.groups: dict[tuple[Any, ...], Group] = {}
        self.replays: dict[tuple[Any, ...], list[Group]] = {}
        """Replay groups by the key of the live group they will hand their subscribers to."""
        self._encode = encode

    def encode(self, result: ExecutionResult) -> str:
        """The `payload` of a `next` message, as strawberry's Operation.send_next builds it."""
        payload: dict[str, Any] = {"data": result.data}
        if result.errors:
            payload["errors"] = [e.formatted for e in result.errors]
        if result.extensions:
            payload["extensions"] = result.extensions
        return self._encode(payload)

    @property
    def subscriber_count(self) -> int:
        return sum(len(g.members) for g in self.groups.values()) + sum(
            len(g.members) for waiting in self.replays.values() for g in waiting)

    @property
    def replaying(self) -> int:
        """Subscribers still in a replay (not yet handed over to their live group)."""
        return sum(len(g.members) for waiting in self.replays.values() for g in waiting)

    def _live(self, key: tuple[Any, ...], handler: BaseGraphQLTransportWSHandler[Any, Any], query: str,
              variables: dict[str, Any] | None, operation_name: str | None) -> Group:
        group = self.groups.get(key)
        if group is None or group.closed:
            group = self.groups[key] = Group(self, key)
            group.task = asyncio.create_task(group.run(handler, query, variables, operation_name))
        return group

    async def join(self, key: tuple[Any, ...], handler: BaseGraphQLTransportWSHandler[Any, Any],
                   operation: Operation[Any, Any]) -> None:
        """Serve one subscribe message through its group until the stream ends or the client leaves."""
        group = self._live(key, handler, operation.query, operation.variables, operation.operation_name)
        member = Member(group, operation, _sender(handler))
        group.add(member)
        await _serve(member, operation)

    async def resume(self, resume: Resume, handler: BaseGraphQLTransportWSHandler[Any, Any],
                     operation: Operation[Any, Any]) -> bool:
        """Serve a subscription that resumes at `resume.since`: from the live group's memory, or through a replay
        shared with the others resuming there, then in the live group. False when the live group ended before
        it could take the subscriber (it is then served alone, as strawberry would)."""
        key, since = resume.key, resume.since
        live = self._live(key, handler, operation.query, resume.live_variables, operation.operation_name)
        if not live.ready.is_set():
            live.replays += 1  # it waits for its feed to start: keep the group open for this subscriber
            started = False
            try:
                await asyncio.wait_for(live.ready.wait(), READY_TIMEOUT)
                started = True
            except TimeoutError:
                pass  # a stream without a feed (none today): served alone
            finally:
                live.replays -= 1
                if not started:
                    live._close_if_unused()
        if live.closed or live.position is None:
            live._close_if_unused()
            return False
        member = Member(live, operation, _sender(handler), floor=since)
        if since >= live.position:
            live.add(member)  # nothing to replay: results after `since` are all to come
        elif not live.serve_history(member, since):
            waiting = self.replays.setdefault(key, [])
            # A replay that has not yet gone past `since` serves this subscriber too (it skips what it has).
            replay = next((g for g in waiting if not g.closed and g.position is not None and g.position <= since),
                          None)
            if replay is None:
                replay = Group(self, key, replay=since, target=live)
                waiting.append(replay)
                live.replays += 1
                replay.task = asyncio.create_task(replay.run(handler, operation.query, operation.variables,
                                                             operation.operation_name))
            replay.add(member)
        await _serve(member, operation)
        return True


def _sender(handler: BaseGraphQLTransportWSHandler[Any, Any]) -> Callable[[str], Coroutine[Any, Any, None]]:
    ws = handler.websocket.ws  # type: ignore[attr-defined]  # strawberry's ASGIWebSocketAdapter

    def send(text: str) -> Coroutine[Any, Any, None]:
        sent: Coroutine[Any, Any, None] = ws.send({"type": "websocket.send", "text": text})
        return sent

    return send


async def _serve(member: Member, operation: Operation[Any, Any]) -> None:
    """Until the member's stream ends or the client leaves; what was queued for it goes out before the end."""
    try:
        final = await member.ended
        if member.pending is not None:
            await member.pending
        if final is not None:
            await operation.send_operation_message(cast(Any, final))  # an error or complete message, as built
    finally:
        member.end(None)
        if member.pending is not None:
            member.pending.cancel()


class SharedTransportWSHandler(BaseGraphQLTransportWSHandler[Any, Any]):
    """graphql-transport-ws where identical subscriptions share one execution (see the module docstring)."""

    @property
    def _max_tokens(self) -> int | None:
        return getattr(self.view, "max_query_tokens", None)

    @property
    def _credentials(self) -> Any:
        """api.auth.LiveCredentials of the process, when the view has one."""
        return getattr(self.view, "live_credentials", None)

    async def handle_connection_init(self, message: Any) -> None:
        await super().handle_connection_init(message)
        watch, principal = self._credentials, getattr(self.context, "principal", None)
        if self.connection_acknowledged and watch is not None and principal is not None:
            watch.register(self, principal)

    async def shutdown(self) -> None:
        watch = self._credentials
        if watch is not None:
            watch.unregister(self)
        await super().shutdown()

    async def credentials_lapsed(self) -> None:
        """The token or session this socket authenticated with was revoked, expired or changed: end every operation
        and close with 4403 (graphql-ws clients do not retry that code with the same credentials)."""
        for operation_id in list(self.operations):
            await self.cleanup_operation(operation_id)
        with contextlib.suppress(Exception):  # already closing
            await self.websocket.close(code=FORBIDDEN_CLOSE,
                                       reason="Forbidden: the token or session was revoked, expired or changed")

    async def handle_subscribe(self, message: Any) -> None:
        limit = self.max_subscriptions_per_connection
        if (limit is not None and self.connection_acknowledged and message["id"] not in self.operations
                and len(self.operations) >= limit):
            # strawberry's own refusal carries no code
            await self.send_message({"id": message["id"], "type": "error", "payload": [{
                "message": f"At most {limit} operations may be open on one connection: complete one, or open "
                           "another connection.",
                "extensions": {"code": "too_many_subscriptions", "maxSubscriptions": limit}}]})
            return
        if not await self._resolve_persisted(message):
            return
        await super().handle_subscribe(message)

    async def _resolve_persisted(self, message: Any) -> bool:
        """The subscribe message's document, found as over HTTP (api/graphql/persisted.py): from its
        `extensions.persistedQuery`, and in the allow-list mode only from the manifest. False when it was refused
        (with an `error` message carrying the code). A verified APQ document is registered once it parses."""
        persisted = getattr(self.view, "persisted_queries", None)
        if persisted is None or not self.connection_acknowledged or message["id"] in self.operations:
            return True  # strawberry's own refusals (4401, 4409) come first
        payload = message["payload"]
        try:
            found = await persisted.resolve(payload.get("query"), payload.get("extensions"))
        except PersistedQueryError as refusal:
            await self.send_message({"id": message["id"], "type": "error", "payload": [refusal.as_error()]})
            return False
        payload["query"] = found.query
        if found.register and parse_document(found.query, self._max_tokens) is not None:
            await persisted.register(found.register, found.query)
        return True

    async def _send_result_stream(self, operation: Operation[Any, Any], result_source: Any) -> None:
        try:
            await super()._send_result_stream(operation, result_source)
        except GraphQLError as error:
            # The schema's ParserCache parses inside the extensions' parsing hook, so a document that does not parse
            # (or has too many tokens) leaves strawberry's stream as an exception rather than a PreExecutionError.
            # The extensions have named it already (invalid_syntax, query_too_large): answer as HTTP does.
            _log_refusal(self.schema, error)
            await operation.send_initial_errors([error])

    @staticmethod
    def _get_pre_execution_close_reason(error: GraphQLError) -> str | None:
        if isinstance(error, GraphQLSyntaxError):
            return None  # an `error` message with its code, as for any other refused document
        return BaseGraphQLTransportWSHandler._get_pre_execution_close_reason(error)

    async def run_operation(self, operation: Operation[Any, Any]) -> None:
        if (operation.operation_name is None and isinstance(operation.query, str)
                and several_operations(operation.query, self._max_tokens)):
            await operation.send_initial_errors([operation_name_required()])  # strawberry would run the first
            return
        if not _is_subscription(operation, self._max_tokens):
            await self._run_operation(operation)
            return
        metrics.subscription_started()
        try:
            await self._run_operation(operation)
        finally:
            metrics.subscription_ended()

    async def send_message(self, message: Any) -> None:
        if message.get("type") == "next":  # results of subscriptions that run alone (shared ones: Group.run)
            metrics.delivered()
        await super().send_message(message)

    async def _run_operation(self, operation: Operation[Any, Any]) -> None:
        registry: SharedSubscriptions | None = getattr(self.view, "shared_subscriptions", None)
        scope_of = getattr(self.context, "share_scope", None)
        key = resume = None
        if registry is not None and scope_of is not None:
            scope = scope_of()
            key = share_key(operation.query, operation.operation_name, operation.variables, scope, self._max_tokens)
            if key is None:
                resume = resume_point(operation.query, operation.operation_name, operation.variables, scope,
                                      self._max_tokens)
        if registry is None or (key is None and resume is None):
            await super().run_operation(operation)
            return
        try:
            if key is not None:
                await registry.join(key, self, operation)
            elif resume is not None and not await registry.resume(resume, self, operation):
                await super().run_operation(operation)
        except Exception as error:
            await self.handle_task_exception(error)
            with contextlib.suppress(Exception):
                await operation.send_operation_message({"id": operation.id, "type": "complete"})
            self.operations.pop(operation.id, None)
            raise
