"""The rules of Slothold as pure Python: no framework, driver or I/O."""
