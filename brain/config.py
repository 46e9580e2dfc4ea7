"""`brain.toml` at the workspace root: the operator's settings, read once, checked strictly.

    [maintain]
    enabled = true              # scheduled maintenance in `brain serve` (off by default)
    daily_local_hour = 2        # the local hour (0-23) at which it runs, once a day
    max_changes_per_run = 20    # the most changes one run applies

    layout = "latchai"          # latchai | space | mindlink | lab (default: detected)

    [mindlink]
    daily_note_retain_days = 30 # daily notes older than this are `expired-daily-note`

    [consolidate]
    url = "http://localhost:11434/v1"   # an OpenAI-compatible chat-completions endpoint
    model = "qwen2.5:7b"
    api_key_env = "OPENAI_API_KEY"      # the name of the variable holding the key, never the key

    [history]
    keep_versions = 50          # the content of a note's newest 50 writes is kept for diffs...
    keep_days = 90              # ...and of every write younger than 90 days (0: no age rule)

Why strict: a misspelt key that is silently ignored turns a feature off without a word, so an
unknown section or key is an error that names the file, the line and the keys there are.
Sections are declared in `SECTIONS` (one frozen dataclass each) and top-level keys in
`TOP_LEVEL`; a later feature adds its own (`layout = ...`, `[mindlink]`) by adding entries,
and the checks, defaults and messages come with it.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from brain import safefs

CONFIG_FILE = "brain.toml"
#: The workspace layouts (design.md section 8); brain.layouts holds what each one means.
LAYOUT_NAMES: tuple[str, ...] = ("latchai", "space", "mindlink", "lab")


class ConfigError(Exception):
    """brain.toml cannot be used as written: the message names file, line (if known) and fix."""


@dataclass(frozen=True, slots=True)
class MaintainConfig:
    enabled: bool = False
    daily_local_hour: int = 2
    max_changes_per_run: int = 20
    large_note_bytes: int = 12 * 1024

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 0 <= self.daily_local_hour <= 23:
            out.append(("daily_local_hour", "must be an hour from 0 to 23"))
        if not 1 <= self.max_changes_per_run <= 10_000:
            out.append(("max_changes_per_run", "must be from 1 to 10000"))
        if self.large_note_bytes < 1024:
            out.append(("large_note_bytes", "must be at least 1024"))
        return out


@dataclass(frozen=True, slots=True)
class ConsolidateConfig:
    url: str = ""
    model: str = ""
    api_key_env: str = ""
    max_turns: int = 30
    timeout_seconds: float = 120.0

    def check(self) -> list[tuple[str, str]]:
        out = []
        if self.url and not re.match(r"^https?://[^/\s]+", self.url):
            out.append(("url", "must be an http:// or https:// URL, e.g. http://localhost:11434/v1"))
        if self.api_key_env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.api_key_env):
            out.append(("api_key_env", "must be the NAME of an environment variable, not the key"))
        if not 1 <= self.max_turns <= 30:
            out.append(("max_turns", "must be from 1 to 30 (seeds/000 caps a run at 30 turns)"))
        if not 0 < self.timeout_seconds <= 3600:
            out.append(("timeout_seconds", "must be above 0 and at most 3600"))
        return out


@dataclass(frozen=True, slots=True)
class MindlinkConfig:
    daily_note_retain_days: int = 30

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 1 <= self.daily_note_retain_days <= 36_500:
            out.append(("daily_note_retain_days", "must be a number of days from 1 to 36500"))
        return out


@dataclass(frozen=True, slots=True)
class HistoryConfig:
    """How long the history keeps each write's content (brain/tool/retention.py)."""

    keep_versions: int = 50
    keep_days: int = 90

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 1 <= self.keep_versions <= 1_000_000:
            out.append(("keep_versions", "must be from 1 to 1000000"))
        if not 0 <= self.keep_days <= 100_000:
            out.append(("keep_days", "must be from 0 (no age rule) to 100000"))
        return out


#: section name -> the dataclass it fills. Add a section here (and a field to BrainConfig).
SECTIONS: dict[str, type[Any]] = {
    "maintain": MaintainConfig,
    "consolidate": ConsolidateConfig,
    "mindlink": MindlinkConfig,
    "history": HistoryConfig,
}
#: top-level key -> its Python type.
TOP_LEVEL: dict[str, type[Any]] = {"layout": str}
#: top-level key -> the values it may take (a closed set, checked with the file's line).
TOP_LEVEL_CHOICES: dict[str, tuple[str, ...]] = {"layout": LAYOUT_NAMES}


@dataclass(frozen=True, slots=True)
class BrainConfig:
    maintain: MaintainConfig = field(default_factory=MaintainConfig)
    consolidate: ConsolidateConfig = field(default_factory=ConsolidateConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    path: Path | None = None  # the file read, None when there is none
    layout: str | None = None  # None: detected from the folders (brain.layouts.detect)
    mindlink: MindlinkConfig = field(default_factory=MindlinkConfig)


def load_config(root: Path) -> BrainConfig:
    """The settings of the workspace at `root`: defaults when it has no brain.toml."""
    path = Path(root) / CONFIG_FILE
    try:
        raw = safefs.read_regular_file(path, follow=True)  # a FIFO here hung every start
    except FileNotFoundError:
        return BrainConfig()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return parse_config(raw, path)


def parse_config(raw: bytes, path: Path) -> BrainConfig:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: is not UTF-8 text; save it as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: is not valid TOML: {exc}") from None
    lines = text.splitlines()
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{_where(path, lines, key)}: `{key}` must be a section: [{key}]")
            values[key] = _section(SECTIONS[key], key, value, path, lines)
        elif key in TOP_LEVEL:
            values[key] = _value(key, value, TOP_LEVEL[key], path, lines, key)
            choices = TOP_LEVEL_CHOICES.get(key)
            if choices is not None and value not in choices:
                raise ConfigError(
                    f"{_where(path, lines, key, key)}: `{key}` must be one of "
                    + ", ".join(f'"{c}"' for c in choices)
                    + f", not {value!r}{_did_you_mean(str(value), list(choices))}"
                )
        else:
            known = [*TOP_LEVEL, *(f"[{s}]" for s in SECTIONS)]
            raise ConfigError(
                f"{_where(path, lines, key)}: unknown {'section' if isinstance(value, dict) else 'key'} "
                f"`{key}`{_did_you_mean(key, [*TOP_LEVEL, *SECTIONS])}; {path.name} knows "
                + ", ".join(known)
            )
    return BrainConfig(**values, path=path)


def _section(cls: type[Any], name: str, table: dict[str, Any], path: Path, lines: list[str]) -> Any:
    hints = get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    kwargs: dict[str, Any] = {}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(
                f"{_where(path, lines, key, name)}: unknown key `{key}` in [{name}]"
                f"{_did_you_mean(key, names)}; [{name}] knows " + ", ".join(names)
            )
        kwargs[key] = _value(key, value, hints[key], path, lines, name)
    section = cls(**kwargs)
    for key, problem in section.check():
        raise ConfigError(f"{_where(path, lines, key, name)}: [{name}] {key} {problem}")
    return section


def _value(key: str, value: Any, wanted: Any, path: Path, lines: list[str], section: str) -> Any:
    if wanted is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    ok = isinstance(value, wanted) and not (wanted is int and isinstance(value, bool))
    if not ok:
        kind = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}
        raise ConfigError(
            f"{_where(path, lines, key, section)}: `{key}` must be {kind.get(wanted, wanted.__name__)}, "
            f"not {value!r}"
        )
    return value


def _where(path: Path, lines: list[str], key: str, section: str | None = None) -> str:
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


def _did_you_mean(key: str, names: list[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""
