"""api/webhooks: see docs/architecture.md."""
