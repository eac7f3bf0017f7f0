"""Export the GraphQL schema as SDL to schema/schema.graphql (`python -m slothold.cli.sdl`)."""

from __future__ import annotations

from slothold.schema import schema
from slothold.settings import PROJECT_ROOT

SDL_PATH = PROJECT_ROOT / "schema" / "schema.graphql"


def sdl() -> str:
    """The schema's SDL, as committed."""
    return schema.as_str().rstrip() + "\n"


def main() -> None:
    """Write the SDL file."""
    SDL_PATH.write_text(sdl())
    print(f"wrote {SDL_PATH}")


if __name__ == "__main__":
    main()
