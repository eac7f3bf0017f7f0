"""Customers of a tenant: who a request is for, by what it proved or by what staff typed (domain/customers.py).

Two paths, never mixed:

* a request with a proof (a customer session, a WhatsApp phone) acts on its own record only. Identifiers it
  gives are attached to that record when no other record of the tenant holds them; otherwise IdentityConflict;
* a request without one (staff, integrators, the platform) finds the record by CPF, else by phone, makes it on
  first sight, and corrects it from what it gives. Every change of an existing record goes to customer_changes.

The record is locked (FOR UPDATE) while it is read and changed, so two requests for one customer change it one
after the other; a CPF taken by another record meanwhile is caught by the (tenant_id, cpf) unique constraint.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from domain.customers import Customer, CustomerIdentity, IdentityConflict, Proof
from domain.events import AUDIT_SESSION
from store.bookings import ConnGetter

_COLUMNS = "id, cpf::text AS cpf, phone, name, email, blacklisted, phone_proved_at, email_proved_at"

# The record of a CPF, locked, or a new one made with what the request gives: one round trip either way (the hold
# path). No row when another request made it between the two (the caller looks again).
_BY_CPF_OR_NEW = f"""
WITH old AS (SELECT {_COLUMNS} FROM customers WHERE tenant_id = $2 AND cpf = $3 FOR UPDATE),
made AS (
    INSERT INTO customers (id, tenant_id, cpf, phone, name, email, created_by)
    SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT EXISTS (SELECT 1 FROM old)
    ON CONFLICT DO NOTHING RETURNING {_COLUMNS}
)
SELECT *, false AS made FROM old UNION ALL SELECT *, true FROM made
"""
_BY_ID = f"SELECT {_COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE"
# The record a phone stands for: the one whose phone was proved first, else the oldest with it.
_BY_PHONE = (f"SELECT {_COLUMNS} FROM customers WHERE tenant_id = $1 AND phone = $2 "
             "ORDER BY phone_proved_at NULLS LAST, created_at, id LIMIT 1 FOR UPDATE")
_BY_EMAIL = (f"SELECT {_COLUMNS} FROM customers WHERE tenant_id = $1 AND lower(email) = lower($2) "
             "ORDER BY email_proved_at NULLS LAST, created_at, id LIMIT 1 FOR UPDATE")
_INSERT = f"""
INSERT INTO customers (id, tenant_id, cpf, phone, name, email, created_by, phone_proved_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING {_COLUMNS}
"""
_OTHER_HOLDS = """
SELECT EXISTS (SELECT 1 FROM customers WHERE tenant_id = $1 AND id <> $2 AND (
    ($3::text IS NOT NULL AND cpf = $3::bpchar) OR ($4::text IS NOT NULL AND lower(email) = lower($4))
    OR ($5::text IS NOT NULL AND phone = $5)))
"""
_CHANGE = """
WITH changed AS (
    UPDATE customers SET cpf = $3, phone = $4, name = $5, email = $6, phone_proved_at = $7, email_proved_at = $8
    WHERE id = $2 RETURNING id
)
INSERT INTO customer_changes (tenant_id, customer_id, field, old_value, new_value, was_proved, session, at)
SELECT $1, $2, c.field, c.old_value, c.new_value, c.was_proved, $10, $11
FROM jsonb_to_recordset($9::jsonb) AS c(field text, old_value text, new_value text, was_proved boolean), changed
"""

_FIELDS = ("cpf", "phone", "email", "name")
_OWN_ALREADY = {
    "cpf": "your account already has another CPF: ask the venue to correct it",
    "email": "your account's e-mail was proved at sign-in and cannot be replaced here: ask the venue",
    "phone": "your account's phone was proved at sign-in and cannot be replaced here: ask the venue",
}


def _session(identity: CustomerIdentity) -> str:
    """Who is making the change, for customer_changes."""
    session = AUDIT_SESSION.get()
    if session:
        return session
    if identity.proof is not None and identity.proof.phone:
        return f"whatsapp:{identity.proof.phone}"
    return "system"


def _customer(row: Any, identity: CustomerIdentity) -> Customer:
    stored = CustomerIdentity(cpf=row["cpf"], phone=row["phone"], name=row["name"], email=row["email"],
                              proof=identity.proof)
    return Customer(id=row["id"], identity=stored, blacklisted=row["blacklisted"],
                    proved_phone=row["phone"] if row["phone_proved_at"] is not None else None)


class PgCustomers:
    """CustomerRepository on the unit of work's connection."""

    def __init__(self, conn: ConnGetter) -> None:
        self._conn = conn

    async def identify(self, tenant_id: UUID, identity: CustomerIdentity, now: datetime) -> Customer:
        """The stored customer this request is for (see the module's docstring); made on first sight."""
        conn = await self._conn()
        if identity.proof is not None:
            return await self._as_proved(conn, tenant_id, identity, identity.proof, now)
        return await self._as_typed(conn, tenant_id, identity, now)

    async def identity_of(self, customer_id: UUID) -> CustomerIdentity | None:
        """The stored identity of a customer."""
        conn = await self._conn()
        r = await conn.fetchrow("SELECT cpf, phone, name, email FROM customers WHERE id = $1", customer_id)
        return CustomerIdentity(r["cpf"], r["phone"], r["name"], r["email"]) if r else None

    async def identities_of(self, customer_ids: list[UUID]) -> dict[UUID, CustomerIdentity]:
        """The stored identities of several customers, in one query."""
        conn = await self._conn()
        rows = await conn.fetch("SELECT id, cpf, phone, name, email FROM customers WHERE id = ANY($1::uuid[])",
                                customer_ids)
        return {r["id"]: CustomerIdentity(r["cpf"], r["phone"], r["name"], r["email"]) for r in rows}

    async def signed_in(self, tenant_id: UUID, channel: str, address: str, now: datetime, create: bool
                        ) -> UUID | None:
        """The record a sign-in code that reached `address` opens a session for, its contact marked proved (made
        for a phone nobody has when `create`)."""
        conn = await self._conn()
        if channel == "whatsapp":
            row = await conn.fetchrow(_BY_PHONE, tenant_id, address)
            if row is None and create:
                created: UUID = (await self._insert(conn, tenant_id, CustomerIdentity(phone=address), now,
                                                    proved=True))["id"]
                return created
            if row is not None and row["phone_proved_at"] is None:
                await conn.execute("UPDATE customers SET phone_proved_at = $2 WHERE id = $1", row["id"], now)
        else:
            row = await conn.fetchrow(_BY_EMAIL, tenant_id, address)
            if row is not None and row["email_proved_at"] is None:
                await conn.execute("UPDATE customers SET email_proved_at = $2 WHERE id = $1", row["id"], now)
        return row["id"] if row is not None else None

    # ---- with a proof: the request's own record only ----------------------------------------------------------

    async def _as_proved(self, conn: asyncpg.Connection, tenant_id: UUID, identity: CustomerIdentity,
                         proof: Proof, now: datetime) -> Customer:
        if proof.customer_id is not None:
            row = await conn.fetchrow(_BY_ID, tenant_id, proof.customer_id)
            if row is None:  # a session of another tenant's record, or of a record that is gone
                raise IdentityConflict("customer", "your session does not belong to this venue: sign in here")
        else:
            assert proof.phone is not None
            row = await conn.fetchrow(_BY_PHONE, tenant_id, proof.phone)
            if row is None:
                return _customer(await self._insert_proved(conn, tenant_id, identity, proof.phone, now), identity)
            if row["phone_proved_at"] is None:
                await conn.execute("UPDATE customers SET phone_proved_at = $2 WHERE id = $1", row["id"], now)
        wanted = dict(row)
        for name, field in (("cpf", "customer.cpf"), ("email", "customer.email"), ("phone", "customer.phone")):
            given, own = getattr(identity, name), row[name]
            if not given or (own or "").lower() == given.lower():
                continue
            if own and (name == "cpf" or row[f"{name}_proved_at"] is not None):
                raise IdentityConflict(field, _OWN_ALREADY[name])
            if await conn.fetchval(_OTHER_HOLDS, tenant_id, row["id"], given if name == "cpf" else None,
                                   given if name == "email" else None, given if name == "phone" else None):
                raise IdentityConflict(field)
            wanted[name] = given
            if name != "cpf":
                wanted[f"{name}_proved_at"] = None
        if identity.name and identity.name != row["name"]:
            wanted["name"] = identity.name
        await self._change(conn, tenant_id, row, wanted, _session(identity), now)
        return _customer(wanted, identity)

    async def _insert_proved(self, conn: asyncpg.Connection, tenant_id: UUID, identity: CustomerIdentity,
                             phone: str, now: datetime) -> Any:
        """A new record for a phone a channel proved, with the CPF and e-mail given if nobody else holds them."""
        if await conn.fetchval(_OTHER_HOLDS, tenant_id, uuid4(), identity.cpf, identity.email, None):
            field = "customer.cpf" if identity.cpf and await conn.fetchval(
                _OTHER_HOLDS, tenant_id, uuid4(), identity.cpf, None, None) else "customer.email"
            raise IdentityConflict(field)
        made = await self._insert(conn, tenant_id, CustomerIdentity(identity.cpf, phone, identity.name,
                                                                    identity.email), now, proved=True,
                                  by=_session(identity))
        if made is None:  # another record took the CPF meanwhile
            raise IdentityConflict("customer.cpf")
        return made

    # ---- without a proof: staff, integrators, the platform ----------------------------------------------------

    async def _as_typed(self, conn: asyncpg.Connection, tenant_id: UUID, identity: CustomerIdentity,
                        now: datetime) -> Customer:
        for _ in range(3):  # a record made by a concurrent request between the look-up and the insert: look again
            if identity.cpf:
                row = await conn.fetchrow(_BY_CPF_OR_NEW, uuid4(), tenant_id, identity.cpf, identity.phone,
                                          identity.name, identity.email, _session(identity))
                if row is None:
                    continue
                if row["made"]:
                    return _customer(row, identity)
            else:
                row = await conn.fetchrow(_BY_PHONE, tenant_id, identity.phone)
                if row is None:
                    made = await self._insert(conn, tenant_id, identity, now, proved=False, by=_session(identity))
                    if made is not None:
                        return _customer(made, identity)
                    continue
                return _customer(row, identity)  # found by phone: a phone alone names the record, it corrects nothing
            wanted = dict(row)
            for name in ("phone", "email", "name"):
                given = getattr(identity, name)
                if given and given != row[name] and (identity.corrects or row[name] is None):
                    wanted[name] = given
                    if name != "name":
                        wanted[f"{name}_proved_at"] = None
            await self._change(conn, tenant_id, row, wanted, _session(identity), now)
            return _customer(wanted, identity)
        raise IdentityConflict("customer", "the customer record changed while it was being read: try again")

    # ---- shared -----------------------------------------------------------------------------------------------

    async def _insert(self, conn: asyncpg.Connection, tenant_id: UUID, identity: CustomerIdentity, now: datetime,
                      proved: bool, by: str = "system") -> Any:
        return await conn.fetchrow(_INSERT, uuid4(), tenant_id, identity.cpf, identity.phone, identity.name,
                                   identity.email, by, now if proved and identity.phone else None)

    async def _change(self, conn: asyncpg.Connection, tenant_id: UUID, row: Any, wanted: dict[str, Any],
                      session: str, now: datetime) -> None:
        """Write what differs between `row` and `wanted`, and one customer_changes row per field."""
        changes = [{"field": f, "old_value": row[f], "new_value": wanted[f],
                    "was_proved": f in ("phone", "email") and row[f] is not None and row[f"{f}_proved_at"] is not None}
                   for f in _FIELDS if wanted[f] != row[f]]
        if not changes:
            return
        try:
            await conn.execute(_CHANGE, tenant_id, row["id"], wanted["cpf"], wanted["phone"], wanted["name"],
                               wanted["email"], wanted["phone_proved_at"], wanted["email_proved_at"], changes,
                               session, now)
        except asyncpg.UniqueViolationError:  # the CPF was given to another record meanwhile
            raise IdentityConflict("customer.cpf") from None
        if any(c["was_proved"] for c in changes):  # staff replaced the contact a sign-in proved (a lost phone, a
            # number given to someone else): the sessions it opened end with it; the next sign-in proves the new one
            await conn.execute("UPDATE customer_sessions SET revoked_at = $2 WHERE customer_id = $1 "
                               "AND revoked_at IS NULL", row["id"], now)
