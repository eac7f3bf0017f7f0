"""The schema describes itself (issue 19): every type, field, argument, input field and enum value of the built
schema has a description. GraphQL's built-in scalars and the introspection types are the spec's, not ours; custom
scalars (DateTime, JSON...) are ours to describe."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    specified_scalar_types,
)

from slothold.schema import schema


def _ours(graphql_schema: GraphQLSchema) -> Iterator[GraphQLNamedType]:
    for name, named in sorted(graphql_schema.type_map.items()):
        if not name.startswith("__") and name not in specified_scalar_types:
            yield named


def undescribed(graphql_schema: GraphQLSchema) -> list[str]:
    """Every schema coordinate (Type, Type.field, Type.field(arg:), Input.field, Enum.VALUE) without a description."""
    missing: list[str] = []
    for named in _ours(graphql_schema):
        if not (named.description or "").strip():
            missing.append(named.name)
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in named.fields.items():
                if not (field.description or "").strip():
                    missing.append(f"{named.name}.{field_name}")
                missing.extend(f"{named.name}.{field_name}({arg_name}:)" for arg_name, arg in field.args.items()
                               if not (arg.description or "").strip())
        elif isinstance(named, GraphQLInputObjectType):
            missing.extend(f"{named.name}.{field_name}" for field_name, field in named.fields.items()
                           if not (field.description or "").strip())
        elif isinstance(named, GraphQLEnumType):
            missing.extend(f"{named.name}.{value_name}" for value_name, value in named.values.items()
                           if not (value.description or "").strip())
    return missing


def test_every_type_field_argument_and_enum_value_has_a_description() -> None:
    missing = undescribed(schema._schema)
    assert not missing, f"{len(missing)} schema coordinates without a description:\n" + "\n".join(missing)


def test_the_walk_sees_what_it_must() -> None:
    """The walk would pass vacuously if it saw nothing: it reaches root fields, arguments, inputs and enum values."""
    graphql_schema = schema._schema
    names = {named.name for named in _ours(graphql_schema)}
    assert {"Query", "Mutation", "Subscription", "DateTime", "BookingStatus", "HoldInput", "ErrorCode"} <= names
    assert not names & {"String", "Int", "Boolean", "__Schema", "__Type"}
    query = graphql_schema.query_type
    assert query is not None and "booking" in query.fields and query.fields["booking"].args
