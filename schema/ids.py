"""Global object ids (issue 19): one opaque, typed id per object, the same in GraphQL (`Node.id`, `node(id)`), the
REST door and the web demo.

An id is the unpadded URL-safe base64 of `TypeName:uuid` (the Relay convention strawberry also follows, made safe
for a URL path). Clients must treat it as opaque. Every ID argument also takes the object's raw UUID, as the API
answered before global ids existed, so stored ids keep working.
"""

from __future__ import annotations

import base64
import binascii
from uuid import UUID


def global_id(type_name: str, value: UUID | str) -> str:
    """The global id of the object of type `type_name` whose database id is `value`."""
    return base64.urlsafe_b64encode(f"{type_name}:{value}".encode()).decode("ascii").rstrip("=")


def decode_id(value: str) -> tuple[str | None, UUID]:
    """(type name, database id) of a global id, or (None, uuid) for a raw UUID; ValueError for anything else."""
    text = str(value).strip()
    try:
        return None, UUID(text)
    except ValueError:
        pass
    if not text or len(text) > 200:
        raise ValueError("not an id")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ValueError("not an id") from None
    type_name, sep, rest = raw.partition(":")
    if not sep or not type_name.isidentifier():
        raise ValueError("not an id")
    return type_name, UUID(rest)
