"""What each CLI command does, given parsed arguments."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

from brain.cli.progress import progress_bar
from brain.config.messages import ConfigError
from brain.model import Problem, Severity
from brain.service.options import UsageError, open_brain, operator_settings, workspace_layout
from brain.store.base import StoreUnavailable

if TYPE_CHECKING:  # opening a Brain imports the stores: only the commands that do pay for it
    from brain.service.brain import Brain


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    handlers = {
        "ingest": cmd_ingest,
        "check": cmd_check,
        "serve": cmd_serve,
        "lsp": cmd_lsp,
        "schema": cmd_schema,
        "memory": cmd_memory,
        "diff": cmd_diff,
        "index": cmd_index,
        "maintain": cmd_maintain,
        "consolidate": cmd_consolidate,
        "mcp": cmd_mcp,
        "search": cmd_search,
        "related": cmd_related,
        "config": cmd_config,
        "stats": cmd_stats,
        "show": cmd_show,
        "space": cmd_layout_verb,
        "mindlink": cmd_layout_verb,
    }
    try:
        return handlers[args.command](args)
    except _usage_errors() as exc:
        print(f"brain {args.command}: {exc}", file=sys.stderr)
        return 2


def _usage_errors() -> tuple[type[Exception], ...]:
    """The errors that are a command line's fault. The memory tool's CLI is imported only by
    the commands that use it (and raise its error): `brain ingest` never loads it."""
    tool_cli = sys.modules.get("brain.tool.cli")
    return (UsageError, StoreUnavailable) + ((tool_cli.CliUsageError,) if tool_cli is not None else ())


def cmd_ingest(args: argparse.Namespace) -> int:
    brain = open_brain(args, health_ahead=False)  # it never asks memory health
    try:
        with progress_bar("ingesting") as progress:
            result = brain.sync(progress=progress)
        stats = brain.stats()
        rate = result.files / result.seconds if result.seconds else 0.0
        print(
            f"ingested {brain.root}: {stats.agents} agents, {stats.memories} memories, "
            f"{stats.links} links ({stats.broken} broken, {stats.ambiguous} ambiguous), "
            f"{stats.workflows} workflows, {stats.chats} chats, {stats.work_items} work items "
            f"in {result.seconds:.2f} s ({rate:,.0f} files/s)"
        )
        return 0
    finally:
        brain.close()


def cmd_check(args: argparse.Namespace) -> int:
    compared = None
    settings = operator_settings(args, args.workspace)
    if settings.store.kind == "neo4j":
        # Beside a server on the same database: check in process, compare read-only.
        from brain.cli.check_store import open_check

        compared = open_check(args, settings)
        brain = compared.brain
    else:
        brain = open_brain(args, settings, health_ahead=False)  # the report asks no health
    try:
        # The sweep reads the seeds its parse leaves (brain/ingest/mention_seeds.py), not
        # every note again.
        brain.ingester.seed_mentions = bool(args.mentions) and args.as_of is None
        with progress_bar("checking") as progress:
            brain.sync(progress=progress)
        if args.as_of is not None:
            from brain.cli.asof import check_as_of

            return check_as_of(brain, args, mention_info)
        from brain.cli.check import CheckReport  # its layouts: only `brain check` needs them

        report = CheckReport(
            brain.stats(), brain.problems(), strict=args.strict, layout=brain.layout_choice,
            info=mention_info(brain) if args.mentions else (),
        )
        print(report.to_json() if args.format == "json" else report.to_text())
        if compared is not None:
            print(f"brain check: {compared.summary()}", file=sys.stderr)
        return report.exit_code
    finally:
        brain.close()
        if compared is not None:
            compared.close()


def mention_info(brain: Brain) -> list[Problem]:
    """`brain check --mentions`: every unlinked mention, at Severity.INFO with the wikilink
    that links it as its fix (none for an ambiguous name)."""
    from brain.service.mention_sweep import sweep_mentions

    out: list[Problem] = []
    for memory, found in sweep_mentions(brain.store, brain.root, seeds=brain.ingester.mention_seeds):
        for m in found:
            what = ("names a note without linking it" if m.replacement else
                    "names a note without linking it; ambiguous: link one of "
                    + ", ".join(m.candidates) + " explicitly")
            out.append(Problem(
                "unlinked-mention", Severity.INFO, memory.path, f"`{m.text}` {what}",
                line=m.line, column=m.column, length=len(m.text), target=m.target,
                candidates=m.candidates, fix=m.replacement,
            ))
    return out


def cmd_serve(args: argparse.Namespace) -> int:
    from brain.cli.version import startup_lines
    from brain.gcpause import gc_paused

    # The operator's settings and the workspace's brain.toml first: a bad one is one line
    # before anything is logged, listens, reads or imports the server (about a second of a core).
    settings = operator_settings(args, args.workspace)
    workspace_layout(args.workspace)
    # The server's imports (GraphQL, the routes) allocate a few hundred thousand objects that
    # live as long as it does: no cyclic collection rescans them on the way (7% of them).
    with gc_paused():
        from brain.api.http.server import serve
    return serve(args, settings, lambda a: open_brain(a, settings), startup_lines(settings))


def cmd_stats(args: argparse.Namespace) -> int:
    from brain.cli.stats import cmd_stats as stats

    return stats(args)


def cmd_show(args: argparse.Namespace) -> int:
    """`brain show WS PATH [--as-of TIME]` (brain/cli/asof.py)."""
    from brain.cli.asof import run_show

    brain = open_brain(args)
    try:
        brain.sync()
        return run_show(brain, args)
    finally:
        brain.close()


def cmd_config(args: argparse.Namespace) -> int:
    """`brain config show`: each effective operator setting, where it came from, secrets masked;
    with a workspace, its brain.toml is checked too (an operator key there is exit 2)."""
    import json

    from brain.config.operator import describe
    from brain.config.workspace import load_config

    settings = operator_settings(args, args.workspace)
    if args.workspace is not None:
        try:
            load_config(args.workspace)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    rows = describe(settings, os.environ)
    if getattr(args, "neo4j_password", None):
        rows.append({"key": "--neo4j-password", "value": "(set, not shown)", "source": "flag"})
    if args.format == "json":
        print(json.dumps({"file": str(settings.path) if settings.path else None, "settings": rows}, indent=2))
        return 0
    print(f"# operator config: {settings.path or 'none (--config FILE or BRAIN_CONFIG)'}")
    width = max(len(f"{r['key']} = {r['value']}") for r in rows)
    for row in rows:
        print(f"{row['key']} = {row['value']}".ljust(width + 2) + f"# {row['source']}")
    return 0


def cmd_lsp(args: argparse.Namespace) -> int:
    from brain.lsp.server import run_server

    return run_server(args)


def cmd_schema(args: argparse.Namespace) -> int:
    from brain.api.graphql.schema import schema_sdl

    print(schema_sdl())
    return 0


def cmd_memory(args: argparse.Namespace) -> int:
    from brain.tool.cli import run_memory

    return run_memory(args)


def cmd_diff(args: argparse.Namespace) -> int:
    from brain.cli.diff import run_diff

    return run_diff(args)


def cmd_layout_verb(args: argparse.Namespace) -> int:
    from brain.tool.layouts.cli import LayoutUsageError, run_layout_verb

    try:
        return run_layout_verb(args)
    except LayoutUsageError as exc:
        raise UsageError(str(exc)) from None


def cmd_index(args: argparse.Namespace) -> int:
    from brain.tool.cli import run_index

    return run_index(args)


def cmd_maintain(args: argparse.Namespace) -> int:
    from brain.maintain.cli import MaintainUsageError, run_maintain

    try:
        return run_maintain(args)
    except MaintainUsageError as exc:
        raise UsageError(str(exc)) from None


def cmd_consolidate(args: argparse.Namespace) -> int:
    from brain.maintain.cli import MaintainUsageError, run_consolidate

    try:
        return run_consolidate(args)
    except MaintainUsageError as exc:
        raise UsageError(str(exc)) from None
def cmd_mcp(args: argparse.Namespace) -> int:
    from brain.mcp.cli import run

    return run(args)


def timed() -> float:
    return time.perf_counter()


def cmd_search(args: argparse.Namespace) -> int:
    from brain.search.cli import run as run_search

    return run_search(args)


def cmd_related(args: argparse.Namespace) -> int:
    from brain.cli.related import run as run_related

    return run_related(args)
