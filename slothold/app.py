"""The ASGI application: Starlette routes, lifespan (pool, Redis) and the GraphQL endpoint."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import asyncpg
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.exceptions import ConnectionRejectionError
from strawberry.types.unset import UNSET

from api.auth import Authenticator, LiveCredentials, bearer, token_from_params
from api.calendar_feeds import calendar_routes, logged_path
from api.claim_pages import claim_routes
from api.cors import CHECKED_ORIGIN, CorsMiddleware
from api.graphql.guards import GraphQLHTTPError
from api.graphql.limits import HoldRateLimiter, QueryLimits
from api.graphql.manifest import load_manifest
from api.graphql.persisted import PersistedQueries, PersistedQueryMode, PersistedQueryStore
from api.graphql.view import SlotholdGraphQL, static_routes
from api.realtime.fanout import SharedSubscriptions, SharedTransportWSHandler
from api.realtime.hub import Hub
from api.rest import rest_routes
from api.web_demo import web_demo_routes
from api.webhooks.pix import sandbox_pay, webhook_endpoint
from api.webhooks.whatsapp import whatsapp_routes
from domain.access import ANONYMOUS, Unauthenticated
from domain.events import AUDIT_SESSION
from domain.ports import Clock
from providers.channels import CloudApiSettings, CloudApiWhatsApp, LogWhatsApp
from providers.clock import SystemClock
from providers.qr import qr_png_data_uri
from providers.sandbox import SandboxProvider
from resolvers.context import Context
from slothold.cli.demo import DEMO_UNIT_ID
from slothold.read_routing import CACHEABLE_READS, ReplicaReads, lag_metric, routed
from slothold.redis_conn import broadcast, redis_client
from slothold.schema import build_schema
from slothold.settings import Settings
from slothold.wiring import build_deps
from store.access import PgAccess
from store.allowed_origins import OriginUnion
from store.db import create_config_pool, create_pool
from store.replicas import ReadReplicas
from store.stores import PgStores
from store.whatsapp import PgConversations
from telemetry.logs import configure, request_id_var
from telemetry.metrics import count_feeds, instrument, metrics_endpoint, observe_request

log = logging.getLogger("slothold.http")

POOL_CLOSE_SECONDS = 5.0


async def close_pool(pool: asyncpg.Pool, seconds: float = POOL_CLOSE_SECONDS) -> None:
    """Close a pool at shutdown, waiting at most `seconds` for its connections to come back, then cut them: asyncpg's
    close() waits for every connection forever, and a connection left acquired by a request cancelled at the stop
    held a test server's shutdown past its 15 s (a CI-equivalent run, test_error_pipeline)."""
    try:
        await asyncio.wait_for(pool.close(), seconds)
    except TimeoutError:
        log.warning("database connections still in use %.0f s into the stop: closed unfinished", seconds)
        pool.terminate()


class GraphQLEndpoint(SlotholdGraphQL[Context, None]):
    """The GraphQL view with Slothold's per-request context."""

    graphql_transport_ws_handler_class = SharedTransportWSHandler

    def __init__(self, state: dict[str, Any], schema: Any, **kwargs: Any) -> None:
        super().__init__(schema, **kwargs)
        self._state = state
        self._encoded: dict[int, tuple[object, str]] = {}
        self.shared_subscriptions = SharedSubscriptions(partial(json.dumps, separators=(",", ":")))

    @property
    def live_credentials(self) -> LiveCredentials | None:
        """Closes the websockets whose token or session lapses (slothold/fanout.py registers them)."""
        return self._state.get("live_credentials")

    def encode_json(self, data: object) -> str | bytes:
        """JSON, with a subscription event's payload encoded once for all the subscribers that share it.

        Subscribers of one query receive the very same result (slothold/executor.py), so the payload of their
        `next` messages is encoded once and only the operation id differs per subscriber.
        """
        if isinstance(data, dict) and data.get("type") == "next":
            payload = data.get("payload")
            shared = payload.get("data") if isinstance(payload, dict) and len(payload) == 1 else None
            if shared is not None:
                hit = self._encoded.get(id(shared))
                if hit is None or hit[0] is not shared:
                    hit = (shared, json.dumps(payload, separators=(",", ":")))
                    self._encoded[id(shared)] = hit  # holding `shared` keeps its id from being reused
                    if len(self._encoded) > 256:
                        self._encoded.pop(next(iter(self._encoded)))
                return f'{{"id":{json.dumps(data["id"])},"type":"next","payload":{hit[1]}}}'
        return super().encode_json(data)

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        return await request_context(self._state, request)

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        """A page of another site opens a websocket only from an allowed origin: api/cors.py, in front, checked it
        against the database's list and left it in the scope (strawberry's own list would be fixed at start-up)."""
        return bool(request.scope.get(CHECKED_ORIGIN) == origin)

    async def on_ws_connect(self, context: Context) -> Any:
        """Websockets may authenticate in connection_init (browsers cannot send headers there)."""
        token = token_from_params(context.connection_params)
        if token is not None:
            await _authenticate(context, token)
        if context.auth_failure is not None:
            raise ConnectionRejectionError({"message": context.auth_failure.message, "code": "unauthenticated"})
        return UNSET


async def request_context(state: dict[str, Any], request: Request | WebSocket) -> Context:
    """The context of one request, authenticated from its `Authorization: Bearer` header: the GraphQL view's, and
    the REST door's (api/rest/), which runs its GraphQL documents with the very same context."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    context = Context(deps=state["deps"], request_id=request_id_var.get() or "-", headers=headers,
                      hub=state["hub"], qr=qr_png_data_uri, sandbox_pay=state["sandbox_pay"],
                      client_host=request.client.host if request.client else None,
                      access=state["access"], authenticator=state["authenticator"],
                      hold_limiter=state["hold_limiter"], stores=PgStores(state["pool"]))
    try:
        await _authenticate(context, bearer(headers.get("authorization")))
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
        # The database (or the pooler in front of it) cannot say who is calling: 503, retry shortly — not 500.
        log.warning("cannot authenticate: database unreachable (%s)", type(e).__name__)
        raise GraphQLHTTPError(503, "The database is unreachable right now; try again shortly.",
                               {"retry-after": "1"}) from e
    return context


async def _authenticate(context: Context, token: str | None) -> None:
    try:
        context.principal = await context.authenticator.principal(token, context.deps.clock.now())
        context.auth_failure = None
        AUDIT_SESSION.set(context.principal.key if context.principal.token_id else None)
    except Unauthenticated as e:
        context.principal, context.auth_failure = ANONYMOUS, e
        AUDIT_SESSION.set(None)


class RequestIdMiddleware:
    """Give every request an id (or keep the caller's X-Request-Id), echo it, and log one line per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            # Websockets keep their own request id per connection in the logs they write; wrapping `send`
            # here would add a call to every event delivered to every subscriber.
            await self.app(scope, receive, send)
            return
        incoming = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")[:64]
        rid = incoming or uuid.uuid4().hex
        token = request_id_var.set(rid)
        started = time.perf_counter()
        status = {"code": 0}

        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            observe_request(scope, status["code"], elapsed)
            if scope["path"] not in ("/healthz", "/readyz", "/metrics"):
                log.info("request", extra={"method": scope.get("method"), "path": logged_path(scope["path"]),
                                           "status": status["code"], "duration_ms": round(elapsed * 1000, 2)})
            request_id_var.reset(token)


def _own_origins(settings: Settings) -> frozenset[str]:
    """The API's public origin (its base URL's scheme and host), for the websocket origin check."""
    try:
        scheme, _, rest = settings.base_url().partition("://")
    except ValueError:
        return frozenset()
    return frozenset({f"{scheme}://{rest.split('/', 1)[0]}".lower()})


def persisted_queries(settings: Settings) -> PersistedQueries:
    """The persisted-query protocol of the settings (its Redis client is attached by the app's lifespan)."""
    mode = PersistedQueryMode(settings.persisted_query_mode())
    manifest = load_manifest(settings.persisted_query_manifest) if mode is PersistedQueryMode.ALLOWLIST else None
    return PersistedQueries(mode, PersistedQueryStore(None, settings.persisted_query_ttl_seconds,
                                                      settings.persisted_query_cache_size), manifest)


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> Starlette:
    """Build the app; DATABASE_URL and REDIS_URL come from `settings` (default: the environment)."""
    settings = settings or Settings.from_env()
    if not settings.database_url or not settings.redis_url:
        raise RuntimeError("DATABASE_URL and REDIS_URL must be set (or use `slothold dev`)")
    state: dict[str, Any] = {}
    platform_origins = settings.cors_origin_list()  # a malformed SLOTHOLD_CORS_ORIGINS stops the start, named

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        assert settings.database_url and settings.redis_url
        pool = await create_pool(settings.database_url, settings.db_pool_min, settings.db_pool_max,
                                 behind_pooler=settings.database_pooled)
        config_pool = await create_config_pool(settings.session_database_url or settings.database_url)
        redis = redis_client(settings, 2)
        hub = Hub(settings.redis_url, partial(broadcast, settings))
        count_feeds(lambda: hub.subscriber_count)
        await hub.start()
        the_clock = clock or SystemClock()
        deps = build_deps(pool, the_clock, os.environ, sandbox_on_clock=True,  # the pretend bank on the app's clock
                          public_base_url=settings.base_url(), config_pool=config_pool)
        replicas = None
        if settings.database_read_urls:  # the public reads on a fresh replica (slothold/read_routing.py)
            replicas = ReadReplicas(pool, [u.strip() for u in settings.database_read_urls.split(",") if u.strip()],
                                    settings.replica_max_lag_seconds, on_lag=lag_metric)
            await replicas.start()
            deps = routed(deps, pool, replicas, config_pool)
        provider = deps.provider
        if persisted.mode is PersistedQueryMode.APQ:  # the APQ documents, shared by every API process
            persisted.store.redis = redis_client(settings, 0.5)
        # Its own connection with short timeouts: a sick Redis may slow a hold by half a second, once (the limiter
        # then steps aside for a few seconds), never stall it.
        state["hold_limiter"] = HoldRateLimiter(
            redis_client(settings, 0.5),
            settings.hold_rate_per_token, settings.hold_rate_per_customer, settings.hold_rate_window_seconds)
        access = PgAccess(pool)
        # Revoked, expired or changed credentials end the websockets already open with them, from the database
        # alone (Redis may be down); a revocation here (signOut) has them checked at once.
        live_credentials = LiveCredentials(access, the_clock)
        authenticator = Authenticator(access, on_forget=live_credentials.poke)
        live_credentials.on_lapse = authenticator.drop
        await live_credentials.start()
        state.update(pool=pool, redis=redis, hub=hub, provider=provider, deps=deps, access=access,
                     live_credentials=live_credentials, authenticator=authenticator,
                     sandbox_pay=partial(sandbox_pay, deps, provider) if isinstance(provider, SandboxProvider)
                     else None)
        state["whatsapp_store"] = PgConversations(pool)
        state["cors_origins"] = OriginUnion(pool, platform_origins)
        state["whatsapp_sender"] = (CloudApiWhatsApp(CloudApiSettings(
            settings.whatsapp_api_url, settings.whatsapp_api_token, settings.whatsapp_unit_numbers()))
            if settings.whatsapp_api_url else LogWhatsApp())
        # Everything built so far (schema, modules, pools) lives as long as the process: move it out of the
        # collector's way, and collect less often, so full collections don't stall requests.
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 50)
        try:
            yield
        finally:
            await live_credentials.stop()
            await hub.stop()
            for closable in (provider, state["whatsapp_sender"]):
                close = getattr(closable, "aclose", None)
                if close is not None:
                    await close()
            await redis.aclose()
            if persisted.store.redis is not None:
                await persisted.store.redis.aclose()
            await state["hold_limiter"].redis.aclose()
            if replicas is not None:
                await replicas.stop()
            await close_pool(pool)
            await close_pool(config_pool)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        checks: dict[str, str] = {}
        try:
            async with state["pool"].acquire(timeout=2) as conn:
                await conn.fetchval("SELECT 1")
            checks["database"] = "ok"
        except Exception as e:
            checks["database"] = f"unreachable: {type(e).__name__}"
        try:
            await state["redis"].ping()
            checks["redis"] = "ok"
        except Exception as e:
            checks["redis"] = f"unreachable: {type(e).__name__}"
        ready = all(v == "ok" for v in checks.values())
        return JSONResponse({"status": "ready" if ready else "not ready", **checks}, status_code=200 if ready else 503)

    async def cors_origins() -> frozenset[str]:
        return await state["cors_origins"].allowed()  # type: ignore[no-any-return]

    schema = build_schema(QueryLimits.from_settings(settings))
    instrument(schema)  # operation timings, hold outcomes and conflicts (slothold/metrics.py)
    if settings.database_read_urls:
        schema.extensions = (*schema.extensions, ReplicaReads)
    persisted = persisted_queries(settings)
    view = GraphQLEndpoint(state, schema, max_body_bytes=settings.max_body_bytes,
                           max_query_tokens=settings.max_query_tokens, persisted_queries=persisted,
                           public_fields=CACHEABLE_READS, public_max_age=settings.graphql_get_max_age,
                           # the allow-list runs no document of GraphiQL's choosing: it is not offered
                           graphql_ide=None if persisted.allowlist else "graphiql")
    app = Starlette(
        routes=[
            Route("/graphql", view),
            WebSocketRoute("/graphql", view),
            *whatsapp_routes(state, settings),
            Route("/webhooks/{provider}", webhook_endpoint(state, settings.max_body_bytes), methods=["POST"]),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint(state, settings.metrics_token), methods=["GET"]),
            *web_demo_routes(state, settings.data_dir, DEMO_UNIT_ID),
            *claim_routes(state),
            *calendar_routes(state),  # calendar feeds: /calendar/{secret}.ics
            *rest_routes(schema, partial(request_context, state), settings.max_body_bytes),  # the REST door: /v1
            *static_routes(),
        ],
        middleware=[Middleware(RequestIdMiddleware),
                    Middleware(CorsMiddleware, allowed=cors_origins, own_origins=_own_origins(settings))],
        lifespan=lifespan,
    )
    app.state.slothold = state
    app.state.graphql_view = view
    configure(settings.log_level)
    return app
