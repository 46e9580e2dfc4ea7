"""Opening a Brain from the command line's options: shared by `brain` and by the protocol
servers and subcommands that parse their own options (brain lsp, brain mcp, brain maintain),
so none of them imports the command line's modules.

A wrong workspace or store option is a `UsageError`: the command exits 2 with its one line.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the option adders run before anything else: `brain lsp` installs its code
    # cache first (brain/lsp/server.py), and `brain --version` answers without a Brain.
    from brain.config.operator import OperatorSettings
    from brain.layouts import LayoutChoice
    from brain.service.brain import Brain
    from brain.store.base import GraphStore


class UsageError(Exception):
    """A problem with the command line or the workspace: exit 2 with one clear line."""


def env_path(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


#: (setting, flag, argparse name): the flags that set an operator setting for one command;
#: no flag has a default, so an absent one leaves the setting to the file and the environment.
SETTING_FLAGS = (
    ("maintain.max_changes_per_run", "--max-changes", "max_changes"),
    ("serve.host", "--host", "host"), ("serve.port", "--port", "port"),
    ("serve.metrics", "--metrics", "metrics"),
    ("store.kind", "--store", "store"), ("store.neo4j_uri", "--neo4j-uri", "neo4j_uri"),
    ("store.neo4j_user", "--neo4j-user", "neo4j_user"),
    ("store.neo4j_database", "--neo4j-database", "neo4j_database"),
    ("log.format", "--log-format", "log_format"), ("log.level", "--log-level", "log_level"),
)


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """The store's flags; their defaults are the operator's settings ([store]: BRAIN_STORE,
    NEO4J_URI, ... or the --config file)."""
    group = parser.add_argument_group("graph store")
    group.add_argument(
        "--store", choices=("memory", "neo4j"),
        help="embedded in-process store (default) or a Neo4j server (default: BRAIN_STORE)",
    )
    group.add_argument("--neo4j-uri", help="default: NEO4J_URI")
    group.add_argument("--neo4j-user", help="default: NEO4J_USER")
    group.add_argument(
        "--neo4j-password",
        help="default: the variable [store] neo4j_password_env names (NEO4J_PASSWORD); a flag is "
        "seen by every user of the machine (ps): prefer the variable",
    )
    group.add_argument("--neo4j-database", help="default: NEO4J_DATABASE, or neo4j")
    group.add_argument(
        "--neo4j-replace", action="store_true",
        help="replace the graph of another workspace that the Neo4j database holds (else refused)",
    )
    add_cache_option(parser)
    add_config_option(parser)  # a command with a store reads the operator's settings


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """`--config FILE`: the operator's settings (brain/config/operator.py), outside the workspace;
    `--set` and the log flags beside it. Once per parser, however many option groups ask."""
    if "--config" in parser._option_string_actions:
        return
    parser.add_argument(
        "--config", type=Path, metavar="FILE",
        help="the operator's settings (TOML: address, store, model endpoint, schedule, budgets, "
        "log); default: $BRAIN_CONFIG. Refused inside the workspace, which agents can write",
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
        help="one operator setting for this command, over the file and the environment "
        "(e.g. --set budgets.note_bytes=2097152); `brain config show` lists them",
    )
    parser.add_argument("--log-format", choices=("text", "json"),
                        help="text lines (default) or one JSON object a line (default: BRAIN_LOG_FORMAT)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                        help="default: BRAIN_LOG_LEVEL, or info")


def add_cache_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-cache", action="store_true",
        help="neither read nor write the workspace's snapshot in the cache folder (read every file)",
    )


def workspace_root(path: Path | None) -> Path:
    return workspace_layout(path)[0]


def workspace_layout(path: Path | None) -> tuple[Path, LayoutChoice]:
    """The workspace folder and its layout (brain.toml's, else detected); exit 2 if neither."""
    from brain.config.messages import ConfigError
    from brain.config.workspace import CONFIG_FILE
    from brain.layouts import LayoutError, choose_layout, get_layout
    from brain.workspace import MEMORY_DIR

    if path is None:
        raise UsageError("no workspace given (pass a folder or set BRAIN_WORKSPACE)")
    if not path.is_dir():
        raise UsageError(f"{path} is not a folder that can be read")
    try:
        choice = choose_layout(path)
    except (LayoutError, ConfigError) as exc:
        raise UsageError(str(exc)) from None
    if choice.name == "latchai" and not (path / MEMORY_DIR).is_dir():
        raise UsageError(
            f"{path} has no {MEMORY_DIR}/ folder: a workspace keeps notes in {MEMORY_DIR}/<scope>/ "
            f"(for another layout, write {CONFIG_FILE} with layout = \"space\", \"mindlink\" or \"lab\")"
        )
    try:
        get_layout(choice.name)
    except LayoutError as exc:
        raise UsageError(str(exc)) from None
    return path.resolve(), choice


def open_brain(
    args: argparse.Namespace, settings: OperatorSettings | None = None, *, health_ahead: bool = True,
) -> Brain:
    """The workspace's Brain on the operator's store. `health_ahead=False`: a one-shot command
    that never asks memory health (brain/store/memory/store.py)."""
    from brain.service.brain import Brain

    root, layout = workspace_layout(args.workspace)
    if settings is None:  # before the store: a bad setting costs no connection
        settings = operator_settings(args, root)
    store = store_of(args, settings, health_ahead=health_ahead)
    return Brain(root, store, layout, cache=not getattr(args, "no_cache", False), settings=settings)


def operator_settings(args: argparse.Namespace, root: Path | None) -> OperatorSettings:
    """The operator's settings of this command line: its --config (else BRAIN_CONFIG), the
    environment, and the flags that set one (exit 2 naming the key and where it was set)."""
    from brain import budgets
    from brain.config.operator import SettingsError, export_settings, load_settings

    flags: dict[str, tuple[object, str]] = {}
    for dotted, flag, name in SETTING_FLAGS:
        value = getattr(args, name, None)
        if value is not None:
            shown = (flag if value else "--no-" + flag[2:]) if isinstance(value, bool) else f"{flag} {value}"
            flags[dotted] = (value, shown)
    try:
        settings = load_settings(
            os.environ, config=getattr(args, "config", None), workspace=root, flags=flags,
            sets=getattr(args, "set", None) or (),
        )
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    budgets.install(settings.budgets)  # the parser's note budget: this command's, not the loader's
    export_settings(settings, os.environ)  # read where used, and by the parse helpers it starts
    return settings


def store_of(
    args: argparse.Namespace, settings: OperatorSettings, *, read_only: bool | None = None,
    health_ahead: bool = True,
) -> GraphStore:
    """The store of the operator's `[store]`, with this command line's password and modes."""
    from brain.store.open import open_store

    return open_store(
        settings.store, password=getattr(args, "neo4j_password", None),
        read_only=bool(getattr(args, "read_only", False)) if read_only is None else read_only,
        replace=bool(getattr(args, "neo4j_replace", False)), health_ahead=health_ahead,
    )
