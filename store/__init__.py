"""The only code that speaks SQL: tables, unit of work, repositories, outbox, idempotency keys."""
