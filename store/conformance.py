"""Which store class implements which of the domain's ports: mypy checks each assignment below (`mypy store`), so a
port and its implementation cannot drift apart unnoticed. Nothing here runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncpg

    from domain.audit_reports import AuditReportStore
    from domain.conversation.ports import ConversationStore
    from domain.ports import (
        AttendanceSweeps,
        InAppNotifications,
        LoginAccess,
        NotificationDeliveries,
        OriginList,
        OutboxFeed,
        OutboxSource,
        Retention,
        UnitOfWork,
        WebhookDeliveries,
    )
    from store.access import PgAccess
    from store.allowed_origins import OriginUnion
    from store.attendance import PgAttendance
    from store.audit_reports import PgAuditReports
    from store.in_app import PgInApp
    from store.notifications import PgDeliveries
    from store.outbox import PgRetention
    from store.relay import PgOutboxFeed, PgOutboxSource
    from store.uow import PgUnitOfWork
    from store.webhooks_out import PgWebhooks
    from store.whatsapp import PgConversations

    def _ports(pool: asyncpg.Pool, conn: asyncpg.Connection) -> None:
        uow: UnitOfWork = PgUnitOfWork(pool)
        login: LoginAccess = PgAccess(pool)
        deliveries: NotificationDeliveries = PgDeliveries(pool)
        in_app: InAppNotifications = PgInApp(pool)
        webhooks: WebhookDeliveries = PgWebhooks(pool)
        attendance: AttendanceSweeps = PgAttendance(pool)
        retention: Retention = PgRetention(pool)
        source: OutboxSource = PgOutboxSource("postgresql://")
        feed: OutboxFeed = PgOutboxFeed(conn)
        conversations: ConversationStore = PgConversations(pool)
        audit: AuditReportStore = PgAuditReports(pool)
        origins: OriginList = OriginUnion(pool)
        del origins, uow, login, deliveries, in_app, webhooks, attendance, retention, source, feed, conversations, audit
