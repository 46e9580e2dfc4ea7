"""Typed spellings of strawberry's resolver decorators.

`strawberry.field(description=...)` is typed to return `Any`, which strict mypy rejects as
an untyped decorator; these keep the decorated resolver's own signature.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import strawberry
from strawberry.permission import BasePermission

F = TypeVar("F", bound=Callable[..., Any])


def field(
    *, description: str, permission_classes: list[type[BasePermission]] | None = None
) -> Callable[[F], F]:
    """A resolver field with a description (and permissions, checked before it runs)."""
    return cast(
        "Callable[[F], F]",
        strawberry.field(description=description, permission_classes=permission_classes),
    )


def subscription(
    *, description: str, permission_classes: list[type[BasePermission]] | None = None
) -> Callable[[F], F]:
    """A subscription with a description (and permissions, checked before it starts)."""
    return cast(
        "Callable[[F], F]",
        strawberry.subscription(description=description, permission_classes=permission_classes),
    )
