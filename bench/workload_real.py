"""The `real` profile of the benchmark workspace: what agents' memory holds and the default
profile lacks (bench/workload.py `--profile real`).

The default profile is regular: every note 1.5 to 3 KB with one short fenced block, 3 to 8
links that nearly all resolve, every agent defined. A fast path tuned to it can miss what
real memory is made of (issue 43), so this profile has, deterministically from the seed:

- fenced code and shell commands (pipes, `<placeholders>`, `\\` continuations, `$ ` prompts)
  in a third of the notes, and inline code spans beside links in another third; the other
  notes are prose with no code at all;
- tables in one note of seven, some cells holding links (`[[x\\|label]]`);
- long index notes (one a scope and one more every 150 notes: `MEMORY`, `index-2`, ...)
  listing 150 to 600 links each, a tenth of them to names that are gone;
- half of the agents without a definition in agents/, and links to agents that have no
  folder at all;
- a fifth of the links across scopes (`other-agent/name`), more than half of them broken
  (the name lives in a third scope, or nowhere);
- non-ASCII and spaced names (`café-retry-notes`, `東京-failover-runbook`, `Release
  Checklist`), snake_case names (`feedback_retry_rules`), notes without frontmatter, markdown
  links and bare URLs, and sizes from 0.4 to 6 KB.

Same arguments, same bytes, as the default profile; only the standard library.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

if __package__:
    from .workload import EPOCH, MARKER, MAX_AGE, WorkloadInfo, _write
    from .workload_notes import _Gen, _Note
    from .workload_words import CODE_LANGS, LINK_SENTENCES, PEOPLE, QUALIFIERS, TOPICS, UNICODE_SENTENCES
else:  # run as a script from bench/ (bench_ingest.py puts it on the path)
    from workload import EPOCH, MARKER, MAX_AGE, WorkloadInfo, _write  # type: ignore[no-redef]
    from workload_notes import _Gen, _Note  # type: ignore[no-redef]
    from workload_words import (  # type: ignore[no-redef]
        CODE_LANGS,
        LINK_SENTENCES,
        PEOPLE,
        QUALIFIERS,
        TOPICS,
        UNICODE_SENTENCES,
    )

UNICODE_PREFIXES = ("café", "résumé", "東京", "naïve", "señal", "zoë", "größe", "données", "北京", "ℹ️-info")
TITLE_WORDS = ("Release", "Checklist", "Runbook", "Notes", "Ideas", "Open", "Questions", "Q4", "Plan")
GHOST_AGENTS = ("old-triage", "intern-bot", "migration-helper")  # linked to, never a folder
SHELL = (
    "$ git rebase -i origin/main && git push --force-with-lease",
    "$ kubectl -n {t} rollout restart deploy/{t}-worker",
    "$ brinectl {t} status --region eu-central | jq '.items[] | select(.lag > 30)'",
    "$ psql \"$DATABASE_URL\" -c 'select count(*) from jobs where queue = '\"'\"'{t}'\"'\"''",
    "$ curl -sS -H 'Authorization: Bearer <token>' https://api.example.com/v1/{t} > /tmp/{t}.json",
    "$ for f in logs/*.log; do grep -c '{t}' \"$f\"; done",
    "$ make {t} ARGS='--dry-run' 2>&1 | tee build.log",
    "$ docker run --rm -v \"$PWD\":/src -w /src python:3.11 \\\n    python -m pytest -k {t} -x",
    "$ ssh deploy@{t}.internal 'sudo systemctl status {t}' # <host> from the inventory",
)
INLINE = (
    "Run `brinectl {t} status` before touching it.",
    "The flag is `--{t}-timeout=30s`, not `--timeout`.",
    "Set `{Q}_RETRIES=3` in the env file.",
    "Use `git log --oneline -- {t}/` to see who changed it.",
    "The config key is `{t}.{k}.enabled`.",
)
URLS = ("https://wiki.example.com/{t}", "https://github.com/example/{t}/issues/{n}",
        "https://grafana.example.com/d/{t}?orgId=1&from=now-6h")


class RealGen(_Gen):
    """`_Gen` with the real profile's names, plan, links and notes."""

    def __init__(self, notes: int, agents: int, seed: int) -> None:
        super().__init__(notes, agents, seed)
        self.defined = self.agent_names[::2]  # the others have notes but no definition
        self.index_notes = self._plan_indexes()

    def _note_name(self, used: dict[str, _Note]) -> str:
        r = self.rng
        base = super()._note_name(used)
        shape = r.random()
        if shape < 0.08:
            base = f"{r.choice(UNICODE_PREFIXES)}-{base}"
        elif shape < 0.20:
            base = "_".join((r.choice(("feedback", "project", "user", "reference")), *base.split("-")[:2]))
        elif shape < 0.25:
            base = " ".join(r.sample(TITLE_WORDS, 2)) + f" {r.choice(TOPICS).capitalize()}"
        name = base
        k = 2
        while name in used or name in self.taken:
            name = f"{base}-{k}"
            k += 1
        return name

    def _plan_indexes(self) -> set[int]:
        """One note a scope and one more every 150 notes become index notes (the workspace
        keeps its number of notes); their one heading is the title they are rendered with."""
        out: set[int] = set()
        for scope, notes in self.scopes.items():
            for note in notes[::150]:
                note.type, note.headings = "reference", [f"{scope} memory"]
                out.add(id(note))
        return out

    # -- links ---------------------------------------------------------------------------

    def _link(self, note: _Note) -> str:
        r = self.rng
        c = self.counts
        if r.random() >= 0.20 or note.scope == "shared":
            return super()._link(note)
        c.links += 1
        c.cross += 1
        roll = r.random()
        if roll < 0.08:  # an agent with no folder at all
            c.missing += 1
            return f"[[{r.choice(GHOST_AGENTS)}/{r.choice(self.missing)}]]"
        other = r.choice(self.agent_names)
        if roll < 0.58:  # a name that lives in a third scope, or nowhere
            third = r.choice(list(self.scopes))
            name = r.choice(self.scopes[third]).name if self.scopes[third] else r.choice(self.missing)
            if name not in self.by_name[other]:
                c.missing += 1
                return f"[[{other}/{name}]]"
        target = r.choice(self.scopes[other])
        if r.random() < 0.15 and target.headings:
            c.anchor += 1
            return f"[[{other}/{target.name}#{r.choice(target.headings)}]]"
        return f"[[{other}/{target.name}]]"

    # -- notes ---------------------------------------------------------------------------

    def render(self, note: _Note) -> str:
        if id(note) in self.index_notes:
            return self._render_index(note)
        r = self.rng
        pool = self.sentences
        heads = note.headings
        size = int(math.exp(r.uniform(math.log(400), math.log(6000))))
        kind = r.random()  # a third with fenced code, a third with inline code, a third prose
        paras: list[list[str]] = [[pool[r.randrange(len(pool))][0]] for _ in range(len(heads) + 1)]
        for _ in range(r.randint(3, 10)):
            sentence = r.choice(LINK_SENTENCES).format(
                l=self._link(note), p=r.choice(PEOPLE), q=r.choice(QUALIFIERS)
            )
            at = r.randrange(len(paras))
            if 1 / 3 <= kind < 2 / 3 and r.random() < 0.5:  # inline code beside the link
                sentence += " " + self._fill(r.choice(INLINE))
            paras[at].append(sentence)
        if r.random() < 0.10:
            paras[r.randrange(len(paras))].append(f"See [the docs]({self._url()}) or {self._url()}.")
        if r.random() < 0.1:
            paras[r.randrange(len(paras))].append(r.choice(UNICODE_SENTENCES).format(t=r.choice(TOPICS)))

        blocks: list[str | int] = []
        if r.random() < 0.9:
            blocks += ["---"]
            if r.random() < 0.5:
                blocks.append(f"name: {json.dumps(note.name, ensure_ascii=False)}")
            blocks += [f"description: {self._description()}", f"type: {note.type}"]
            if r.random() < 0.2:
                blocks.append(f"tags: [{r.choice(TOPICS)}, {r.choice(QUALIFIERS)}]")
            blocks += ["---", ""]
        blocks.append(0)
        table_at = r.randrange(len(heads)) if r.random() < 1 / 7 else -1
        code_at = {r.randrange(len(heads)) for _ in range(r.randint(1, 3))} if kind < 1 / 3 else set()
        for i, heading in enumerate(heads):
            blocks += ["", f"## {heading}", "", i + 1]
            if i == table_at:
                blocks += ["", *self._table(note)]
            if i in code_at:
                blocks += ["", *self._real_code()]

        def text(block: str | int) -> str:
            return block if isinstance(block, str) else " ".join(paras[block])

        total = sum(len(text(b).encode("utf-8")) for b in blocks) + len(blocks)
        while total < size:
            sentence, n = pool[r.randrange(len(pool))]
            paras[r.randrange(len(paras))].append(sentence)
            total += n
        return "\n".join(text(b) for b in blocks) + "\n"

    def _url(self) -> str:
        return self.rng.choice(URLS).format(t=self.rng.choice(TOPICS), n=self.rng.randint(1, 9999))

    def _table(self, note: _Note) -> list[str]:
        r = self.rng
        rows = ["| Name | Owner | Status | Notes |", "|---|---|:---:|---|"]
        for _ in range(r.randint(3, 8)):
            cell = self._link(note) if r.random() < 0.5 else f"`{r.choice(TOPICS)}`"
            cell = cell.replace("|", "\\|")  # a label's `|` inside a table cell
            rows.append(f"| {cell} | {r.choice(PEOPLE)} | {r.choice(('ok', 'todo', '⚠️'))} | "
                        f"{self._fill('{Q} {t} {k}')} |")
        return rows

    def _real_code(self) -> list[str]:
        r = self.rng
        if r.random() < 0.5:
            lines = [r.choice(SHELL).format(t=r.choice(TOPICS)) for _ in range(r.randint(1, 6))]
            body = "\n".join(lines).split("\n")
            if r.random() < 0.3:
                body += ["# output:", *(f"{r.choice(TOPICS):<12} {r.randint(0, 999):>5}  ok"
                                        for _ in range(r.randint(2, 8)))]
            fence = ["```bash", *body, "```"]
        else:
            fence = self._code_block()
            if r.random() < 0.5:
                lang = r.choice(CODE_LANGS)
                extra = [f"    # step {i}: {self._fill('{t} {k}')}" for i in range(r.randint(2, 12))]
                fence = [fence[0].replace(fence[0][3:], lang), *fence[1:-1], *extra, "```"]
        return fence

    def _render_index(self, note: _Note) -> str:
        r = self.rng
        own = self.scopes[note.scope]
        lines = ["---", f"description: Index of the {note.scope} memory", "type: reference", "---",
                 "", f"# {note.headings[0]}", ""]
        heading_every = r.randint(20, 60)
        for i in range(r.randint(150, 600)):
            if i % heading_every == 0:
                lines += ["", f"## {r.choice(TOPICS).capitalize()}", ""]
            self.counts.links += 1
            if r.random() < 0.1:
                self.counts.missing += 1
                target = r.choice(self.missing)
            else:
                target = r.choice(own).name
            lines.append(f"- [[{target}]] — {self._description()}")
        return "\n".join(lines) + "\n"


def generate_real(out_dir: Path, notes: int, agents: int, seed: int) -> WorkloadInfo:
    """The real profile's workspace in `out_dir` (already prepared by `workload.generate`)."""
    g = RealGen(notes, agents, seed)
    r = g.rng

    def stamp() -> int:
        return EPOCH - r.randrange(MAX_AGE)

    for sub in ("agents", "workflows", "chats", "work-items"):
        (out_dir / sub).mkdir()
    for name in g.defined:
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
        (out_dir / "memory" / scope).mkdir(parents=True)
        for note in scope_notes:
            rel = f"memory/{scope}/{note.name}.md"
            total += _write(out_dir / rel, g.render(note), stamp())
            paths.append(rel)
    c = g.counts
    info = WorkloadInfo(
        root=out_dir, notes=len(paths), agents=len(g.agent_names), seed=seed,
        shared_notes=len(g.scopes["shared"]), links=c.links, missing_links=c.missing,
        anchor_links=c.anchor, label_links=c.label, embed_links=c.embed, entity_links=c.entity,
        cross_scope_links=c.cross, duplicate_names=g.duplicates, workflows=len(g.workflows),
        chats=len(g.chats), work_items=len(g.work_items), bytes=total,
        agent_names=list(g.agent_names), note_paths=paths, missing_targets=list(g.missing),
    )
    marker = {**info.summary(), "profile": "real", "index_notes": len(g.index_notes),
              "defined_agents": len(g.defined)}
    _write(out_dir / MARKER, json.dumps(marker, indent=2, ensure_ascii=False) + "\n", EPOCH)
    return info
