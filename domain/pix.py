"""BR Code ("Pix copia e cola"): the EMV merchant-presented payload with its CRC16 (Manual do BR Code)."""

from __future__ import annotations

import re
import unicodedata

GUI = "br.gov.bcb.pix"


def crc16_ccitt(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as the BR Code's field 63 requires."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def _tlv(tag: str, value: str) -> str:
    if len(value) > 99:
        raise ValueError(f"BR Code field {tag} is longer than 99 characters")
    return f"{tag}{len(value):02d}{value}"


def _plain(text: str, limit: int) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"\s+", " ", ascii_text).strip().upper()[:limit] or "NA"


def brcode(
    *, amount_cents: int, merchant_name: str, merchant_city: str, txid: str, key: str | None = None,
    location: str | None = None,
) -> str:
    """A BR Code with a fixed amount: dynamic (`location`, the PSP's payload URL) or static (`key`)."""
    if (key is None) == (location is None):
        raise ValueError("a BR Code carries either a Pix key (static) or a location URL (dynamic)")
    if amount_cents <= 0:
        raise ValueError("a Pix charge needs a positive amount")
    account = _tlv("00", GUI) + (_tlv("25", location) if location else _tlv("01", key or ""))
    txid_field = txid if re.fullmatch(r"[A-Za-z0-9]{1,25}", txid) else "***"
    payload = (
        _tlv("00", "01")
        + _tlv("01", "12")  # point of initiation 12: the code is meant for one payment
        + _tlv("26", account)
        + _tlv("52", "0000")
        + _tlv("53", "986")
        + _tlv("54", f"{amount_cents // 100}.{amount_cents % 100:02d}")
        + _tlv("58", "BR")
        + _tlv("59", _plain(merchant_name, 25))
        + _tlv("60", _plain(merchant_city, 15))
        + _tlv("62", _tlv("05", txid_field))
        + "6304"
    )
    return payload + f"{crc16_ccitt(payload.encode()):04X}"


def parse(payload: str) -> dict[str, str]:
    """The top-level fields of a BR Code (tag → value); refuses a bad CRC or framing."""
    if len(payload) < 8 or payload[-8:-4] != "6304":
        raise ValueError("not a BR Code: it must end with the CRC field 6304XXXX")
    if f"{crc16_ccitt(payload[:-4].encode()):04X}" != payload[-4:].upper():
        raise ValueError("BR Code CRC does not match")
    fields: dict[str, str] = {}
    i = 0
    while i < len(payload):
        tag, size = payload[i : i + 2], int(payload[i + 2 : i + 4])
        fields[tag] = payload[i + 4 : i + 4 + size]
        i += 4 + size
    return fields
