"""Pix payment providers (SPEC §7): the sandbox bank, the standard Pix API of Brazilian banks, MercadoPago.

Each implements `domain.ports.PaymentProvider`; `providers.factory.make_provider` picks one from the
environment. Money is integer cents on our side; conversions to and from the providers' decimal strings
and numbers are exact (see `providers.base`).
"""

from providers.base import ChargeNotFound

__all__ = ["ChargeNotFound"]
