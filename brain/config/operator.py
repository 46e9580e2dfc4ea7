"""Operator settings: what the person running brain decides, never the workspace (design.md §12).

Anyone who can write the workspace (agents, people, a repository's contributors) can write its
`brain.toml`, so nothing that reaches the network, spends money, reads a secret or changes a
limit may come from there: the model endpoint and the name of its key's variable, the
maintenance schedule, the change cap, the history's budget, the server's address, tokens file
and body budget. Those come from, lowest first:

    the defaults below
    the operator's file: `--config FILE` or BRAIN_CONFIG (refused when it lies in the workspace)
    the environment: BRAIN_<SECTION>_<KEY>, e.g. BRAIN_CONSOLIDATE_URL, BRAIN_MAINTAIN_ENABLED
        (and the older names of [serve]: BRAIN_HOST, BRAIN_PORT, BRAIN_TOKENS_FILE, ...)
    flags (e.g. `brain maintain --max-changes N`, `brain serve --port N`)

The operator's file is TOML with the same sections the workspace may not set:

    [consolidate]
    url = "http://localhost:11434/v1"   # an OpenAI-compatible chat-completions endpoint
    model = "qwen2.5:7b"
    api_key_env = "OPENAI_API_KEY"      # the NAME of the variable holding the key, never the key
    [maintain]
    enabled = true                      # scheduled maintenance in `brain serve`
    daily_local_hour = 2
    [history]
    keep_versions = 50

Every value remembers where it came from (`OperatorSettings.source`), so a refusal names the
file and line, the variable or the flag, and `brain config show` can say it too.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from brain.config.messages import ConfigError, did_you_mean, where

CONFIG_ENV = "BRAIN_CONFIG"
CONFIG_FLAG = "--config"
#: Where an operator setting goes: said by every refusal of one.
WHERE_IT_BELONGS = f"the operator config ({CONFIG_FLAG} FILE or {CONFIG_ENV})"
#: Variables of brain's own secrets and wiring: a model endpoint is never sent one as its key.
OWN_VARIABLE = re.compile(r"^(BRAIN|NEO4J)_")


class SettingsError(ConfigError):
    """An operator setting cannot be used: one line naming the key, where it was set, the fix."""


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
        elif OWN_VARIABLE.match(self.api_key_env):
            # BRAIN_TOKEN is the admin's key to every scope; NEO4J_PASSWORD the store's: no
            # endpoint, however trusted, is sent brain's own secrets as a bearer token.
            out.append(("api_key_env", f"names brain's own variable {self.api_key_env}, which is never "
                        "sent to a model endpoint: name the variable that holds the model's key "
                        "(e.g. OPENAI_API_KEY), or set BRAIN_CONSOLIDATE_API_KEY"))
        if not 1 <= self.max_turns <= 30:
            out.append(("max_turns", "must be from 1 to 30 (seeds/000 caps a run at 30 turns)"))
        if not 0 < self.timeout_seconds <= 3600:
            out.append(("timeout_seconds", "must be above 0 and at most 3600"))
        return out


@dataclass(frozen=True, slots=True)
class HistoryConfig:
    """How long the history keeps each write's content (brain/tool/history/retention.py)."""

    keep_versions: int = 50
    keep_days: int = 90

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 1 <= self.keep_versions <= 1_000_000:
            out.append(("keep_versions", "must be from 1 to 1000000"))
        if not 0 <= self.keep_days <= 100_000:
            out.append(("keep_days", "must be from 0 (no age rule) to 100000"))
        return out


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """`brain serve`'s address and budgets. The admin token itself (BRAIN_TOKEN) is a secret:
    the environment only, never a file."""

    host: str = "127.0.0.1"
    port: int = 8765
    tokens_file: str = ""  # a JSON object {"<token>": "<agent>" | "*"}; outside the workspace
    max_body_bytes: int = 1024 * 1024
    rescan_seconds: float = 30.0
    metrics: bool = True  # GET /metrics (Prometheus), the admin token only: docs/metrics.md

    def check(self) -> list[tuple[str, str]]:
        out = []
        if not 0 <= self.port <= 65535:
            out.append(("port", "must be a port number from 0 (any free one) to 65535"))
        if self.max_body_bytes < 1024:
            out.append(("max_body_bytes", "must be a whole number of bytes, at least 1024, e.g. 1048576"))
        if not self.rescan_seconds > 0:
            out.append(("rescan_seconds", "must be a number of seconds above 0, e.g. 30"))
        return out


#: section -> the dataclass it fills. A new operator setting is a field here, nothing more:
#: its variable, its refusal in brain.toml and its line in `brain config show` follow.
SECTIONS: dict[str, type[Any]] = {
    "consolidate": ConsolidateConfig,
    "maintain": MaintainConfig,
    "history": HistoryConfig,
    "serve": ServeConfig,
}
#: The variables older than this module keep their names; the rest are BRAIN_<SECTION>_<KEY>.
ENV_NAMES = {
    ("serve", "host"): "BRAIN_HOST", ("serve", "port"): "BRAIN_PORT",
    ("serve", "tokens_file"): "BRAIN_TOKENS_FILE", ("serve", "max_body_bytes"): "BRAIN_MAX_BODY_BYTES",
    ("serve", "rescan_seconds"): "BRAIN_RESCAN_SECONDS", ("serve", "metrics"): "BRAIN_METRICS",
}
#: Secrets: only ever said to be set or not (`brain config show`), never shown.
SECRET_VARIABLES = ("BRAIN_TOKEN", "BRAIN_CONSOLIDATE_API_KEY", "NEO4J_PASSWORD")
#: The workspace's own keys: an operator file that sets one is pointed back at brain.toml.
WORKSPACE_KEYS = ("layout", "mindlink")


def env_name(section: str, key: str) -> str:
    """The variable that sets `[section] key`: BRAIN_CONSOLIDATE_URL, BRAIN_MAINTAIN_ENABLED..."""
    return ENV_NAMES.get((section, key)) or f"BRAIN_{section}_{key}".upper()


def keys() -> list[tuple[str, str]]:
    """Every operator setting as (section, key), in the order `brain config show` lists them."""
    return [(s, f.name) for s, cls in SECTIONS.items() for f in dataclasses.fields(cls)]


def belongs(section: str, key: str | None = None) -> str:
    """Where `[section] key` is set instead of the workspace: said by every refusal."""
    names = [f.name for f in dataclasses.fields(SECTIONS[section])]
    if key not in names:
        return f"set [{section}] in {WHERE_IT_BELONGS}, or {env_name(section, names[0])} and the like"
    return f"set it in {WHERE_IT_BELONGS}, or {env_name(section, key)}"


@dataclass(frozen=True, slots=True)
class OperatorSettings:
    consolidate: ConsolidateConfig = field(default_factory=ConsolidateConfig)
    maintain: MaintainConfig = field(default_factory=MaintainConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    serve: ServeConfig = field(default_factory=ServeConfig)
    path: Path | None = None  # the operator's file, None when there is none
    sources: Mapping[str, str] = field(default_factory=dict)  # "consolidate.url" -> where set

    def source(self, section: str, key: str) -> str:
        return self.sources.get(f"{section}.{key}", "default")


def load_settings(
    env: Mapping[str, str], *, config: Path | None = None, workspace: Path | None = None,
    flags: Mapping[str, tuple[Any, str]] | None = None,
) -> OperatorSettings:
    """The operator's settings: defaults, then `config` (else BRAIN_CONFIG), then `env`, then
    `flags` ({"maintain.max_changes_per_run": (5, "--max-changes 5")}); SettingsError if any is
    invalid, or if the file lies inside `workspace` (which agents can write)."""
    values: dict[str, dict[str, Any]] = {section: {} for section in SECTIONS}
    sources: dict[str, str] = {}
    path = config if config is not None else (Path(env[CONFIG_ENV]) if env.get(CONFIG_ENV) else None)
    if path is not None:
        named_by = f"{CONFIG_FLAG} {path}" if config is not None else f"{CONFIG_ENV}={path}"
        _refuse_inside(path, workspace, named_by)
        _read_file(path, named_by, values, sources)
    for section, cls in SECTIONS.items():
        hints = get_type_hints(cls)
        for f in dataclasses.fields(cls):
            name = env_name(section, f.name)
            text = env.get(name)
            if text:  # an empty variable is an unset one (`BRAIN_CONSOLIDATE_URL= brain ...`)
                values[section][f.name] = _from_text(text, hints[f.name], f"{name}={text!r}", section, f.name)
                sources[f"{section}.{f.name}"] = name
    for dotted, (value, shown) in (flags or {}).items():
        section, key = dotted.split(".", 1)
        values[section][key] = value
        sources[dotted] = shown
    built: dict[str, Any] = {}
    for section, cls in SECTIONS.items():
        built[section] = cls(**values[section])
        for key, problem in built[section].check():
            origin = sources.get(f"{section}.{key}", "default")
            raise SettingsError(f"{origin}: [{section}] {key} {problem}")
    tokens = built["serve"].tokens_file
    if tokens and workspace is not None and _inside(Path(tokens), Path(workspace)):
        # An agent that can write the workspace would give itself an admin token ("*").
        raise SettingsError(
            f"{sources.get('serve.tokens_file', 'default')}: [serve] tokens_file {tokens} lies inside "
            f"the workspace {Path(workspace).resolve()}, where anyone who can write the workspace could "
            "give themselves an admin token: keep it outside"
        )
    return OperatorSettings(**built, path=path, sources=sources)


def _inside(path: Path, workspace: Path) -> bool:
    """Whether `path` (symbolic links followed) is `workspace` or lies under it."""
    file, root = path.resolve(), workspace.resolve()
    return file == root or root in file.parents


def _refuse_inside(path: Path, workspace: Path | None, named_by: str) -> None:
    if workspace is not None and _inside(path, Path(workspace)):
        raise SettingsError(
            f"{named_by}: the operator config lies inside the workspace {Path(workspace).resolve()}, "
            "which anyone who can write the workspace can change: keep it outside (e.g. "
            "/etc/brain/brain.toml or ~/.config/brain/brain.toml)"
        )


def _read_file(
    path: Path, named_by: str, values: dict[str, dict[str, Any]], sources: dict[str, str]
) -> None:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SettingsError(f"{named_by}: cannot be read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: is not UTF-8 text; save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: is not valid TOML: {exc}") from None
    lines = text.splitlines()
    for section, table in data.items():
        if section in WORKSPACE_KEYS:
            raise SettingsError(
                f"{where(path, lines, section)}: `{section}` describes a workspace: set it in that "
                "workspace's brain.toml, not in the operator config"
            )
        if section not in SECTIONS or not isinstance(table, dict):
            known = ", ".join(f"[{s}]" for s in SECTIONS)
            raise SettingsError(
                f"{where(path, lines, section)}: unknown section `{section}`"
                f"{did_you_mean(section, list(SECTIONS))}; the operator config knows {known}"
            )
        hints = get_type_hints(SECTIONS[section])
        for key, value in table.items():
            at = where(path, lines, key, section)
            if key not in hints:
                raise SettingsError(
                    f"{at}: unknown key `{key}` in [{section}]{did_you_mean(key, list(hints))}; "
                    f"[{section}] knows " + ", ".join(hints)
                )
            values[section][key] = _typed(value, hints[key], at, key)
            sources[f"{section}.{key}"] = at


def _typed(value: Any, wanted: Any, at: str, key: str) -> Any:
    if wanted is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, wanted) and not (wanted is int and isinstance(value, bool)):
        return value
    raise SettingsError(f"{at}: `{key}` must be {_KIND.get(wanted, str(wanted))}, not {value!r}")


_KIND = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _from_text(text: str, wanted: Any, at: str, section: str, key: str) -> Any:
    """A variable's text as the setting's type; SettingsError naming the variable if it is not."""
    lowered = text.strip().lower()
    try:
        if wanted is bool:
            if lowered in _TRUE or lowered in _FALSE:
                return lowered in _TRUE
            raise ValueError
        if wanted is int:
            return int(lowered)
        if wanted is float:
            return float(lowered)
    except ValueError:
        raise SettingsError(
            f"{at}: [{section}] {key} must be {_KIND.get(wanted, str(wanted))}"
        ) from None
    return text


def describe(settings: OperatorSettings, env: Mapping[str, str]) -> list[dict[str, str]]:
    """Every effective setting with where it came from (`brain config show`), secrets masked:
    a URL loses its password, a secret variable is only said to be set or not."""
    rows = []
    for section, key in keys():
        value = getattr(getattr(settings, section), key)
        shown = _masked_url(value) if key == "url" else value
        source = settings.source(section, key)
        rows.append({"key": f"{section}.{key}", "value": _toml(shown), "source": source})
    named = settings.consolidate.api_key_env
    for name in (*SECRET_VARIABLES, *((named,) if named else ())):
        rows.append({"key": name, "value": "(set, not shown)" if env.get(name) else "(not set)",
                     "source": "environment"})
    return rows


def _masked_url(url: str) -> str:
    """No password (user:pw@) and no query (?key=...) of a URL is shown."""
    return re.sub(r"\?.*$", "?***", re.sub(r"^(\w+://)[^/@]*@", r"\1***@", url))


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)
