"""Assembling the schema: root types from parts, limits as per-request extensions.

Other features plug in here: the memory tool adds its mutations to `MUTATION_PARTS` and
its queries to `QUERY_PARTS`. `brain schema` prints the SDL of the default schema, which
is checked in as schema/brain.graphql.
"""

from __future__ import annotations

from collections.abc import Sequence

import strawberry
from graphql import GraphQLError
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext
from strawberry.utils.logging import StrawberryLogger

from brain.api.changes import ChangesQuery
from brain.api.graph.clusters import ClustersQuery
from brain.api.graph.health import HealthQuery
from brain.api.graph.overview import OverviewQuery
from brain.api.graph.queries import GraphQuery
from brain.api.graphql.errors import log_error
from brain.api.graphql.limits import Limits
from brain.api.graphql.subscriptions import Subscription
from brain.api.maintenance import MaintenanceMutation, MaintenanceQuery, MaintenanceSubscription
from brain.api.memory_mutations import MemoryMutation, MemoryQuery
from brain.api.review import ReviewMutation, ReviewQuery
from brain.api.search import SearchQuery

# One part per concern; the web UI's are memory review and the graph overview.
QUERY_PARTS: tuple[type, ...] = (
    GraphQuery, MemoryQuery, MaintenanceQuery, SearchQuery, ReviewQuery, OverviewQuery, HealthQuery,
    ChangesQuery, ClustersQuery,
)
MUTATION_PARTS: tuple[type, ...] = (MemoryMutation, MaintenanceMutation, ReviewMutation)
SUBSCRIPTION_PARTS: tuple[type, ...] = (Subscription, MaintenanceSubscription)


class BrainSchema(strawberry.Schema):
    """strawberry's schema, logging a refused request as one line (brain.api.graphql.errors.log_error)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            log_error(StrawberryLogger.logger, error)


def build_schema(
    *,
    dev: bool = False,
    limits: Limits | None = None,
    query_parts: Sequence[type] = QUERY_PARTS,
    mutation_parts: Sequence[type] = MUTATION_PARTS,
) -> strawberry.Schema:
    """The schema. `dev` turns field suggestions on ("did you mean ...?")."""
    query = merge_types("Query", tuple(query_parts))
    mutation = merge_types("Mutation", tuple(mutation_parts)) if mutation_parts else None
    return BrainSchema(
        query=query,
        mutation=mutation,
        subscription=merge_types("Subscription", SUBSCRIPTION_PARTS),
        extensions=(limits or Limits()).extensions(dev=dev),
        config=StrawberryConfig(disable_field_suggestions=not dev),
    )


def schema_sdl() -> str:
    """The SDL without a final newline (`print` adds it)."""
    return build_schema().as_str()
