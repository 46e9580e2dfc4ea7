"""The GraphQL API (strawberry on starlette) and the memory tool's HTTP API."""
