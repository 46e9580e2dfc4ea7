"""Typed spellings of strawberry's resolver decorators.

`strawberry.field(description=...)` is typed to return `Any`, which strict mypy rejects as
an untyped decorator; these keep the decorated resolver's own signature.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import strawberry

F = TypeVar("F", bound=Callable[..., Any])


def field(*, description: str) -> Callable[[F], F]:
    """A resolver field with a description."""
    return cast("Callable[[F], F]", strawberry.field(description=description))


def subscription(*, description: str) -> Callable[[F], F]:
    """A subscription with a description."""
    return cast("Callable[[F], F]", strawberry.subscription(description=description))
