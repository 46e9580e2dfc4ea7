"""The GraphQL schema: placeholder until the GraphQL service lands (issue 3)."""

from __future__ import annotations


def schema_sdl() -> str:
    raise SystemExit("brain schema: the GraphQL schema is not built yet")
