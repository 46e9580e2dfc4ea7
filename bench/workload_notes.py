"""The notes of the benchmark workspace (bench/workload.py): which notes each scope gets, their
names and links, and the markdown of each note, agent, workflow, chat and work item.

`_Gen` draws every choice from one seeded random.Random, in a fixed order, so the same
arguments give the same bytes; bench/workload_real.py extends it for `--profile real`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass

if __package__:
    from . import workload_words as vocab
else:  # run as a script from bench/
    import workload_words as vocab  # type: ignore[no-redef]

MIN_BYTES = 1536
MAX_BYTES = 3072


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
        return f"{r.choice(vocab.QUALIFIERS)}-{r.choice(vocab.TOPICS)}-{r.choice(('train', 'sweep', 'sync'))}"

    def _chat_id(self, i: int) -> str:
        r = self.rng
        month = r.randint(8, 11)
        return f"2026-{month:02d}-{r.randint(1, 28):02d}-{r.choice(vocab.TOPICS)}-{r.choice(vocab.KINDS)}"

    def _note_name(self, used: dict[str, _Note]) -> str:
        r = self.rng
        shape = r.random()
        if shape < 0.45:
            base = f"{r.choice(vocab.TOPICS)}-{r.choice(vocab.KINDS)}"
        elif shape < 0.8:
            base = f"{r.choice(vocab.QUALIFIERS)}-{r.choice(vocab.TOPICS)}-{r.choice(vocab.KINDS)}"
        else:
            base = f"{r.choice(vocab.TOPICS)}-{r.choice(vocab.TOPICS)}-{r.choice(vocab.KINDS)}"
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
                    type=r.choice(vocab.TYPES),
                    headings=r.sample(vocab.HEADINGS, r.randint(3, 5)),
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
            name = f"{r.choice(vocab.QUALIFIERS)}-{r.choice(vocab.TOPICS)}-{r.choice(vocab.MISSING_KINDS)}"
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
        p, p2 = r.sample(vocab.PEOPLE, 2)
        q = r.choice(vocab.QUALIFIERS)
        return template.format(
            p=p,
            p2=p2,
            P=p,
            q=q,
            Q=q.capitalize(),
            t=r.choice(vocab.TOPICS),
            k=r.choice(vocab.KINDS),
            v=r.choice(vocab.VERBS),
            c=r.choice(vocab.CONDITIONS),
        )

    def _sentence_pool(self, size: int) -> list[tuple[str, int]]:
        pool: list[tuple[str, int]] = []
        for i in range(size):
            source = vocab.UNICODE_SENTENCES if i % 40 == 0 else vocab.SENTENCES
            s = self._fill(self.rng.choice(source))
            pool.append((s, len(s.encode("utf-8")) + 1))
        return pool

    def _description(self) -> str:
        text = self._fill(self.rng.choice(vocab.DESCRIPTIONS))
        if self.rng.random() < 0.05:
            text += vocab.LONG_TAIL
        return text + "."

    def _code_block(self) -> list[str]:
        r = self.rng
        lang = r.choice(vocab.CODE_LANGS)
        t = r.choice(vocab.TOPICS)
        if lang == "python":
            body = [
                f"def {t}_{r.choice(vocab.KINDS)}(job: Job) -> None:",
                f"    if job.attempt > {r.randint(2, 9)}:",
                f'        raise {t.capitalize()}Error("gave up")',
            ]
        elif lang == "yaml":
            body = [
                f"{t}:",
                f"  {r.choice(vocab.KINDS)}: {r.randint(1, 500)}",
                f"  owner: {r.choice(vocab.PEOPLE)}",
            ]
        elif lang == "bash":
            body = [f"brinectl {t} status --region {r.choice(('eu-central', 'us-east'))}"]
        elif lang == "json":
            body = [json.dumps({t: r.randint(1, 99), "kind": r.choice(vocab.KINDS)})]
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
                return f"[[{target}|{r.choice(vocab.TOPICS)} {r.choice(vocab.KINDS)}]]"
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
            text += f"|{label} on {r.choice(vocab.TOPICS)}"
        return f"[[{text}]]"

    # -- notes ---------------------------------------------------------------------------

    def render(self, note: _Note) -> str:
        r = self.rng
        pool = self.sentences
        heads = note.headings
        # paragraph 0 is the intro, paragraph i + 1 opens section i; each a list of sentences
        paras: list[list[str]] = [[pool[r.randrange(len(pool))][0]] for _ in range(len(heads) + 1)]
        items = [self._fill(r.choice(vocab.SENTENCES)) for _ in range(r.randint(3, 5))]
        for _ in range(r.randint(3, 8)):
            sentence = r.choice(vocab.LINK_SENTENCES).format(
                l=self._link(note), p=r.choice(vocab.PEOPLE), q=r.choice(vocab.QUALIFIERS)
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
                f"**Why:** {self._fill(r.choice(vocab.FEEDBACK_WHY))}.",
                f"**How to apply:** {self._fill(r.choice(vocab.FEEDBACK_HOW))}.",
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
            f"You are the {name} agent. {self._fill(vocab.SENTENCES[0])}\n"
        )

    def workflow_file(self, i: int, wid: str) -> tuple[str, str]:
        r = self.rng
        title = wid.replace("-", " ").capitalize()
        steps = [
            {
                "id": f"step-{j + 1}",
                "agent": r.choice(self.agent_names),
                "prompt": self._fill(r.choice(vocab.SENTENCES)),
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
                "author": r.choice(vocab.PEOPLE) if j % 2 == 0 else r.choice(self.agent_names),
                "content": self._fill(r.choice(vocab.MESSAGES)),
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
            data = {"title": title, "status": status, "assignee": r.choice(vocab.PEOPLE)}
            return ext, json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        head = f"title: {title}\nstatus: {status}\nassignee: {r.choice(vocab.PEOPLE)}\n"
        if ext == "md":
            return ext, f"---\n{head}---\n\n{self._fill(r.choice(vocab.SENTENCES))}\n"
        return ext, head


def _agent_names(count: int) -> list[str]:
    if count < 1:
        raise ValueError("agents must be at least 1")
    names = list(vocab.AGENT_NAMES[:count])
    names += [f"agent-{i:03d}" for i in range(len(names) + 1, count + 1)]
    return names
