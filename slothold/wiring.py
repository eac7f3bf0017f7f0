"""The one place the use cases' dependencies are built, for the API, the worker and the command line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import asyncpg

from domain.ports import Clock, PaymentProvider
from domain.services import Deps
from domain.waitlist import promote_after_release
from providers.factory import make_provider
from providers.phones import LibPhoneNumbers
from providers.sandbox import SandboxProvider
from store.uow import PgUnitOfWork


def build_deps(pool: asyncpg.Pool, clock: Clock, env: Mapping[str, str] | None = None,
               provider: PaymentProvider | None = None, waitlists: bool = True, sandbox_on_clock: bool = False,
               public_base_url: str | None = None, config_pool: asyncpg.Pool | None = None) -> Deps:
    """Deps on `pool` and `clock`: the payment provider chosen by `env` (unless one is given; none when neither
    is), and the waitlists promoted after every release unless `waitlists` is False (one-off tools). With
    `sandbox_on_clock` the sandbox's pretend bank keeps the same clock (the API: tests move it). Claim links
    start with `public_base_url` (Settings.base_url(); default: Deps' local address). The cached configuration
    loads from `config_pool` (store/uow.py; None: `pool`)."""
    if provider is None and env is not None:
        provider = make_provider(env, pool)
    if sandbox_on_clock and isinstance(provider, SandboxProvider):
        provider.clock = clock
    deps = Deps(uow=lambda: PgUnitOfWork(pool, config_pool), clock=clock, provider=provider,
                on_release=promote_after_release if waitlists else None, phones=LibPhoneNumbers())
    return replace(deps, public_base_url=public_base_url) if public_base_url else deps
