"""The stores the API uses outside a unit of work: each call is one statement or one short transaction of its own,
committed when it returns (webhook endpoints, in-app notifications, hold-type layers, unit parameters, audit
reports). Use cases that must commit several changes together go through the unit of work (store/uow.py) instead."""

from __future__ import annotations

from functools import cached_property

import asyncpg

from store.audit_reports import PgAuditReports
from store.hold_types import PgHoldTypeLayers
from store.nodes import PgNodeRows
from store.notifications import PgNotifications
from store.unit_settings import PgUnitParameters
from store.webhooks_out import PgWebhooks


class PgStores:
    """The pool-level stores, made when first asked for (resolvers.ports.Stores)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @cached_property
    def webhooks(self) -> PgWebhooks:
        return PgWebhooks(self._pool)

    @cached_property
    def notifications(self) -> PgNotifications:
        return PgNotifications(self._pool)

    @cached_property
    def audit_reports(self) -> PgAuditReports:
        return PgAuditReports(self._pool)

    @cached_property
    def hold_types(self) -> PgHoldTypeLayers:
        return PgHoldTypeLayers(self._pool)

    @cached_property
    def unit_parameters(self) -> PgUnitParameters:
        return PgUnitParameters(self._pool)

    @cached_property
    def nodes(self) -> PgNodeRows:
        return PgNodeRows(self._pool)
