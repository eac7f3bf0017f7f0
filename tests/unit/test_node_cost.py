"""The query cost of nodes(ids:) counts one item per id asked (at most NODES_MAX for a variable), as a page size
does: a hundred ids cannot cost as ten."""

from graphql import parse, validate

from api.graphql.limits import QueryLimits, query_limit_rules
from schema.nodes import NODES_MAX
from slothold.schema import schema


def _cost(document: str, max_cost: int = 1) -> int:
    errors = validate(schema._schema, parse(document), query_limit_rules(QueryLimits(max_cost=max_cost)))
    (refused,) = [e for e in errors if (e.extensions or {}).get("code") == "query_too_costly"]
    return int(refused.extensions["cost"])  # type: ignore[index]


def test_nodes_costs_each_id_asked_and_the_bound_for_a_variable() -> None:
    ids = ", ".join(f'"x{i}"' for i in range(40))
    assert _cost("{ nodes(ids: [" + ids + "]) { id } }") == 1 + 40 * 1
    assert _cost("query($i: [ID!]!) { nodes(ids: $i) { id } }") == 1 + NODES_MAX * 1
    assert _cost('{ node(id: "x") { id } }') == 2
