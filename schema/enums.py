"""GraphQL enums from the domain's own enums, each value with its description (issue 19: a described schema).

The domain cannot import strawberry, so its enums carry no GraphQL metadata; `described_enum` registers one and
gives every value its description, refusing (at import) an enum whose values and descriptions do not match one
for one, so that a value added to the domain without a description fails at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import TypeVar

import strawberry
from strawberry.types.enum import StrawberryEnumDefinition

E = TypeVar("E", bound=type[Enum])


def described_enum(cls: E, description: str, values: Mapping[str, str], name: str | None = None,
                   graphql_name_from: str = "key") -> E:
    """Register `cls` as a GraphQL enum (named `name`, default the class's) with `description`, and describe each
    value from `values` (member name → description). Returns `cls` unchanged, as strawberry.enum does."""
    if hasattr(cls, "__strawberry_definition__"):  # strawberry made one from an annotation read before this ran
        raise TypeError(f"{cls.__name__} is registered already: register it before any annotation names it")
    if graphql_name_from == "value":
        strawberry.enum(cls, name=name, description=description, graphql_name_from="value")
    else:
        strawberry.enum(cls, name=name, description=description)
    members = [m.name for m in cls]
    missing, unknown = set(members) - set(values), set(values) - set(members)
    if missing or unknown:
        raise ValueError(f"{cls.__name__}: values without a description {sorted(missing)}, "
                         f"descriptions of no value {sorted(unknown)}")
    definition: StrawberryEnumDefinition = cls.__strawberry_definition__  # type: ignore[attr-defined]
    by_value = {m.value: values[m.name] for m in cls}
    for value in definition.values:
        value.description = by_value[value.value]
    return cls
