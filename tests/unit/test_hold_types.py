"""Hold types (SPEC §10, seed 004): resolution organization → tenant → platform, validation, who places and
releases what."""

from __future__ import annotations

from typing import Any

import pytest

from domain import hold_types as dh
from domain.errors import InvalidInput
from domain.hold_types import HoldTypeCatalog, Level, Releaser, SeatState

PARTNER = {"validStates": ["LOCKED"], "ttlSeconds": 3600, "releaseApi": ["ADMIN", "API"], "paymentRequired": True,
           "displayName": "Partner Hold", "displayColor": "#8B008B"}
COMP = {"validStates": ["LOCKED", "SOLD"], "ttlSeconds": 0, "releaseApi": ["ADMIN"], "paymentRequired": False,
        "displayName": "Complimentary", "displayColor": "#FFD700"}


def test_platform_defaults_are_cart_and_reserved() -> None:
    c = HoldTypeCatalog()
    cart, reserved = c.resolve(None), c.resolve("RESERVED")
    assert cart.name == "CART" and cart.valid_states == {"LOCKED"} and cart.payment_required
    assert cart.release_api == {"CUSTOMER", "ADMIN", "SYSTEM"} and cart.uses_unit_ttl
    assert reserved.release_api == {"ADMIN"} and not reserved.payment_required and not reserved.uses_unit_ttl
    assert cart.defined_by == (Level.PLATFORM,)


def test_organization_overrides_only_the_colour_of_cart_and_inherits_the_rest() -> None:
    c = HoldTypeCatalog(tenant={"CART": {"displayName": "Carrinho"}},
                        organization={"CART": {"displayColor": "#000001"}})
    cart = c.resolve("CART")
    assert cart.display_color == "#000001"          # organization
    assert cart.display_name == "Carrinho"          # tenant
    assert cart.release_api == {"CUSTOMER", "ADMIN", "SYSTEM"} and cart.payment_required  # platform
    assert cart.defined_by == (Level.PLATFORM, Level.TENANT, Level.ORGANIZATION)


def test_organization_wins_over_tenant_field_by_field_for_custom_types() -> None:
    c = HoldTypeCatalog(tenant={"PARTNER_HOLD": PARTNER},
                        organization={"PARTNER_HOLD": {"ttlSeconds": 600, "releaseApi": ["ADMIN"]}})
    p = c.resolve("PARTNER_HOLD")
    assert p.ttl_seconds == 600 and p.release_api == {"ADMIN"}
    assert p.display_name == "Partner Hold" and p.display_color == "#8B008B"
    assert p.defined_by == (Level.TENANT, Level.ORGANIZATION)
    # A type only one organization defines is unknown to another organization of the tenant.
    other = HoldTypeCatalog(tenant={}, organization={})
    with pytest.raises(InvalidInput) as e:
        other.resolve("PARTNER_HOLD")
    assert e.value.code == "unknown_hold_type" and e.value.field == "holdType"


def test_a_custom_type_defined_with_one_field_gets_the_custom_defaults() -> None:
    ht = HoldTypeCatalog(organization={"VIP": {"displayColor": "#123456"}}).resolve("VIP")
    assert ht.valid_states == {"LOCKED"} and ht.release_api == {"ADMIN"} and ht.payment_required
    assert ht.display_name == "VIP" and ht.ttl_seconds is None and not ht.uses_unit_ttl


def test_ttl_zero_means_no_ttl_of_its_own() -> None:
    comp = HoldTypeCatalog(organization={"COMP": COMP}).resolve("COMP")
    assert comp.ttl_seconds is None and not comp.uses_unit_ttl


def test_target_state_and_valid_states() -> None:
    c = HoldTypeCatalog(organization={"COMP": COMP, "BOX_OFFICE": {
        "validStates": ["SOLD"], "skipLockedState": True, "paymentRequired": False}})
    assert c.resolve("BOX_OFFICE").target_state is SeatState.SOLD
    c.resolve("COMP").check_target(SeatState.SOLD)
    with pytest.raises(InvalidInput) as e:
        c.resolve("RESERVED").check_target(SeatState.SOLD)
    assert e.value.code == "hold_type_state_invalid" and "RESERVED" in e.value.message


@pytest.mark.parametrize(("placer", "name", "ok"), [
    (Releaser.CUSTOMER, "CART", True),
    (Releaser.CUSTOMER, "RESERVED", False),       # no payment: staff only
    (Releaser.CUSTOMER, "PARTNER_HOLD", False),   # customers could not release it
    (Releaser.API, "PARTNER_HOLD", True),
    (Releaser.API, "CART", True),
    (Releaser.API, "COMP", False),
    (Releaser.ADMIN, "COMP", True),
    (Releaser.ADMIN, "RESERVED", True),
    (None, "RESERVED", True),
])
def test_who_may_place_which_type(placer: Releaser | None, name: str, ok: bool) -> None:
    ht = HoldTypeCatalog(organization={"PARTNER_HOLD": PARTNER, "COMP": COMP}).resolve(name)
    if ok:
        ht.check_placement(placer)
    else:
        with pytest.raises(InvalidInput) as e:
            ht.check_placement(placer)
        assert e.value.code == "hold_type_not_allowed"


def test_the_waitlist_type_is_never_named_by_callers() -> None:
    with pytest.raises(InvalidInput) as e:
        HoldTypeCatalog().resolve("WAITLIST_OFFER").check_placement(Releaser.ADMIN)
    assert e.value.code == "internal_hold_type"


@pytest.mark.parametrize(("releaser", "name", "ok"), [
    (Releaser.CUSTOMER, "CART", True), (Releaser.API, "CART", False), (Releaser.ADMIN, "CART", True),
    (Releaser.CUSTOMER, "RESERVED", False), (Releaser.ADMIN, "RESERVED", True), (None, "RESERVED", True),
    (Releaser.API, "PARTNER_HOLD", True), (Releaser.CUSTOMER, "PARTNER_HOLD", False),
])
def test_release_follows_release_api(releaser: Releaser | None, name: str, ok: bool) -> None:
    ht = HoldTypeCatalog(organization={"PARTNER_HOLD": PARTNER}).for_release(name)
    assert ht.may_release(releaser) is ok
    if not ok:
        with pytest.raises(InvalidInput) as e:
            ht.check_release(releaser)
        assert e.value.code == "release_not_allowed" and e.value.field == "bookingId"


def test_a_removed_type_is_released_by_carts_rules() -> None:
    assert HoldTypeCatalog().for_release("GONE").name == "CART"


def test_display_uses_the_organizations_colours() -> None:
    c = HoldTypeCatalog(organization={"CART": {"displayColor": "#000001"}, "COMP": COMP})
    assert c.display("held", "CART") == ("Hold do bot", "#000001")
    assert c.display("booked", "CART") == ("Hold do bot", dh.STATE_COLORS["booked"])  # CART does not describe SOLD
    assert c.display("booked", "COMP") == ("Complimentary", "#FFD700")
    assert c.display("free", None) == (None, dh.STATE_COLORS["free"])


def _patch(changes: dict[str, Any], name: str = "PARTNER_HOLD", layer: dict[str, Any] | None = None) -> Any:
    return dh.patch_layer(layer, name, changes)


@pytest.mark.parametrize(("changes", "field", "code"), [
    ({"validStates": []}, "definition.validStates", "invalid_valid_states"),
    ({"validStates": ["ACTIVE"]}, "definition.validStates", "invalid_valid_states"),
    ({"validStates": ["BLOCKED", "LOCKED"]}, "definition.validStates", "invalid_valid_states"),
    ({"validStates": "LOCKED"}, "definition.validStates", "invalid_valid_states"),
    ({"ttlSeconds": 59}, "definition.ttlSeconds", "invalid_ttl"),
    ({"ttlSeconds": -1}, "definition.ttlSeconds", "invalid_ttl"),
    ({"ttlSeconds": dh.TTL_MAX + 1}, "definition.ttlSeconds", "invalid_ttl"),
    ({"ttlSeconds": True}, "definition.ttlSeconds", "invalid_ttl"),
    ({"releaseApi": []}, "definition.releaseApi", "invalid_release_api"),
    ({"releaseApi": ""}, "definition.releaseApi", "invalid_release_api"),
    ({"releaseApi": "ADMIN,ROBOT"}, "definition.releaseApi", "invalid_release_api"),
    ({"paymentRequired": "yes"}, "definition.paymentRequired", "invalid_flag"),
    ({"skipLockedState": 1}, "definition.skipLockedState", "invalid_flag"),
    ({"displayName": "  "}, "definition.displayName", "invalid_display_name"),
    ({"displayName": "x" * 61}, "definition.displayName", "invalid_display_name"),
    ({"displayColor": "purple"}, "definition.displayColor", "invalid_color"),
    ({"displayColor": "#12345"}, "definition.displayColor", "invalid_color"),
    ({"displayIcon": "a b"}, "definition.displayIcon", "invalid_display_icon"),
    ({"displayIcon": "x" * 501}, "definition.displayIcon", "invalid_display_icon"),
    ({"colour": "#000000"}, "definition.colour", "unknown_field"),
    ({"colour": None}, "definition.colour", "unknown_field"),
    ({}, "definition", "empty_definition"),
])
def test_every_field_error_names_the_field(changes: dict[str, Any], field: str, code: str) -> None:
    with pytest.raises(InvalidInput) as e:
        _patch(changes)
    assert (e.value.field, e.value.code) == (field, code)


@pytest.mark.parametrize("name", ["", "x", "lower", "1ABC", "A-B", "A" * 33, "ÁREA"])
def test_names_are_checked(name: str) -> None:
    with pytest.raises(InvalidInput) as e:
        _patch({"displayColor": "#000000"}, name=name)
    assert (e.value.field, e.value.code) == ("name", "invalid_hold_type_name")


def test_the_waitlist_type_may_only_be_restyled() -> None:
    assert _patch({"displayColor": "#101010"}, name="WAITLIST_OFFER") == {"displayColor": "#101010"}
    with pytest.raises(InvalidInput) as e:
        _patch({"releaseApi": ["ADMIN"]}, name="WAITLIST_OFFER")
    assert (e.value.field, e.value.code) == ("definition.releaseApi", "internal_hold_type")


def test_patching_keeps_other_fields_and_null_inherits_again() -> None:
    layer = _patch({"ttlSeconds": 3600, "displayColor": "#8b008b"})
    assert layer == {"ttlSeconds": 3600, "displayColor": "#8B008B"}
    layer = _patch({"ttlSeconds": None, "releaseApi": "ADMIN, API"}, layer=layer)
    assert layer == {"displayColor": "#8B008B", "releaseApi": ["ADMIN", "API"]}


def test_merged_types_must_be_usable() -> None:
    check = dh.layers_check("BOX")
    with pytest.raises(InvalidInput) as e:
        check({}, {1: {"BOX": {"skipLockedState": True}}})  # skips LOCKED but is only valid in LOCKED
    assert e.value.code == "skip_locked_needs_sold"
    with pytest.raises(InvalidInput) as e:
        check({}, {1: {"BOX": {"validStates": ["SOLD"]}}})  # never placeable
    assert e.value.code == "locked_state_required"
    check({}, {1: {"BOX": {"validStates": ["SOLD"], "skipLockedState": True}}})
    # A tenant change is checked against every organization's overrides.
    with pytest.raises(InvalidInput):
        dh.layers_check("CART")({"CART": {"validStates": ["SOLD"]}}, {1: {}, 2: {"CART": {"displayColor": "#000000"}}})


def test_too_many_types_in_one_layer() -> None:
    many = {f"T{i:02d}": {"displayColor": "#000000"} for i in range(dh.MAX_DEFINED + 1)}
    with pytest.raises(InvalidInput) as e:
        dh.layers_check("T00")({}, {1: many})
    assert e.value.code == "too_many_hold_types"


def test_removing_what_a_level_does_not_define() -> None:
    with pytest.raises(InvalidInput) as e:
        dh.removal_edit("CART", Level.ORGANIZATION)(None)
    assert e.value.code == "not_defined_here"
