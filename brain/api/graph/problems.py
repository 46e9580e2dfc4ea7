"""Problems as the API shows them: the same records `brain check` prints."""

from __future__ import annotations

import strawberry

from brain import model
from brain.api.graphql.enums import Severity
from brain.api.graphql.fields import field


@strawberry.type(description="One finding about the workspace, with where it is and how to fix it.")
class Problem:
    code: str = strawberry.field(description="e.g. broken-link, ambiguous-link, memory-off")
    severity: Severity
    path: str = strawberry.field(description="Relative to the workspace root, with `/`.")
    message: str
    line: int | None = strawberry.field(description="1-based line, where known.")
    column: int | None = strawberry.field(description="1-based column in characters, where known.")
    length: int | None = strawberry.field(description="Characters the problem spans, where known.")
    target: str | None = strawberry.field(description="The link target as written, for link problems.")
    candidates: list[strawberry.ID] = strawberry.field(
        description="Ambiguous link: the nodes it could mean; broken link: same-name notes it cannot reach."
    )
    fix: str | None = strawberry.field(description="What would resolve it.")
    record: strawberry.Private[model.Problem]

    @field(description="Pass as `after` to get the problems that follow this one.")
    def cursor(self) -> str:
        from brain.api.graph.paging.cursors import problem_cursor

        return problem_cursor(self.record)

    @classmethod
    def of(cls, problem: model.Problem) -> Problem:
        return cls(
            code=problem.code,
            severity=Severity.of(problem.severity),
            path=problem.path,
            message=problem.message,
            line=problem.line,
            column=problem.column,
            length=problem.length,
            target=problem.target,
            candidates=[strawberry.ID(c) for c in problem.candidates],
            fix=problem.fix,
            record=problem,
        )
