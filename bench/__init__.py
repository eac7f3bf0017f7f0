"""Slothold benchmarks (see bench/README.md)."""
