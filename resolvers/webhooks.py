"""Outgoing webhooks: owners and integrators with the `webhooks` scope register endpoints, read the delivery log
and replay deliveries (domain/webhooks_out.py)."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

import strawberry

from domain import listings
from domain import webhooks_out as wh
from domain.access import Action
from domain.errors import NotFound
from domain.webhooks_out import DeliveryStatus, WebhookEventType
from resolvers.context import Context, Info, parse_id
from resolvers.permissions import authorize_unit, signed_in
from resolvers.ports import WebhookStore
from schema.args import EndpointIdArg, UnitIdArg
from schema.connections import After, Before, Connection, First, Last, connection, page_request
from schema.ids import Kind
from schema.pages import page_description, page_size
from schema.webhooks import (
    ReplayResult,
    WebhookDelivery,
    WebhookDeliveryStatus,
    WebhookEndpoint,
    WebhookResult,
    WebhookSecret,
    WebhookSecretResult,
)

DeliveryStatusArg = Annotated[DeliveryStatus | None, strawberry.argument(
    description="Only deliveries in this status; omitted: all.")]
UrlArg = Annotated[str, strawberry.argument(
    description="Where to POST the events: https (http only to localhost or 127.0.0.1), at most 2000 characters.")]
EventTypesArg = Annotated[list[WebhookEventType], strawberry.argument(
    description="The events to receive (at least one).")]
NoteTextArg = Annotated[str | None, strawberry.argument(description="A note of yours about the endpoint.")]
NewUrlArg = Annotated[str | None, strawberry.argument(
    description="A new URL (same rules as registerWebhook); omitted: unchanged.")]
NewEventTypesArg = Annotated[list[WebhookEventType] | None, strawberry.argument(
    description="The events to receive from now on; omitted: unchanged.")]
EnableArg = Annotated[bool | None, strawberry.argument(
    description="true: enable it again (for new events); false: disable it; omitted: unchanged.")]
DeliveryIdArg = Annotated[strawberry.ID, strawberry.argument(description="The delivery (a WebhookDelivery id).")]


_TYPES = "Event types: " + ", ".join(t.name for t in WebhookEventType) + "."


def _store(context: Context) -> WebhookStore:
    return context.stores.webhooks


async def _authorize_row(context: Context, kind: str, row_id: UUID, field: str, hide: bool = False) -> None:
    """Refuse unless the caller may manage the webhooks of the unit of an endpoint or delivery. `hide`: a row of a
    unit beyond the caller's reach is answered as a missing one."""
    signed_in(context, Action.WEBHOOKS)
    store = _store(context)
    unit_id = await (store.endpoint_unit(row_id) if kind == "webhook" else store.delivery_unit(row_id))
    if unit_id is None:
        raise NotFound(kind, row_id, field=field)
    try:
        await authorize_unit(context, unit_id, Action.WEBHOOKS, hide=hide)
    except NotFound:
        raise NotFound(kind, row_id, field=field) from None


@strawberry.type
class WebhookQuery:
    @strawberry.field(description="The unit's webhook endpoints (never their secrets).")
    async def webhooks(self, info: Info, unit_id: UnitIdArg) -> list[WebhookEndpoint]:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.WEBHOOKS)
        return [WebhookEndpoint.from_row(r) for r in await _store(info.context).endpoints(uid)]

    @strawberry.field(description="An endpoint's delivery log, newest first: event, status, attempts, last response "
                      "code, latency and error, next attempt.",
                      deprecation_reason="Use webhookDeliveriesConnection: it pages on with cursors.")
    async def webhook_deliveries(
        self, info: Info, endpoint_id: EndpointIdArg,
        first: Annotated[int, strawberry.argument(description=page_description(50))] = 50,
        status: DeliveryStatusArg = None,
    ) -> list[WebhookDelivery]:
        eid = parse_id(endpoint_id, "endpointId", Kind.WEBHOOK_ENDPOINT)
        await _authorize_row(info.context, "webhook", eid, "endpointId")
        rows = await _store(info.context).deliveries(eid, page_size(first), status)
        return [WebhookDelivery.from_row(r) for r in rows]

    @strawberry.field(description="An endpoint's delivery log a page at a time, newest first (then by id): event, "
                      "status, attempts, last response code, latency and error, next attempt.")
    async def webhook_deliveries_connection(
        self, info: Info,
        endpoint_id: Annotated[strawberry.ID, strawberry.argument(description="The endpoint whose deliveries.")],
        status: Annotated[WebhookDeliveryStatus | None, strawberry.argument(
            description="Only deliveries in this status.")] = None,
        first: First = None, after: After = None, last: Last = None, before: Before = None,
    ) -> Connection[WebhookDelivery]:
        eid = parse_id(endpoint_id, "endpointId", Kind.WEBHOOK_ENDPOINT)
        request = page_request(listings.WEBHOOK_DELIVERIES, first, after, last, before)
        await _authorize_row(info.context, "webhook", eid, "endpointId", hide=True)
        page = await _store(info.context).deliveries_page(eid, status.name.lower() if status else None, request)
        return connection(page.map(WebhookDelivery.from_row), listings.WEBHOOK_DELIVERIES)


@strawberry.type
class WebhookMutation:
    @strawberry.mutation(description="Register a URL for some of the unit's events (https; http only to localhost or "
                         "127.0.0.1). Returns the signing secret, shown this once. " + _TYPES)
    async def register_webhook(self, info: Info, unit_id: UnitIdArg, url: UrlArg, event_types: EventTypesArg,
                               description: NoteTextArg = None) -> WebhookSecretResult:
        uid = parse_id(unit_id, "unitId", Kind.UNIT)
        await authorize_unit(info.context, uid, Action.WEBHOOKS)
        checked_url, types = wh.check_url(url), wh.check_event_types(event_types)
        row, secret = await _store(info.context).register(
            uid, checked_url, types, description, info.context.principal.key, info.context.deps.clock.now())
        return WebhookSecret(endpoint=WebhookEndpoint.from_row(row), secret=secret)

    @strawberry.mutation(description="Change an endpoint's URL, event types, description, or enable it again; leave "
                         "out what stays. " + _TYPES)
    async def update_webhook(self, info: Info, endpoint_id: EndpointIdArg, url: NewUrlArg = None,
                             event_types: NewEventTypesArg = None, enabled: EnableArg = None,
                             description: NoteTextArg = None) -> WebhookResult:
        eid = parse_id(endpoint_id, "endpointId", Kind.WEBHOOK_ENDPOINT)
        await _authorize_row(info.context, "webhook", eid, "endpointId")
        row = await _store(info.context).update(
            eid, info.context.deps.clock.now(), url=wh.check_url(url) if url is not None else None,
            types=wh.check_event_types(event_types) if event_types is not None else None, enabled=enabled,
            description=description)
        if row is None:
            raise NotFound("webhook", eid, field="endpointId")
        return WebhookEndpoint.from_row(row)

    @strawberry.mutation(description="Stop sending to an endpoint; its deliveries still waiting are cancelled. "
                         "updateWebhook(enabled: true) starts it again (for new events).")
    async def disable_webhook(self, info: Info, endpoint_id: EndpointIdArg) -> WebhookResult:
        eid = parse_id(endpoint_id, "endpointId", Kind.WEBHOOK_ENDPOINT)
        await _authorize_row(info.context, "webhook", eid, "endpointId")
        row = await _store(info.context).update(eid, info.context.deps.clock.now(), enabled=False)
        if row is None:
            raise NotFound("webhook", eid, field="endpointId")
        return WebhookEndpoint.from_row(row)

    @strawberry.mutation(description="A new signing secret, shown this once. For 24 h deliveries carry a second "
                         "v1= signature made with the previous secret, so receivers can switch without losing any.")
    async def rotate_webhook_secret(self, info: Info, endpoint_id: EndpointIdArg) -> WebhookSecretResult:
        eid = parse_id(endpoint_id, "endpointId", Kind.WEBHOOK_ENDPOINT)
        await _authorize_row(info.context, "webhook", eid, "endpointId")
        found = await _store(info.context).rotate(eid, info.context.deps.clock.now())
        if found is None:
            raise NotFound("webhook", eid, field="endpointId")
        return WebhookSecret(endpoint=WebhookEndpoint.from_row(found[0]), secret=found[1])

    @strawberry.mutation(description="Send a delivery again now, by hand (a new round of attempts with retries; the "
                         "same X-Slothold-Delivery id, so receivers can drop what they already have).")
    async def replay_webhook_delivery(self, info: Info, delivery_id: DeliveryIdArg) -> ReplayResult:
        did = parse_id(delivery_id, "deliveryId", Kind.WEBHOOK_DELIVERY)
        await _authorize_row(info.context, "delivery", did, "deliveryId")
        row = await _store(info.context).replay(did, info.context.deps.clock.now())
        return WebhookDelivery.from_row(row)
