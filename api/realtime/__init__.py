"""api/realtime: see docs/architecture.md."""
