"""What a fact written to the outbox is, and how it becomes JSON and back (the facts are in domain/events.py).

A payload is `topic` (the fact's TOPIC), `kind` (its KIND, for facts that share a topic), `event` (its `name`, for
facts integrators and subscribers know by name) and then one key per dataclass field, in order: ids and times as
strings (ISO 8601 with offset), slot spans as objects. A field that may be None may also be missing from a row (it
reads as None); the others must be there with their type, or the row is malformed.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from datetime import datetime
from typing import Any, ClassVar, Self, Union, get_args, get_origin, get_type_hints
from uuid import UUID


class MalformedEvent(ValueError):
    """An outbox row of a known topic whose payload is not its fact's shape."""


@dataclass(frozen=True)
class SlotSpan:
    """One resource's range a change touches: a booking's allocation, a blocked seat during an event."""

    resource_id: UUID
    starts_at: datetime
    ends_at: datetime
    quantity: int = 1


# --- JSON values --------------------------------------------------------------------------------------------------

def _span_json(v: SlotSpan) -> dict[str, Any]:
    return {"resource_id": str(v.resource_id), "starts_at": v.starts_at.isoformat(),
            "ends_at": v.ends_at.isoformat(), "quantity": v.quantity}


def write_spans(v: tuple[SlotSpan, ...]) -> list[dict[str, Any]]:
    """Slot spans as their JSON list."""
    return [_span_json(a) for a in v]


_ENCODERS: dict[Any, Callable[[Any], Any] | None] = {
    str: None, int: None, bool: None, UUID: str, datetime: datetime.isoformat, tuple[SlotSpan, ...]: write_spans,
}


def _typed(kind: type) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise TypeError(f"expected {kind.__name__}, got {type(v).__name__}")
        return v
    return check


read_str, _int, _bool = _typed(str), _typed(int), _typed(bool)


def read_time(v: Any) -> datetime:
    """A time from its ISO 8601 string."""
    return datetime.fromisoformat(read_str(v))


def _span(a: Any) -> SlotSpan:
    if not isinstance(a, Mapping):
        raise TypeError("a slot span is not an object")
    return SlotSpan(UUID(read_str(a["resource_id"])), read_time(a["starts_at"]), read_time(a["ends_at"]),
                    _int(a["quantity"]))


def read_spans(v: Any) -> tuple[SlotSpan, ...]:
    """Slot spans from their JSON list."""
    if not isinstance(v, list):
        raise TypeError("expected a list of slot spans")
    return tuple(_span(a) for a in v)


_DECODERS: dict[Any, Callable[[Any], Any]] = {
    str: read_str, int: _int, bool: _bool, UUID: lambda v: UUID(read_str(v)), datetime: read_time,
    tuple[SlotSpan, ...]: read_spans,
}


def _codec(hint: Any) -> tuple[Callable[[Any], Any] | None, Callable[[Any], Any], bool]:
    """How a field of this type is written (None: as it is) and read, and whether it may be None (or missing)."""
    if get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint):
        (inner,) = (a for a in get_args(hint) if a is not type(None))
        write, read = _ENCODERS[inner], _DECODERS[inner]
        return ((None if write is None else lambda v: None if v is None else write(v)),
                (lambda v: None if v is None else read(v)), True)
    return _ENCODERS[hint], _DECODERS[hint], False


class Fact:
    """A fact written to the outbox. TOPIC is its outbox topic; KIND tells facts of one topic apart; EVENT (or
    `name`) is what integrators and subscribers call it."""

    TOPIC: ClassVar[str]
    KIND: ClassVar[str | None] = None
    EVENT: ClassVar[str | None] = None
    __dataclass_fields__: ClassVar[dict[str, Any]]  # every fact is a dataclass

    @property
    def name(self) -> str | None:
        """The event's name (the payload's `event`), when it has one."""
        return self.EVENT

    def to_json(self) -> dict[str, Any]:
        """The outbox payload (its `topic` key is the row's topic)."""
        head: dict[str, Any] = {"topic": self.TOPIC}
        if self.KIND is not None:
            head["kind"] = self.KIND
        if self.name is not None:
            head["event"] = self.name
        for name, write, _, _, _ in _codecs(type(self)):
            value = getattr(self, name)
            head[name] = value if write is None else write(value)
        return head

    @classmethod
    def from_json(cls, p: Mapping[str, Any]) -> Self:
        """The fact a payload holds; raises KeyError/TypeError/ValueError when it is not this fact's shape."""
        values = {}
        for name, _, decode, optional, default in _codecs(cls):
            if name in p:
                values[name] = decode(p[name])
            elif optional:
                values[name] = None
            elif default is MISSING:
                raise KeyError(name)
        return cls(**values)


_Codec = tuple[str, Callable[[Any], Any] | None, Callable[[Any], Any], bool, Any]
_CODECS: dict[type[Fact], tuple[_Codec, ...]] = {}


def _codecs(cls: type[Fact]) -> tuple[_Codec, ...]:
    """Each field's (name, writer, reader, may be None, default), worked out once per fact."""
    found = _CODECS.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        found = _CODECS[cls] = tuple((f.name, *_codec(hints[f.name]), f.default) for f in fields(cls))
    return found
