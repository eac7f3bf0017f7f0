"""Phone numbers as people type them, read with libphonenumber (the `phonenumbers` package) into E.164."""

from __future__ import annotations

import phonenumbers

from domain.errors import ErrorCode, InvalidInput


class LibPhoneNumbers:
    """domain.ports.PhoneNumbers: a number with its country code ("+44 20 7946 0958") keeps it; one without is read
    as a number of `default_region` (Brazil: "(11) 99999-0000" is +5511999990000). Only numbers that libphonenumber
    knows to be valid for their country are accepted."""

    def __init__(self, default_region: str = "BR") -> None:
        self.default_region = default_region

    def normalize(self, raw: str, field: str) -> str:
        """The number in E.164, or InvalidInput naming `field`."""
        try:
            number = phonenumbers.parse(raw, self.default_region)
        except phonenumbers.NumberParseException:
            number = None
        if number is None or not phonenumbers.is_valid_number(number):
            raise InvalidInput(field, f"{raw[:40]!r} is not a valid phone number: give it with its country code, "
                               "e.g. +55 11 99999-0000", code=ErrorCode.INVALID_PHONE)
        return str(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))
