"""api: see docs/architecture.md."""
