"""The web demo's assets are all served by the app (no CDN), and its dev-only helpers are off unless `slothold dev`."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from api.web_demo import DEV_FLAG, WEB_DEMO
from slothold.app import create_app
from slothold.settings import Settings


@pytest.fixture
async def client(database_url: str, redis_url: str,
                 monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.delenv(DEV_FLAG, raising=False)
    app = create_app(Settings(database_url=database_url, redis_url=redis_url, db_pool_max=4))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            yield c


async def test_every_asset_the_page_names_is_served_by_the_app_itself(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200 and "Slothold" in page.text
    sources = re.findall(r'(?:src|href)="(/web-demo/[^"]+)"', page.text)
    assert "/web-demo/vendor/graphql-ws.umd.js" in sources
    for src in sources:
        assert (await client.get(src)).status_code == 200, src
    ours = {p.relative_to(WEB_DEMO).as_posix(): p.read_text() for p in Path(WEB_DEMO).rglob("*")  # noqa: ASYNC240
            if p.suffix in (".html", ".js", ".css") and p.parent.name != "vendor"}
    for relative, text in ours.items():
        assert not re.search(r"""(?:src|href|from|import)\s*=?\s*["']https?://""", text), relative
        assert (await client.get(f"/web-demo/{relative}")).status_code == 200, relative


async def test_the_dev_only_helpers_are_not_there_unless_the_server_runs_the_demo(client: httpx.AsyncClient) -> None:
    assert (await client.get("/web-demo/dev/config")).status_code == 404
    mode = await client.get("/web-demo/mode")  # what the page asks first: never a 404 in a production console
    assert mode.status_code == 200 and mode.json() == {"dev": False}
    r = await client.get("/web-demo/dev/login-code", params={"unit": "5107d0de-0000-4000-8000-000000000001",
                                                             "to": "+5511999990000"})
    assert r.status_code == 404
