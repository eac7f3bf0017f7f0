"""The REST door's OpenAPI document: a standard validator accepts it, it describes every route there is, its schemas
are exactly what the GraphQL documents select (and its enums GraphQL's), those documents are valid against the live
schema, and the response checker the flow tests use does refuse what the document does not describe."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import pytest
from graphql import FieldNode, FragmentDefinitionNode, OperationDefinitionNode, SelectionSetNode, parse, validate
from jsonschema import FormatChecker
from openapi_spec_validator import validate as validate_spec
from starlette.routing import Mount, Route

from api.rest import documents, rest_routes
from api.rest.openapi import OPENAPI, SCHEMAS
from slothold.schema import build_schema
from tests.api.rest_contract import check


def test_a_standard_validator_accepts_the_document() -> None:
    validate_spec(OPENAPI)  # type: ignore[arg-type]


def test_the_document_describes_every_route_and_only_those() -> None:
    async def no_context(request: Any) -> Any:
        raise AssertionError("not called")

    [mount] = rest_routes(build_schema(), no_context, 1000)
    assert isinstance(mount, Mount)
    served = {}
    for route in mount.routes:
        assert isinstance(route, Route)
        if route.path != "/{path:path}":
            served["/v1" + route.path] = {m.lower() for m in route.endpoint.handlers}  # type: ignore[attr-defined]
    assert served == {path: set(item) for path, item in OPENAPI["paths"].items()}


def _fields(selection: SelectionSetNode, fragments: dict[str, FragmentDefinitionNode]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in selection.selections:
        if isinstance(node, FieldNode):
            out[node.name.value] = _fields(node.selection_set, fragments) if node.selection_set else None
        else:
            out["..." + node.name.value] = _fields(fragments[node.name.value].selection_set,  # type: ignore[attr-defined]
                                                   fragments)
    return out


def _selection(text: str) -> dict[str, Any]:
    doc = parse("{ " + text + " }" + documents.FRAGMENTS)
    fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    [op] = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    return _fields(op.selection_set, fragments)


def _properties(name: str) -> set[str]:
    return set(SCHEMAS[name]["properties"])


def test_the_schemas_are_what_the_documents_select() -> None:
    booking = _selection(documents.BOOKING)
    assert set(booking) == _properties("Booking") == set(SCHEMAS["Booking"]["required"])
    assert set(booking["allocations"]) == _properties("Allocation")
    assert set(booking["refunds"]) == _properties("Refund")
    assert set(booking["quote"]["...acceptance"]) == set(booking["acceptance"]["...acceptance"]) == _properties(
        "Acceptance")
    assert set(_selection(documents.CHARGE)) == _properties("Charge")
    availability = _selection(documents.AVAILABILITY.selection)
    assert set(availability) == _properties("Availability")
    assert set(availability["slots"]) == _properties("SlotOption")


def test_the_enums_are_graphqls() -> None:
    live = build_schema()._schema
    for schema, prop, enum in (("Booking", "status", "BookingStatus"), ("Charge", "status", "ChargeStatus"),
                               ("Refund", "status", "RefundStatus")):
        assert SCHEMAS[schema]["properties"][prop]["enum"] == list(live.type_map[enum].values), enum  # type: ignore[attr-defined]


def test_the_documents_are_valid_against_the_live_schema() -> None:
    live = build_schema()._schema
    for op in documents.OPERATIONS:
        text = documents.document(live, op)
        assert validate(live, parse(text)) == [], op.name
        assert f"result: {op.field}(" in text


def test_the_checker_refuses_what_the_document_does_not_describe() -> None:
    request = httpx.Request("GET", "http://x/v1/bookings/abc")

    def response(status: int, body: Any, media_type: str = "application/json") -> httpx.Response:
        return httpx.Response(status, json=body, headers={"content-type": media_type}, request=request)

    with pytest.raises(jsonschema.ValidationError):
        check(response(200, {"id": "abc"}))  # most of a booking missing
    assert "date-time" in FormatChecker().checkers  # formats are checked (rfc3339-validator is installed)
    with pytest.raises(jsonschema.ValidationError):
        check(response(404, {"type": "x", "title": "t", "status": 404, "detail": "d", "code": "not_found",
                             "instance": "/v1/bookings/abc", "retryAfterSeconds": "soon"}, "application/problem+json"))
    with pytest.raises(AssertionError):
        check(response(409, {}, "application/problem+json"))  # GET booking never answers 409
    with pytest.raises(jsonschema.ValidationError):
        check(response(404, {"type": "x", "title": "t", "status": 404, "detail": "d"}, "application/problem+json"))
    with pytest.raises(AssertionError):
        check(response(404, {"type": "x", "title": "t", "status": 404, "detail": "d", "code": "not_found"}))


def test_the_request_schemas_are_graphqls_arguments() -> None:
    """A body is the GraphQL input or the field's arguments: a field added there shows here, or this fails."""
    live = build_schema()._schema
    mutation = live.mutation_type
    assert mutation is not None
    assert _properties("HoldRequest") == set(live.type_map["HoldInput"].fields)  # type: ignore[attr-defined]
    assert _properties("Customer") == set(live.type_map["CustomerInput"].fields)  # type: ignore[attr-defined]
    skip = {"bookingId", "idempotencyKey"}
    assert _properties("ConfirmRequest") == set(mutation.fields["confirm"].args) - skip
    assert _properties("CancelRequest") == set(mutation.fields["cancel"].args) - skip
    query = live.query_type
    assert query is not None
    documented = {p["name"] for p in OPENAPI["paths"]["/v1/availability"]["get"]["parameters"]}
    assert documented == set(query.fields["bookableSlots"].args)
