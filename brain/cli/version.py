"""`brain --version`: brain's version, then which of its optional parts this install has.

The first line stays `brain <version>`: editors run `--version` to check a server candidate and
read that line (lsp/vscode discovery, lsp/nvim). The lines after it answer a user's "why is
there no UI / no semantic search / why is the first ingest slow": the web UI's files, the native
scanners (brain-native, loaded and of this ABI) and the semantic model (brain-minilm and the
tokenizer). Cheap checks only (no numpy, no web server imports): editors wait for the answer.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from brain import __version__

if TYPE_CHECKING:
    from brain.config.operator import OperatorSettings

FIX = "pip install 'brain-memory[semantic]'"


def _dist_version(name: str) -> str:
    # Imported here: importlib.metadata brings zipfile, email and csv, a tenth of the CPU a
    # `brain ingest` of a few notes takes to start (issue 43), and only --version asks.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def web_ui() -> str:
    from brain.api.web_files import web_dist

    dist = web_dist()
    if (dist / "index.html").is_file():
        return f"present ({dist})"
    return f"absent: no {dist / 'index.html'} (the released wheel has it; in the repository: make web)"


def native_scanners() -> str:
    from brain.parse import native

    if native.native is not None:
        return f"present (brain-native {_dist_version('brain-native')})"
    if importlib.util.find_spec("brain_native") is None:
        return f"absent: the Python scanners run, a first ingest is slower ({FIX})"
    return "not loaded (BRAIN_NATIVE=0, or brain-native built from other sources: reinstall it)"


def semantic_model() -> str:
    spec = importlib.util.find_spec("brain_minilm")
    missing = [m for m in ("numpy", "tokenizers") if importlib.util.find_spec(m) is None]
    if spec is None or spec.origin is None:
        return f"absent: search is keyword-only ({FIX})"
    if missing:
        return f"absent: {', '.join(missing)} not installed, search is keyword-only ({FIX})"
    from pathlib import Path

    weights = Path(spec.origin).parent / "model" / "model.safetensors"
    if not weights.is_file():
        return f"absent: brain-minilm has no {weights} ({FIX})"
    return f"present (brain-minilm {_dist_version('brain-minilm')}, all-MiniLM-L6-v2)"


def startup_lines(operator: OperatorSettings) -> list[str]:
    """What `brain serve` loaded from where, one line each: the operator's file, the store,
    the parts of this install and the log."""
    from brain.search.embedding import semantic_off
    from brain.store.open import describe_store

    config = f"config: {operator.path}" if operator.path else (
        "config: no file (--config FILE or BRAIN_CONFIG): defaults, the environment and flags")
    return [
        config,
        f"store: {describe_store(operator.store)} ({operator.source('store', 'kind')})",
        f"ui: {web_ui()}",
        f"native: {native_scanners()}",
        f"semantic: {semantic_off() or semantic_model()}",
        f"log: {operator.log.format} at {operator.log.level} ({operator.source('log', 'format')})",
    ]


def report() -> str:
    """What `brain --version` prints."""
    return "\n".join(
        [
            f"brain {__version__}",
            f"web UI: {web_ui()}",
            f"native scanners: {native_scanners()}",
            f"semantic model: {semantic_model()}",
        ]
    )
