"""Claim links and the payer of a Pix (issue 18): the public base URL setting, the link of each kind of offer,
the tokens a claim page accepts, and what a bank's `pagador` gives."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from domain.claim_links import OfferKind, claim_link
from domain.services import Deps
from providers.base import received_pix
from slothold.settings import Settings


def test_the_public_base_url_defaults_to_the_servers_address_and_drops_a_trailing_slash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().base_url() == "http://127.0.0.1:8000"
    assert Settings(host="0.0.0.0", port=9000).base_url() == "http://127.0.0.1:9000"
    assert Settings(host="::1", port=9000).base_url() == "http://[::1]:9000"
    assert Settings(public_base_url=" https://reservas.example/app/ ").base_url() == "https://reservas.example/app"
    monkeypatch.setenv("SLOTHOLD_PUBLIC_BASE_URL", "https://arena.example")
    assert Settings.from_env().base_url() == "https://arena.example"


@pytest.mark.parametrize("bad", ["arena.example", "ftp://arena.example", "https://", "https://a b",
                                 "https://arena.example/?x=1", "javascript:alert(1)"])
def test_a_public_base_url_that_is_not_an_http_url_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="SLOTHOLD_PUBLIC_BASE_URL"):
        Settings(public_base_url=bad).base_url()


def test_each_kind_of_offer_has_its_link() -> None:
    deps = replace(Deps(uow=lambda: None, clock=None), public_base_url="https://arena.example")  # type: ignore[arg-type,return-value]
    token = "ab" * 32
    assert claim_link(deps, OfferKind.CAPACITY, token) == f"https://arena.example/waitlist/claim/{token}"
    assert claim_link(deps, OfferKind.WALK_IN, token) == f"https://arena.example/walk-in/claim/{token}"


def test_the_payer_a_bank_names_is_kept_when_well_formed() -> None:
    entry = {"endToEndId": "E1234567820261207120500000000001", "valor": "100.00", "horario": "2026-12-07T12:05:00Z"}
    plain = received_pix(entry)
    assert (plain.txid, plain.payer_name, plain.payer_document) == (None, None, None)
    named = received_pix({**entry, "pagador": {"cpf": "12345678909", "nome": "  Ana   Souza "}})
    assert (named.payer_name, named.payer_document) == ("Ana Souza", "12345678909")
    company = received_pix({**entry, "pagador": {"cnpj": "12345678000190", "nome": "X" * 300}})
    assert company.payer_document == "12345678000190" and company.payer_name == "X" * 140
    odd = received_pix({**entry, "pagador": {"cpf": "123.456.789-09", "nome": 7}})  # a hint, never a refusal
    assert (odd.payer_name, odd.payer_document, odd.amount_cents) == (None, None, 10000)
    assert odd.paid_at == datetime(2026, 12, 7, 12, 5, tzinfo=UTC)
