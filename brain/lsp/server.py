"""`brain lsp`: the language server's entry point (stdio, or TCP for debugging).

`runtime.py` holds the server object (roots, sessions, documents), `handlers.py` the LSP
methods; everything they compute lives in the other modules of this package.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when the server is built: after the code cache is in place
    from brain.lsp.runtime import BrainLanguageServer
    from brain.lsp.startup.codecache import CodeCache


def install_code_cache(generators: bool = True) -> CodeCache | None:
    """The compiled code of dataclasses, attrs and cattrs (brain/lsp/startup/codecache.py), unless
    BRAIN_LSP_CODE_CACHE=0."""
    if os.environ.get("BRAIN_LSP_CODE_CACHE") == "0":
        return None
    from brain.lsp.startup import codecache

    return codecache.install(generators=generators)


def build_server(compiled: CodeCache | None = None) -> BrainLanguageServer:
    """The server with its handlers; `compiled`: the code cache installed before (without its
    attrs and cattrs hooks), else installed here."""
    import atexit

    # Before lsprotocol is imported: its classes' generated code comes compiled from the cache.
    if compiled is None:
        compiled = install_code_cache()
    else:
        from brain.lsp.startup.codecache import hook_generators

        hook_generators(compiled)
    # The note budget of an unsaved buffer is the operator's ([budgets]: BRAIN_CONFIG and the
    # environment; brain/budgets.py asks the loader this module registers).
    import brain.config.operator  # noqa: F401
    from brain.lsp.handlers import register
    from brain.lsp.runtime import BrainLanguageServer

    server = BrainLanguageServer()
    register(server)
    if compiled is not None:
        server.code_cache = compiled
        atexit.register(compiled.save)  # also when the client goes away without `shutdown`
    return server


def parse_tcp(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise SystemExit(f"brain lsp: --tcp wants HOST:PORT, e.g. 127.0.0.1:2087 (got {value!r})")
    return host, int(port)


def main(argv: list[str]) -> int:
    """`brain lsp [--tcp HOST:PORT] [--no-cache]`, parsed without the other commands' imports."""
    from brain.service.options import add_cache_option

    parser = argparse.ArgumentParser(prog="brain lsp", description="run the language server (stdio)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (debugging)")
    add_cache_option(parser)
    return run_server(parser.parse_args(argv))


def start_logging() -> bool:
    """Log as the operator's `[log]` says (BRAIN_CONFIG, BRAIN_LOG_FORMAT, BRAIN_LOG_LEVEL), on
    stderr: the editor's log (VS Code: the `brain` output channel); stdout is the protocol.
    An editor's server is quieter than `brain serve`: warnings unless a level is set, and
    BRAIN_LSP_LOG (or the older BRAIN_LOG) sets the language server's own. False (said in one
    line) if the operator's settings are invalid: the editor shows that line and the stop."""
    from brain import logs
    from brain.config.operator import SettingsError, export_settings, load_settings
    from brain.config.sections import LOG_LEVELS

    try:
        settings = load_settings(os.environ)
    except SettingsError as exc:
        print(f"brain lsp: {exc}", file=sys.stderr)
        return False
    export_settings(settings, os.environ)
    level = settings.log.level if settings.source("log", "level") != "default" else "warning"
    level = (os.environ.get("BRAIN_LSP_LOG") or os.environ.get("BRAIN_LOG") or level).lower()
    logs.setup(settings.log.format, level if level in LOG_LEVELS else "warning", prefix="brain lsp")
    return True


def run_server(args: argparse.Namespace) -> int:
    # Before brain's modules define their dataclasses (the settings' too): their generated
    # methods come compiled.
    compiled = install_code_cache(generators=False) if not getattr(args, "tcp", None) else None
    if not start_logging():
        return 2
    # The indexing worker is CPU-bound Python; hand the GIL back to the request loop after 1 ms
    # instead of the default 5, so a keystroke's completion never queues behind the re-parse
    # that the same keystroke started.
    sys.setswitchinterval(float(os.environ.get("BRAIN_LSP_SWITCH_INTERVAL", "0.001")))
    tcp = getattr(args, "tcp", None)
    if tcp:
        server = build_server()
        server.cache = not getattr(args, "no_cache", False)
        host, port = parse_tcp(tcp)
        server.start_tcp(host, port)
        return 0
    # Before the imports (no thread exists yet): the client's `initialize` names the folders,
    # and a child walks them on the other core meanwhile (brain/lsp/startup/prewalk.py).
    from brain.lsp.startup import prewalk

    stdin = sys.stdin.buffer
    head, first = prewalk.read_first(stdin)
    cache = not getattr(args, "no_cache", False)
    walking = (prewalk.start(prewalk.folders_of(first), snapshots=cache)
               if os.environ.get("BRAIN_LSP_PREWALK") != "0" else None)
    server = build_server(compiled)
    server.cache = cache
    server.prewalk = walking
    server.start_io(prewalk.Replay(head, stdin))
    return 0

