"""Operator settings: what the person running brain decides, never the workspace (design.md §12).

Anyone who can write the workspace (agents, people, a repository's contributors) can write its
`brain.toml`, so nothing that reaches the network, spends money, reads a secret or changes a
limit may come from there: the model endpoint and the name of its key's variable, the
maintenance schedule, the change cap, the history's budget, the server's address, allowed
hosts, tokens file and body budget, the store and its Neo4j server, the budgets of notes and
history (brain/budgets.py), the log's format. The table of them is brain/config/sections.py.
They come from, lowest first:

    the defaults (brain/config/sections.py)
    the operator's file: `--config FILE` or BRAIN_CONFIG (refused when it lies in the workspace)
    the environment: BRAIN_<SECTION>_<KEY>, e.g. BRAIN_CONSOLIDATE_URL, BRAIN_LOG_FORMAT
        (and the names older than this module: BRAIN_HOST, BRAIN_PORT, BRAIN_TOKENS_FILE,
        NEO4J_URI, BRAIN_MAX_NOTE_BYTES, ...: `env_name`)
    flags (e.g. `brain serve --port N`, `--neo4j-uri URI`, `--set budgets.note_bytes=N`)

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
import logging
import os
import re
import tomllib
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from brain import budgets
from brain.budgets import Budgets
from brain.config.messages import ConfigError, did_you_mean, where
from brain.config.sections import (
    ENV_NAMES,
    OWN_VARIABLE,
    PROCESS_KEYS,
    SECTIONS,
    CacheConfig,
    ConsolidateConfig,
    HistoryConfig,
    IngestConfig,
    LogConfig,
    MaintainConfig,
    SearchConfig,
    ServeConfig,
    StoreConfig,
)

__all__ = [
    "ENV_NAMES", "OWN_VARIABLE", "SECTIONS", "CacheConfig", "ConsolidateConfig", "HistoryConfig",
    "IngestConfig", "LogConfig", "MaintainConfig", "OperatorSettings", "SearchConfig", "ServeConfig",
    "SettingsError", "StoreConfig", "export_settings", "load_settings",
]

log = logging.getLogger(__name__)

CONFIG_ENV = "BRAIN_CONFIG"
CONFIG_FLAG = "--config"
#: Where an operator setting goes: said by every refusal of one.
WHERE_IT_BELONGS = f"the operator config ({CONFIG_FLAG} FILE or {CONFIG_ENV})"


class SettingsError(ConfigError):
    """An operator setting cannot be used: one line naming the key, where it was set, the fix."""


#: Secrets: only ever said to be set or not (`brain config show`), never shown; so are the
#: variables that [consolidate] api_key_env and [store] neo4j_password_env name.
SECRET_VARIABLES = ("BRAIN_TOKEN", "BRAIN_CONSOLIDATE_API_KEY")
#: Settings whose value may carry a password (user:pw@host) or a key (?key=...).
URL_KEYS = ("url", "neo4j_uri")
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
    store: StoreConfig = field(default_factory=StoreConfig)
    budgets: Budgets = field(default_factory=Budgets)
    ingest: IngestConfig = field(default_factory=IngestConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    cache: CacheConfig = field(default_factory=CacheConfig)
    log: LogConfig = field(default_factory=LogConfig)
    path: Path | None = None  # the operator's file, None when there is none
    sources: Mapping[str, str] = field(default_factory=dict)  # "consolidate.url" -> where set

    def source(self, section: str, key: str) -> str:
        return self.sources.get(f"{section}.{key}", "default")


def load_settings(
    env: Mapping[str, str], *, config: Path | None = None, workspace: Path | None = None,
    flags: Mapping[str, tuple[Any, str]] | None = None, sets: Sequence[str] = (),
) -> OperatorSettings:
    """The operator's settings: defaults, then `config` (else BRAIN_CONFIG), then `env`, then
    `flags` ({"maintain.max_changes_per_run": (5, "--max-changes 5")}) and `sets` (the text of
    `--set section.key=value`); SettingsError if any is invalid, or if the file lies inside
    `workspace` (which agents can write)."""
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
    for text in sets:
        section, key, value = _set_flag(text)
        values[section][key] = value
        sources[f"{section}.{key}"] = f"--set {text}"
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


def export_settings(settings: OperatorSettings, environ: MutableMapping[str, str]) -> None:
    """Set the variables of the settings read where they are used (`PROCESS_KEYS`: the cache
    folder, the parse helpers, the UI's files, semantic search, the history file) from the
    effective settings, so a value from the file or a flag reaches those readers and the
    helpers this process starts. Defaults are left unset."""
    for section, key in PROCESS_KEYS:
        if settings.source(section, key) != "default":
            environ[env_name(section, key)] = _plain(getattr(getattr(settings, section), key))


def _plain(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


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
            values[section][key] = _typed(value, hints[key], at, key, section)
            sources[f"{section}.{key}"] = at


def _set_flag(text: str) -> tuple[str, str, Any]:
    """`--set section.key=value`: any setting for one command, typed like its variable."""
    dotted, equals, value = text.partition("=")
    section, dot, key = dotted.strip().partition(".")
    at = f"--set {text}"
    if not equals or not dot:
        raise SettingsError(f"{at}: write --set SECTION.KEY=VALUE, e.g. --set budgets.note_bytes=2097152")
    if section not in SECTIONS:
        raise SettingsError(f"{at}: unknown section `{section}`{did_you_mean(section, list(SECTIONS))}; "
                            "the operator config knows " + ", ".join(SECTIONS))
    hints = get_type_hints(SECTIONS[section])
    if key not in hints:
        raise SettingsError(f"{at}: unknown key `{key}` in [{section}]{did_you_mean(key, list(hints))}; "
                            f"[{section}] knows " + ", ".join(hints))
    return section, key, _from_text(value, hints[key], at, section, key)


def _typed(value: Any, wanted: Any, at: str, key: str, section: str) -> Any:
    if wanted == LIST:
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(value)
        raise SettingsError(
            f'{at}: [{section}] {key} must be a list of strings; write e.g. {key} = ["brain.example.org"]'
        )
    if wanted is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, wanted) and not (wanted is int and isinstance(value, bool)):
        return value
    raise SettingsError(
        f"{at}: [{section}] {key} must be {_KIND.get(wanted, str(wanted))}, not {value!r}; "
        f"{_example(section, key)}"
    )


def _example(section: str, key: str) -> str:
    """`write e.g. port = 8765`: the fix of a value of the wrong type, from the default."""
    default = next(f.default for f in dataclasses.fields(SECTIONS[section]) if f.name == key)
    shown = _toml(default) if default not in ("", ()) else {tuple[str, ...]: '["x"]'}.get(
        get_type_hints(SECTIONS[section])[key], '"..."')
    return f"write e.g. {key} = {shown}"


LIST = tuple[str, ...]
_KIND = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _from_text(text: str, wanted: Any, at: str, section: str, key: str) -> Any:
    """A variable's text as the setting's type; SettingsError naming the variable if it is not."""
    lowered = text.strip().lower()
    if wanted == LIST:  # BRAIN_ALLOWED_HOSTS=a.example,b.example
        return tuple(item.strip() for item in text.split(",") if item.strip())
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
            f"{at}: [{section}] {key} must be {_KIND.get(wanted, str(wanted))}; {_example(section, key)}"
        ) from None
    return text


def describe(settings: OperatorSettings, env: Mapping[str, str]) -> list[dict[str, str]]:
    """Every effective setting with where it came from (`brain config show`), secrets masked:
    a URL loses its password, a secret variable is only said to be set or not."""
    rows = []
    for section, key in keys():
        value = getattr(getattr(settings, section), key)
        shown = masked_url(value) if key in URL_KEYS else value
        source = settings.source(section, key)
        rows.append({"key": f"{section}.{key}", "value": _toml(shown), "source": source})
    named = (settings.consolidate.api_key_env, settings.store.neo4j_password_env)
    for name in dict.fromkeys((*SECRET_VARIABLES, *(n for n in named if n))):
        rows.append({"key": name, "value": "(set, not shown)" if env.get(name) else "(not set)",
                     "source": "environment"})
    return rows


def masked_url(url: str) -> str:
    """No password (user:pw@) and no query (?key=...) of a URL is shown."""
    return re.sub(r"\?.*$", "?***", re.sub(r"^(\w+://)[^/@]*@", r"\1***@", url))


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return f'"{value}"' if isinstance(value, str) else str(value)


def load_budgets(env: Mapping[str, str]) -> Budgets:
    """The budgets of a process whose command installed none (a test, an embedder, the
    language server): BRAIN_CONFIG's and the environment's. Invalid ones are said once as a
    warning and the defaults kept, since a parser has no command line to exit from (a command
    refuses them with exit 2 before it reads a note)."""
    try:
        return load_settings(env).budgets
    except SettingsError as exc:
        if str(exc) not in _warned:
            _warned.add(str(exc))
            log.warning("%s; the default budgets are used", exc)
        return Budgets()


_warned: set[str] = set()
budgets.set_loader(lambda: load_budgets(os.environ))
