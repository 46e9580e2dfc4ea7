"""brain's problems (the records `brain check` prints) as LSP diagnostics. Pure.

A problem says where it is in 1-based lines and 1-based code point columns, with a length in
code points: the link, or the frontmatter key. A problem with a line but no column covers
that line's text; one without a line sits at the top of the file.

Problem texts quote code in markdown backticks (the hover and `brain check --format json` keep
them); editors show a diagnostic's message as plain text (VS Code's Problems panel, Neovim's
virtual text), so the message puts the code in quotes instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lsprotocol import types

from brain.lsp.features.positions import LineIndex
from brain.model import Problem, Severity

SOURCE = "brain"
_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def problem_range(problem: Problem, index: LineIndex) -> types.Range:
    if problem.line is None:
        return index.span(0, 0, 0)
    line = problem.line - 1
    if problem.column is None:
        return index.whole_line(line)
    start = problem.column - 1
    return index.span(line, start, start + (problem.length or 0))


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def plain_text(text: str) -> str:
    """`code` spans as plain text: a `[[link]]` is its own delimiter, anything else is quoted."""
    return _CODE_SPAN.sub(_unquote, text)


def _unquote(match: re.Match[str]) -> str:
    code = match.group(1)
    if code.startswith("[[") and code.endswith("]]"):
        return code
    return f"'{code}'" if '"' in code else f'"{code}"'


def to_diagnostic(problem: Problem, index: LineIndex) -> types.Diagnostic:
    message = plain_text(problem.message + (f"\nfix: {problem.fix}" if problem.fix else ""))
    return types.Diagnostic(
        range=problem_range(problem, index),
        message=message,
        severity=_SEVERITIES[problem.severity],
        code=problem.code,
        source=SOURCE,
        data=problem_data(problem),
    )


def to_diagnostics(problems: Iterable[Problem], index: LineIndex) -> list[types.Diagnostic]:
    return [to_diagnostic(p, index) for p in problems]


def problem_data(problem: Problem) -> dict[str, object]:
    """What a code action needs to know about the problem, carried on the diagnostic."""
    data: dict[str, object] = {"code": problem.code}
    if problem.target is not None:
        data["target"] = problem.target
    if problem.candidates:
        data["candidates"] = list(problem.candidates)
    return data
