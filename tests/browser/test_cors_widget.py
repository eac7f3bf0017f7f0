"""A booking widget on a venue's own site, in a real browser (issue 19, CORS): pages served from other origins
(other ports of 127.0.0.1 are other origins) call the API with `fetch` and subscribe over graphql-transport-ws.

- the venue's site, registered by its owner with setAllowedOrigins: its JSON POSTs (preflighted) read bookable
  slots and make a hold with an integrator token and an Idempotency-Key, it reads the exposed X-Request-Id, and its
  websocket subscription receives the hold's slotChanged event;
- the platform's portal (SLOTHOLD_CORS_ORIGINS of the API process): its fetch goes through too;
- a site nobody registered: its fetch fails (TypeError) and its websocket is refused.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Venue, tomorrow_local
from tests.integration.cluster import Cluster, cluster
from tests.venues import cpf

ROOT = Path(__file__).resolve().parents[2]
PAGE = b"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widget</title>
<script src="/graphql-ws.umd.js"></script></head><body><h1>Book a field</h1></body></html>"""

SLOTS = ("query($u: ID!, $f: DateTime!, $t: DateTime!) { bookableSlots(unitId: $u, from: $f, to: $t) "
         "{ __typename ... on BookableSlots { slots { resourceId startsAt } } } }")
HOLD = ("mutation($i: HoldInput!) { hold(input: $i) { __typename ... on BookingPayload { booking { id status } } "
        "... on Error { code message } } }")
SLOT_CHANGED = ("subscription($u: ID!, $f: DateTime!, $t: DateTime!) { slotChanged(unitId: $u, from: $f, to: $t) "
                "{ event bookingId status } }")

WIDGET = """async ({api, ws, unit, token, slots, hold, live, from, to, input}) => {
  const post = async (query, variables, headers = {}) => {
    const r = await fetch(api + "/graphql", {method: "POST", body: JSON.stringify({query, variables}),
                                             headers: {"content-type": "application/json", ...headers}});
    return {status: r.status, requestId: r.headers.get("x-request-id"), body: await r.json()};
  };
  const found = await post(slots, {u: unit, f: from, t: to});
  let connected;
  const ready = new Promise((resolve) => { connected = resolve; });
  const client = window.graphqlWs.createClient({url: ws, lazy: false, retryAttempts: 0,
    connectionParams: {authorization: "Bearer " + token}, on: {connected: () => connected()}});
  const event = new Promise((resolve, reject) => {
    client.subscribe({query: live, variables: {u: unit, f: from, t: to}},
                     {next: resolve, error: (e) => reject(new Error("subscription: " + JSON.stringify(e))),
                      complete: () => {}});
    setTimeout(() => reject(new Error("no slotChanged event within 15 s")), 15000);
  });
  await ready;
  await new Promise((r) => setTimeout(r, 800));  // the subscription reaches the hub
  const held = await post(hold, {i: input}, {authorization: "Bearer " + token,
                                            "idempotency-key": "widget-" + Math.random().toString(36).slice(2)});
  const changed = await event;
  await client.dispose();
  return {found, held, changed};
}"""

STRANGER = """async ({api, ws}) => {
  let fetched = null;
  try {
    const r = await fetch(api + "/graphql", {method: "POST", headers: {"content-type": "application/json"},
                                             body: JSON.stringify({query: "{ me { kind } }"})});
    fetched = "answered " + r.status;
  } catch (e) {
    fetched = e.name;
  }
  const socket = await new Promise((resolve) => {
    const s = new WebSocket(ws, "graphql-transport-ws");
    let opened = false;
    s.onopen = () => { opened = true; };
    s.onclose = (e) => resolve({opened, code: e.code});
  });
  return {fetched, socket};
}"""

PORTAL = """async ({api}) => {
  const r = await fetch(api + "/graphql", {method: "POST", headers: {"content-type": "application/json"},
                                           body: JSON.stringify({query: "{ me { kind } }"})});
  return await r.json();
}"""


FILES = {"/": (PAGE, "text/html; charset=utf-8"),
         "/graphql-ws.umd.js": ((ROOT / "web-demo" / "vendor" / "graphql-ws.umd.js").read_bytes(), "text/javascript")}
"""What each site serves: the widget page and graphql-ws (the web demo's vendored copy)."""


class _Site(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        body, kind = FILES.get(path, (b"not found", "text/plain"))
        self.send_response(200 if path in FILES else 404)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def sites() -> Iterator[dict[str, str]]:
    """Three static sites on their own ports of 127.0.0.1: three origins."""
    servers = {name: ThreadingHTTPServer(("127.0.0.1", 0), _Site) for name in ("widget", "portal", "stranger")}
    for s in servers.values():
        threading.Thread(target=s.serve_forever, daemon=True).start()
    yield {name: f"http://127.0.0.1:{s.server_address[1]}" for name, s in servers.items()}
    for s in servers.values():
        s.shutdown()
        s.server_close()


@pytest.fixture(scope="module")
def demo_server(chromium: str, database_url: str, redis_url: str, sites: dict[str, str],
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The API (with the portal in its platform list) and a worker (whose relay publishes the live events)."""
    with cluster(database_url, redis_url, tmp_path_factory.mktemp("cors-logs"), apis=1, workers=1,
                 SLOTHOLD_LOG_LEVEL="WARNING", SLOTHOLD_CORS_ORIGINS=sites["portal"]) as c:
        yield c


async def _gql(venue: Venue, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=venue.base, timeout=10,
                                 headers={"authorization": f"Bearer {venue.owner_token}"}) as http:
        body: dict[str, Any] = (await http.post("/graphql", json={"query": query, "variables": variables})).json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


async def test_a_widget_on_a_registered_site_books_and_listens_and_other_sites_are_kept_out(
        venue: Venue, sites: dict[str, str], new_page: Any) -> None:
    u = str(venue.unit_id)
    done = await _gql(venue, "mutation($u: ID!, $o: [String!]!) { setAllowedOrigins(unitId: $u, origins: $o) { "
                             "__typename ... on AllowedOrigins { origins { origin } } } }",
                      {"u": u, "o": [sites["widget"]]})
    assert done["setAllowedOrigins"]["origins"] == [{"origin": sites["widget"]}]
    issued = await _gql(venue, "mutation($u: ID!) { issueStaffToken(input: {unitId: $u, kind: INTEGRATOR, "
                               'name: "widget", scopes: [READ, BOOK]}) { ... on IssuedStaffToken { secret } } }',
                        {"u": u})
    token = issued["issueStaffToken"]["secret"]
    ws = venue.base.replace("http://", "ws://") + "/graphql"
    start, end = tomorrow_local(10), tomorrow_local(11)
    field = venue.fields["Campo 2"]
    args = {"api": venue.base, "ws": ws, "unit": u, "token": token, "slots": SLOTS, "hold": HOLD,
            "live": SLOT_CHANGED, "from": tomorrow_local(8).isoformat(), "to": tomorrow_local(23).isoformat(),
            "input": {"unitId": u, "resourceIds": [str(field)], "startsAt": start.isoformat(),
                      "endsAt": end.isoformat(), "customer": {"cpf": cpf(700_000 + secrets.randbelow(10_000))}}}

    page = await new_page()
    await page.goto(sites["widget"] + "/")
    assert await page.evaluate("location.origin") == sites["widget"] != venue.base
    got = await page.evaluate(WIDGET, args)
    assert got["found"]["status"] == 200 and got["found"]["body"]["data"]["bookableSlots"]["slots"]
    held = got["held"]["body"]["data"]["hold"]
    assert held["__typename"] == "BookingPayload", held
    assert got["held"]["requestId"]  # an exposed header: the page can quote it
    changed = got["changed"]["data"]["slotChanged"]
    assert changed["event"] == "BOOKING_HELD" and changed["bookingId"] == held["booking"]["id"]

    portal = await new_page()
    await portal.goto(sites["portal"] + "/")
    assert (await portal.evaluate(PORTAL, {"api": venue.base}))["data"]["me"]["kind"] == "ANONYMOUS"

    # Kept out: the browser says so in the console, as it must.
    stranger = await new_page(expect_console=("blocked by CORS policy", "net::ERR_FAILED", "WebSocket connection"))
    await stranger.goto(sites["stranger"] + "/")
    kept_out = await stranger.evaluate(STRANGER, {"api": venue.base, "ws": ws})
    assert kept_out["fetched"] == "TypeError"  # the browser blocked it: no CORS headers for this origin
    assert kept_out["socket"] == {"opened": False, "code": 1006}  # refused at the handshake (HTTP 403)
