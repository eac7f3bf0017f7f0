"""SQLAlchemy Core descriptions of the configuration tables (the schema itself lives in migrations/)."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    ForeignKey,
    Integer,
    MetaData,
    SmallInteger,
    Table,
    Text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

metadata = MetaData()

tenants = Table(
    "tenants", metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("name", Text, nullable=False),
    Column("hold_types", JSONB, nullable=False, server_default="{}"),
)

organizations = Table(
    "organizations", metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("tenant_id", UUID(as_uuid=True), ForeignKey("tenants.id"), nullable=False),
    Column("name", Text, nullable=False),
    Column("hold_types", JSONB, nullable=False, server_default="{}"),
)

units = Table(
    "units", metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), ForeignKey("organizations.id"), nullable=False),
    Column("name", Text, nullable=False),
    Column("timezone", Text, nullable=False),
    Column("min_advance_minutes", Integer),
    Column("max_advance_days", Integer),
    Column("slot_minutes", Integer),
    Column("hold_ttl_seconds", Integer),
    Column("hold_ttl_payment_seconds", Integer),
    Column("hold_min_seconds", Integer),
    Column("waitlist_hold_seconds", Integer),
    Column("capacity_offer_ttl_seconds", Integer),
    Column("charge_margin_seconds", Integer),
    Column("pix_failures_before_alert", Integer),
    Column("owner_alert_whatsapp", Text),
    Column("open_holds_per_customer", Integer),
    Column("cooldown_expirations", Integer),
    Column("cooldown_window_days", Integer),
    Column("cooldown_hours", Integer),
    Column("hold_ceiling_percent", Integer),
    Column("verification_wait_seconds", Integer),
    Column("hold_reminder_seconds", Integer),
    Column("sweep_interval_seconds", Integer),
    Column("payment_rule", Text),
    Column("no_show_grace_minutes", Integer),
    Column("check_in_opens_minutes", Integer),
    Column("series_charge_days_ahead", Integer),
    Column("appointment_reminder_minutes", ARRAY(Integer)),
    Column("manual_payments_enabled", Boolean),
    Column("check_in_required", Boolean),
    Column("notification_matrix", JSONB),
    Column("currency", Text),
    Column("owner_email", Text),
)

resource_groups = Table(
    "resource_groups", metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("unit_id", UUID(as_uuid=True), nullable=False),
    Column("name", Text, nullable=False),
    Column("sort", Integer, nullable=False, server_default="0"),
)

resources = Table(
    "resources", metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("unit_id", UUID(as_uuid=True), nullable=False),
    Column("group_id", UUID(as_uuid=True)),
    Column("name", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("capacity", Integer, nullable=False),
    Column("sort", Integer, nullable=False, server_default="0"),
    Column("attributes", JSONB, nullable=False, server_default="{}"),
    Column("active", Boolean, nullable=False, server_default="true"),
    Column("waitlist_enabled", Boolean, nullable=False, server_default="true"),
)

opening_hours = Table(
    "opening_hours", metadata,
    Column("id", Integer, primary_key=True),
    Column("unit_id", UUID(as_uuid=True), nullable=False),
    Column("resource_id", UUID(as_uuid=True)),
    Column("weekday", SmallInteger, nullable=False),
    Column("opens_minute", Integer, nullable=False),
    Column("closes_minute", Integer, nullable=False),
)

services = Table(
    "services", metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("unit_id", UUID(as_uuid=True), nullable=False),
    Column("name", Text, nullable=False),
    Column("duration_minutes", Integer, nullable=False),
    Column("price_cents", Integer, nullable=False),
    Column("payment_rule", Text, nullable=False, server_default="full"),
    Column("deposit_percent", Integer),
    Column("deposit_cents", Integer),
    Column("active", Boolean, nullable=False, server_default="true"),
)
