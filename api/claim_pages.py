"""The pages a claim link opens (seed 003): `GET /waitlist/claim/{token}` and `GET /walk-in/claim/{token}`.

Each shows its offer (who or what, when, for how many, until when) and a button that claims it through the API
(`claimWaitlistOffer` after the customer signs in with a one-time code; `claimWalkIn` with the token alone) — the
script is web-demo/js/claim.js. A token that is no offer's is a 404 page, the same for every such token. The pages
are plain HTML sized for a phone (the link arrives by WhatsApp).

The script sends the documents of `CLAIM_DOCUMENTS`, which each page carries (as printed for a persisted query
manifest): `slothold manifest` lists them, so the pages work in the allow-list mode too (api/graphql/persisted.py).
"""

from __future__ import annotations

import json
from datetime import datetime
from html import escape
from typing import Any
from zoneinfo import ZoneInfo

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from api.graphql.manifest import operations_of
from domain.claim_links import PATHS, OfferKind, OfferToClaim, offer_to_claim

CLAIM_GRAPHQL = """
mutation ClaimWalkIn($u: ID!, $t: String!) { claimWalkIn(unitId: $u, token: $t) {
  __typename ... on WalkIn { status } ... on Error { code message } } }
mutation ClaimWaitlistOffer($u: ID!, $t: String!) { claimWaitlistOffer(unitId: $u, token: $t) {
  __typename ... on Booking { id status } ... on Error { code message } } }
mutation RequestLoginCode($u: ID!, $p: String) { requestLoginCode(unitId: $u, phone: $p) {
  __typename ... on Error { code message } } }
mutation VerifyLoginCode($u: ID!, $p: String, $c: String!) { verifyLoginCode(unitId: $u, phone: $p, code: $c) {
  __typename ... on CustomerSession { token } ... on Error { code message } } }
"""
"""The operations of the claim pages' script."""
CLAIM_DOCUMENTS = {op["name"]: op["body"] for op in operations_of(CLAIM_GRAPHQL, "api/claim_pages.py")}
"""Operation name → document, as the script sends it and a persisted query manifest lists it."""

MUTATION = {OfferKind.CAPACITY: "claimWaitlistOffer", OfferKind.WALK_IN: "claimWalkIn"}
GONE = {"claimed": "Esta oferta já foi confirmada.", "seated": "Vocês já foram acomodados.",
        "fulfilled": "Esta vaga já virou reserva.", "expired": "O prazo desta oferta acabou.",
        "cancelled": "Esta oferta foi cancelada.", "waiting": "Ainda não é a sua vez."}
STYLE = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937;
       background: #f9fafb; }
main { max-width: 28rem; margin: 0 auto; padding: 1rem; }
.card { background: #fff; border: 1px solid #e5e7eb; border-radius: 12px; padding: 1rem; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
p { margin: .4rem 0; }
.muted { color: #6b7280; font-size: .9rem; }
button, input { font: inherit; width: 100%; padding: .7rem; border-radius: 8px; margin-top: .6rem; }
input { border: 1px solid #cbd5e1; }
button { border: 0; background: #2563eb; color: #fff; font-weight: 600; }
button[disabled] { background: #93c5fd; }
.message { margin-top: .8rem; padding: .6rem .7rem; border-radius: 8px; background: #eff6ff; color: #1e40af; }
.message.error { background: #fef2f2; color: #991b1b; }
.message.ok { background: #f0fdf4; color: #166534; }
[hidden] { display: none !important; }
"""


def _local(when: datetime | None, tz: str) -> str:
    return when.astimezone(ZoneInfo(tz)).strftime("%d/%m às %H:%M") if when else ""


def _page(title: str, body: str, status: int = 200, script: bool = False) -> HTMLResponse:
    documents = json.dumps(CLAIM_DOCUMENTS).replace("<", "\\u003c")  # no "</script>" can end the JSON early
    tail = (f'<script type="application/json" id="documents">{documents}</script>'
            '<script type="module" src="/web-demo/js/claim.js"></script>') if script else ""
    html = (f'<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)}</title><link rel="icon" href="data:,"><style>{STYLE}</style></head>'
            f'<body><main>{body}</main>{tail}</body></html>')
    return HTMLResponse(html, status_code=status, headers={"cache-control": "no-store",
                                                           "referrer-policy": "no-referrer"})


def _offer_lines(o: OfferToClaim) -> list[str]:
    people = f"{o.party_size} pessoa{'s' if o.party_size != 1 else ''}"
    if o.kind is OfferKind.WALK_IN:
        return [f"<h1>{escape(o.name or '')}, sua vez chegou!</h1>",
                f"<p>{escape(o.area or '')} · {escape(o.unit_name)}</p>", f'<p class="muted">Grupo de {people}.</p>']
    lines = [f"<h1>Abriu vaga: {escape(o.resource or '')}</h1>",
             f"<p>{_local(o.starts_at, o.timezone)} · {escape(o.unit_name)}</p>", f'<p class="muted">{people}.</p>']
    if o.claimable and o.expires_at:
        lines.append(f'<p class="muted">Confirme até {_local(o.expires_at, o.timezone)}.</p>')
    return lines


def render(o: OfferToClaim, token: str) -> HTMLResponse:
    """The page of one offer: what it is and, while it is offered, the button that claims it."""
    lines = _offer_lines(o)
    if not o.claimable:
        lines.append(f'<p class="message">{escape(GONE.get(o.status, "Esta oferta não está mais disponível."))}</p>')
        return _page("Oferta", '<div class="card">' + "".join(lines) + "</div>")
    sign_in = ""
    if o.kind is OfferKind.CAPACITY:  # the claim needs the customer who joined the line, signed in
        sign_in = ('<form id="sign-in" hidden><p class="muted">Entre com o seu WhatsApp para confirmar.</p>'
                   '<input name="phone" type="tel" inputmode="tel" autocomplete="tel" placeholder="+55 11 9…" '
                   'required><input name="code" inputmode="numeric" autocomplete="one-time-code" '
                   'placeholder="Código recebido" hidden><button>Receber código</button></form>')
    label = "Confirmar que estou chegando" if o.kind is OfferKind.WALK_IN else "Ficar com a vaga"
    body = (f'<div class="card" id="offer" data-kind="{o.kind.value}" data-unit="{o.unit_id}" '
            f'data-token="{escape(token)}" data-mutation="{MUTATION[o.kind]}">' + "".join(lines) + sign_in
            + f'<button id="claim">{escape(label)}</button><p id="said" class="message" role="status" hidden></p>'
            "</div>")
    return _page("Confirmar oferta", body, script=True)


def claim_routes(state: dict[str, Any]) -> list[BaseRoute]:
    """The claim pages of both kinds of offer."""

    def endpoint(kind: OfferKind) -> Any:
        async def page(request: Request) -> Response:
            token = request.path_params["token"]
            offer = await offer_to_claim(state["deps"], kind, token)
            if offer is None:
                return _page("Oferta não encontrada", '<div class="card"><h1>Oferta não encontrada</h1><p>Este link '
                             "não é de nenhuma oferta. Confira se ele chegou inteiro.</p></div>", status=404)
            return render(offer, token)

        return page

    return [Route(f"{PATHS[kind]}{{token}}", endpoint(kind), methods=["GET"]) for kind in OfferKind]
