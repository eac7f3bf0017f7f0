"""Fake PSP and fake MercadoPago, each served by uvicorn once per session and reset before every test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.providers.fakes import FakeMercadoPago, FakePsp, serve


@pytest.fixture(scope="session")
async def psp_server() -> AsyncIterator[tuple[FakePsp, str]]:
    fake = FakePsp()
    async with serve(fake.app) as url:
        yield fake, url


@pytest.fixture(scope="session")
async def mp_server() -> AsyncIterator[tuple[FakeMercadoPago, str]]:
    fake = FakeMercadoPago()
    async with serve(fake.app) as url:
        yield fake, url


@pytest.fixture
def psp(psp_server: tuple[FakePsp, str]) -> FakePsp:
    psp_server[0].reset()
    return psp_server[0]


@pytest.fixture
def psp_url(psp_server: tuple[FakePsp, str]) -> str:
    return psp_server[1]


@pytest.fixture
def mp(mp_server: tuple[FakeMercadoPago, str]) -> FakeMercadoPago:
    mp_server[0].reset()
    return mp_server[0]


@pytest.fixture
def mp_url(mp_server: tuple[FakeMercadoPago, str]) -> str:
    return mp_server[1]
