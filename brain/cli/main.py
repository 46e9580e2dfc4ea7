"""Command line: argument parsing only; every command calls into the service layer."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from brain.cli import version

# Commands whose parsers are built here: `brain ingest` and the others need none of the memory
# tool's, maintenance's, MCP's or search's modules, which the rest of the parsers import
# (`brain config show` read the operator's settings after 0.6 s of a core importing them).
CORE_COMMANDS = frozenset({"ingest", "check", "serve", "lsp", "schema", "config"})


class _VersionAction(argparse.Action):
    """`--version` among other arguments: the same report as the fast path in `main`."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        print(version.report())
        parser.exit()


def build_parser(full: bool = True) -> argparse.ArgumentParser:
    """Every command's parser; `full=False`: only CORE_COMMANDS' (a faster start for those)."""
    # Imported here, not at the top: it opens a Brain, i.e. the ingester, the stores and numpy
    # (seconds on a busy machine), which `brain --version` (editors wait for it) does not need.
    from brain.service.options import add_cache_option, add_config_option, add_store_options, env_path

    parser = argparse.ArgumentParser(
        prog="brain", description="A knowledge graph of AI agents' markdown memory."
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="brain's version and which of its parts are present"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = sub.add_parser("ingest", help="build the graph of a workspace and print a summary")
    ingest.add_argument("workspace", type=Path)
    add_store_options(ingest)

    check = sub.add_parser("check", help="report broken links and malformed notes (CI friendly)")
    check.add_argument("workspace", type=Path)
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--strict", action="store_true", help="count warnings as errors")
    check.add_argument(
        "--mentions", action="store_true",
        help="also list unlinked mentions (info: prose naming a note it could link; never fails the check)",
    )
    check.add_argument(
        "--as-of", dest="as_of", metavar="TIME",
        help="check the graph as it was then, from the history: ISO 8601 or an age (7d, 24h, 30m)",
    )
    add_store_options(check)

    serve = sub.add_parser("serve", help="serve the GraphQL API and keep the graph live")
    serve.add_argument("workspace", type=Path, nargs="?", default=env_path("BRAIN_WORKSPACE"))
    # No defaults here: the operator's settings decide (brain/config/operator.py: --config, BRAIN_HOST...).
    serve.add_argument("--host", help="the address to listen on (default: BRAIN_HOST, or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="the port (default: BRAIN_PORT, or 8765; 0: any free one)")
    serve.add_argument("--dev", action="store_true", help="development mode: GraphiQL, field suggestions")
    serve.add_argument(
        "--read-only", action="store_true",
        help="a replica: answer from the Neo4j database another `brain serve` writes; refuse writes",
    )
    serve.add_argument(
        "--metrics", action=argparse.BooleanOptionalAction, default=None,
        help="GET /metrics in Prometheus' format, admin token only (default: BRAIN_METRICS, or on)",
    )
    add_store_options(serve)
    add_config_option(serve)

    lsp = sub.add_parser("lsp", help="run the language server (stdio)")
    lsp.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (debugging)")
    add_cache_option(lsp)

    sub.add_parser("schema", help="print the GraphQL schema (SDL)")
    config = sub.add_parser("config", help="the operator's settings: `brain config show`")
    config.add_argument("action", choices=("show",))
    config.add_argument(
        "workspace", type=Path, nargs="?", default=env_path("BRAIN_WORKSPACE"),
        help="the workspace to be served: its brain.toml is checked, and a config file inside it refused",
    )
    config.add_argument("--format", choices=("text", "json"), default="text")
    # The flags `brain serve` takes: `brain config show --port 9000` shows what that serve would use.
    config.add_argument("--host")
    config.add_argument("--port", type=int)
    add_store_options(config)
    add_config_option(config)
    if not full:
        return parser

    from brain.tool.cli import add_parsers as add_memory_parsers

    add_memory_parsers(sub)
    from brain.cli.diff import add_parser as add_diff_parser

    add_diff_parser(sub)
    from brain.tool.layouts.cli import add_parsers as add_layout_parsers

    add_layout_parsers(sub)

    from brain.maintain.cli import add_parsers as add_maintain_parsers

    add_maintain_parsers(sub)
    from brain.mcp.cli import add_parser as add_mcp_parser

    add_mcp_parser(sub)
    from brain.search.cli import add_parser as add_search_parser

    add_store_options(add_search_parser(sub))
    from brain.cli.asof import add_show_parser

    add_store_options(add_show_parser(sub))
    from brain.cli.stats import add_parser as add_stats_parser

    add_stats_parser(sub)
    from brain.cli.related import add_parser as add_related_parser

    add_store_options(add_related_parser(sub))

    return parser


def program() -> NoReturn:
    """The `brain` command: `main`, then out. A finished `brain ingest` or `brain check`, its
    output written, leaves without the interpreter's teardown (every object of the graph
    freed one by one: 14 ms of a 10,000-note ingest); the other commands exit as usual (the
    language server saves its compiled rules at exit)."""
    code = main()
    if _command(sys.argv[1:]) in ("ingest", "check"):
        with contextlib.suppress(OSError):  # `brain check | head`: nothing more to write
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
    if _command(sys.argv[1:]) in ("serve", "mcp"):
        # A stopped server, closed: the collections of the interpreter's teardown would scan
        # every object its imports made (the MCP SDK's models, GraphQL's types) for nothing,
        # most of a second of its stop on a busy machine. Frozen, they are left alone.
        gc.freeze()
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:
        # Editors ask this before starting `brain lsp`: answer without importing every command.
        print(version.report())
        return 0
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["lsp"]:
        # An editor waits for the language server: skip importing every other command.
        from brain.lsp.server import main as lsp_main

        return lsp_main(words[1:])
    parser = build_parser(full=_command(words) not in CORE_COMMANDS)
    args = parser.parse_args(argv)
    from brain.cli import commands
    try:
        return commands.run(args, parser)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `brain check | head` is fine
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())


def _command(words: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is not an option."""
    return next((word for word in words if not word.startswith("-")), None)
