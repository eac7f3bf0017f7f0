"""The QR image of a BR Code, for the web and e-mail (SPEC §7: "BR Code payload and QR image")."""

from __future__ import annotations

import base64
import io

import segno


def qr_png_data_uri(payload: str, *, scale: int = 6, border: int = 4) -> str:
    """A PNG of the QR code of `payload` as a data URI ("data:image/png;base64,...").

    Always a full QR code (never a Micro QR), error correction M at least (segno raises it when free),
    `scale` pixels per module and the standard quiet zone of 4 modules."""
    if not payload:
        raise ValueError("nothing to encode")
    code = segno.make_qr(payload, error="m", boost_error=True)
    buffer = io.BytesIO()
    code.save(buffer, kind="png", scale=scale, border=border)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
