"""The web demo's routes: its page and assets (web-demo/, no CDN), and two dev-only helpers.

The helpers exist only when the server runs the demo (`slothold dev` sets SLOTHOLD_WEB_DEMO_DEV=1) and answer
only clients on this machine (loopback); otherwise they are 404 like any unknown path:

* ``GET /web-demo/dev/config``: the demo unit id, its first service (so the booking client asks for a Pix) and the
  demo owner token that `slothold dev` keeps in its data folder;
* ``GET /web-demo/dev/login-code?unit=<id>&to=<phone or e-mail>``: the newest sign-in code the sandbox notification
  channel "sent" there — what the customer would read on WhatsApp.

``GET /web-demo/mode`` always answers (``{"dev": true|false}``): the page asks it first, so that a production page
never requests a helper (a 404 in its console on every load).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from uuid import UUID

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from schema.ids import decode_id

WEB_DEMO = Path(__file__).resolve().parents[1] / "web-demo"
DEV_FLAG = "SLOTHOLD_WEB_DEMO_DEV"
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
_CODE = re.compile(r"\b(\d{6})\b")


def dev_helpers_enabled() -> bool:
    """Whether this process serves the demo's dev-only helpers (set by `slothold dev`)."""
    return os.environ.get(DEV_FLAG) == "1"


def web_demo_routes(state: dict[str, Any], data_dir: Path, demo_unit_id: UUID, dev: bool | None = None
                    ) -> list[BaseRoute]:
    """The page at `/`, its assets under `/web-demo/`, and (dev only) the helpers about the demo unit."""
    dev = dev_helpers_enabled() if dev is None else dev

    async def index(request: Request) -> Response:
        return FileResponse(WEB_DEMO / "index.html", headers={"cache-control": "no-cache"})

    def _allowed(request: Request) -> bool:
        return dev and request.client is not None and request.client.host in _LOOPBACK

    async def mode(request: Request) -> Response:
        """Whether the dev-only helpers answer this caller: the page asks this (never a 404) before using them."""
        return JSONResponse({"dev": _allowed(request)}, headers={"cache-control": "no-cache"})

    async def config(request: Request) -> Response:
        if not _allowed(request):
            return JSONResponse({"error": "not found"}, status_code=404)
        service = await state["pool"].fetchval(
            "SELECT id FROM services WHERE unit_id = $1 ORDER BY name LIMIT 1", demo_unit_id)
        token_file = data_dir / "demo-owner-token"
        token = token_file.read_text().strip() if token_file.exists() else None
        return JSONResponse({"unitId": str(demo_unit_id), "serviceId": str(service) if service else None,
                             "ownerToken": token or None, "devOnly": True})

    async def login_code(request: Request) -> Response:
        if not _allowed(request):
            return JSONResponse({"error": "not found"}, status_code=404)
        to = (request.query_params.get("to") or "").strip()
        try:
            unit = decode_id(request.query_params.get("unit") or "")[1]  # a unit's global id, or its raw UUID
        except ValueError:
            return JSONResponse({"error": "unit must be a unit id"}, status_code=400)
        to = to.lower() if "@" in to else to
        text = await state["pool"].fetchval(
            "SELECT payload->>'text' FROM outbox WHERE topic = 'notification' AND unit_id = $1 AND payload->>'to' = $2 "
            "AND payload->>'kind' = 'login_code' ORDER BY id DESC LIMIT 1", unit, to)
        found = _CODE.search(text or "")
        if not found:
            return JSONResponse({"error": "no sign-in code was sent there yet"}, status_code=404)
        return JSONResponse({"code": found.group(1), "devOnly": True})

    return [
        Route("/", index),
        Route("/web-demo/mode", mode),
        Route("/web-demo/dev/config", config),
        Route("/web-demo/dev/login-code", login_code),
        Mount("/web-demo", StaticFiles(directory=WEB_DEMO, check_dir=False), name="web-demo"),
    ]
