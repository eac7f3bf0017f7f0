"""Staff and integrator tokens on the unit of work's connection (domain/staff_tokens.py's StaffTokens): issued,
listed and revoked in the same transaction as their venue-log rows. The secret is made here, stored as its SHA-256
digest (store/access.py) and returned once."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from domain.access import Role
from domain.staff_tokens import IssuedToken, StaffToken, TokenKind
from store.access import STAFF_PREFIX, digest
from store.bookings import ConnGetter

_COLUMNS = "id, tenant_id, unit_id, kind, role, scopes, name, created_at, expires_at, last_used_at, revoked_at"


def _token(r: Any) -> StaffToken:
    return StaffToken(id=r["id"], tenant_id=r["tenant_id"], unit_id=r["unit_id"], kind=TokenKind(r["kind"]),
                      role=Role(r["role"]) if r["role"] else None, scopes=tuple(r["scopes"]), name=r["name"],
                      created_at=r["created_at"], expires_at=r["expires_at"], last_used_at=r["last_used_at"],
                      revoked_at=r["revoked_at"])


class PgStaffTokens:
    """access_tokens of kinds staff and client (system tokens are the CLI's business, never listed here)."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def issue(self, tenant_id: UUID, unit_id: UUID | None, kind: TokenKind, role: Role | None,
                    scopes: tuple[str, ...], name: str, expires_at: datetime | None, now: datetime
                    ) -> IssuedToken:
        conn = await self._conn()
        plain = STAFF_PREFIX + secrets.token_urlsafe(32)
        row = await conn.fetchrow(
            "INSERT INTO access_tokens (id, tenant_id, unit_id, kind, role, scopes, name, secret_hash, created_at, "
            f"expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {_COLUMNS}",
            uuid4(), tenant_id, unit_id, kind.value, role.value if role else None, list(scopes), name, digest(plain),
            now, expires_at)
        return IssuedToken(_token(row), plain)

    async def get(self, token_id: UUID) -> StaffToken | None:
        conn = await self._conn()
        row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM access_tokens WHERE id = $1 AND kind <> 'system' "
                                  "FOR UPDATE", token_id)
        return None if row is None else _token(row)

    async def reaching(self, tenant_id: UUID, unit_id: UUID, include_revoked: bool) -> list[StaffToken]:
        conn = await self._conn()
        rows = await conn.fetch(
            f"SELECT {_COLUMNS} FROM access_tokens WHERE tenant_id = $1 AND (unit_id IS NULL OR unit_id = $2) "
            "AND kind <> 'system' AND ($3 OR revoked_at IS NULL) ORDER BY created_at, id",
            tenant_id, unit_id, include_revoked)
        return [_token(r) for r in rows]

    async def revoke(self, token_id: UUID, at: datetime) -> StaffToken:
        conn = await self._conn()
        row = await conn.fetchrow(f"UPDATE access_tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 "
                                  f"RETURNING {_COLUMNS}", token_id, at)
        return _token(row)

    async def tenant_units(self, tenant_id: UUID) -> list[UUID]:
        conn = await self._conn()
        rows = await conn.fetch("SELECT u.id FROM units u JOIN organizations o ON o.id = u.organization_id "
                                "WHERE o.tenant_id = $1 ORDER BY u.id", tenant_id)
        return [r["id"] for r in rows]
