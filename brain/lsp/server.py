"""`brain lsp`: placeholder until the language server lands (issue 5)."""

from __future__ import annotations

import argparse


def run_server(args: argparse.Namespace) -> int:
    raise SystemExit("brain lsp: the language server is not built yet")
