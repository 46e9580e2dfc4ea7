"""How a configuration file's problems are said: the file and line that set a key, and the
name that was probably meant. Shared by the workspace's brain.toml (brain/config/workspace.py)
and the operator's settings (brain/config/operator.py)."""

from __future__ import annotations

import difflib
import re
from pathlib import Path


class ConfigError(Exception):
    """brain.toml cannot be used as written: the message names file, line (if known) and fix."""


def where(path: Path, lines: list[str], key: str, section: str | None = None) -> str:
    """`brain.toml line N` for the line that sets `key` (inside [section]), when it can be found."""
    current: str | None = None
    pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
    for number, line in enumerate(lines, 1):
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1)
            if section is None and current == key:
                return f"{path} line {number}"
            continue
        if pattern.match(line) and (current == section or (section == key and current is None)):
            return f"{path} line {number}"
    return str(path)


def did_you_mean(key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""
