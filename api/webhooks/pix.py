"""Incoming payment webhooks: authenticate with the provider's rule, then apply each Pix exactly once."""

from __future__ import annotations

import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from domain.errors import Busy, ErrorCode, InvalidInput
from domain.payments import ProviderUnavailable, WebhookRejected
from domain.ports import PaymentProvider
from domain.services import Deps
from domain.settlement import receive_payment, record_webhook

log = logging.getLogger("slothold.webhooks")


async def handle_webhook(deps: Deps, provider: PaymentProvider, headers: dict[str, str], query: dict[str, str],
                         body: bytes) -> list[str]:
    """Verify a webhook call and apply its payments; WebhookRejected (after logging it) when forged."""
    text = body.decode("utf-8", "replace")
    try:
        received = await provider.parse_webhook(headers, query, body)
    except WebhookRejected as e:
        log.warning("rejected a %s webhook: %s", provider.name, e)
        await record_webhook(deps, provider.name, False, str(e), text)
        raise
    await record_webhook(deps, provider.name, True, f"{len(received)} payment(s)", text)
    return [(await receive_payment(deps, provider.name, pix)).value for pix in received]


def webhook_endpoint(state: dict[str, Any], max_body_bytes: int) -> Any:
    """The Starlette endpoint for POST /webhooks/{provider}."""

    async def endpoint(request: Request) -> Response:
        provider: PaymentProvider | None = state.get("provider")
        name = request.path_params["provider"]
        if provider is None or provider.name != name:
            return JSONResponse({"error": f"no payment provider named {name!r} is configured"}, status_code=404)
        body = await request.body()
        if len(body) > max_body_bytes:
            return JSONResponse({"error": "body too large"}, status_code=413)
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            outcomes = await handle_webhook(state["deps"], provider, headers, dict(request.query_params), body)
        except WebhookRejected:
            return JSONResponse({"error": "not authentic"}, status_code=401)
        except ProviderUnavailable:
            return JSONResponse({"error": "provider unavailable; retry"}, status_code=503)
        except Busy:
            return JSONResponse({"error": "busy; retry"}, status_code=503)
        return JSONResponse({"received": len(outcomes), "outcomes": outcomes})

    return endpoint


async def sandbox_pay(deps: Deps, provider: Any, txid: str) -> list[str]:
    """Pay a sandbox charge as its customer would, then deliver the bank's webhook like any other."""
    try:
        headers, body = await provider.pay(txid)
    except (ValueError, LookupError) as e:
        raise InvalidInput("txid", str(e), code=ErrorCode.SANDBOX_REFUSED) from None
    return await handle_webhook(deps, provider, headers, {}, body)
