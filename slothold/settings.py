"""Configuration read from the environment, once, at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

from domain.origins import platform_origins

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    """Everything a process needs to know about its surroundings.

    Hold rate limits are off (0) in settings built in code (tests, tools) unless given; `from_env()`, which the
    server uses, turns them on: 60 per token and 10 per customer a minute.
    """

    database_url: str | None = None
    """Where the processes' pools connect: PostgreSQL itself, or a transaction-mode pooler (PgBouncer) in front of it
    when `database_direct_url` is set too."""
    database_direct_url: str | None = None
    """PostgreSQL itself, for what needs a session of its own (the relay's advisory lock and LISTEN, migrations and
    the admin commands); when it is set and differs from `database_url`, `database_url` is taken to be a
    transaction-mode pooler (store/db.create_pool(behind_pooler=True))."""
    database_read_urls: str = ""
    """Read replicas of the primary, "url,url,...": the public reads go to one lagging at most
    `replica_max_lag_seconds` (slothold/read_routing.py)."""
    replica_max_lag_seconds: float = 2.0
    redis_url: str | None = None
    redis_sentinels: str = ""
    """Redis Sentinel addresses, "host:port,host:port,...": when set, every Redis client (arq, the hub, the relay,
    rate limits, readiness) asks them for the primary of `redis_master` (and `redis_url` only gives the database
    number, password and options)."""
    redis_master: str = "slothold"
    data_dir: Path = field(default_factory=lambda: PROJECT_ROOT / ".slothold")
    host: str = "127.0.0.1"
    port: int = 8000
    db_pool_min: int = 2
    db_pool_max: int = 20
    log_level: str = "INFO"
    max_body_bytes: int = 1_000_000
    sweep_seconds: int = 30
    poll_seconds: int = 20
    outbox_retention_hours: int = 24
    max_query_depth: int = 10
    max_query_cost: int = 10_000
    max_query_aliases: int = 30
    max_query_tokens: int = 2_000
    hold_rate_per_token: int = 0
    hold_rate_per_customer: int = 0
    hold_rate_window_seconds: int = 60
    whatsapp_verify_token: str | None = None
    whatsapp_app_secret: str | None = None
    whatsapp_api_url: str | None = None
    whatsapp_api_token: str | None = None
    whatsapp_numbers: str = ""
    """The WhatsApp phone number ids and the units they answer for: "<phone number id>=<unit id>,..."."""
    metrics_token: str | None = None
    """When set, /metrics (and the worker's metrics port) require `Authorization: Bearer <it>`."""
    worker_metrics_port: int = 0
    """The port a worker serves its metrics on (0: none)."""
    worker_metrics_host: str = "127.0.0.1"
    persisted_queries: str = "apq"
    """How `extensions.persistedQuery` is treated (api/graphql/persisted.py): "off", "apq" (Apollo's automatic
    persisted queries, stored in Redis) or "allowlist" (only the documents of `persisted_query_manifest` run)."""
    persisted_query_manifest: str = ""
    """The Apollo persisted query manifest (a JSON file) of the allow-list mode; `slothold manifest` writes one."""
    persisted_query_ttl_seconds: int = 86_400
    """How long Redis keeps an APQ document after its registration."""
    persisted_query_cache_size: int = 1_000
    """APQ documents each API process keeps in memory in front of Redis."""
    graphql_get_max_age: int = 5
    """`Cache-Control: public, max-age=` of an anonymous GET of public reads (api/graphql/caching.py); 0: never
    public."""
    public_base_url: str = ""
    """Where customers reach this server (https://reservas.example): the claim links of offers are built on it.
    Empty: the server's own address, http://<host>:<port> (right for `slothold dev`; a wildcard host is shown as
    127.0.0.1)."""
    cors_origins: str = ""
    """The platform's web origins allowed to call /graphql and /v1 from a browser, "https://a.example,https://b..."
    (SLOTHOLD_CORS_ORIGINS), besides those each unit's owners register (setAllowedOrigins); api/cors.py."""

    def persisted_query_mode(self) -> str:
        """`persisted_queries`, checked: ValueError unless off, apq or allowlist (the latter with a manifest)."""
        mode = self.persisted_queries.strip().lower()
        if mode not in ("off", "apq", "allowlist"):
            raise ValueError("SLOTHOLD_PERSISTED_QUERIES must be off, apq or allowlist, "
                             f"not {self.persisted_queries!r}")
        if mode == "allowlist" and not self.persisted_query_manifest:
            raise ValueError("SLOTHOLD_PERSISTED_QUERIES=allowlist needs SLOTHOLD_PERSISTED_QUERY_MANIFEST (a manifest "
                             "file: `slothold manifest FILE.graphql... > manifest.json`)")
        return mode

    def base_url(self) -> str:
        """The public base URL without its trailing slash; ValueError unless it is an http(s) URL."""
        host = "127.0.0.1" if self.host in ("", "0.0.0.0", "::") else f"[{self.host}]" if ":" in self.host \
            else self.host
        url = (self.public_base_url.strip() or f"http://{host}:{self.port}").rstrip("/")
        scheme, _, rest = url.partition("://")
        if scheme not in ("http", "https") or not rest or any(c.isspace() for c in rest) or "?" in rest \
                or "#" in rest:
            raise ValueError(f"SLOTHOLD_PUBLIC_BASE_URL must be an http(s) URL without query, not {url!r}")
        return url

    def cors_origin_list(self) -> frozenset[str]:
        """The platform's allowed origins, normalised; ValueError naming a malformed one."""
        return platform_origins(self.cors_origins)

    @property
    def database_pooled(self) -> bool:
        """Whether `database_url` goes through a transaction-mode pooler."""
        return bool(self.database_direct_url) and self.database_direct_url != self.database_url

    @property
    def session_database_url(self) -> str | None:
        """PostgreSQL itself: `database_direct_url`, else `database_url`."""
        return self.database_direct_url or self.database_url

    def whatsapp_unit_numbers(self) -> dict[str, UUID]:
        """Phone number id → unit id (ValueError naming a malformed entry)."""
        from providers.channels import parse_numbers

        return parse_numbers(self.whatsapp_numbers)

    @classmethod
    def from_env(cls) -> Settings:
        """Build settings from SLOTHOLD_* variables plus DATABASE_URL, DATABASE_DIRECT_URL, REDIS_URL,
        REDIS_SENTINELS and REDIS_SENTINEL_MASTER."""
        env = os.environ
        settings = cls(
            database_url=env.get("DATABASE_URL") or None,
            database_direct_url=env.get("DATABASE_DIRECT_URL") or None,
            database_read_urls=env.get("DATABASE_READ_URL", ""),
            replica_max_lag_seconds=float(env.get("SLOTHOLD_REPLICA_MAX_LAG_SECONDS") or "2"),
            # With sentinels REDIS_URL is optional: it gives only the database number and the credentials.
            redis_url=env.get("REDIS_URL") or ("redis:///0" if env.get("REDIS_SENTINELS") else None),
            redis_sentinels=env.get("REDIS_SENTINELS", ""),
            redis_master=env.get("REDIS_SENTINEL_MASTER") or "slothold",
            data_dir=Path(env.get("SLOTHOLD_DATA_DIR", str(PROJECT_ROOT / ".slothold"))),
            host=env.get("SLOTHOLD_HOST", "127.0.0.1"),
            port=int(env.get("SLOTHOLD_PORT", "8000")),
            db_pool_min=int(env.get("SLOTHOLD_DB_POOL_MIN", "2")),
            db_pool_max=int(env.get("SLOTHOLD_DB_POOL_MAX", "20")),
            log_level=env.get("SLOTHOLD_LOG_LEVEL", "INFO"),
            max_body_bytes=int(env.get("SLOTHOLD_MAX_BODY_BYTES", "1000000")),
            sweep_seconds=int(env.get("SLOTHOLD_SWEEP_SECONDS", "30")),
            poll_seconds=int(env.get("SLOTHOLD_POLL_SECONDS", "20")),
            outbox_retention_hours=int(env.get("SLOTHOLD_OUTBOX_RETENTION_HOURS", "24")),
            max_query_depth=int(env.get("SLOTHOLD_MAX_QUERY_DEPTH", "10")),
            max_query_cost=int(env.get("SLOTHOLD_MAX_QUERY_COST", "10000")),
            max_query_aliases=int(env.get("SLOTHOLD_MAX_QUERY_ALIASES", "30")),
            max_query_tokens=int(env.get("SLOTHOLD_MAX_QUERY_TOKENS", "2000")),
            hold_rate_per_token=int(env.get("SLOTHOLD_HOLD_RATE_PER_TOKEN", "60")),
            hold_rate_per_customer=int(env.get("SLOTHOLD_HOLD_RATE_PER_CUSTOMER", "10")),
            hold_rate_window_seconds=int(env.get("SLOTHOLD_HOLD_RATE_WINDOW_SECONDS", "60")),
            whatsapp_verify_token=env.get("SLOTHOLD_WHATSAPP_VERIFY_TOKEN") or None,
            whatsapp_app_secret=env.get("SLOTHOLD_WHATSAPP_APP_SECRET") or None,
            whatsapp_api_url=env.get("SLOTHOLD_WHATSAPP_API_URL") or None,
            whatsapp_api_token=env.get("SLOTHOLD_WHATSAPP_API_TOKEN") or None,
            whatsapp_numbers=env.get("SLOTHOLD_WHATSAPP_NUMBERS", ""),
            metrics_token=env.get("SLOTHOLD_METRICS_TOKEN") or None,
            worker_metrics_port=int(env.get("SLOTHOLD_WORKER_METRICS_PORT") or "0"),
            worker_metrics_host=env.get("SLOTHOLD_WORKER_METRICS_HOST") or "127.0.0.1",
            public_base_url=env.get("SLOTHOLD_PUBLIC_BASE_URL", ""),
            cors_origins=env.get("SLOTHOLD_CORS_ORIGINS", ""),
            persisted_queries=env.get("SLOTHOLD_PERSISTED_QUERIES") or "apq",
            persisted_query_manifest=env.get("SLOTHOLD_PERSISTED_QUERY_MANIFEST", ""),
            persisted_query_ttl_seconds=int(env.get("SLOTHOLD_PERSISTED_QUERY_TTL_SECONDS") or "86400"),
            persisted_query_cache_size=int(env.get("SLOTHOLD_PERSISTED_QUERY_CACHE_SIZE") or "1000"),
            graphql_get_max_age=int(env.get("SLOTHOLD_GRAPHQL_GET_MAX_AGE") or "5"),
        )
        settings.persisted_query_mode()  # a bad mode is a bad setting at start-up (the CLI's exit code 2)
        return settings
