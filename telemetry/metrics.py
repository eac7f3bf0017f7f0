"""Prometheus metrics: what each process counts, the cluster's figures read at scrape time, and `/metrics`.

Each API process serves `GET /metrics` (text exposition format); workers serve theirs on
`SLOTHOLD_WORKER_METRICS_PORT` when it is set. Labels stay low-cardinality: route templates, operation
type and root field, mutation names, refusal codes, job function names — never a unit, booking or token.

Three kinds of figures:

* per process, counted as things happen: HTTP request and GraphQL operation durations, hold outcomes and
  conflicts (read from the mutation's result type as graphql-core resolves its union, so nothing else is
  touched), websocket subscribers and deliveries; in workers, jobs by function and outcome;
* cluster-wide, read from PostgreSQL and Redis when scraped and cached for `CACHE_SECONDS`: outbox backlog and
  relay lag, arq queue depth and job lag, open and lapsed holds, expirations (store/metrics.py);
* the client library's own process figures (memory, CPU, open files, garbage collections).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, ClassVar, TypeVar, cast
from wsgiref.simple_server import WSGIRequestHandler, make_server

from arq.constants import default_queue_name, in_progress_key_prefix
from arq.worker import Retry, RetryJob
from graphql import FieldNode, GraphQLSchema, GraphQLUnionType, OperationDefinitionNode, get_named_type
from prometheus_client import REGISTRY, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import ThreadingWSGIServer, make_wsgi_app
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from strawberry.extensions import SchemaExtension

from store.metrics import ExpirationCount, hold_figures, outbox_figures

log = logging.getLogger("slothold.metrics")

CACHE_SECONDS = 2.0
"""How long cluster-wide figures are reused: scrapes by several Prometheus servers (or a harness polling fast)
cost at most one round of queries per process in that time."""

QUERY_TIMEOUT = 1.5
"""A scrape waits at most this long for PostgreSQL or Redis; on a timeout the last figures are served."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The classic text format, which every Prometheus version reads."""

JOB_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0)

HOLD_MUTATIONS = frozenset({"hold", "counterBooking", "lockSeats"})
CONFLICT_TYPES = frozenset({"SlotTaken", "SeatsUnavailable"})

HTTP_DURATION = Histogram(
    "slothold_http_request_duration_seconds", "HTTP requests by method, route template and status class.",
    ["method", "route", "status"], buckets=LATENCY_BUCKETS)
GRAPHQL_DURATION = Histogram(
    "slothold_graphql_operation_duration_seconds",
    "GraphQL queries and mutations (parse, validation and execution) by `type:rootField`, e.g. mutation:hold; "
    "`invalid` when the document did not parse or names no root field of the schema.",
    ["operation"], buckets=LATENCY_BUCKETS)
HOLDS = Counter(
    "slothold_holds", "Results of hold, counterBooking and lockSeats: placed, replayed (an idempotent retry), the "
    "conflict's code (slot_taken, slot_held, seats_unavailable) or refused_<code>.", ["mutation", "outcome"])
CONFLICTS = Counter(
    "slothold_conflicts", "Mutations answered SlotTaken or SeatsUnavailable (the slot or seats were not free).",
    ["mutation", "code"])
SUBSCRIBERS = Gauge("slothold_subscribers", "Live GraphQL subscriptions on this process's websockets.")
DELIVERIES = Counter("slothold_deliveries", "Subscription results (`next` messages) sent to websocket clients.")
FEEDS = Gauge("slothold_event_feeds", "Event feeds this process's hub serves: one per shared subscription (group or "
              "replay) and one per subscription served alone — what the process executes per event.")
JOBS = Counter("slothold_jobs", "Worker jobs run, by function and outcome (ok, error, retry, cancelled).",
               ["function", "outcome"])
JOB_DURATION = Histogram("slothold_job_duration_seconds", "How long worker jobs ran, by function.",
                         ["function"], buckets=JOB_BUCKETS)
JOB_START_DELAY = Histogram("slothold_job_start_delay_seconds",
                            "From the time a job was due (its queue score) to its start, by function.",
                            ["function"], buckets=JOB_BUCKETS)
STATS_ERRORS = Counter("slothold_metrics_source_errors",
                       "Scrapes that could not read a cluster-wide figure (their last values were served).",
                       ["source"])

JobT = TypeVar("JobT", bound=Callable[..., Awaitable[Any]])

_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


# --- HTTP ---------------------------------------------------------------------------------------------------

def observe_request(scope: Mapping[str, Any], status: int, seconds: float) -> None:
    """Record one HTTP request (the router has put the matched route in the scope)."""
    method = scope.get("method") or "GET"
    route = getattr(scope.get("route"), "path", None) or "unmatched"
    HTTP_DURATION.labels(method if method in _METHODS else "other", route,
                         f"{status // 100}xx" if status else "none").observe(seconds)


# --- GraphQL ------------------------------------------------------------------------------------------------

class OperationMetrics(SchemaExtension):
    """Times each query and mutation, labelled by its type and root field (subscriptions are not timed)."""

    roots: ClassVar[dict[str, frozenset[str]]] = {}  # the schema's root fields, set by instrument()

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        label = self._label()
        if label is not None:
            GRAPHQL_DURATION.labels(label).observe(time.perf_counter() - started)

    def _label(self) -> str | None:
        ec = self.execution_context
        document = ec.graphql_document
        if document is None:
            return "invalid"
        op: OperationDefinitionNode | None = None
        for d in document.definitions:
            if isinstance(d, OperationDefinitionNode) and (
                    ec.operation_name is None or (d.name is not None and d.name.value == ec.operation_name)):
                op = d
                break
        if op is None:
            return "invalid"
        kind = op.operation.value
        if kind == "subscription":
            return None
        first = next((s for s in op.selection_set.selections if isinstance(s, FieldNode)), None)
        name = first.name.value if first is not None else "fragment"
        if first is not None and name not in self.roots.get(kind, ()):
            return "invalid"  # only the schema's own field names become labels
        return f"{kind}:{name}"


def _root_fields(gql: GraphQLSchema) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for kind, t in (("query", gql.query_type), ("mutation", gql.mutation_type)):
        if t is not None:
            out[kind] = frozenset(t.fields) | {"__typename", "__schema", "__type"}
    return out


def _record_result(field_name: str, typename: str, value: Any) -> None:
    code = getattr(value, "code", None)
    if typename in CONFLICT_TYPES:
        CONFLICTS.labels(field_name, str(code)).inc()
    if field_name in HOLD_MUTATIONS:
        if code is None:
            outcome = "replayed" if getattr(value, "replayed", False) else "placed"
        elif typename in CONFLICT_TYPES:
            outcome = str(code)
        else:
            outcome = f"refused_{code}"
        HOLDS.labels(field_name, outcome).inc()


def instrument(schema: Any) -> None:
    """Add the operation timer to a strawberry schema and count hold outcomes and conflicts from mutation results.

    The counts come from the result unions: graphql-core asks each union which type a mutation returned, and the
    answer is recorded on the way. No other field is touched, so queries pay nothing for it.
    """
    if OperationMetrics not in schema.extensions:
        schema.extensions = (*schema.extensions, OperationMetrics)
    gql: GraphQLSchema = schema._schema
    OperationMetrics.roots = _root_fields(gql)
    mutation = gql.mutation_type
    if mutation is None:
        return
    for name, fld in mutation.fields.items():
        union = get_named_type(fld.type)
        if not isinstance(union, GraphQLUnionType) or getattr(union, "_slothold_counted", False):
            continue
        if name not in HOLD_MUTATIONS and not CONFLICT_TYPES & {t.name for t in union.types}:
            continue
        union.resolve_type = _counting(union.resolve_type)
        union._slothold_counted = True  # type: ignore[attr-defined]


def _counting(resolve_type: Any) -> Any:
    def resolve(value: Any, info: Any, abstract_type: Any) -> Any:
        typename = resolve_type(value, info, abstract_type)
        if info.parent_type.name == "Mutation" and isinstance(typename, str):
            try:
                _record_result(info.field_name, typename, value)
            except Exception:  # metrics never break a mutation
                log.exception("counting a mutation result failed")
        return typename
    return resolve


# --- Subscriptions ------------------------------------------------------------------------------------------

def subscription_started() -> None:
    SUBSCRIBERS.inc()


def subscription_ended() -> None:
    SUBSCRIBERS.dec()


def count_feeds(read: Callable[[], int]) -> None:
    """Read the hub's number of feeds at each scrape."""
    FEEDS.set_function(read)


def delivered(n: int = 1) -> None:
    DELIVERIES.inc(n)


# --- Cluster-wide figures -----------------------------------------------------------------------------------

@dataclass
class ClusterFigures:
    """The last figures read from PostgreSQL and Redis (None: never read)."""

    outbox_backlog: int | None = None
    relay_lag: float | None = None
    open_holds: dict[str, int] = field(default_factory=dict)
    lapsed_holds: int | None = None
    lapsed_oldest: float | None = None
    expirations: int | None = None
    queue_due: int | None = None
    queue_scheduled: int | None = None
    job_lag: float | None = None


class ClusterStats(Collector):
    """Reads the cluster's figures when scraped (at most every CACHE_SECONDS) and yields the last ones read."""

    def __init__(self) -> None:
        self.figures = ClusterFigures()
        self.read_at = 0.0
        self._lock = asyncio.Lock()
        self._expirations = ExpirationCount()
        self._counting: asyncio.Task[None] | None = None

    async def refresh(self, pool: Any, redis: Any, now: Any) -> None:
        """Read again unless the last read is fresh; never raises (a failure keeps the last figures)."""
        async with self._lock:
            if time.monotonic() - self.read_at < CACHE_SECONDS:
                return
            if self._counting is None or self._counting.done():
                self._counting = asyncio.create_task(self._count_expirations(pool))
            await asyncio.gather(self._read_database(pool, now), self._read_queue(redis),
                                 asyncio.wait({self._counting}, timeout=QUERY_TIMEOUT))
            self.read_at = time.monotonic()

    async def _read_database(self, pool: Any, now: Any) -> None:
        try:
            async with asyncio.timeout(QUERY_TIMEOUT):
                async with pool.acquire() as conn:
                    outbox = await outbox_figures(conn)
                    holds = await hold_figures(conn, now)
        except Exception as e:
            STATS_ERRORS.labels("database").inc()
            log.warning("metrics: database figures unavailable (%s)", type(e).__name__)
            return
        f = self.figures
        f.outbox_backlog, f.relay_lag = outbox.backlog, outbox.lag_seconds
        f.open_holds, f.lapsed_holds, f.lapsed_oldest = holds.open_by_status, holds.lapsed, holds.oldest_lapsed_seconds

    async def _count_expirations(self, pool: Any) -> None:
        # Not bound by QUERY_TIMEOUT: a process's first count reads the whole table (≈ 0.2 s per million events);
        # scrapes meanwhile serve the last count (none at first), later counts read only new rows.
        try:
            async with pool.acquire() as conn:
                self.figures.expirations = await self._expirations.read(conn)
        except Exception as e:
            STATS_ERRORS.labels("database").inc()
            log.warning("metrics: expirations unavailable (%s)", type(e).__name__)

    async def _read_queue(self, redis: Any) -> None:
        try:
            async with asyncio.timeout(QUERY_TIMEOUT):
                due, scheduled, lag = await queue_figures(redis)
        except Exception as e:
            STATS_ERRORS.labels("redis").inc()
            log.warning("metrics: queue figures unavailable (%s)", type(e).__name__)
            return
        self.figures.queue_due, self.figures.queue_scheduled, self.figures.job_lag = due, scheduled, lag

    def collect(self) -> Iterator[Any]:
        f = self.figures
        if f.outbox_backlog is not None:
            yield GaugeMetricFamily("slothold_outbox_backlog", "Outbox rows not yet relayed to Redis (cluster-wide).",
                                    value=f.outbox_backlog)
            yield GaugeMetricFamily("slothold_relay_lag_seconds",
                                    "Age of the oldest outbox row not yet relayed (0: none).", value=f.relay_lag)
            holds = GaugeMetricFamily("slothold_open_holds", "Live holds by status (cluster-wide).", labels=["status"])
            for status, n in sorted(f.open_holds.items()):
                holds.add_metric([status], n)
            yield holds
            yield GaugeMetricFamily("slothold_lapsed_holds",
                                    "Live holds past their deadline, not yet expired (the sweep catches them).",
                                    value=f.lapsed_holds)
            yield GaugeMetricFamily("slothold_lapsed_hold_max_age_seconds",
                                    "How far past its deadline the oldest lapsed hold is (0: none).",
                                    value=f.lapsed_oldest)
        if f.expirations is not None:
            yield CounterMetricFamily("slothold_expirations", "Holds expired so far (booking_events 'expired').",
                                      value=f.expirations)
        if f.queue_due is not None:
            queue = GaugeMetricFamily("slothold_queue_jobs", "arq jobs queued: due now, or scheduled for later.",
                                      labels=["state"])
            queue.add_metric(["due"], f.queue_due)
            queue.add_metric(["scheduled"], f.queue_scheduled or 0)
            yield queue
            yield GaugeMetricFamily("slothold_job_lag_seconds",
                                    "How long the oldest due job not yet started has waited (0: none).",
                                    value=f.job_lag)
        yield GaugeMetricFamily("slothold_metrics_figures_age_seconds",
                                "Seconds since the cluster-wide figures were read (-1: never).",
                                value=time.monotonic() - self.read_at if self.read_at else -1)


async def queue_figures(redis: Any, queue: str = default_queue_name, now_ms: float | None = None
                        ) -> tuple[int, int, float]:
    """(due, scheduled, lag seconds) of arq's queue: a sorted set of job ids scored by when each is due (ms).

    Due jobs a worker is running stay in the set until they finish; the lag is that of the oldest due job no
    worker has started (looked for among the 20 oldest).
    """
    now_ms = time.time() * 1000 if now_ms is None else now_ms
    async with redis.pipeline(transaction=False) as p:
        p.zcard(queue)
        p.zcount(queue, "-inf", now_ms)
        p.zrangebyscore(queue, "-inf", now_ms, start=0, num=20, withscores=True)
        total, due, oldest = await p.execute()
    lag = 0.0
    if oldest:
        async with redis.pipeline(transaction=False) as p:
            for job_id, _ in oldest:
                p.exists(in_progress_key_prefix + (job_id.decode() if isinstance(job_id, bytes) else job_id))
            running = await p.execute()
        waiting = [score for (_, score), busy in zip(oldest, running, strict=True) if not busy]
        if waiting:
            lag = max(0.0, (now_ms - waiting[0]) / 1000)
    return int(due), int(total) - int(due), lag


CLUSTER = ClusterStats()
REGISTRY.register(CLUSTER)


# --- Exposition ---------------------------------------------------------------------------------------------

def authorized(header: str | None, token: str | None) -> bool:
    """No token configured: open. Otherwise `Authorization: Bearer <token>`, compared in constant time."""
    if not token:
        return True
    return hmac.compare_digest((header or "").encode(), f"Bearer {token}".encode())


def metrics_endpoint(state: dict[str, Any], token: str | None) -> Callable[[Request], Awaitable[Response]]:
    """`GET /metrics` of an API process: this process's metrics and the cluster's figures."""

    async def metrics(request: Request) -> Response:
        if not authorized(request.headers.get("authorization"), token):
            return PlainTextResponse("unauthorized\n", status_code=401, headers={"WWW-Authenticate": "Bearer"})
        if "pool" in state:
            await CLUSTER.refresh(state["pool"], state["redis"], state["deps"].clock.now())
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE)

    return metrics


# --- Workers ------------------------------------------------------------------------------------------------

def timed_job(fn: JobT) -> JobT:
    """An arq job function that counts its runs by outcome and times them (arq sees the same name)."""
    name = fn.__name__

    @wraps(fn)
    async def job(ctx: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        score = ctx.get("score")
        if isinstance(score, int | float):
            JOB_START_DELAY.labels(name).observe(max(0.0, time.time() - score / 1000))
        outcome = "error"
        try:
            result = await fn(ctx, *args, **kwargs)
            outcome = "ok"
            return result
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        except Exception as e:
            if isinstance(e, Retry | RetryJob):
                outcome = "retry"
            raise
        finally:
            JOBS.labels(name, outcome).inc()
            JOB_DURATION.labels(name).observe(time.perf_counter() - started)

    return cast(JobT, job)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve_worker_metrics(host: str, port: int, token: str | None) -> ThreadingWSGIServer:
    """Serve this process's metrics on host:port (any path) from a daemon thread; the same token rule as /metrics."""
    exposition = make_wsgi_app(REGISTRY)

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        if not authorized(environ.get("HTTP_AUTHORIZATION"), token):
            start_response("401 Unauthorized", [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")])
            return [b"unauthorized\n"]
        return exposition(environ, start_response)

    server = make_server(host, port, app, ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
