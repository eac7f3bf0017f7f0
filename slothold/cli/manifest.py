"""`slothold manifest FILE.graphql... > manifest.json` (or `python -m slothold.cli.manifest ...`): the Apollo
persisted query manifest of the allow-list mode (SLOTHOLD_PERSISTED_QUERIES=allowlist, api/graphql/persisted.py).

Each named operation of the files becomes one entry, with the fragments it uses; each is validated against the
schema first (a typo fails here, not in production). The documents of the server's own claim pages (the links of
waitlist and walk-in offers, api/claim_pages.py) are listed too unless `--no-pages`. The manifest goes to standard
output, or to `--output`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphql import parse, validate

from api.claim_pages import CLAIM_GRAPHQL
from api.graphql.manifest import ManifestError, build_manifest
from slothold.cli.common import PROG, CliError
from slothold.settings import Settings


def manifest_of(paths: Sequence[str], check: bool = True, pages: bool = True) -> dict[str, Any]:
    """The manifest of the GraphQL files at `paths` (and of the claim pages' documents with `pages`); CliError
    naming a file that cannot be read or listed."""
    documents = [("api/claim_pages.py", CLAIM_GRAPHQL)] if pages else []
    for name in paths:
        try:
            documents.append((name, Path(name).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as e:
            raise CliError(f"cannot read {name}: {e}", 2) from e
    try:
        manifest = build_manifest(documents)
    except ManifestError as e:
        raise CliError(str(e), 2) from e
    if check:
        from slothold.schema import schema

        for op in manifest["operations"]:
            errors = validate(schema._schema, parse(op["body"]))
            if errors:
                raise CliError(f"operation {op['name']} is not valid against the schema: {errors[0].message}", 2)
    return manifest


def _write(args: argparse.Namespace) -> int:
    manifest = manifest_of(args.files, not args.no_check, not args.no_pages)
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="GraphQL documents (.graphql) with named operations")
    p.add_argument("-o", "--output", help="write the manifest to this file instead of standard output")
    p.add_argument("--no-check", action="store_true", help="do not validate the operations against the schema")
    p.add_argument("--no-pages", action="store_true",
                   help="leave out the documents of the server's claim pages (offer links)")


def cmd_manifest(args: argparse.Namespace, settings: Settings) -> int:
    """`slothold manifest`."""
    return _write(args)


def add_manifest_command(sub: Any) -> None:
    """The `manifest` subcommand."""
    p = sub.add_parser("manifest", help="write the persisted query manifest of GraphQL files (allow-list mode)",
                       description="Writes an Apollo persisted query manifest (JSON) of the named operations of "
                       "the files, for SLOTHOLD_PERSISTED_QUERIES=allowlist and "
                       "SLOTHOLD_PERSISTED_QUERY_MANIFEST.")
    _arguments(p)
    p.set_defaults(func=cmd_manifest)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m slothold.cli.manifest FILE...`."""
    parser = argparse.ArgumentParser(prog=f"{PROG} manifest", description=__doc__.split("\n\n")[0])
    _arguments(parser)
    args = parser.parse_args(argv)
    try:
        return _write(args)
    except CliError as e:
        print(f"{PROG} manifest: error: {e}", file=sys.stderr)
        return e.code


if __name__ == "__main__":
    sys.exit(main())
