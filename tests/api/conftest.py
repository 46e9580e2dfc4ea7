"""Fixtures of the API tests: small workspaces and real servers on loopback ports."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from brain.store.memory.store import MemoryStore
from tests.api.files import make_workspace
from tests.api.live import LiveServer, live_server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


ServerFactory = Callable[..., LiveServer]


@pytest.fixture
def serve() -> Iterator[ServerFactory]:
    """`serve(root, store=None, **options)`: a live server, stopped at the end of the test."""
    with ExitStack() as stack:

        def start(root: Path, store: Any = None, **options: Any) -> LiveServer:
            return stack.enter_context(live_server(root, store or MemoryStore(), **options))

        yield start
