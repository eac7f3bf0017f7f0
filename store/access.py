"""Tokens, customer login codes and customer sessions (migrations/versions/0008_access.py).

Secrets never reach the database: a token is `slh_<kind>_<random>`, stored as its SHA-256 digest, and a
login code as an HMAC of the code under its row id. Plaintexts are returned once, when issued.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID, uuid4

import asyncpg

from domain.access import Principal, Role
from domain.customers import CustomerIdentity
from domain.events import LoginCodeSent

STAFF_PREFIX = "slh_s_"
CUSTOMER_PREFIX = "slh_c_"
LAST_USED_EVERY = timedelta(minutes=1)
"""How stale a token's last_used_at may get before an authentication writes it again (staffTokens shows it)."""


def digest(token: str) -> bytes:
    """What is stored for a token."""
    return hashlib.sha256(token.encode()).digest()


def reach_digest(principal: Principal) -> UUID:
    """What a token or session grants (kind, tenant, unit, role, scopes, customer) as a 16-byte digest, computed as
    `lapsed_credentials` computes it from the rows: if any of it changes, what was opened with it must end."""
    text = "|".join((principal.kind, str(principal.tenant_id or ""), str(principal.unit_id or ""),
                     principal.role.value if principal.role else "", ",".join(sorted(principal.scopes)),
                     str(principal.customer_id or "")))
    return UUID(bytes=hashlib.md5(text.encode(), usedforsecurity=False).digest())


def _code_hash(row_id: UUID, code: str) -> bytes:
    return hmac.new(row_id.bytes, code.encode(), hashlib.sha256).digest()


@dataclass(frozen=True)
class TokenInfo:
    """A staff or integrator token as listed (never its secret)."""

    id: UUID
    tenant_id: UUID
    unit_id: UUID | None
    kind: str
    role: str | None
    scopes: list[str]
    name: str
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class LoginCode:
    """The newest open login code of a destination."""

    id: UUID
    expires_at: datetime
    attempts: int
    code_hash: bytes

    def matches(self, code: str) -> bool:
        return hmac.compare_digest(self.code_hash, _code_hash(self.id, code))


class PgAccess:
    """Access data on its own pooled connections (authentication runs before any unit of work)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    # ---- staff and integrator tokens -------------------------------------------------------------------

    async def issue_token(self, tenant_id: UUID, unit_id: UUID | None, kind: str, role: str | None,
                          scopes: list[str], name: str) -> tuple[UUID, str]:
        """A new token; its plaintext is returned once."""
        token_id, plain = uuid4(), STAFF_PREFIX + secrets.token_urlsafe(32)
        await self.pool.execute(
            "INSERT INTO access_tokens (id, tenant_id, unit_id, kind, role, scopes, name, secret_hash) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            token_id, tenant_id, unit_id, kind, role, scopes, name, digest(plain))
        return token_id, plain

    async def tokens(self, tenant_id: UUID | None = None) -> list[TokenInfo]:
        rows = await self.pool.fetch(
            "SELECT id, tenant_id, unit_id, kind, role, scopes, name, created_at, revoked_at FROM access_tokens "
            "WHERE $1::uuid IS NULL OR tenant_id = $1 ORDER BY created_at", tenant_id)
        return [TokenInfo(**dict(r)) for r in rows]

    async def revoke_token(self, token_id: UUID) -> bool:
        """True when the token existed and was live."""
        status = await self.pool.execute(
            "UPDATE access_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", token_id)
        return bool(status.endswith(" 1"))

    async def lapsed_credentials(self, watched: list[tuple[UUID, UUID]], now: datetime) -> list[tuple[UUID, UUID]]:
        """Of these (token or customer-session id, `reach_digest` it was opened with) pairs, the ones that no longer
        hold: revoked, expired (sessions), gone, or granting another reach today. One query, whose answer is empty
        when nothing changed: slothold/auth.py's LiveCredentials asks it every second for every open websocket."""
        rows = await self.pool.fetch(
            "WITH w AS (SELECT * FROM unnest($1::uuid[], $2::uuid[]) AS w(id, reach)), "
            "live AS (SELECT id, md5(concat_ws('|', kind, coalesce(tenant_id::text, ''), coalesce(unit_id::text, ''), "
            "coalesce(role, ''), array_to_string(ARRAY(SELECT s FROM unnest(scopes) s ORDER BY s COLLATE \"C\"), ','), "
            "''))::uuid AS reach FROM access_tokens WHERE id IN (SELECT id FROM w) AND revoked_at IS NULL "
            "AND (expires_at IS NULL OR expires_at > $3) "
            "UNION ALL SELECT id, md5(concat_ws('|', 'customer', tenant_id::text, unit_id::text, '', '', "
            "customer_id::text))::uuid FROM customer_sessions WHERE id IN (SELECT id FROM w) AND revoked_at IS NULL "
            "AND expires_at > $3) "
            "SELECT w.id, w.reach FROM w LEFT JOIN live ON live.id = w.id WHERE live.reach IS DISTINCT FROM w.reach",
            [i for i, _ in watched], [r for _, r in watched], now)
        return [(r["id"], r["reach"]) for r in rows]

    async def principal(self, token: str, now: datetime) -> Principal | None:
        """Who a bearer token stands for, or None (unknown, revoked or expired). A staff or integrator token's
        last use is written when the one stored is over a minute old (one write a minute per token at most)."""
        if token.startswith(STAFF_PREFIX):
            r = await self.pool.fetchrow(
                "SELECT id, tenant_id, unit_id, kind, role, scopes, name, last_used_at FROM access_tokens "
                "WHERE secret_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)",
                digest(token), now)
            if r is None:
                return None
            if r["last_used_at"] is None or now - r["last_used_at"] > LAST_USED_EVERY:
                with contextlib.suppress(asyncpg.PostgresError):  # a note, never a reason to refuse the caller
                    await self.pool.execute("UPDATE access_tokens SET last_used_at = $2 WHERE id = $1", r["id"], now)
            return Principal(kind=r["kind"], tenant_id=r["tenant_id"], unit_id=r["unit_id"],
                             role=Role(r["role"]) if r["role"] else None, scopes=frozenset(r["scopes"]),
                             token_id=r["id"], name=r["name"])
        if token.startswith(CUSTOMER_PREFIX):
            r = await self.pool.fetchrow(  # only proved contacts: they are what links a session to other records
                "SELECT s.id, s.tenant_id, s.unit_id, s.customer_id, c.cpf, c.name, "
                "CASE WHEN c.phone_proved_at IS NOT NULL THEN c.phone END AS phone, "
                "CASE WHEN c.email_proved_at IS NOT NULL THEN c.email END AS email "
                "FROM customer_sessions s JOIN customers c ON c.id = s.customer_id "
                "WHERE s.secret_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2", digest(token), now)
            if r is None:
                return None
            return Principal(kind="customer", tenant_id=r["tenant_id"], unit_id=r["unit_id"], token_id=r["id"],
                             customer_id=r["customer_id"],
                             identity=CustomerIdentity(r["cpf"], r["phone"], r["name"], r["email"]),
                             name=r["name"] or "")
        return None

    # ---- customer login ---------------------------------------------------------------------------------

    async def codes_sent_since(self, unit_id: UUID, destination: str, since: datetime) -> int:
        return int(await self.pool.fetchval(
            "SELECT count(*) FROM customer_login_codes WHERE unit_id = $1 AND destination = $2 AND created_at > $3",
            unit_id, destination, since))

    async def add_code(self, unit_id: UUID, destination: str, code: str, now: datetime, ttl: timedelta,
                       message: LoginCodeSent | None) -> None:
        """Store a login code (earlier open ones of the destination stop working) and, in the same
        transaction, its message in the outbox (the notification channels deliver it)."""
        row_id = uuid4()
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "UPDATE customer_login_codes SET used_at = $3 WHERE unit_id = $1 AND destination = $2 "
                "AND used_at IS NULL", unit_id, destination, now)
            await conn.execute(
                "INSERT INTO customer_login_codes (id, unit_id, destination, code_hash, created_at, expires_at) "
                "VALUES ($1, $2, $3, $4, $5, $6)", row_id, unit_id, destination, _code_hash(row_id, code), now,
                now + ttl)
            if message is not None:
                await conn.execute("INSERT INTO outbox (unit_id, topic, payload) VALUES ($1, $2, $3)",
                                   unit_id, message.TOPIC, message.to_json())

    async def open_code(self, unit_id: UUID, destination: str, now: datetime) -> LoginCode | None:
        r = await self.pool.fetchrow(
            "SELECT id, expires_at, attempts, code_hash FROM customer_login_codes WHERE unit_id = $1 "
            "AND destination = $2 AND used_at IS NULL AND expires_at > $3 ORDER BY created_at DESC LIMIT 1",
            unit_id, destination, now)
        return LoginCode(**dict(r)) if r else None

    async def count_attempt(self, code_id: UUID) -> None:
        await self.pool.execute("UPDATE customer_login_codes SET attempts = attempts + 1 WHERE id = $1", code_id)

    async def use_code(self, code_id: UUID, now: datetime) -> bool:
        """Mark the code used; False when another request used it first."""
        status = await self.pool.execute(
            "UPDATE customer_login_codes SET used_at = $2 WHERE id = $1 AND used_at IS NULL", code_id, now)
        return bool(status.endswith(" 1"))

    async def customer_by_email(self, tenant_id: UUID, email: str) -> UUID | None:
        return await self.pool.fetchval(  # type: ignore[no-any-return]
            "SELECT id FROM customers WHERE tenant_id = $1 AND lower(email) = lower($2) "
            "ORDER BY email_proved_at NULLS LAST, created_at LIMIT 1", tenant_id, email)

    async def open_session(self, unit_id: UUID, tenant_id: UUID, customer_id: UUID, now: datetime,
                           ttl: timedelta) -> tuple[UUID, str]:
        session_id, plain = uuid4(), CUSTOMER_PREFIX + secrets.token_urlsafe(32)
        await self.pool.execute(
            "INSERT INTO customer_sessions (id, unit_id, tenant_id, customer_id, secret_hash, created_at, "
            "expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            session_id, unit_id, tenant_id, customer_id, digest(plain), now, now + ttl)
        return session_id, plain

    async def close_session(self, session_id: UUID) -> None:
        await self.pool.execute("UPDATE customer_sessions SET revoked_at = now() WHERE id = $1", session_id)

    async def is_same_person(self, principal: Principal, customer_id: UUID | None) -> bool:
        """Whether a stored customer is the signed-in customer: the same record, or one whose phone or e-mail is
        one the session's record proved (staff may have typed that contact on another record: it reaches the same
        person). A contact somebody only typed links nothing."""
        if customer_id is None or principal.customer_id is None:
            return False
        if customer_id == principal.customer_id:
            return True
        ident = principal.identity
        return bool(await self.pool.fetchval(
            "SELECT EXISTS (SELECT 1 FROM customers WHERE id = $1 AND tenant_id = $2 "
            "AND ((phone IS NOT NULL AND phone = $3) OR (email IS NOT NULL AND lower(email) = lower($4))))",
            customer_id, principal.tenant_id, ident.phone if ident else None, ident.email if ident else None))


def issue_system_token_blocking(database_url: str, name: str) -> str:
    """A system token written straight into a database, from synchronous code or from inside an event loop
    (tests and benchmarks: the CLI's `token create --system` is the way for people)."""
    token = STAFF_PREFIX + secrets.token_urlsafe(32)

    async def insert() -> None:
        conn = await asyncpg.connect(database_url)
        try:
            await conn.execute("INSERT INTO access_tokens (id, kind, name, secret_hash) "
                               "VALUES ($1, 'system', $2, $3)", uuid4(), name, digest(token))
        finally:
            await conn.close()

    with concurrent.futures.ThreadPoolExecutor(1) as ex:  # a fresh loop in its own thread either way
        ex.submit(asyncio.run, insert()).result()
    return token
