"""Idempotency fingerprints are made of the whole command (issue 16): every field of it counts — a field added
tomorrow included — except the idempotency key; two spellings of one request (another offset for the same instant,
the resources in another order) are one request."""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.checkout import ConfirmCommand, SwapCommand
from domain.customers import CustomerIdentity
from domain.hold_types import Releaser
from domain.lifecycle import RescheduleCommand
from domain.services import (
    ChangeCommand,
    CounterCommand,
    HoldCommand,
    SaleCommand,
    SeatHoldCommand,
    canonical,
    fingerprint,
)
from domain.services.holds import _normalised as _hold_payload

T = datetime(2026, 12, 8, 22, 0, tzinfo=UTC)
COMMANDS = [HoldCommand, CounterCommand, SeatHoldCommand, SaleCommand, ChangeCommand, ConfirmCommand, RescheduleCommand,
            SwapCommand]


def _value(hint: Any, n: int) -> Any:
    """A value of type `hint`, different for each `n` (0, 1, ...)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _value(inner[0], n)
    if origin is tuple:
        return tuple(_value(args[0], n + i) for i in range(n + 1))
    if origin is frozenset:
        return frozenset({_value(args[0], n)})
    if hint is UUID:
        return UUID(int=n + 1)
    if hint is datetime:
        return T + timedelta(hours=n)
    if hint is str:
        return f"text {n}"
    if hint is bool:
        return bool(n % 2)
    if hint is int:
        return n + 2
    if isinstance(hint, type) and issubclass(hint, Releaser):
        return list(Releaser)[n % len(Releaser)]
    if dataclasses.is_dataclass(hint):
        return _instance(hint, n)
    raise AssertionError(f"the test does not know how to make a {hint!r}: teach _value, and check that "
                         "domain.services.canonical encodes it stably")


def _instance(cls: Any, n: int) -> Any:
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: _value(hints[f.name], n) for f in dataclasses.fields(cls)})


@pytest.mark.parametrize("cls", COMMANDS, ids=lambda c: c.__name__)
def test_every_field_of_a_command_is_in_its_fingerprint_except_the_key(cls: Any) -> None:
    base = _instance(cls, 0)
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        changed = dataclasses.replace(base, **{f.name: _value(hints[f.name], 1)})
        assert changed != base, f.name
        same = fingerprint("op", changed) == fingerprint("op", base)
        assert same is (f.name == "idempotency_key"), f"{cls.__name__}.{f.name} is not in the fingerprint"
    assert fingerprint("op", base) != fingerprint("other", base)


def test_a_field_added_to_a_command_is_in_the_fingerprint_without_touching_it() -> None:
    @dataclasses.dataclass(frozen=True)
    class Tomorrow(HoldCommand):
        promo_code: str | None = None

    today = HoldCommand(uuid4(), T, T + timedelta(hours=1), channel="whatsapp")
    same = Tomorrow(**{f.name: getattr(today, f.name) for f in dataclasses.fields(today)})
    assert fingerprint("hold", same) == fingerprint("hold", today)  # at its default: an old request's retry replays
    assert fingerprint("hold", dataclasses.replace(same, promo_code="NATAL")) != fingerprint("hold", today)


def test_two_spellings_of_one_request_have_one_fingerprint() -> None:
    a, b = uuid4(), uuid4()
    cmd = HoldCommand(uuid4(), T, T + timedelta(hours=1), (a, b), customer=CustomerIdentity(cpf="52998224725"),
                      idempotency_key="k-1")
    brasilia = timezone(timedelta(hours=-3))
    spelled = dataclasses.replace(cmd, starts_at=T.astimezone(brasilia), resource_ids=(b, a), idempotency_key="k-2")
    assert fingerprint("hold", _hold_payload(spelled)) == fingerprint("hold", _hold_payload(cmd))
    assert fingerprint("hold", dataclasses.replace(cmd, channel="api")) == fingerprint("hold", cmd)  # the default
    assert fingerprint("hold", dataclasses.replace(cmd, channel="whatsapp")) != fingerprint("hold", cmd)


def test_a_value_without_a_stable_encoding_is_refused_not_hashed_by_its_repr() -> None:
    with pytest.raises(TypeError, match="no stable encoding"):
        canonical(HoldCommand(uuid4(), T, T, channel=object()))  # type: ignore[arg-type]
    assert canonical({"at": T, "who": Releaser.ADMIN, "of": frozenset({Releaser.API, Releaser.ADMIN})}) == {
        "at": "2026-12-08T22:00:00+00:00", "who": "ADMIN", "of": ["ADMIN", "API"]}
