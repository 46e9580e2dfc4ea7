"""A first sync in parts resolves links against the whole walk's names (brain/ingest/parts.py):
the graph is the one a single batch gives in every layout, and links are not re-resolved
between parts but for what the paths cannot tell (anchors of later notes, binary `.md`)."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.ingest import ingester as ingest
from brain.ingest import parse_helpers
from brain.ingest.parts import PartWriter, WalkNames
from brain.layouts import LATCHAI, SPACE
from brain.model import AgentNode, Kind, Link, LinkStatus
from brain.resolve import NameEntry
from brain.service.brain import Brain
from brain.store import linking
from brain.store.base import MemoryFilter
from brain.store.memory.store import MemoryStore
from tests.layout_specs import SPECS, LayoutSpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def layout_workspace(root: Path, spec: LayoutSpec, count: int = 24) -> None:
    """Notes of three scopes linking forwards and backwards across parts: to names split
    across scopes (ambiguous, or out of reach), anchors and blocks of later notes, missing
    notes and anchors, scope- or folder-qualified names, and what each layout adds."""
    root.mkdir(parents=True, exist_ok=True)
    spec.prepare(root)
    rng = random.Random(11)
    scopes = spec.scopes
    folder = "drafts/" if spec.name == "space" else ""  # space: notes in folders, path links
    names = [f"{folder if i % 3 == 0 else ''}n{i:02d}" for i in range(count)]
    files: dict[str, str] = {}
    for i, name in enumerate(names):
        leaf = name.rsplit("/", 1)[-1]
        later = names[min(count - 1, i + 1 + rng.randrange(count))]
        later_leaf = later.rsplit("/", 1)[-1]
        links = [
            f"[[{rng.choice(names).rsplit('/', 1)[-1]}]]",  # anywhere: earlier, same or later part
            f"[[{later_leaf}]]",
            f"[[{later_leaf}#Part {rng.randint(0, 2)}]]",  # a heading of a later note, or none
            f"[[{later_leaf}#^b{rng.randrange(count)}]]",  # a block of a later note, or none
            f"[[gone-{i % 3}]]", f"[[gone-{i % 3}#x]]",  # missing, with and without an anchor
            f"[[{rng.choice(scopes)}/{rng.choice(names)}]]",  # scope- (space: folder-) qualified
            f"[[/{later}]]", f"[[{later}]]",  # space: the root's and a folder's path
            f"[[{scopes[1]}]]", "[[w1]]", "[[workflow:w1]]", "[[blob]]", "[[blob.md]]",
            "[[data.csv]]", "[[2026-01-05]]", "[[2026-01-06#Day]]", "[[beta]]", "[[tool:beta]]",
            "[[MEMORY]]", "[[dup]]", "[[c1]]",
            f"[[#Part {i % 2}]]",
        ]
        text = (f"---\ndescription: note {i}\n---\n# Part {i % 2}\n\n" + " ".join(links)
                + f" ^b{i}\n")
        files[spec.note(scopes[i % 3], name)] = text
        if i % 4 == 0:  # the same name in another scope: ambiguous, or another agent's
            files[spec.note(scopes[(i + 2) % 3], name)] = f"# Part 2\ncopy [[{names[-1]}]]\n"
        if i % 4 == 0 and folder:  # space: and in another folder of the same tree
            files[spec.note(scopes[i % 3], f"other/{leaf}")] = f"# Part 1\n[[{leaf}]]\n"
    extras = {
        "latchai": {"agents/ann.md": "---\nmemory: true\n---\nann\n",
                    "workflows/w1.md": "# W1\n", "chats/c1.md": "# c1\n",
                    "workflows/dup.md": "# Dup\n", "chats/dup.md": "# Dup\n"},
        "space": {"ann/memory/data.csv": "a,b\n", "ann/memory/img/logo.png": "\x89PNG"},
        "mindlink": {"ann/memory/2026-01-05.md": "# Day\n[[n01]] [[n20#Part 1]]\n",
                     "ann/memory/2026-01-06.md": "# Day\n",
                     "ann/memory/entries/2026-01-05.md": "# Entry\n[[2026-01-05]]\n"},
        "lab": {"MEMORY.md": "# Main\n[[n01]] [[beta]]\n", "tools/beta/TOOL.md": "# Beta\n[[n22]]\n",
                "agents/ann/MEMORY.md": "# Ann\n[[MEMORY]]\n"},
    }[spec.name]
    files.update(extras)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if spec.name == "space":  # a binary `.md`: a File, which the paths alone took for a note
        (root / "ann/memory/blob.md").write_bytes(b"\x00\x01binary")


def graph(root: Path) -> tuple[object, ...]:
    return graph_and_anchored(root)[0]


def graph_and_anchored(root: Path) -> tuple[tuple[object, ...], int]:
    """The graph one batch builds of `root`, and its links with an anchor to another note
    (at most these are checked again): one ingest for both."""
    brain = Brain(root, MemoryStore())
    result = brain.sync()
    anchored = sum(1 for link in links_of(brain) if link.anchor is not None and link.target)
    return (brain.store.export(), brain.problems(), (result.parsed, len(result.changed_ids))), anchored


class Count:
    """Links resolved by `linking.plan`, and how many of them were stored links re-resolved."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.resolved = 0
        self.written = 0
        stored, plan = linking._stored, linking.plan

        def counting_stored(*args: object) -> object:
            self.resolved += 1
            return stored(*args)  # type: ignore[arg-type]

        def counting_plan(*args: object, **kwargs: object) -> object:
            batch = plan(*args, **kwargs)  # type: ignore[arg-type]
            self.written += sum(len(links) for links in batch.links.values())
            return batch

        monkeypatch.setattr(linking, "_stored", counting_stored)
        monkeypatch.setattr(ingest, "plan", counting_plan)
        monkeypatch.setattr("brain.ingest.parts.plan", counting_plan)

    @property
    def again(self) -> int:
        return self.resolved - self.written


def in_parts(monkeypatch: pytest.MonkeyPatch, size: int = 2) -> list[int]:
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parse_helpers, "CHUNK", 3)
    monkeypatch.setattr(PartWriter, "size", size)
    monkeypatch.setattr(ingest, "MEMORY_PART", size)  # the embedded store's own part size
    monkeypatch.setattr(ingest, "KEEP", 1)  # chunks left with the helpers: written sooner
    written: list[int] = []
    original = PartWriter.write

    def counting(self: PartWriter, notes: list[object]) -> None:
        written.append(len(notes))
        original(self, notes)  # type: ignore[arg-type]

    monkeypatch.setattr(PartWriter, "write", counting)
    return written


def stored_links(root: Path) -> list[Link]:
    """Every link of the graph a single batch builds of `root`."""
    brain = Brain(root, MemoryStore())
    brain.sync()
    return links_of(brain)


def links_of(brain: Brain) -> list[Link]:
    sources = [memory.id for memory in brain.store.list_memories(MemoryFilter())]
    return [link for links in brain.store.links_from(sources).values() for link in links]


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
@pytest.mark.parametrize("size", [1, 2, 5])
def test_parts_give_the_graph_of_one_batch_in_every_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: LayoutSpec, size: int
) -> None:
    layout_workspace(tmp_path, spec)
    whole, most = graph_and_anchored(tmp_path)
    written = in_parts(monkeypatch, size)
    count = Count(monkeypatch)
    assert graph(tmp_path) == whole
    assert len(written) >= 4  # really in parts
    assert count.again <= most  # no link re-resolved for a name the paths told


def test_the_workspace_covers_every_kind_of_answer(tmp_path: Path) -> None:
    """The generated workspaces do reach what the parted path must get right."""
    for spec in SPECS:
        root = tmp_path / spec.name
        layout_workspace(root, spec)
        links = stored_links(root)
        assert set(LinkStatus) <= {link.status for link in links}, spec.name
        assert any(link.status is LinkStatus.BROKEN and link.candidates for link in links) or (
            spec.name == "space")  # space: no other agent's tree is ever named
        assert any(link.anchor and link.status is LinkStatus.RESOLVED for link in links)
        kinds = Counter(link.target_id.split(":")[0] for link in links)
        assert {
            "latchai": {"memory", "workflow", "chat", "agent", "unresolved"},
            "space": {"memory", "file", "agent", "unresolved"},
            "mindlink": {"memory", "daily-note", "agent", "unresolved"},
            "lab": {"memory", "skill", "tool", "unresolved"},
        }[spec.name] <= set(kinds), spec.name


def examples() -> Iterator[Path]:
    for path in sorted(EXAMPLES.iterdir()):
        if path.is_dir():
            yield path


@pytest.mark.parametrize("example", list(examples()), ids=lambda p: p.name)
def test_parts_give_the_graph_of_one_batch_for_the_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example: Path
) -> None:
    root = tmp_path / example.name
    shutil.copytree(example, root, symlinks=True)
    whole = graph(root)
    in_parts(monkeypatch, 2)
    assert graph(root) == whole


def test_parts_no_longer_reresolve_what_the_paths_tell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planned against the store so far (no foresight), links to later parts were stored
    broken and re-resolved part after part; with the walk's names only anchors wait."""
    spec = SPECS[0]
    layout_workspace(tmp_path, spec, count=60)
    whole = graph(tmp_path)
    in_parts(monkeypatch, 3)
    count = Count(monkeypatch)
    assert graph(tmp_path) == whole
    foreseen = count.again
    monkeypatch.setattr(ingest, "walk_names", lambda *args: None)  # the path before
    count = Count(monkeypatch)
    assert graph(tmp_path) == whole
    assert count.again > 10 * max(foreseen, 1)


def test_walk_names_tell_what_they_got_wrong() -> None:
    memory = NameEntry("memory:ann/x", Kind.MEMORY, "x", "ann")
    agent = NameEntry("agent:ann", Kind.AGENT, "ann")
    twin = NameEntry("memory:bob/x", Kind.MEMORY, "x", "bob")
    names = WalkNames([memory, agent])
    assert list(names.lookup("x")) == [memory]  # one entry: held as it is
    assert names.lookup("y") == ()
    assert list(WalkNames([memory, agent, twin]).lookup("x")) == [memory, twin]
    assert names.wrong_keys() == {"x", "ann"}  # nothing written yet
    del names.unconfirmed[agent.id]
    assert names.wrong_keys() == {"x"}


def test_walk_names_confirm_each_node_as_foreseen_and_no_other() -> None:
    """A node written as foreseen leaves the wrong keys; one of a foreseen id written as
    another kind, a node never foreseen, and a second name of one id stay wrong."""
    agent = NameEntry("agent:ann", Kind.AGENT, "ann")
    other = NameEntry("agent:bob", Kind.AGENT, "bob")
    twice = NameEntry("agent:bob", Kind.AGENT, "robert")  # a second entry of bob's id
    unlike = NameEntry("agent:dan", Kind.MEMORY, "dan")  # foreseen as another kind
    names = WalkNames([agent, other, twice, unlike])
    assert names.wrong_keys() == {"ann", "bob", "robert", "dan"}
    names.confirm([AgentNode("dan", "", True, False, None)])
    assert names.wrong_keys() == {"ann", "bob", "robert", "dan"}
    names.confirm([AgentNode("ann", "", True, False, None)])
    assert names.wrong_keys() == {"bob", "robert", "dan"}
    names.confirm([AgentNode("bob", "", True, False, None), AgentNode("cy", "", True, False, None)])
    assert names.wrong_keys() == {"robert", "cy", "dan"}
    names.confirm([AgentNode("ann", "", True, False, None)])  # told twice: the second is a surprise
    assert names.wrong_keys() == {"robert", "cy", "dan", "ann"}


def test_walk_names_foresee_each_layouts_nodes(tmp_path: Path) -> None:
    """From the claimed paths alone: notes of every kind, plain files, entities, agents."""
    for spec, layout in ((SPECS[0], LATCHAI), (SPECS[1], SPACE)):
        root = tmp_path / spec.name
        layout_workspace(root, spec)
        brain = Brain(root, MemoryStore())
        brain.sync()
        foreseen = ingest.walk_names(layout, brain.ingester.claims, layout.scope_folders(root))
        store = brain.store
        assert isinstance(store, MemoryStore)
        held = set(store._names.every_entry())
        wrong = set(foreseen.unconfirmed.values()) ^ held
        # Only space's binary `.md` is foreseen wrong: a note by its path, a File by its bytes.
        expected = {"memory:ann/blob", "file:ann/blob.md"} if spec.name == "space" else set()
        assert {entry.id for entry in wrong} == expected
