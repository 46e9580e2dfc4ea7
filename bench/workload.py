"""Seeded, deterministic generator of the benchmark workspace (design.md section 7).

    python bench/workload.py OUT_DIR --notes N [--agents A] [--seed S] [--layout space]

N notes over A agents plus ``shared`` (10% of the notes), each 1.5 to 3 KB of markdown with
``description``/``type`` frontmatter, headings, a list and a fenced code block, and 3 to 8
wikilinks: to notes of the same scope (bare names), to shared notes (bare, or ``shared/x`` when
the agent has a note of the same name), now and then to another agent's note by its scoped
name, to workflows, chats and work items (with or without a kind prefix), some with a
``|label``, a ``#Heading`` that exists in the target, or as an ``![[embed]]``, and about 5% to
targets that do not exist. Some names exist in two scopes so scope precedence is exercised.
Fenced and inline code sometimes hold ``[[...]]`` text, which is not a link and is not counted.

`--layout space` (seeds/001) writes the same kind of notes as each agent's `<agent>/memory/`
tree instead: N files of which 10% are not markdown (CSV, JSON, text, and binary PNG-like
files), a third of each agent's notes in topic subfolders, the shared notes in the first
agent's `shared/` folder (so `shared/x` links are paths from its root), no agents/ or entity
folders (space has none).

`--profile real` (latchai layout only) writes what agents' real memory holds and this
profile lacks: fenced code and shell commands, tables, long index notes, agents without
definitions, many broken links across scopes, non-ASCII names (bench/workload_real.py).
The default profile is unchanged, so older figures stay comparable.

Same arguments, same bytes: no timestamps in content, and every file's mtime is a fixed,
seeded instant before 2026-11-01 so ages are deterministic too. Only the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["WorkloadInfo", "generate", "main"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


MARKER = ".workload.json"
PROFILES = ("default", "real")
LAYOUT = ("agents", "memory", "workflows", "chats", "work-items")
EPOCH = 1_793_491_200  # 2026-11-01T00:00:00Z
MAX_AGE = 120 * 86_400  # note ages spread over the 120 days before EPOCH
MIN_BYTES = 1536
MAX_BYTES = 3072
TYPES = ("user", "feedback", "project", "reference")

AGENT_NAMES = _words(
    "release-writer support-triage code-reviewer on-call docs-writer data-analyst "
    "security-auditor qa-tester sales-assistant recruiter billing-helper incident-scribe"
)
QUALIFIERS = _words(
    "weekly nightly legacy default staging prod customer internal shared flaky slow urgent "
    "quarterly draft manual async public private regional tokyo eu us mobile web api billing "
    "team enterprise free-tier beta new old known open pending daily"
)
TOPICS = _words(
    "release changelog style glossary tone headline retry backoff queue worker lease schedule "
    "scheduler migration index schema deploy rollback alert dashboard runbook pager rotation "
    "handover incident postmortem ticket macro severity escalation refund tier invoice "
    "pricing contract review checklist test fixture coverage lint typing dependency upgrade "
    "security token audit access backup restore latency throughput capacity budget roadmap "
    "theme customer feedback survey onboarding docs tutorial example api sdk webhook cron "
    "timezone dst region failover replica cache search filter export import quota limit usage "
    "metric log trace naming ownership calendar holiday freeze hotfix patch version tag "
    "branch ci pipeline build artifact bug regression"
)
KINDS = _words(
    "notes rules policy checklist plan faq decisions howto history template guide preferences "
    "facts gotchas ideas summary"
)
MISSING_KINDS = _words("template draft proposal playbook spec retro outline")
HEADINGS = (
    "Context",
    "Decision",
    "Details",
    "Steps",
    "Examples",
    "Open questions",
    "History",
    "Related",
    "Background",
    "Rules",
    "Exceptions",
    "Owners",
    "Timeline",
    "Follow-ups",
    "Checklist",
    "Gotchas",
    "Rationale",
    "Scope",
    "Status",
    "Next steps",
    "Notes",
    "Links",
    "Configuration",
    "Known issues",
    "Metrics",
    "Risks",
    "Résumé",
    "Glossary",
    "Tokyo (東京)",
    "Alternatives",
)
PEOPLE = _words("Maya Tomás Kenji Lena Priya Zoë Arjun Chloé Sven Ama")
VERBS = (
    "fails",
    "slows down",
    "retries",
    "times out",
    "drifts",
    "stalls",
    "recovers",
    "needs review",
    "pages someone",
    "breaks the build",
    "changes shape",
    "goes stale",
)
CONDITIONS = (
    "a deploy lands on a tick",
    "the queue passes five million jobs",
    "DST starts",
    "a lease expires",
    "the replica lags",
    "a customer bursts",
    "the cache is cold",
    "the migration holds a lock",
    "the token rotates",
    "the freeze begins",
    "a webhook returns 500",
    "the nightly run overlaps the backup",
)
SENTENCES = (
    "{p} asked for this on the last release and it still holds.",
    "The {t} {v} when {c}, so check it before anything else.",
    "We tried a different {t} {k} in the spring and went back to this one.",
    "Keep the {t} short; nobody reads past the first screen.",
    "If the {t} {v}, write it down here instead of in the chat.",
    "{p} owns the {t} part and reviews every change to it.",
    "This is a point-in-time note; verify the {t} numbers before quoting them.",
    "The {q} {t} is the exception and it is documented below.",
    "Nothing here is a secret; credentials live in the vault, not in memory.",
    "Most {t} problems trace back to the moment {c}.",
    "Customers notice when the {t} {v}, usually within minutes.",
    "{p} and {p2} disagreed about the {t}; the decision is recorded here.",
    "Update this note with str_replace rather than writing a second one.",
    "The {q} variant behaves the same, except when {c}.",
    "Prefer the {t} {k} over asking again; it was agreed in October.",
    "When in doubt about the {t}, ask {p} before changing anything.",
)
UNICODE_SENTENCES = (
    "Zoë confirmed the café-mode fallback works for the {t} as well.",
    "The 東京 region runs the {t} on its own cluster — ask Kenji.",
    "Chloé's naïve first draft of the {t} is kept for reference.",
    "Tomás wrote the {t} rules; señal means signal in his comments.",
    "Résumé of the {t} discussion: keep it, but make it cheaper 🚀.",
)
LINK_SENTENCES = (
    "See {l} for the background.",
    "This depends on {l}.",
    "{p} pointed to {l} when this came up.",
    "Compare with {l} before changing anything.",
    "The details are in {l}.",
    "Related: {l}.",
    "Follow {l} first, then come back here.",
    "{l} says the opposite for the {q} case.",
)
FEEDBACK_WHY = (
    "the {t} broke for a customer and it took a day to notice",
    "{p} had to redo the {t} by hand twice",
    "reviews got slower every time the {t} was skipped",
    "an outage started with exactly this {t} mistake",
)
FEEDBACK_HOW = (
    "check the {t} before every change and say so in the summary",
    "use the {q} {t} and leave the old one alone",
    "ask {p} when the {t} looks different from this note",
    "keep one {t} per note and link the rest",
)
DESCRIPTIONS = (
    "{Q} {t} {k} — what {p} decided and why",
    "How the {t} works for {q} queues, with the usual gotchas",
    "{P}'s preferences for the {t}, collected from reviews",
    "Known {t} problems and the workaround to give customers",
    "Checklist for the {q} {t} before a release",
    "Who owns the {t} and how to reach them",
    "The {t} {k} as agreed in October 2026",
    "Why the {t} {v} when {c}",
)
LONG_TAIL = (
    " — including the exceptions for enterprise customers, the Tokyo region, and everything"
    " that changed after the October review"
)
CODE_LANGS = ("python", "yaml", "bash", "json", "sql")
MESSAGES = (
    "Can you summarise where the {t} stands?",
    "The {t} {v} again when {c}.",
    "Noted. I will update the {t} {k} and link the work item.",
    "Let's keep the {q} {t} as it is until the next train.",
    "{p} owns that; I'll ask before touching it.",
    "Done — the note is updated.",
)


@dataclass
class WorkloadInfo:
    """What :func:`generate` wrote. Paths are relative to ``root``, with ``/``.

    ``links`` counts real wikilinks only (not ``[[...]]`` text inside code); ``missing_links``
    are those whose target exists nowhere (each one a ``broken-link``); ``bytes`` is the total
    size of the memory files. Everything else a checker should find is healthy: no ambiguous
    links, no missing anchors, valid frontmatter.
    """

    root: Path
    notes: int
    agents: int
    seed: int
    shared_notes: int
    links: int
    missing_links: int
    anchor_links: int
    label_links: int
    embed_links: int
    entity_links: int
    cross_scope_links: int
    duplicate_names: int
    workflows: int
    chats: int
    work_items: int
    bytes: int
    agent_names: list[str] = field(default_factory=list)
    note_paths: list[str] = field(default_factory=list)
    missing_targets: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        """The figures without the long path lists (what ``.workload.json`` holds)."""
        data = asdict(self)
        data["root"] = "."
        del data["note_paths"]
        return data


@dataclass
class _Note:
    scope: str
    name: str
    type: str
    headings: list[str]
    size: int  # target size in bytes


@dataclass
class _Counts:
    links: int = 0
    missing: int = 0
    anchor: int = 0
    label: int = 0
    embed: int = 0
    entity: int = 0
    cross: int = 0


class _Gen:
    def __init__(self, notes: int, agents: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.n_notes = notes
        self.agent_names = _agent_names(agents)
        self.counts = _Counts()
        self.taken: set[str] = set(self.agent_names)  # every name any bare link could hit
        n_entities = max(3, notes // 100)
        self.workflows = self._entity_ids(n_entities, self._workflow_id)
        self.chats = self._entity_ids(n_entities, self._chat_id)
        self.work_items = [f"BRN-{1000 + i}" for i in range(n_entities)]
        self.taken.update(w.lower() for w in self.work_items)
        self.scopes: dict[str, list[_Note]] = {}
        self.by_name: dict[str, dict[str, _Note]] = {}
        self.duplicates = 0
        self._plan_notes()
        self.missing = self._missing_targets(max(5, notes // 40))
        self.sentences = self._sentence_pool(4000)

    # -- names ---------------------------------------------------------------------------

    def _entity_ids(self, count: int, make: Callable[[int], str]) -> list[str]:
        out: list[str] = []
        for i in range(count):
            base = make(i)
            name = base
            k = 2
            while name in self.taken:
                name = f"{base}-{k}"
                k += 1
            self.taken.add(name)
            out.append(name)
        return out

    def _workflow_id(self, i: int) -> str:
        r = self.rng
        return f"{r.choice(QUALIFIERS)}-{r.choice(TOPICS)}-{r.choice(('train', 'sweep', 'sync'))}"

    def _chat_id(self, i: int) -> str:
        r = self.rng
        month = r.randint(8, 11)
        return f"2026-{month:02d}-{r.randint(1, 28):02d}-{r.choice(TOPICS)}-{r.choice(KINDS)}"

    def _note_name(self, used: dict[str, _Note]) -> str:
        r = self.rng
        shape = r.random()
        if shape < 0.45:
            base = f"{r.choice(TOPICS)}-{r.choice(KINDS)}"
        elif shape < 0.8:
            base = f"{r.choice(QUALIFIERS)}-{r.choice(TOPICS)}-{r.choice(KINDS)}"
        else:
            base = f"{r.choice(TOPICS)}-{r.choice(TOPICS)}-{r.choice(KINDS)}"
        name = base
        k = 2
        while name in used or name in self.taken:
            name = f"{base}-{k}"
            k += 1
        return name

    def _plan_notes(self) -> None:
        r = self.rng
        n_shared = max(1, self.n_notes // 10) if self.n_notes > 1 else self.n_notes
        n_agent = self.n_notes - n_shared
        per, extra = divmod(n_agent, len(self.agent_names))
        plan = [("shared", n_shared)] + [
            (a, per + (1 if i < extra else 0)) for i, a in enumerate(self.agent_names)
        ]
        for scope, count in plan:
            notes: list[_Note] = []
            used: dict[str, _Note] = {}
            shared = self.scopes.get("shared", [])
            for _ in range(count):
                if scope != "shared" and shared and r.random() < 0.03:
                    name = r.choice(shared).name  # same name as a shared note: precedence
                    if name in used:
                        name = self._note_name(used)
                    else:
                        self.duplicates += 1
                else:
                    name = self._note_name(used)
                note = _Note(
                    scope=scope,
                    name=name,
                    type=r.choice(TYPES),
                    headings=r.sample(HEADINGS, r.randint(3, 5)),
                    size=r.randint(MIN_BYTES + 40, MAX_BYTES - 240),
                )
                used[name] = note
                notes.append(note)
            self.scopes[scope] = notes
            self.by_name[scope] = used

    def _missing_targets(self, count: int) -> list[str]:
        r = self.rng
        existing: set[str] = set()
        for used in self.by_name.values():
            existing.update(used)
        out: list[str] = []
        chosen: set[str] = set()
        misses = 0
        while len(out) < count:
            name = f"{r.choice(QUALIFIERS)}-{r.choice(TOPICS)}-{r.choice(MISSING_KINDS)}"
            if misses >= 1000:  # the names run out (24,948 of them; a million notes wants 25,000)
                name = f"{name}-{len(out)}"
            if name not in existing and name not in self.taken and name not in chosen:
                out.append(name)
                chosen.add(name)
                misses = 0
            else:
                misses += 1
        return out

    # -- text ----------------------------------------------------------------------------

    def _fill(self, template: str) -> str:
        r = self.rng
        p, p2 = r.sample(PEOPLE, 2)
        q = r.choice(QUALIFIERS)
        return template.format(
            p=p,
            p2=p2,
            P=p,
            q=q,
            Q=q.capitalize(),
            t=r.choice(TOPICS),
            k=r.choice(KINDS),
            v=r.choice(VERBS),
            c=r.choice(CONDITIONS),
        )

    def _sentence_pool(self, size: int) -> list[tuple[str, int]]:
        pool: list[tuple[str, int]] = []
        for i in range(size):
            source = UNICODE_SENTENCES if i % 40 == 0 else SENTENCES
            s = self._fill(self.rng.choice(source))
            pool.append((s, len(s.encode("utf-8")) + 1))
        return pool

    def _description(self) -> str:
        text = self._fill(self.rng.choice(DESCRIPTIONS))
        if self.rng.random() < 0.05:
            text += LONG_TAIL
        return text + "."

    def _code_block(self) -> list[str]:
        r = self.rng
        lang = r.choice(CODE_LANGS)
        t = r.choice(TOPICS)
        if lang == "python":
            body = [
                f"def {t}_{r.choice(KINDS)}(job: Job) -> None:",
                f"    if job.attempt > {r.randint(2, 9)}:",
                f'        raise {t.capitalize()}Error("gave up")',
            ]
        elif lang == "yaml":
            body = [
                f"{t}:",
                f"  {r.choice(KINDS)}: {r.randint(1, 500)}",
                f"  owner: {r.choice(PEOPLE)}",
            ]
        elif lang == "bash":
            body = [f"brinectl {t} status --region {r.choice(('eu-central', 'us-east'))}"]
        elif lang == "json":
            body = [json.dumps({t: r.randint(1, 99), "kind": r.choice(KINDS)})]
        else:
            body = [f"SELECT id, {t}_at FROM jobs WHERE queue = $1 LIMIT {r.randint(10, 99)};"]
        if r.random() < 0.25:  # looks like a link, is not one
            body.append(f"# [[{r.choice(self.missing)}]] is not a link inside code")
        return ["```" + lang, *body, "```"]

    # -- links ---------------------------------------------------------------------------

    def _link(self, note: _Note) -> str:
        r = self.rng
        c = self.counts
        c.links += 1
        roll = r.random()
        if roll < 0.05:
            c.missing += 1
            return f"[[{r.choice(self.missing)}]]"
        if roll < 0.20:
            c.entity += 1
            kind = r.randrange(3)
            prefix, ids = (
                ("workflow:", self.workflows),
                ("chat:", self.chats),
                ("work-item:", self.work_items),
            )[kind]
            target = r.choice(ids)
            if r.random() < 0.5:
                target = prefix + target
            if r.random() < 0.15:
                c.label += 1
                return f"[[{target}|{r.choice(TOPICS)} {r.choice(KINDS)}]]"
            return f"[[{target}]]"
        # a memory
        own = self.scopes[note.scope]
        shared = self.scopes["shared"]
        target_note: _Note | None = None
        text = ""
        pick = r.random()
        if note.scope != "shared" and pick < 0.04 and len(self.agent_names) > 1:
            other = r.choice(self.agent_names)
            if other != note.scope and self.scopes[other]:
                target_note = r.choice(self.scopes[other])
                text = f"{other}/{target_note.name}"
                c.cross += 1
        if target_note is None and (note.scope == "shared" or pick < 0.65) and len(own) > 1:
            target_note = r.choice(own)
            if target_note is note:
                target_note = own[(own.index(note) + 1) % len(own)]
            text = target_note.name
        if target_note is None and shared and not (len(shared) == 1 and shared[0] is note):
            target_note = r.choice(shared)
            if target_note is note:
                target_note = shared[(shared.index(note) + 1) % len(shared)]
            clash = target_note.name in self.by_name[note.scope]
            scoped = note.scope != "shared" and (clash or r.random() < 0.1)
            text = f"shared/{target_note.name}" if scoped else target_note.name
        if target_note is None:  # tiny workspaces: nothing else to point at
            c.entity += 1
            return f"[[workflow:{r.choice(self.workflows)}]]"
        deco = r.random()
        if deco < 0.02:
            c.embed += 1
            return f"![[{text}]]"
        if deco < 0.17:
            c.anchor += 1
            text += "#" + r.choice(target_note.headings)
        if 0.12 < deco < 0.30:
            c.label += 1
            label = r.choice(("this note", "the rules", "background", "see here"))
            text += f"|{label} on {r.choice(TOPICS)}"
        return f"[[{text}]]"

    # -- notes ---------------------------------------------------------------------------

    def render(self, note: _Note) -> str:
        r = self.rng
        pool = self.sentences
        heads = note.headings
        # paragraph 0 is the intro, paragraph i + 1 opens section i; each a list of sentences
        paras: list[list[str]] = [[pool[r.randrange(len(pool))][0]] for _ in range(len(heads) + 1)]
        items = [self._fill(r.choice(SENTENCES)) for _ in range(r.randint(3, 5))]
        for _ in range(r.randint(3, 8)):
            sentence = r.choice(LINK_SENTENCES).format(
                l=self._link(note), p=r.choice(PEOPLE), q=r.choice(QUALIFIERS)
            )
            if r.random() < 0.3:
                items.insert(r.randrange(len(items) + 1), sentence)
            else:
                paras[r.randrange(len(paras))].append(sentence)
        if r.random() < 0.1:  # inline code that looks like a link, is not one
            paras[0].append(f"Never paste `[[{r.choice(self.missing)}]]` into a reply.")

        blocks: list[str | int] = [
            "---",
            f"description: {self._description()}",
            f"type: {note.type}",
            "---",
            "",
        ]
        if note.type == "feedback":
            blocks += [
                f"**Why:** {self._fill(r.choice(FEEDBACK_WHY))}.",
                f"**How to apply:** {self._fill(r.choice(FEEDBACK_HOW))}.",
                "",
            ]
        blocks.append(0)
        list_at = r.randrange(len(heads))
        code_at = r.randrange(len(heads))
        for i, heading in enumerate(heads):
            blocks += ["", f"## {heading}", "", i + 1]
            if i == list_at:
                blocks += ["", *(f"- {item}" for item in items)]
            if i == code_at:
                blocks += ["", *self._code_block()]

        def text(block: str | int) -> str:
            return block if isinstance(block, str) else " ".join(paras[block])

        size = sum(len(text(b).encode("utf-8")) for b in blocks) + len(blocks)
        while size < note.size:
            sentence, n = pool[r.randrange(len(pool))]
            paras[r.randrange(len(paras))].append(sentence)
            size += n
        return "\n".join(text(b) for b in blocks) + "\n"

    # -- other files ---------------------------------------------------------------------

    def agent_file(self, name: str) -> str:
        desc = self._fill("Keeps the {t} {k} in order and answers questions about the {q} {t}")
        return (
            f"---\nname: {name}\ndescription: {desc}.\nmemory: true\n---\n\n"
            f"You are the {name} agent. {self._fill(SENTENCES[0])}\n"
        )

    def workflow_file(self, i: int, wid: str) -> tuple[str, str]:
        r = self.rng
        title = wid.replace("-", " ").capitalize()
        steps = [
            {
                "id": f"step-{j + 1}",
                "agent": r.choice(self.agent_names),
                "prompt": self._fill(r.choice(SENTENCES)),
            }
            for j in range(r.randint(2, 5))
        ]
        ext = ("yaml", "yml", "json", "md")[i % 4]
        if ext == "json":
            return ext, json.dumps({"title": title, "steps": steps}, indent=2, ensure_ascii=False)
        lines = [
            f"  - id: {s['id']}\n    agent: {s['agent']}\n    prompt: {json.dumps(s['prompt'])}"
            for s in steps
        ]
        if ext == "md":
            return ext, f"---\ntitle: {title}\n---\n\n" + "".join(
                f"{j + 1}. {s['agent']}: {s['prompt']}\n" for j, s in enumerate(steps)
            )
        return ext, f"name: {title}\nsteps:\n" + "\n".join(lines) + "\n"

    def chat_file(self, i: int, cid: str) -> tuple[str, str]:
        r = self.rng
        title = self._fill("{Q} {t} discussion")
        msgs = [
            {
                "role": "user" if j % 2 == 0 else "assistant",
                "author": r.choice(PEOPLE) if j % 2 == 0 else r.choice(self.agent_names),
                "content": self._fill(r.choice(MESSAGES)),
            }
            for j in range(r.randint(3, 7))
        ]
        ext = ("jsonl", "json", "md")[i % 3]
        if ext == "jsonl":
            return ext, "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in [{"title": title}, *msgs])
        if ext == "json":
            data = {"title": title, "messages": msgs}
            return ext, json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        return ext, f"---\ntitle: {title}\n---\n\n" + "".join(
            f"**{m['author']}**: {m['content']}\n\n" for m in msgs
        )

    def work_item_file(self, i: int, wid: str) -> tuple[str, str]:
        r = self.rng
        title = self._fill("{Q} {t} {v} when {c}").replace(":", "")
        status = r.choice(("open", "in-progress", "done"))
        ext = ("md", "yaml", "yml", "json")[i % 4]
        if ext == "json":
            data = {"title": title, "status": status, "assignee": r.choice(PEOPLE)}
            return ext, json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        head = f"title: {title}\nstatus: {status}\nassignee: {r.choice(PEOPLE)}\n"
        if ext == "md":
            return ext, f"---\n{head}---\n\n{self._fill(r.choice(SENTENCES))}\n"
        return ext, head


def _agent_names(count: int) -> list[str]:
    if count < 1:
        raise ValueError("agents must be at least 1")
    names = list(AGENT_NAMES[:count])
    names += [f"agent-{i:03d}" for i in range(len(names) + 1, count + 1)]
    return names


def _prepare(out_dir: Path) -> None:
    if out_dir.exists():
        entries = [p.name for p in out_dir.iterdir()]
        if entries and MARKER not in entries:
            raise FileExistsError(f"{out_dir} is not empty and holds no {MARKER}; refusing")
        for name in entries:  # a previous workload (of any layout): all of it is ours
            p = out_dir / name
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
    out_dir.mkdir(parents=True, exist_ok=True)


def _write(path: Path, text: str, mtime: int) -> int:
    data = text.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (mtime, mtime))
    return len(data)


def generate(
    out_dir: Path, notes: int, agents: int = 8, seed: int = 42, layout: str = "latchai",
    profile: str = "default",
) -> WorkloadInfo:
    """Write the workload into ``out_dir`` and describe it.

    ``out_dir`` must be missing, empty, or a previous workload (it holds ``.workload.json``);
    in the last case the layout folders are replaced. `layout` "space": ``notes`` files, 10%
    of them not markdown (see the module docstring).
    """
    if notes < 1:
        raise ValueError("notes must be at least 1")
    if layout not in ("latchai", "space"):
        raise ValueError(f"no workload for layout {layout!r}: latchai or space")
    if profile not in PROFILES or (profile != "default" and layout != "latchai"):
        raise ValueError(f"no workload profile {profile!r} for layout {layout!r}")
    out_dir = Path(out_dir)
    _prepare(out_dir)
    if profile == "real":
        from importlib import import_module

        real = import_module(f"{__package__}.workload_real" if __package__ else "workload_real")
        info: WorkloadInfo = real.generate_real(out_dir, notes, agents, seed)
        return info
    plain = notes // 10 if layout == "space" else 0
    g = _Gen(max(1, notes - plain), agents, seed)
    r = g.rng

    def stamp() -> int:
        return EPOCH - r.randrange(MAX_AGE)

    if layout == "space":
        return _generate_space(out_dir, g, plain, seed, stamp)

    for sub in ("agents", "workflows", "chats", "work-items"):
        (out_dir / sub).mkdir()
    for name in g.agent_names:
        _write(out_dir / "agents" / f"{name}.md", g.agent_file(name), stamp())
    for i, wid in enumerate(g.workflows):
        ext, text = g.workflow_file(i, wid)
        _write(out_dir / "workflows" / f"{wid}.{ext}", text, stamp())
    for i, cid in enumerate(g.chats):
        ext, text = g.chat_file(i, cid)
        _write(out_dir / "chats" / f"{cid}.{ext}", text, stamp())
    for i, wid in enumerate(g.work_items):
        ext, text = g.work_item_file(i, wid)
        _write(out_dir / "work-items" / f"{wid}.{ext}", text, stamp())

    total = 0
    paths: list[str] = []
    for scope, scope_notes in g.scopes.items():
        folder = out_dir / "memory" / scope
        folder.mkdir(parents=True)
        for note in scope_notes:
            rel = f"memory/{scope}/{note.name}.md"
            total += _write(out_dir / rel, g.render(note), stamp())
            paths.append(rel)

    c = g.counts
    info = WorkloadInfo(
        root=out_dir,
        notes=notes,
        agents=len(g.agent_names),
        seed=seed,
        shared_notes=len(g.scopes["shared"]),
        links=c.links,
        missing_links=c.missing,
        anchor_links=c.anchor,
        label_links=c.label,
        embed_links=c.embed,
        entity_links=c.entity,
        cross_scope_links=c.cross,
        duplicate_names=g.duplicates,
        workflows=len(g.workflows),
        chats=len(g.chats),
        work_items=len(g.work_items),
        bytes=total,
        agent_names=list(g.agent_names),
        note_paths=paths,
        missing_targets=list(g.missing),
    )
    marker = json.dumps(info.summary(), indent=2, ensure_ascii=False) + "\n"
    _write(out_dir / MARKER, marker, EPOCH)
    return info


def _generate_space(
    out_dir: Path, g: _Gen, plain: int, seed: int, stamp: Callable[[], int]
) -> WorkloadInfo:
    r = g.rng
    total = 0
    paths: list[str] = []
    first = g.agent_names[0]
    for scope, scope_notes in g.scopes.items():
        for i, note in enumerate(scope_notes):
            if scope == "shared":
                rel = f"{first}/memory/shared/{note.name}.md"
            elif i % 3 == 2:  # a third in topic folders, one or two levels deep
                topic = note.name.split("-")[0]
                rel = f"{scope}/memory/{topic}/{note.name}.md"
                if i % 6 == 5:
                    rel = f"{scope}/memory/{topic}/archive/{note.name}.md"
            else:
                rel = f"{scope}/memory/{note.name}.md"
            path = out_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            total += _write(path, g.render(note), stamp())
            paths.append(rel)
    for i in range(plain):
        agent = g.agent_names[i % len(g.agent_names)]
        kind = i % 4
        size = r.randrange(MIN_BYTES, MAX_BYTES)
        if kind == 0:
            rel, data = f"{agent}/memory/data/table-{i}.csv", _csv(r, size)
        elif kind == 1:
            rel, data = f"{agent}/memory/data/state-{i}.json", _json_blob(r, size)
        elif kind == 2:
            rel, data = f"{agent}/memory/images/shot-{i}.png", _png_like(r, size)
        else:
            rel, data = f"{agent}/memory/downloads/page-{i}.txt", _text(r, size)
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        mtime = stamp()
        os.utime(path, (mtime, mtime))
        total += len(data)
    c = g.counts
    info = WorkloadInfo(
        root=out_dir, notes=len(paths), agents=len(g.agent_names), seed=seed,
        shared_notes=len(g.scopes["shared"]), links=c.links, missing_links=c.missing,
        anchor_links=c.anchor, label_links=c.label, embed_links=c.embed, entity_links=c.entity,
        cross_scope_links=c.cross, duplicate_names=g.duplicates, workflows=0, chats=0,
        work_items=0, bytes=total, agent_names=list(g.agent_names), note_paths=paths,
        missing_targets=list(g.missing),
    )
    marker = json.dumps({**info.summary(), "layout": "space", "files": len(paths) + plain},
                        indent=2, ensure_ascii=False) + "\n"
    _write(out_dir / MARKER, marker, EPOCH)
    return info


def _csv(r: random.Random, size: int) -> bytes:
    rows = ["day,queue,jobs,p95_ms"]
    while sum(len(x) + 1 for x in rows) < size:
        rows.append(f"2026-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d},"
                    f"{r.choice(TOPICS)},{r.randrange(10**6)},{r.randrange(5000)}")
    return ("\n".join(rows) + "\n").encode()


def _json_blob(r: random.Random, size: int) -> bytes:
    items: list[dict[str, object]] = []
    while len(json.dumps(items)) < size:
        items.append({"topic": r.choice(TOPICS), "count": r.randrange(1000), "ok": r.random() < 0.9})
    return json.dumps(items, indent=1).encode()


def _png_like(r: random.Random, size: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + r.randbytes(size)


def _text(r: random.Random, size: int) -> bytes:
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < size:
        words.append(r.choice(TOPICS))
    return (" ".join(words) + "\n").encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the brain benchmark workspace.")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--notes", type=int, required=True)
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--layout", choices=("latchai", "space"), default="latchai")
    parser.add_argument("--profile", choices=PROFILES, default="default",
                        help="real: code, tables, index notes, broken cross-scope links (latchai)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    info = generate(args.out_dir, args.notes, args.agents, args.seed, args.layout, args.profile)
    elapsed = time.perf_counter() - started
    figures = info.summary()
    del figures["missing_targets"], figures["agent_names"]
    figures["root"] = str(info.root)
    figures["seconds"] = round(elapsed, 2)
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
