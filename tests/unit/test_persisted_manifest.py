"""Persisted query manifests (api/graphql/manifest.py, `slothold manifest`) and the protocol's decisions that need
no server (api/graphql/persisted.py): Apollo's format, ids that are the bodies' sha256, what is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from api.claim_pages import CLAIM_DOCUMENTS
from api.graphql.manifest import ManifestError, build_manifest, load_manifest, parse_manifest
from api.graphql.persisted import PersistedQueries, PersistedQueryError, PersistedQueryMode, document_hash
from slothold.cli import main as slothold_main
from slothold.cli.manifest import main

OPS = """
query Unit($u: ID!) { unit(id: $u) { ...Named } }
fragment Named on Unit { name ...Id }
fragment Id on Unit { id }
fragment Unused on Unit { timezone }
mutation Pay { sandboxPay(txid: "x") { __typename } }
"""


def test_a_manifest_lists_each_operation_with_the_fragments_it_uses() -> None:
    manifest = build_manifest([("ops.graphql", OPS)])
    assert (manifest["format"], manifest["version"]) == ("apollo-persisted-query-manifest", 1)
    ops = {op["name"]: op for op in manifest["operations"]}
    assert set(ops) == {"Unit", "Pay"} and (ops["Unit"]["type"], ops["Pay"]["type"]) == ("query", "mutation")
    unit = ops["Unit"]["body"]
    assert "fragment Named" in unit and "fragment Id" in unit and "Unused" not in unit and "Pay" not in unit
    assert all(op["id"] == document_hash(op["body"]) for op in manifest["operations"])
    assert parse_manifest(manifest) == {op["id"]: op["body"] for op in manifest["operations"]}


@pytest.mark.parametrize(("documents", "problem"), [
    ([("a.graphql", "{ me { kind } }")], "needs a name"),
    ([("a.graphql", "query A { me { ...Missing } }")], "unknown fragment Missing"),
    ([("a.graphql", "query A { me {")], "a.graphql"),
    ([("a.graphql", "query A { me { kind } }"), ("b.graphql", "query A { me { __typename } }")],
     "a different operation named A"),
])
def test_what_cannot_be_listed_is_refused_by_name(documents: list[tuple[str, str]], problem: str) -> None:
    with pytest.raises(ManifestError, match=problem):
        build_manifest(documents)


def test_loading_checks_the_format_and_every_id(tmp_path: Path) -> None:
    good = build_manifest([("ops.graphql", OPS)])
    path = tmp_path / "m.json"
    path.write_text(json.dumps(good))
    assert len(load_manifest(path)) == 2
    bad: list[tuple[Any, str]] = [
        ({"format": "other", "version": 1, "operations": []}, "not an Apollo persisted query manifest"),
        ({**good, "operations": [{**good["operations"][0], "id": "0" * 64}]}, "not the sha256 of `body`"),
        ({**good, "operations": [{**good["operations"][0], "type": "fragment"}]}, "type must be one of"),
        ({**good, "operations": {}}, "must be a list"),
    ]
    for data, problem in bad:
        path.write_text(json.dumps(data))
        with pytest.raises(ManifestError, match=problem):
            load_manifest(path)
    path.write_text("{")
    with pytest.raises(ManifestError, match=r"m\.json"):
        load_manifest(path)


def test_the_command_writes_a_manifest_the_server_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "ops.graphql"
    source.write_text(OPS)
    assert main([str(source), "--no-pages"]) == 0
    assert json.loads(capsys.readouterr().out) == build_manifest([(str(source), OPS)])
    assert main([str(source)]) == 0
    printed = json.loads(capsys.readouterr().out)
    # the claim pages' documents are listed as the pages send them
    assert {op["body"] for op in printed["operations"]} >= set(CLAIM_DOCUMENTS.values())
    out = tmp_path / "manifest.json"
    assert slothold_main(["manifest", str(source), "--output", str(out)]) == 0
    assert load_manifest(out) == parse_manifest(printed)
    # an operation the schema does not have is refused here, not in production
    source.write_text("query Typo { mee { kind } }")
    assert main([str(source)]) == 2
    assert "Typo is not valid against the schema" in capsys.readouterr().err
    assert main([str(source), "--no-check"]) == 0
    assert main([str(tmp_path / "missing.graphql")]) == 2


async def test_the_allowlist_never_registers_and_off_never_looks_up() -> None:
    body = "query A { me { kind } }"
    listed = PersistedQueries(PersistedQueryMode.ALLOWLIST, manifest={document_hash(body): body})
    assert (await listed.resolve(None, {"persistedQuery": {"version": 1, "sha256Hash": document_hash(body)}})
            ).query == body
    found = await listed.resolve(body, {"persistedQuery": {"version": 1, "sha256Hash": document_hash(body).upper()}})
    assert found.register is None  # listed documents are never stored
    with pytest.raises(PersistedQueryError) as refused:
        await listed.resolve("query B { me { kind } }", None)
    assert (refused.value.status_code, refused.value.code) == (403, "QUERY_NOT_IN_SAFELIST")
    with pytest.raises(ValueError, match="manifest"):
        PersistedQueries(PersistedQueryMode.ALLOWLIST)
    off = PersistedQueries(PersistedQueryMode.OFF)
    assert (await off.resolve(body, None)).query == body
    with pytest.raises(PersistedQueryError) as refused:
        await off.resolve(None, {"persistedQuery": {"version": 1, "sha256Hash": document_hash(body)}})
    assert refused.value.code == "PERSISTED_QUERY_NOT_SUPPORTED"
