"""Slothold composition root: settings, ASGI app, CLI and embedded services."""
