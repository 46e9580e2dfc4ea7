"""`brain serve`: placeholder until the GraphQL service lands (issue 3)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def serve(args: argparse.Namespace, open_brain: Callable[[argparse.Namespace], Any]) -> int:
    raise SystemExit("brain serve: the GraphQL service is not built yet")
