"""The model pass (seeds/000 "Consolidation"): a model tidies one scope with the memory tool.

The ordinary tool loop with exactly one tool, `memory`, confined to the scope
(`ScopedMemoryTool`: a private run cannot read or change /memories/shared/), against the
OpenAI-compatible endpoint the operator configured, at most `max_turns` (30) requests. The
deterministic findings are the model's starting point. Every tool call and the token usage
are reported to `progress` as they happen. However the run ends (the model's report, the
endpoint down, a malformed answer, the turn cap) it ends with a `ConsolidationReport` of
what was done so far: what changed, the paths touched, what a human should look at.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from brain.config.operator import WHERE_IT_BELONGS, MaintainConfig, OperatorSettings, env_name
from brain.maintain.consolidation.chat import ChatAnswer, ChatClient, ChatEndpoint, ChatError, Usage
from brain.maintain.consolidation.prompts import MEMORY_TOOL, first_message, system_prompt
from brain.maintain.run import find
from brain.maintain.scoped_tool import ScopedMemoryTool
from brain.model import SHARED_SCOPE
from brain.parse import safejson
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.access import Actor
from brain.tool.files.paths import PathProblem, VirtualFile, parse_virtual
from brain.tool.history.runs import new_run_id
from brain.tool.service import MemoryService

log = logging.getLogger("brain.maintain")
Progress = Callable[[dict[str, Any]], None]
CONSOLIDATE_ACTOR = Actor.admin(via="consolidate")
MAX_CALLS_PER_TURN = 16
MAX_RESULT_CHARS = 20_000
MAX_SUMMARY_CHARS = 8_000  # the model's own report, as the caller sees it
MAX_ARGUMENT_DEPTH = 8  # the memory tool's arguments are one flat object of strings
WRITES = ("create", "str_replace", "insert", "delete", "rename")
ENV_URL = env_name("consolidate", "url")
ENV_MODEL = env_name("consolidate", "model")
ENV_KEY = "BRAIN_CONSOLIDATE_API_KEY"  # the key itself, for an operator without a variable of its own


class NotConfigured(Exception):
    """No endpoint (or model, or key) configured: nothing was run and nothing changed."""


class Busy(Exception):
    """This scope is being consolidated already."""


@dataclass(slots=True)
class ConsolidationReport:
    scope: str
    status: str = "running"  # done | turn-cap | endpoint-error | malformed-answer | cancelled | error
    message: str = ""
    summary: str = ""  # the model's own report
    changes: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    findings: int = 0
    seconds: float = 0.0
    run: str | None = None  # the run's id: each change it made is recorded with it

    @property
    def touched(self) -> list[str]:
        paths: set[str] = set()
        for change in self.changes:
            paths.update(change["paths"])
        return sorted(paths)

    @property
    def review(self) -> list[str]:
        """What a human should look at, beyond the model's own words."""
        out: list[str] = []
        if self.status != "done":
            out.append(f"the run ended early ({self.status}): {self.message}")
        for item in self.refused:
            out.append(f"refused {item['call']}: {item['reason']}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope, "status": self.status, "message": self.message,
            "summary": self.summary, "changes": self.changes, "paths": self.touched,
            "refused": self.refused, "review": self.review, "turns": self.turns,
            "usage": self.usage.to_json(), "findings": self.findings, "seconds": round(self.seconds, 3),
            "run": self.run,
        }

    def to_text(self) -> str:
        out = [f"consolidate {self.scope}: {self.status} after {self.turns} turn(s), "
               f"{len(self.changes)} change(s), {self.usage.total_tokens:,} tokens"]
        if self.message:
            out.append(self.message)
        if self.summary:
            out += ["", self.summary.strip(), ""]
        if self.changes:
            out.append("paths touched:")
            out += [f"  {c['command']:<11} {', '.join(c['paths'])}" for c in self.changes]
        if self.review:
            out.append("look at:")
            out += [f"  - {item}" for item in self.review]
        return "\n".join(out)


def endpoint_of(settings: OperatorSettings, env: Mapping[str, str]) -> ChatEndpoint:
    """The operator's endpoint (brain/config/operator.py; never the workspace's brain.toml), or
    NotConfigured. The key is read from the environment now, never kept in the settings."""
    section = settings.consolidate
    if not section.url:
        raise NotConfigured(
            f"no model endpoint is configured, so nothing was changed: set [consolidate] url and model "
            f"in {WHERE_IT_BELONGS} (an OpenAI-compatible chat-completions URL, e.g. "
            f"http://localhost:11434/v1), or {ENV_URL} and {ENV_MODEL}"
        )
    if not section.model:
        raise NotConfigured(
            f"[consolidate] has a url but no model: set model in {WHERE_IT_BELONGS} or {ENV_MODEL}"
        )
    key = env.get(ENV_KEY)
    if not key and section.api_key_env:
        key = env.get(section.api_key_env)
        if not key:
            origin = settings.source("consolidate", "api_key_env")
            raise NotConfigured(
                ("" if origin == "default" else f"{origin}: ")
                + f"[consolidate] api_key_env = \"{section.api_key_env}\", but that variable is not "
                "set: export it, or remove api_key_env for an endpoint without a key"
            )
    return ChatEndpoint(section.url, section.model, key or None, section.timeout_seconds)


_RUNNING: set[tuple[str, str]] = set()
_RUNNING_LOCK = threading.Lock()


class Consolidation:
    def __init__(
        self, brain: Brain, scope: str, endpoint: ChatEndpoint, *, max_turns: int = 30,
        service: MemoryService | None = None, actor: Actor = CONSOLIDATE_ACTOR,
        client: ChatClient | None = None, maintain_config: MaintainConfig | None = None,
    ) -> None:
        self.brain = brain
        self.scope = scope
        self.endpoint = endpoint
        self.max_turns = max_turns
        self.service = service or memory_service(brain)
        # Every change this run makes is recorded with its id (brain.tool.history.runs).
        self.run_id = new_run_id("consolidate", self.service.clock())
        self.tool = ScopedMemoryTool(self.service, scope, actor.in_run(self.run_id))
        self.client = client or ChatClient(endpoint)
        self.cancelled = threading.Event()
        self.maintain_config = maintain_config

    def cancel(self) -> None:
        """Stop before the next turn (the caller went away); the report says so."""
        self.cancelled.set()

    @classmethod
    def for_brain(
        cls, brain: Brain, scope: str, settings: OperatorSettings | None = None,
        env: Mapping[str, str] | None = None, **kwargs: Any,
    ) -> Consolidation:
        """A run on the operator's endpoint: `settings` (default: the brain's own, from its
        flags and environment); NotConfigured if there is none."""
        settings = settings if settings is not None else brain.settings
        endpoint = endpoint_of(settings, os.environ if env is None else env)
        return cls(
            brain, scope, endpoint, max_turns=settings.consolidate.max_turns,
            maintain_config=settings.maintain, **kwargs,
        )

    def run(self, progress: Progress | None = None) -> ConsolidationReport:
        key = (str(self.brain.root), self.scope)
        with _RUNNING_LOCK:
            if key in _RUNNING:
                raise Busy(f"scope `{self.scope}` is being consolidated already; wait for that run's report")
            _RUNNING.add(key)
        try:
            return self._run(progress or (lambda _event: None))
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(key)
            self.client.close()

    def _run(self, progress: Progress) -> ConsolidationReport:
        started = time.perf_counter()
        report = ConsolidationReport(self.scope, run=self.run_id)
        try:
            self._loop(report, progress)
        except Exception as exc:  # a failure of brain's own (a full disk...): still a report
            log.exception("consolidating %s failed", self.scope)
            report.status, report.message = "error", f"the run failed: {type(exc).__name__}: {exc}"
        report.seconds = time.perf_counter() - started
        headline = report.to_text().split("\n", 1)[0]
        progress({**_event("finished", report, headline), "report": report.to_json()})
        return report

    def _loop(self, report: ConsolidationReport, progress: Progress) -> None:
        findings = find(self.brain, self.scope, config=self.maintain_config)
        report.findings = len(findings.findings)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(self.scope, self.tool.root, self.max_turns)},
            {"role": "user", "content": first_message(self.scope, self.tool.listing(), findings)},
        ]
        progress(_event("started", report, f"scope `{self.scope}` with {report.findings} finding(s) "
                        f"as the starting point, on {self.endpoint.model}"))
        for turn in range(1, self.max_turns + 1):
            if self.cancelled.is_set():
                report.status = "cancelled"
                report.message = f"the caller went away; stopped before turn {turn}"
                break
            report.turns = turn
            try:
                answer = self.client.complete(messages, [MEMORY_TOOL])
            except ChatError as exc:
                report.status, report.message = exc.kind, exc.message
                break
            report.usage = report.usage + answer.usage
            progress(_event("usage", report, f"turn {turn}: {answer.usage.total_tokens:,} tokens "
                            f"({report.usage.total_tokens:,} so far)"))
            messages.append(answer.message())
            if not answer.tool_calls:
                report.status, report.summary = "done", _clipped(answer.content or "")
                break
            messages.extend(self._calls(answer, report, progress))
        else:
            report.status = "turn-cap"
            report.message = (
                f"stopped at the cap of {self.max_turns} turns before the model reported; the "
                "changes listed were made"
            )

    def _calls(
        self, answer: ChatAnswer, report: ConsolidationReport, progress: Progress
    ) -> list[dict[str, Any]]:
        out = []
        for number, call in enumerate(answer.tool_calls):
            text, ok, shown = self._one(call.name, call.arguments, number, report)
            event = _event("tool-call", report, f"{'ok' if ok else 'refused'} {shown}")
            progress({**event, "ok": ok, "call": shown})
            if len(text) > MAX_RESULT_CHARS:
                cut = len(text) - MAX_RESULT_CHARS
                text = text[:MAX_RESULT_CHARS] + f"\n… ({cut:,} more characters cut)"
            out.append({"role": "tool", "tool_call_id": call.id, "content": text})
        return out

    def _one(
        self, name: str, arguments: str, number: int, report: ConsolidationReport
    ) -> tuple[str, bool, str]:
        """(tool result for the model, whether it worked, the call as one line)."""
        shown = f"{name}({arguments[:200]})"
        reason = None
        payload: Any = None
        if number >= MAX_CALLS_PER_TURN:
            reason = f"at most {MAX_CALLS_PER_TURN} tool calls per turn; make this one again next turn"
        elif name != "memory":
            reason = f"there is no tool `{name}`: the only tool is memory"
        else:
            try:  # the model's text: nested 100,000 deep it was a RecursionError, the run an `error`
                payload = safejson.loads(arguments or "{}", MAX_ARGUMENT_DEPTH)
            except safejson.JSONBudgetError as exc:
                reason = f"the arguments are {exc.message}; send one flat JSON object"
            except ValueError as exc:
                reason = f"the arguments are not valid JSON ({exc}); send one JSON object"
            if reason is None and not isinstance(payload, dict):
                reason = 'the arguments must be a JSON object, e.g. {"command": "view", "path": "/memories"}'
        if reason is not None:
            report.refused.append({"call": shown, "reason": reason})
            return f"Refused: {reason}", False, shown
        assert isinstance(payload, dict)
        shown = json.dumps(payload, ensure_ascii=False)[:200]
        result = self.tool.run(payload)
        if result.refusal is not None:
            report.refused.append({"call": shown, "reason": result.refusal.message})
        elif _changed(payload.get("command"), result.previous_hash, result.hash):
            report.changes.append({
                "command": payload["command"], "paths": self._paths(payload),
                "result": result.text.split("\n", 1)[0],
            })
        return result.text, result.ok, shown

    def _paths(self, payload: dict[str, Any]) -> list[str]:
        out = []
        for arg in ("path", "old_path", "new_path"):
            try:
                target = parse_virtual(payload.get(arg), self.scope)
            except PathProblem:
                continue
            if isinstance(target, VirtualFile):
                scope = SHARED_SCOPE if target.shared else self.scope
                out.append(f"memory/{scope}/{target.name}")
        return out


def _clipped(text: str) -> str:
    if len(text) <= MAX_SUMMARY_CHARS:
        return text
    return text[:MAX_SUMMARY_CHARS] + f"\n… ({len(text) - MAX_SUMMARY_CHARS:,} more characters cut)"


def _changed(command: object, before: str | None, after: str | None) -> bool:
    if command in ("delete", "rename"):
        return True
    return command in WRITES and before != after


def _event(kind: str, report: ConsolidationReport, text: str) -> dict[str, Any]:
    return {
        "kind": kind, "scope": report.scope, "turn": report.turns, "text": text,
        "usage": report.usage.to_json(), "changes": len(report.changes),
    }
