"""`brain maintain` and `brain consolidate`: argument parsing and printing only."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from brain.model import SHARED_SCOPE


class MaintainUsageError(Exception):
    """Bad arguments or settings: `brain <command>: <message>`, exit status 2."""


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from brain.service.options import add_config_option, add_store_options

    maintain = sub.add_parser(
        "maintain", help="find duplicates, weak descriptions, fixable links...; --apply fixes the safe ones",
    )
    maintain.add_argument("workspace", type=Path)
    maintain.add_argument("--scope", help="only this scope (`shared` or an agent's name)")
    maintain.add_argument(
        "--apply", action="store_true",
        help="carry out the safe findings (duplicates, expired daily notes, one-candidate link fixes)",
    )
    maintain.add_argument(
        "--max-changes", type=int, metavar="N",
        help="apply at most N changes (default: the operator's [maintain] max_changes_per_run, or 20)",
    )
    maintain.add_argument("--format", choices=("text", "json"), default="text")
    maintain.add_argument(
        "--mentions", action="store_true",
        help="also propose links for unlinked mentions (prose naming a note; reads every note)",
    )
    add_store_options(maintain)
    add_config_option(maintain)

    consolidate = sub.add_parser(
        "consolidate", help="ask a model to tidy one scope with the memory tool, and report",
    )
    consolidate.add_argument("workspace", type=Path)
    consolidate.add_argument("--scope", required=True, help="`shared` or an agent's name")
    consolidate.add_argument("--format", choices=("text", "json"), default="text")
    consolidate.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_store_options(consolidate)
    add_config_option(consolidate)


def check_scope(scopes: list[str], scope: str | None) -> None:
    if scope is not None and scope not in scopes:
        raise MaintainUsageError(
            f"there is no memory scope `{scope}`; the scopes are: " + ", ".join(scopes or [SHARED_SCOPE])
        )


def run_maintain(args: argparse.Namespace) -> int:
    from brain.cli.progress import progress_bar
    from brain.maintain.finders.snapshot import scope_names
    from brain.maintain.run import maintain, record_run
    from brain.service.options import open_brain
    from brain.tool import memory_service

    if args.max_changes is not None and args.max_changes < 1:
        raise MaintainUsageError("--max-changes must be 1 or more")
    brain = open_brain(args)
    try:
        # `--mentions` sweeps from the seeds the sync's parse leaves (brain/ingest/mention_seeds.py).
        brain.ingester.seed_mentions = bool(args.mentions)
        with progress_bar("reading") as progress:
            brain.sync(progress=progress)
        check_scope(scope_names(brain), args.scope)
        report = maintain(brain, args.scope, apply=args.apply, config=brain.settings.maintain,
                          mentions=args.mentions)
        if args.apply:  # the audit log: the run itself, with its report, beside its writes
            record_run(memory_service(brain), report)
        if args.format == "json":
            print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        else:
            print(report.to_text())
        return 1 if any(not a.ok for a in report.applied) else 0
    finally:
        brain.close()


def run_consolidate(args: argparse.Namespace) -> int:
    from brain.cli.progress import progress_bar
    from brain.maintain.consolidation.run import Consolidation, NotConfigured
    from brain.maintain.finders.snapshot import scope_names
    from brain.service.options import open_brain

    brain = open_brain(args)
    try:
        with progress_bar("reading") as progress:
            brain.sync(progress=progress)
        check_scope(scope_names(brain), args.scope)
        try:
            run = Consolidation.for_brain(brain, args.scope)
        except NotConfigured as exc:
            raise MaintainUsageError(str(exc)) from None

        def show(event: dict[str, object]) -> None:
            if not args.quiet:
                print(f"consolidate: {event['text']}", file=sys.stderr, flush=True)

        report = run.run(progress=show)
        if args.format == "json":
            print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        else:
            print(report.to_text())
        return 0 if report.status == "done" else 1
    finally:
        brain.close()
