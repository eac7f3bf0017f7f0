"""Fake providers speaking the documented shapes, served for real by uvicorn on a free local port.

- FakePsp: a bank's standard Pix API (BACEN API Pix v2): OAuth2 client credentials with Basic auth,
  PUT/GET/PATCH /v2/cob/{txid}, PUT /v2/pix/{e2eid}/devolucao/{id}.
- FakeMercadoPago: POST/GET/PUT /v1/payments, POST /v1/payments/{id}/refunds, Bearer token, idempotency keys.

Both have a `fault` switch: "500", "timeout" (answers after `delay` seconds), "malformed" (a 200 that is not
JSON), optionally limited to paths starting with `fault_prefix`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import secrets
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from domain.pix import brcode

# --- serving ---------------------------------------------------------------------------------------------


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # leave pytest's signal handlers alone
        yield


@contextlib.asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    """Runs `app` under uvicorn on a free port of 127.0.0.1 in this event loop; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = _Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False,
                                    timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


@dataclass
class Faults:
    fault: str | None = None
    fault_prefix: str = "/"
    delay: float = 1.0

    async def check(self, request: Request) -> Response | None:
        if self.fault is None or not request.url.path.startswith(self.fault_prefix):
            return None
        if self.fault == "500":
            return PlainTextResponse("internal error", status_code=500)
        if self.fault == "503":
            return JSONResponse({"title": "Serviço indisponível"}, status_code=503)
        if self.fault == "malformed":
            return Response('{"txid": "unterminated', status_code=200, media_type="application/json")
        if self.fault == "timeout":
            await asyncio.sleep(self.delay)
            return PlainTextResponse("too late", status_code=504)
        raise AssertionError(f"unknown fault {self.fault}")


BRT = timezone(timedelta(hours=-3))  # MercadoPago answers in its own offset


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- the bank's standard Pix API -------------------------------------------------------------------------


def problem(status: int, kind: str, title: str, detail: str, violacoes: list[dict[str, str]] | None = None
            ) -> JSONResponse:
    body: dict[str, Any] = {"type": f"https://pix.bcb.gov.br/api/v2/error/{kind}", "title": title,
                            "status": status, "detail": detail}
    if violacoes:
        body["violacoes"] = violacoes
    return JSONResponse(body, status_code=status)


@dataclass
class FakePsp(Faults):
    client_id: str = "slothold-client"
    client_secret: str = "psp-client-secret"
    pix_key: str = "pix@slothold.dev"
    expires_in: int = 3600
    omit_copia_e_cola: bool = False
    echo_auth: bool = False
    cobs: dict[str, dict[str, Any]] = field(default_factory=dict)
    devolucoes: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    tokens: set[str] = field(default_factory=set)
    token_requests: int = 0
    requests: list[tuple[str, str, Any]] = field(default_factory=list)

    def reset(self) -> None:
        fresh = FakePsp()
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(fresh, name))

    def revoke_tokens(self) -> None:
        self.tokens.clear()

    def pay(self, txid: str, *, valor: str | None = None, at: datetime | None = None) -> dict[str, Any]:
        cob = self.cobs[txid]
        stamp = (at or datetime.now(UTC)).astimezone(UTC)
        entry = {"endToEndId": f"E12345678{stamp:%Y%m%d%H%M}" + secrets.token_hex(6)[:11],
                 "txid": txid, "valor": valor or cob["valor"]["original"], "chave": cob["chave"],
                 "horario": stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")}
        cob.setdefault("pix", []).append(entry)
        cob["status"] = "CONCLUIDA"
        return entry

    @property
    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/oauth/token", self.token, methods=["POST"]),
            Route("/v2/cob/{txid}", self.cob, methods=["PUT", "GET", "PATCH"]),
            Route("/v2/pix/{e2eid}/devolucao/{id}", self.devolucao, methods=["PUT", "GET"]),
        ])

    async def token(self, request: Request) -> Response:
        self.token_requests += 1
        if (faulty := await self.check(request)) is not None:
            return faulty
        expected = "Basic " + base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        if request.headers.get("content-type") != "application/x-www-form-urlencoded":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        if request.headers.get("authorization") != expected:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        token = "tok" + secrets.token_hex(16)
        self.tokens.add(token)
        return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": self.expires_in,
                             "scope": "cob.write cob.read pix.write pix.read"})

    async def _guard(self, request: Request) -> Response | None:
        if (faulty := await self.check(request)) is not None:
            return faulty
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth.removeprefix("Bearer ") not in self.tokens:
            return problem(401, "AcessoNegado", "Acesso negado", "token inválido ou expirado")
        return None

    async def cob(self, request: Request) -> Response:
        if (refused := await self._guard(request)) is not None:
            return refused
        txid = request.path_params["txid"]
        body = json.loads(await request.body() or b"null", parse_float=Decimal)
        self.requests.append((request.method, request.url.path, body))
        if request.method == "GET":
            if txid not in self.cobs:
                return problem(404, "CobNaoEncontrado", "Cobrança não encontrada.", f"{txid} não existe")
            return JSONResponse(self.cobs[txid])
        if request.method == "PATCH":
            cob = self.cobs.get(txid)
            if cob is None:
                return problem(404, "CobNaoEncontrado", "Cobrança não encontrada.", f"{txid} não existe")
            if cob["status"] != "ATIVA":
                return problem(400, "CobOperacaoInvalida", "Cobrança inválida.",
                               f"a cobrança está {cob['status']} e não pode ser alterada")
            cob["status"] = body["status"]
            cob["revisao"] += 1
            return JSONResponse(cob)
        # PUT: create
        violacoes = []
        if not re.fullmatch(r"[A-Za-z0-9]{26,35}", txid):
            violacoes.append({"razao": "txid inválido", "propriedade": "txid"})
        if txid in self.cobs:
            return problem(400, "CobOperacaoInvalida", "Cobrança inválida.", f"o txid {txid} já está em uso")
        expiracao = body.get("calendario", {}).get("expiracao")
        if not isinstance(expiracao, int) or expiracao <= 0:
            violacoes.append({"razao": "expiracao inválida", "propriedade": "cob.calendario.expiracao"})
        original = body.get("valor", {}).get("original")
        if not isinstance(original, str) or not re.fullmatch(r"\d{1,10}\.\d{2}", original) or original == "0.00":
            violacoes.append({"razao": "valor inválido", "propriedade": "cob.valor.original"})
        if body.get("chave") != self.pix_key:
            violacoes.append({"razao": "chave não pertence ao usuário recebedor", "propriedade": "cob.chave"})
        if len(body.get("solicitacaoPagador", "")) > 140:
            violacoes.append({"razao": "muito longo", "propriedade": "cob.solicitacaoPagador"})
        if violacoes:
            detail = "A requisição não respeita o schema ou está semanticamente errada."
            if self.echo_auth:
                detail += f" (recebido: {request.headers.get('authorization')})"
            return problem(400, "CobOperacaoInvalida", "Cobrança inválida.", detail, violacoes)
        location = f"pix.fakepsp.test/qr/v2/{uuid.uuid4().hex}"
        cents = int(Decimal(original) * 100)
        cob = {
            "calendario": {"criacao": now_iso(), "expiracao": expiracao},
            "txid": txid, "revisao": 0,
            "loc": {"id": len(self.cobs) + 1, "location": location, "tipoCob": "cob"},
            "location": location, "status": "ATIVA",
            "valor": {"original": original}, "chave": body["chave"],
        }
        if "solicitacaoPagador" in body:
            cob["solicitacaoPagador"] = body["solicitacaoPagador"]
        if not self.omit_copia_e_cola:
            cob["pixCopiaECola"] = brcode(amount_cents=cents, merchant_name="Fake PSP Recebedor",
                                          merchant_city="Sao Paulo", txid="***", location=location)
        self.cobs[txid] = cob
        return JSONResponse(cob, status_code=201)

    async def devolucao(self, request: Request) -> Response:
        if (refused := await self._guard(request)) is not None:
            return refused
        e2eid, refund_id = request.path_params["e2eid"], request.path_params["id"]
        body = json.loads(await request.body() or b"null")
        self.requests.append((request.method, request.url.path, body))
        pix = next((p for cob in self.cobs.values() for p in cob.get("pix", []) if p["endToEndId"] == e2eid), None)
        if pix is None:
            return problem(404, "PixNaoEncontrado", "Pix não encontrado.", f"{e2eid} não existe")
        known = self.devolucoes.setdefault(e2eid, {})
        if request.method == "GET":
            return JSONResponse(known[refund_id]) if refund_id in known else problem(
                404, "DevolucaoNaoEncontrada", "Devolução não encontrada.", refund_id)
        if refund_id in known:
            return JSONResponse(known[refund_id], status_code=201)
        already = sum(Decimal(d["valor"]) for d in known.values())
        if Decimal(body["valor"]) + already > Decimal(pix["valor"]):
            return problem(400, "DevolucaoOperacaoInvalida", "Devolução inválida.",
                           "o valor das devoluções excede o valor do Pix")
        stamp = datetime.now(UTC)
        refund = {"id": refund_id, "rtrId": f"D12345678{stamp:%Y%m%d%H%M}" + secrets.token_hex(6)[:11],
                  "valor": body["valor"], "horario": {"solicitacao": now_iso()}, "status": "EM_PROCESSAMENTO"}
        known[refund_id] = refund
        pix.setdefault("devolucoes", []).append(refund)
        return JSONResponse(refund, status_code=201)


# --- MercadoPago -----------------------------------------------------------------------------------------


@dataclass
class FakeMercadoPago(Faults):
    access_token: str = "TEST-0000-mp-access-token"
    echo_auth: bool = False
    payments: dict[str, dict[str, Any]] = field(default_factory=dict)
    idempotency_keys: list[str] = field(default_factory=list)
    by_key: dict[str, str] = field(default_factory=dict)
    refunds: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    next_id: int = 1_320_000_001

    def reset(self) -> None:
        fresh = FakeMercadoPago()
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(fresh, name))

    def approve(self, payment_id: str, at: datetime | None = None) -> dict[str, Any]:
        payment = self.payments[payment_id]
        stamp = (at or datetime.now(UTC)).astimezone(BRT)
        payment.update(status="approved", status_detail="accredited",
                       date_approved=stamp.isoformat(timespec="milliseconds"))
        return payment

    @property
    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/v1/payments", self.create, methods=["POST"]),
            Route("/v1/payments/{id}", self.payment, methods=["GET", "PUT"]),
            Route("/v1/payments/{id}/refunds", self.refund, methods=["POST"]),
        ])

    def _error(self, status: int, message: str, error: str, request: Request | None = None) -> JSONResponse:
        if self.echo_auth and request is not None:
            message += f" (header: {request.headers.get('authorization')})"
        return JSONResponse({"message": message, "error": error, "status": status,
                             "cause": [{"code": status, "description": message}]}, status_code=status)

    async def _guard(self, request: Request) -> Response | None:
        if (faulty := await self.check(request)) is not None:
            return faulty
        if request.headers.get("authorization") != f"Bearer {self.access_token}":
            return self._error(401, "invalid access token", "unauthorized", request)
        return None

    async def create(self, request: Request) -> Response:
        if (refused := await self._guard(request)) is not None:
            return refused
        raw = await request.body()
        body = json.loads(raw, parse_float=Decimal)
        self.requests.append(("POST", "/v1/payments", body))
        key = request.headers.get("x-idempotency-key")
        if not key:
            return self._error(400, "X-Idempotency-Key header is required", "bad_request")
        self.idempotency_keys.append(key)
        if key in self.by_key:
            return JSONResponse(self.payments[self.by_key[key]], status_code=200)
        amount = body.get("transaction_amount")
        expiry = body.get("date_of_expiration", "")
        if not isinstance(amount, (int, Decimal)) or amount <= 0:
            return self._error(400, "transaction_amount must be a positive number", "bad_request")
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", expiry):
            return self._error(400, "The following parameters must be valid date and format "
                                    "(yyyy-MM-dd'T'HH:mm:ssz) date_of_expiration", "bad_request")
        if body.get("payment_method_id") != "pix" or not body.get("payer", {}).get("email"):
            return self._error(400, "payment_method_id pix and payer.email are required", "bad_request")
        payment_id = str(self.next_id)
        self.next_id += 1
        location = f"pix-qr.mercadopago.com/instore/o/v2/{uuid.uuid4().hex}"
        payment = {
            "id": int(payment_id), "status": "pending", "status_detail": "pending_waiting_transfer",
            "date_created": datetime.now(BRT).isoformat(timespec="milliseconds"),
            "date_approved": None, "date_of_expiration": expiry, "currency_id": "BRL",
            "transaction_amount": float(amount), "payment_method_id": "pix", "payment_type_id": "bank_transfer",
            "description": body.get("description"), "external_reference": body.get("external_reference"),
            "point_of_interaction": {"type": "PIX", "transaction_data": {
                "qr_code": brcode(amount_cents=int(Decimal(amount) * 100), merchant_name="MERCADO PAGO",
                                  merchant_city="Osasco", txid="***", location=location),
                "qr_code_base64": "iVBORw0KGgo=", "ticket_url": f"https://www.mercadopago.com.br/payments/{payment_id}"}},
        }
        self.payments[payment_id] = payment
        self.by_key[key] = payment_id
        return JSONResponse(payment, status_code=201)

    async def payment(self, request: Request) -> Response:
        if (refused := await self._guard(request)) is not None:
            return refused
        payment = self.payments.get(request.path_params["id"])
        if payment is None:
            return self._error(404, "Payment not found", "not_found")
        if request.method == "GET":
            return JSONResponse(payment)
        body = json.loads(await request.body())
        self.requests.append(("PUT", request.url.path, body))
        if body.get("status") == "cancelled":
            if payment["status"] not in ("pending", "in_process"):
                return self._error(400, "Invalid status for cancel", "bad_request")
            payment.update(status="cancelled", status_detail="by_collector")
        return JSONResponse(payment)

    async def refund(self, request: Request) -> Response:
        if (refused := await self._guard(request)) is not None:
            return refused
        payment = self.payments.get(request.path_params["id"])
        if payment is None:
            return self._error(404, "Payment not found", "not_found")
        body = json.loads(await request.body(), parse_float=Decimal)
        self.requests.append(("POST", request.url.path, body))
        key = request.headers.get("x-idempotency-key", "")
        self.idempotency_keys.append(key)
        if key in self.refunds:
            return JSONResponse(self.refunds[key], status_code=201)
        if payment["status"] != "approved":
            return self._error(400, "Payment not approved", "bad_request")
        refunded = sum(Decimal(str(r["amount"])) for r in self.refunds.values()
                       if r["payment_id"] == payment["id"])
        if Decimal(body["amount"]) + refunded > Decimal(str(payment["transaction_amount"])):
            return self._error(400, "Invalid refund amount", "bad_request")
        refund = {"id": 9_000_000 + len(self.refunds) + 1, "payment_id": payment["id"],
                  "amount": float(body["amount"]), "status": "approved", "date_created": now_iso()}
        self.refunds[key] = refund
        return JSONResponse(refund, status_code=201)

