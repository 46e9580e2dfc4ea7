"""The language server client of bench/bench_lsp.py: pygls' LanguageClient with the VS Code
capability profile, what it observed (diagnostics, progress), and the server's command."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

SERVER = [sys.executable, "-m", "brain", "lsp"]  # --server replaces it (e.g. another checkout)


@dataclass
class Observed:
    diagnostics: dict[tuple[str, int | None], float] = field(default_factory=dict)
    first_diagnostics: dict[str, float] = field(default_factory=dict)
    progress_end: float | None = None
    waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = field(default_factory=list)

    def poke(self) -> None:
        for check, future in list(self.waiters):
            if not future.done() and check():
                future.set_result(None)

    async def wait(self, check: Callable[[], bool], timeout: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append((check, future))
        self.poke()
        await asyncio.wait_for(future, timeout)


def make_client(seen: Observed) -> LanguageClient:
    client = LanguageClient("brain-bench", "1")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        now = time.perf_counter()
        seen.diagnostics[(params.uri, params.version)] = now
        seen.first_diagnostics.setdefault(params.uri, now)
        seen.poke()

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(params: types.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(types.PROGRESS)
    def progress(params: types.ProgressParams) -> None:
        value = params.value
        kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
        if kind == "end":
            seen.progress_end = time.perf_counter()
            seen.poke()

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        return None

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(params: types.LogMessageParams) -> None:
        return None

    return client


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


def server_env(cache_dir: Path) -> dict[str, str]:
    # PYTHONSAFEPATH: `python -m brain` must import the brain its interpreter has installed (or
    # PYTHONPATH names), not the checkout in the current folder: an `--against` command of
    # another checkout's venv ran this checkout's code.
    env = dict(os.environ, BRAIN_CACHE_DIR=str(cache_dir), PYTHONSAFEPATH="1")
    env.pop("BRAIN_SNAPSHOT_DIR", None)
    return env


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())
