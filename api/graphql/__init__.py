"""api/graphql: see docs/architecture.md."""
