"""Shared subscription results (slothold/executor.py) are keyed by the same share scope that groups subscribers
(slothold/fanout.py): two callers of different reach never get each other's per-event result."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from api.graphql.executor import result_key
from domain.access import Principal, Role
from resolvers.context import Context


def _context(principal: Principal) -> Context:
    ctx: Any = Context.__new__(Context)
    ctx.principal = principal
    return ctx  # type: ignore[no-any-return]


def test_callers_of_different_reach_never_share_a_result_and_equal_reach_does() -> None:
    tenant, unit = uuid4(), uuid4()
    event, operation = object(), object()
    variables = {"unitId": str(unit)}
    owner = Principal("staff", tenant, unit, Role.OWNER, token_id=uuid4())
    other_owner = Principal("staff", tenant, unit, Role.OWNER, token_id=uuid4())  # another token, same reach
    operator = Principal("staff", tenant, unit, Role.OPERATOR, token_id=uuid4())
    customer_a = Principal("customer", tenant, unit, token_id=uuid4(), customer_id=uuid4())
    customer_b = Principal("customer", tenant, unit, token_id=uuid4(), customer_id=uuid4())
    keys = {name: result_key(event, operation, variables, _context(p)) for name, p in
            {"owner": owner, "other_owner": other_owner, "operator": operator, "a": customer_a,
             "b": customer_b}.items()}
    assert keys["owner"] == keys["other_owner"]
    assert len({keys["owner"], keys["operator"], keys["a"], keys["b"]}) == 4
    assert result_key(event, operation, variables, object()) is None  # no share scope: nothing is shared
