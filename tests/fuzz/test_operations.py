"""Every query and mutation of the live schema, fuzzed as every kind of caller (tests/fuzz/generator.py)."""

from __future__ import annotations

import pytest
from graphql import get_introspection_query
from hypothesis import given
from hypothesis import strategies as st

from slothold.schema import schema as live_schema
from tests.fuzz.conftest import PROFILE, Fuzzer
from tests.fuzz.generator import Schema, requests
from tests.fuzz.world import CALLERS


def _root_fields() -> list[str]:
    # Collection needs the names before any server runs: the same schema object the app serves, introspected in
    # process. The test then reads the fields' arguments from the server's own introspection, over HTTP.
    result = live_schema._schema  # graphql-core schema behind strawberry's
    from graphql import graphql_sync

    data = graphql_sync(result, get_introspection_query()).data
    assert data is not None
    s = Schema(data)
    return [f"{f.operation}:{f.name}" for op in ("query", "mutation") for f in s.root_fields(op)]


ROOT_FIELDS = _root_fields()


def test_every_query_and_mutation_is_fuzzed() -> None:
    assert len(ROOT_FIELDS) > 60, ROOT_FIELDS  # the matrix below is generated, not listed by hand


@pytest.mark.parametrize("root", ROOT_FIELDS)
@PROFILE
@given(data=st.data())
async def test_operation_survives_fuzzed_arguments(fuzzer: Fuzzer, root: str, data: st.DataObject) -> None:
    operation, name = root.split(":")
    field = next((f for f in fuzzer.schema.root_fields(operation) if f.name == name), None)
    assert field is not None, f"{root} is not in the server's introspection"
    callers = tuple(c for c in CALLERS if c != "customer") if name == "signOut" else CALLERS  # keep the session
    request = data.draw(requests(fuzzer.schema, fuzzer.values, field, callers, fuzzer.world), label="request")
    await fuzzer.check(request)
