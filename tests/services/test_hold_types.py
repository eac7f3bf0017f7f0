"""Hold types on real PostgreSQL (SPEC §10): layers stored per tenant/organization, TTL enforced per type, who
places and releases, box office, no-payment types."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from domain import checkout
from domain import hold_types as dh
from domain.bookings import BookingStatus
from domain.errors import InvalidInput
from domain.hold_types import Level, Releaser
from domain.services import ChangeCommand, Deps, HoldCommand, cancel, drop, expire_lapsed, hold
from store.hold_types import change_layer
from tests.services.fake_bank import FakeBank
from tests.services.test_payments import paid_arena
from tests.venues import arena, at, customer


async def define(pool: Any, unit: Any, level: Level, name: str, **fields: Any) -> None:
    await change_layer(pool, unit, level, name, dh.definition_edit(name, fields), dh.layers_check(name))


async def remove(pool: Any, unit: Any, level: Level, name: str) -> None:
    await change_layer(pool, unit, level, name, dh.removal_edit(name, level), dh.layers_check(name))


def cmd(v: Any, hold_type: str | None, placed_by: Releaser | None, n: int = 1, hour: int = 19, **kw: Any
        ) -> HoldCommand:
    return HoldCommand(v.unit_id, at(8, hour), at(8, hour + 1), (v.resource_ids["Campo 1"],), customer=customer(n),
                       hold_type=hold_type, placed_by=placed_by, **kw)


async def count(pool: Any, unit: Any) -> int:
    return int(await pool.fetchval("SELECT count(*) FROM bookings WHERE unit_id = $1", unit))


async def test_ttl_is_enforced_per_type_and_the_organization_overrides_the_tenant(deps: Deps, pool: Any,
                                                                                   clock: Any) -> None:
    v = await arena(pool)
    await define(pool, v.unit_id, Level.TENANT, "PARTNER_HOLD", ttlSeconds=3600, releaseApi="ADMIN,API",
                 displayName="Partner Hold", displayColor="#8B008B")
    partner = (await hold(deps, cmd(v, "PARTNER_HOLD", Releaser.API))).booking
    assert partner.hold_type == "PARTNER_HOLD"
    assert partner.hold_expires_at == clock.now() + timedelta(hours=1)
    cart = (await hold(deps, cmd(v, None, Releaser.CUSTOMER, n=2, hour=20))).booking
    assert cart.hold_type == "CART" and cart.hold_expires_at == clock.now() + timedelta(minutes=10)  # the unit's

    await define(pool, v.unit_id, Level.ORGANIZATION, "PARTNER_HOLD", ttlSeconds=600)
    short = (await hold(deps, cmd(v, "PARTNER_HOLD", Releaser.API, n=3, hour=21))).booking
    assert short.hold_expires_at == clock.now() + timedelta(minutes=10)

    clock.advance(minutes=11)
    await expire_lapsed(deps)
    rows = dict(await pool.fetch("SELECT id, status FROM bookings WHERE unit_id = $1", v.unit_id))
    assert rows == {partner.id: "held", cart.id: "expired", short.id: "expired"}
    clock.advance(minutes=50)
    await expire_lapsed(deps)
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", partner.id) == "expired"
    event = await pool.fetchrow("SELECT hold_type, actor FROM booking_events WHERE booking_id = $1 AND "
                                "new_status = 'expired'", partner.id)
    assert tuple(event) == ("PARTNER_HOLD", "system")  # the audit keeps the type; the booking's is cleared
    assert await pool.fetchval("SELECT hold_type FROM bookings WHERE id = $1", partner.id) is None


async def test_a_type_only_staff_release_lasts_until_the_range_ends(deps: Deps, pool: Any, clock: Any) -> None:
    v = await arena(pool)
    r = (await hold(deps, cmd(v, "RESERVED", Releaser.ADMIN))).booking
    assert r.hold_expires_at == at(8, 20) and r.remind_at is None
    clock.advance(hours=5)
    await expire_lapsed(deps)  # (other tests' holds in the shared database may lapse now; this one must not)
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", r.id) == "held"


async def test_unknown_and_misused_types_are_refused_and_nothing_is_written(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    cases = [("NOPE", Releaser.ADMIN, "unknown_hold_type"), ("RESERVED", Releaser.CUSTOMER, "hold_type_not_allowed"),
             ("RESERVED", Releaser.API, "hold_type_not_allowed"), ("WAITLIST_OFFER", None, "internal_hold_type")]
    await define(pool, v.unit_id, Level.ORGANIZATION, "PARTNER_HOLD", releaseApi=["ADMIN", "API"])
    cases.append(("PARTNER_HOLD", Releaser.CUSTOMER, "hold_type_not_allowed"))
    for name, placer, code in cases:
        with pytest.raises(InvalidInput) as e:
            await hold(deps, cmd(v, name, placer))
        assert (e.value.field, e.value.code) == ("holdType", code), name
    # A type whose merged definition no longer allows LOCKED is refused for a hold (validated on write as well).
    assert await count(pool, v.unit_id) == 0


async def test_box_office_sells_at_once_and_keeps_its_type(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    await define(pool, v.unit_id, Level.ORGANIZATION, "BOX_OFFICE", validStates=["SOLD"], skipLockedState=True,
                 paymentRequired=False, displayColor="#10B981")
    b = (await hold(deps, cmd(v, "BOX_OFFICE", Releaser.ADMIN))).booking
    assert b.status is BookingStatus.CONFIRMED and b.hold_type == "BOX_OFFICE" and b.hold_expires_at is None
    with pytest.raises(InvalidInput) as e:
        await hold(deps, cmd(v, "BOX_OFFICE", Releaser.API, n=2, hour=20))
    assert e.value.code == "hold_type_not_allowed"


async def test_release_api_decides_who_frees_a_hold(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    r = (await hold(deps, cmd(v, "RESERVED", Releaser.ADMIN))).booking
    for releaser in (Releaser.CUSTOMER, Releaser.API):
        with pytest.raises(InvalidInput) as e:
            await cancel(deps, ChangeCommand(r.id, releaser=releaser))
        assert e.value.code == "release_not_allowed"
    with pytest.raises(InvalidInput):
        await drop(deps, ChangeCommand(r.id, actor="staff", reason="x", releaser=Releaser.API))
    assert await pool.fetchval("SELECT status FROM bookings WHERE id = $1", r.id) == "held"
    done = await drop(deps, ChangeCommand(r.id, actor="staff", reason="VIP não vem", releaser=Releaser.ADMIN))
    assert done.booking.status is BookingStatus.CANCELLED and done.booking.hold_type is None  # release clears it

    c = (await hold(deps, cmd(v, None, Releaser.CUSTOMER, n=2, hour=20))).booking
    with pytest.raises(InvalidInput):
        await cancel(deps, ChangeCommand(c.id, releaser=Releaser.API))  # CART: customer, admin, system
    assert (await cancel(deps, ChangeCommand(c.id, releaser=Releaser.CUSTOMER))).booking.hold_type is None


async def test_a_customer_cannot_swap_a_staff_hold(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    r = (await hold(deps, cmd(v, "RESERVED", Releaser.ADMIN))).booking
    with pytest.raises(InvalidInput) as e:
        await checkout.swap(deps, checkout.SwapCommand(r.id, cmd(v, "RESERVED", Releaser.CUSTOMER, hour=21)))
    assert e.value.code == "hold_type_not_allowed"
    with pytest.raises(InvalidInput) as e:
        await checkout.swap(deps, checkout.SwapCommand(r.id, cmd(v, None, Releaser.CUSTOMER, hour=21)))
    assert e.value.code == "release_not_allowed"
    assert await count(pool, v.unit_id) == 1


async def test_a_type_without_payment_confirms_without_a_charge(deps: Deps, pool: Any, clock: Any) -> None:
    v = await paid_arena(pool)
    pay = replace(deps, provider=FakeBank())
    c = HoldCommand(v.unit_id, at(12, 19), at(12, 20), (v.resource_ids["Campo 1"],), customer=customer(1),
                    service_id=v.service_ids["Campo 1h"], hold_type="RESERVED", placed_by=Releaser.ADMIN)
    b = (await hold(pay, c)).booking
    r = await checkout.confirm(pay, checkout.ConfirmCommand(b.id))
    assert r.booking.status is BookingStatus.CONFIRMED and r.charge is None
    assert await pool.fetchval("SELECT count(*) FROM charges WHERE booking_id = $1", b.id) == 0
    # CART on the same service still asks for the Pix (and lasts the longer TTL).
    c2 = replace(c, starts_at=at(12, 20), ends_at=at(12, 21), hold_type=None, placed_by=Releaser.CUSTOMER)
    b2 = (await hold(pay, c2)).booking
    assert b2.hold_expires_at == clock.now() + timedelta(minutes=15)
    assert (await checkout.confirm(pay, checkout.ConfirmCommand(b2.id))).booking.status is BookingStatus.PENDING_PAYMENT


async def test_layers_are_checked_on_write_and_types_in_use_cannot_vanish(deps: Deps, pool: Any) -> None:
    v = await arena(pool)
    with pytest.raises(InvalidInput) as e:
        await define(pool, v.unit_id, Level.ORGANIZATION, "BOX", skipLockedState=True)
    assert e.value.code == "skip_locked_needs_sold"
    await define(pool, v.unit_id, Level.TENANT, "CART", displayName="Carrinho")
    with pytest.raises(InvalidInput) as e:  # the tenant would make CART unusable for this organization
        await define(pool, v.unit_id, Level.TENANT, "CART", validStates=["SOLD"])
    assert e.value.code == "locked_state_required"
    await define(pool, v.unit_id, Level.ORGANIZATION, "VIP", displayColor="#123456")
    b = (await hold(deps, cmd(v, "VIP", Releaser.ADMIN))).booking
    with pytest.raises(InvalidInput) as e:
        await remove(pool, v.unit_id, Level.ORGANIZATION, "VIP")
    assert e.value.code == "hold_type_in_use"
    await drop(deps, ChangeCommand(b.id, actor="staff", reason="done", releaser=Releaser.ADMIN))
    await remove(pool, v.unit_id, Level.ORGANIZATION, "VIP")
    layers = await pool.fetchrow("SELECT o.hold_types AS org, t.hold_types AS tenant FROM units u JOIN organizations o"
                                 " ON o.id = u.organization_id JOIN tenants t ON t.id = o.tenant_id WHERE u.id = $1",
                                 v.unit_id)
    assert layers["org"] == {} and layers["tenant"] == {"CART": {"displayName": "Carrinho"}}
    with pytest.raises(InvalidInput) as e:
        await remove(pool, v.unit_id, Level.ORGANIZATION, "VIP")
    assert e.value.code == "not_defined_here"
