"""providers/whatsapp: see docs/architecture.md."""
