"""A committed outbox row as its readers see it: the relay publishes it, subscribers replay it, jobs plan from it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any
from uuid import UUID

from domain.events import Fact, parse_event


@dataclass(frozen=True)
class OutboxEvent:
    """One committed event of a unit with its sequence number."""

    id: int
    unit_id: UUID
    seq: int
    topic: str
    payload: dict[str, Any]
    """The row's JSON as stored (and as published): `fact` reads it."""

    @cached_property
    def fact(self) -> Fact | None:
        """The typed event (None: a topic no fact defines); raises domain.events.MalformedEvent when the payload
        is not its fact's shape."""
        return parse_event(self.topic, self.payload)
