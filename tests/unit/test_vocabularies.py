"""The closed vocabularies the schema exposes as enums (issue 19) hold every value the engine writes: a value missing
from its enum would make the field that shows it fail at run time, so each enum is checked against its source."""

from __future__ import annotations

import ast
from pathlib import Path

from domain import events, notifications, webhooks_out
from domain.access import Action, CallerKind, Scope
from domain.bookings import BookingStatus, Channel
from domain.events import SlotEvent, WaitlistChangeKind
from domain.notice_matrix import DEFAULT_MATRIX, KIND_EVENT, MatrixEvent
from domain.staff_queue import PRIORITIES, QueueChange, QueuePriority
from domain.venue_log import VenueEntity
from domain.waitlist_switch import TARGETS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("domain", "providers", "store", "resolvers", "jobs", "api")


def _calls(name: str) -> list[ast.Call]:
    found = []
    for package in SOURCES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Call) and (getattr(node.func, "id", None) == name
                                                   or getattr(node.func, "attr", None) == name):
                    found.append(node)
    return found


def _literals(node: ast.AST | None) -> list[str]:
    """The strings an argument can be: a literal, or either branch of `a if c else b`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def test_every_entity_the_venue_log_records_is_a_venue_entity() -> None:
    written = {text for call in _calls("VenueChange") for text in _literals(call.args[0] if call.args else None)}
    written |= {text for call in _calls("note") if len(call.args) > 2 for text in _literals(call.args[2])}
    written |= set(TARGETS)  # waitlist switches log their target's kind
    assert written, "the scan found no entity"
    assert written <= {e.value for e in VenueEntity}, written - {e.value for e in VenueEntity}


def test_every_channel_a_booking_is_made_through_is_a_channel() -> None:
    written = {text for call in _calls("HoldCommand") + _calls("ConfirmCommand") + _calls("ChangeCommand")
               + _calls("CounterCommand") for k in call.keywords if k.arg == "channel" for text in _literals(k.value)}
    assert {"whatsapp", "waitlist"} <= written
    assert written <= {c.value for c in Channel}, written - {c.value for c in Channel}


def test_slot_events_are_every_booking_status_and_every_block_change() -> None:
    names = {f"booking.{s.value}" for s in BookingStatus} | set(events._BLOCK_EVENTS.values())
    assert names == {e.value for e in SlotEvent}


def test_webhook_event_types_are_the_booking_events_and_the_facts_integrators_hear() -> None:
    heard = {f.EVENT for f in events.FACTS if getattr(f, "EVENT", None)}
    assert {t.value for t in webhooks_out.WebhookEventType} == {f"booking.{s.value}" for s in BookingStatus} | heard


def test_waitlist_change_kinds_are_the_kinds_of_the_waitlist_facts() -> None:
    kinds = {f.KIND for f in events.FACTS if f.TOPIC == "waitlist_changed"}
    assert kinds == {k.value for k in WaitlistChangeKind}


def test_notification_kinds_are_every_kind_a_notice_can_have() -> None:
    told = {f.KIND for f in events.FACTS if f.TOPIC == "notification"}
    templated = {kind for locale in notifications.TEMPLATES.values() for kind, _ in locale} - {"message"}
    assert told | templated | set(KIND_EVENT) == {k.value for k in notifications.NotificationKind}
    assert set(notifications.ADDRESSED) <= {k.value for k in notifications.NotificationKind}


def test_the_matrix_events_are_its_default_rows() -> None:
    assert set(DEFAULT_MATRIX) == {e.value for e in MatrixEvent} == set(KIND_EVENT.values())


def test_queue_priorities_and_change_kinds() -> None:
    assert set(PRIORITIES.values()) == set(QueuePriority)
    written = {text for call in _calls("_changed") if len(call.args) > 1 for text in _literals(call.args[1])}
    sql = (ROOT / "store" / "attendance.py").read_text()
    assert "'kind', 'opened'" in sql  # the queue row store/attendance.py writes in SQL
    assert written | {"opened"} == {k.value for k in QueueChange}


def test_scopes_are_the_actions_an_integrator_may_have() -> None:
    assert {s.value for s in Scope} == {a.value for a in Action} - {Action.PUBLIC.value, Action.PLATFORM.value}


def test_caller_kinds_are_the_kinds_principals_are_made_with() -> None:
    made = {text for call in _calls("Principal") for k in call.keywords if k.arg == "kind"
            for text in _literals(k.value)}
    made |= {text for call in _calls("Principal") if call.args for text in _literals(call.args[0])}
    assert made, "the scan found no principal"
    assert made <= {k.value for k in CallerKind}, made - {k.value for k in CallerKind}
