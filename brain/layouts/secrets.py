"""The `secret` problem of every layout: a line that looks like a credential.

The detector is the memory tool's own (brain.tool.secret_scan), so what `brain check` flags is
exactly what a write through the tool would refuse. The message gives the line and the kind of
secret, never the value: problems end up in CI logs and editors.
"""

from __future__ import annotations

from brain.model import Problem, Severity

MAX_SECRETS_PER_FILE = 20  # a leaked key file need not flood the report


def secret_problems(rel: str, text: str) -> list[Problem]:
    """One `secret` error per line holding a credential-looking value."""
    # Imported here: brain.tool's package imports the memory service, which imports ingest.
    from brain.tool.secret_scan import find_secret

    out: list[Problem] = []
    lines = text.count("\n") + 1
    start = 1
    while start <= lines and len(out) < MAX_SECRETS_PER_FILE:
        hit = find_secret(text, range(start, lines + 1))
        if hit is None:
            break
        out.append(Problem(
            "secret", Severity.ERROR, rel,
            f"line {hit.line} holds what looks like {hit.kind}: secrets must not be kept in memory",
            line=hit.line, column=1,
            fix="remove the value and rotate it; keep a reference to where the secret is stored instead",
        ))
        start = hit.line + 1
    return out
