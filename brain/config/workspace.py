"""`brain.toml` at the workspace root: what the workspace says about itself, read once, strictly.

    layout = "latchai"          # latchai | space | mindlink | lab (default: detected)

    [mindlink]
    daily_note_retain_days = 30 # daily notes older than this are `expired-daily-note`

The workspace is data: agents, people and repositories write it, so its brain.toml may only
describe the workspace (its layout and that layout's rules). What reaches the network, spends
money, reads a secret or changes a limit ([consolidate], [maintain], [history]) is the
operator's (brain/config/operator.py, design.md §12): such a section here is refused with a message
naming the file, the line, the key and where it belongs, never silently obeyed or ignored.

Why strict: a misspelt key that is silently ignored turns a feature off without a word, so an
unknown section or key is an error that names the file, the line and the keys there are.
Sections are declared in `SECTIONS` (one frozen dataclass each) and top-level keys in
`TOP_LEVEL`; a later feature adds its own (`layout = ...`, `[mindlink]`) by adding entries,
and the checks, defaults and messages come with it.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from brain import safefs
from brain.config.messages import ConfigError, did_you_mean, where
from brain.config.operator import SECTIONS as OPERATOR_SECTIONS
from brain.config.operator import belongs

CONFIG_FILE = "brain.toml"
#: The workspace layouts (design.md section 8); brain.layouts holds what each one means.
LAYOUT_NAMES: tuple[str, ...] = ("latchai", "space", "mindlink", "lab")


@dataclass(frozen=True, slots=True)
class MindlinkConfig:
    daily_note_retain_days: int = 30

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 1 <= self.daily_note_retain_days <= 36_500:
            out.append(("daily_note_retain_days", "must be a number of days from 1 to 36500"))
        return out


#: section name -> the dataclass it fills. Add a section here (and a field to BrainConfig).
SECTIONS: dict[str, type[Any]] = {
    "mindlink": MindlinkConfig,
}
#: top-level key -> its Python type.
TOP_LEVEL: dict[str, type[Any]] = {"layout": str}
#: top-level key -> the values it may take (a closed set, checked with the file's line).
TOP_LEVEL_CHOICES: dict[str, tuple[str, ...]] = {"layout": LAYOUT_NAMES}


@dataclass(frozen=True, slots=True)
class BrainConfig:
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
        if key in OPERATOR_SECTIONS:
            first = next(iter(value), None) if isinstance(value, dict) else None
            named = f"[{key}] {first}" if first is not None else f"[{key}]"
            at = where(path, lines, first, key) if first is not None else str(path)
            if at == str(path):  # `[consolidate]` alone, or an inline table: the section's line
                at = where(path, lines, key)
            raise ConfigError(
                f"{at}: {named} is an operator setting, which the workspace may not set (anyone "
                f"who can write the workspace can write {path.name}): remove it from {path.name} "
                f"and {belongs(key, first)}"
            )
        if key in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{where(path, lines, key)}: `{key}` must be a section: [{key}]")
            values[key] = _section(SECTIONS[key], key, value, path, lines)
        elif key in TOP_LEVEL:
            values[key] = _value(key, value, TOP_LEVEL[key], path, lines, key)
            choices = TOP_LEVEL_CHOICES.get(key)
            if choices is not None and value not in choices:
                raise ConfigError(
                    f"{where(path, lines, key, key)}: `{key}` must be one of "
                    + ", ".join(f'"{c}"' for c in choices)
                    + f", not {value!r}{did_you_mean(str(value), list(choices))}"
                )
        else:
            known = [*TOP_LEVEL, *(f"[{s}]" for s in SECTIONS)]
            raise ConfigError(
                f"{where(path, lines, key)}: unknown {'section' if isinstance(value, dict) else 'key'} "
                f"`{key}`{did_you_mean(key, [*TOP_LEVEL, *SECTIONS])}; {path.name} knows "
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
                f"{where(path, lines, key, name)}: unknown key `{key}` in [{name}]"
                f"{did_you_mean(key, names)}; [{name}] knows " + ", ".join(names)
            )
        kwargs[key] = _value(key, value, hints[key], path, lines, name)
    section = cls(**kwargs)
    for key, problem in section.check():
        raise ConfigError(f"{where(path, lines, key, name)}: [{name}] {key} {problem}")
    return section


def _value(key: str, value: Any, wanted: Any, path: Path, lines: list[str], section: str) -> Any:
    if wanted is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    ok = isinstance(value, wanted) and not (wanted is int and isinstance(value, bool))
    if not ok:
        kind = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}
        raise ConfigError(
            f"{where(path, lines, key, section)}: `{key}` must be {kind.get(wanted, wanted.__name__)}, "
            f"not {value!r}"
        )
    return value


