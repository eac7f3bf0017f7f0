"""Staff finding a customer at the counter (issue 20): `customers(unitId, search)`, the tenant's customers who booked
at the unit, by part of the name, the phone or the CPF, paged, the CPF masked; refused for customers (a customer
cannot list the others) and answered as missing for another tenant's staff; a search that says nothing refused."""

from __future__ import annotations

from typing import Any

from store.access import PgAccess
from tests.api.conftest import Api
from tests.api.test_access import _sign_in
from tests.venues import arena, at, cpf

FIND = """query($u: ID!, $s: String!, $first: Int, $after: String) { customers(unitId: $u, search: $s, first: $first,
  after: $after) { edges { node { id name phone maskedCpf } } pageInfo { hasNextPage endCursor } } }"""
COUNTER = """mutation($i: CounterBookingInput!) { counterBooking(input: $i) { __typename ... on Error { message } } }"""


async def book(api: Api, v: Any, hour: int, customer: dict[str, str], field: str = "Campo 1") -> None:
    r = await api.gql(COUNTER, {"i": {"unitId": str(v.unit_id), "resourceIds": [str(v.resource_ids[field])],
                                      "startsAt": at(12, hour).isoformat(), "endsAt": at(12, hour + 1).isoformat(),
                                      "customer": customer}})
    assert r["counterBooking"]["__typename"] == "BookingPayload", r


async def refusal(api: Api, token: str | None, variables: dict[str, Any]) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    r = await api.http.post("/graphql", headers=headers, json={"query": FIND, "variables": variables})
    body = r.json()
    assert body.get("data") is None and body["errors"], body
    return body["errors"][0]["extensions"]  # type: ignore[no-any-return]


async def test_staff_find_customers_who_booked_here_by_name_phone_and_cpf_a_page_at_a_time(api: Api, pool: Any) -> None:
    v, elsewhere = await arena(pool), await arena(pool)
    joao = {"name": "João Paulo Counter", "phone": "+5511955550001", "cpf": cpf(910_001)}
    await book(api, v, 8, joao)
    await book(api, v, 9, joao, "Campo 2")  # twice: still one customer
    for n in range(3):
        await book(api, v, 10 + n, {"name": f"Joana Counter {n}", "phone": f"+551195555010{n}"})
    await book(api, elsewhere, 8, {"name": "João Elsewhere", "phone": "+5511955550009"})  # another unit

    u = str(v.unit_id)
    by_name = (await api.gql(FIND, {"u": u, "s": "JOAO"}))["customers"]["edges"]
    assert [e["node"]["name"] for e in by_name] == ["João Paulo Counter"]
    node = by_name[0]["node"]
    assert node["phone"] == "+5511955550001" and node["maskedCpf"] == f"***.{joao['cpf'][3:6]}.{joao['cpf'][6:9]}-**"
    by_phone = (await api.gql(FIND, {"u": u, "s": "(11) 95555-0001"}))["customers"]["edges"]
    assert [e["node"]["id"] for e in by_phone] == [node["id"]]
    dotted = f"{joao['cpf'][:3]}.{joao['cpf'][3:6]}.{joao['cpf'][6:9]}-{joao['cpf'][9:]}"
    by_cpf = (await api.gql(FIND, {"u": u, "s": dotted}))["customers"]["edges"]
    assert [e["node"]["id"] for e in by_cpf] == [node["id"]]

    first = (await api.gql(FIND, {"u": u, "s": "counter", "first": 2}))["customers"]
    assert [e["node"]["name"] for e in first["edges"]] == ["Joana Counter 0", "Joana Counter 1"]
    assert first["pageInfo"]["hasNextPage"]
    rest = (await api.gql(FIND, {"u": u, "s": "counter", "first": 5, "after": first["pageInfo"]["endCursor"]}))
    assert [e["node"]["name"] for e in rest["customers"]["edges"]] == ["Joana Counter 2", "João Paulo Counter"]
    assert not rest["customers"]["pageInfo"]["hasNextPage"]

    for typed in ("a", "12", "1234-567"):  # too short; too few digits for a phone or a CPF
        ext = await refusal(api, await _system(api), {"u": u, "s": typed})
        assert ext["code"] == "invalid_input" and ext["field"] == "search", (typed, ext)


async def _system(api: Api) -> str:
    return str(api.http.headers["authorization"]).removeprefix("Bearer ")


async def test_a_customer_cannot_list_customers_and_another_tenants_staff_find_no_unit(api: Api, pool: Any) -> None:
    v, other = await arena(pool), await arena(pool)
    await book(api, v, 8, {"name": "Ana Private", "phone": "+5511955550201"})
    await book(api, v, 9, {"name": "Bia Private", "phone": "+5511955550202"})
    ana = await _sign_in(api.http, await _system(api), v.unit_id, "+5511955550201")
    as_ana = await refusal(api, ana, {"u": str(v.unit_id), "s": "Bia"})
    assert as_ana["code"] == "forbidden", as_ana
    stranger = (await PgAccess(pool).issue_token(other.tenant_id, None, "staff", "owner", [], "owner"))[1]
    foreign = await refusal(api, stranger, {"u": str(v.unit_id), "s": "Bia"})
    assert foreign == {"code": "not_found", "field": "unitId"}, foreign
    operator = (await PgAccess(pool).issue_token(v.tenant_id, v.unit_id, "staff", "operator", [], "desk"))[1]
    found = await api.gql(FIND, {"u": str(v.unit_id), "s": "private"}, {"authorization": f"Bearer {operator}"})
    assert [e["node"]["name"] for e in found["customers"]["edges"]] == ["Ana Private", "Bia Private"]
