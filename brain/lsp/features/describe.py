"""Words for graph nodes, shared by completion, hover and symbols. Pure."""

from __future__ import annotations

from brain.model import (
    SHARED_SCOPE,
    AgentNode,
    EntityNode,
    Kind,
    MemoryNode,
)

TYPE_MEANINGS: dict[str, str] = {
    "user": "facts about the user: who they are, what they want, how they like to work",
    "feedback": "guidance for the agent: corrections and confirmed ways of doing things",
    "project": "facts about ongoing work: goals, decisions, deadlines, who does what",
    "reference": "pointers to where information lives: systems, documents, dashboards",
}
KEY_MEANINGS: dict[str, str] = {
    "description": "the one line every index shows (clipped at 120 characters)",
    "type": "one of user, feedback, project, reference",
}
KIND_WORDS: dict[Kind, str] = {
    Kind.MEMORY: "memory",
    Kind.DAILY_NOTE: "daily note",
    Kind.SKILL: "skill",
    Kind.TOOL: "tool",
    Kind.FILE: "file",
    Kind.WORKFLOW: "workflow",
    Kind.CHAT: "chat",
    Kind.WORK_ITEM: "work item",
    Kind.AGENT: "agent",
    Kind.UNRESOLVED: "missing note",
}
DAY = 86_400.0


def age_text(modified_at: float, now: float) -> str:
    """`today`, `yesterday`, `5 days ago`, `3 months ago`, `2 years ago`."""
    days = int(max(0.0, now - modified_at) // DAY)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    if days < 60:
        return f"{days} days ago"
    if days < 730:
        return f"{days // 30} months ago"
    return f"{days // 365} years ago"


def scope_words(scope: str) -> str:
    return "shared" if scope == SHARED_SCOPE else f"{scope}'s"


def kind_line(node: MemoryNode | EntityNode | AgentNode) -> str:
    """`memory · shared · feedback`, `workflow · Nightly release`, `agent · memory on`."""
    if isinstance(node, MemoryNode):
        if node.note_kind is not Kind.MEMORY:  # daily notes, skills and tools carry no type
            return f"{KIND_WORDS[node.note_kind]} · {node.scope}"
        return f"memory · {node.scope} · {node.type or 'no type'}"
    if isinstance(node, EntityNode):
        title = f" · {node.title}" if node.title != node.ident else ""
        return f"{KIND_WORDS[node.entity_kind]}{title}"
    return f"agent · memory {'on' if node.memory_enabled else 'off'}"


def path_kind_line(node: MemoryNode | EntityNode | AgentNode) -> str:
    """`kind_line` with only what a path tells (before indexing): `memory · shared`, `workflow`."""
    if isinstance(node, MemoryNode):
        return f"{KIND_WORDS[node.note_kind]} · {node.scope}"
    return KIND_WORDS[node.kind]


def description_of(node: MemoryNode | EntityNode | AgentNode) -> str:
    if isinstance(node, MemoryNode | AgentNode):
        return node.description
    return node.title


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def body_excerpt(body: str, max_lines: int = 8, max_chars: int = 600) -> str:
    """The first lines of a body: leading blank lines dropped, cut at a line or char budget."""
    lines = body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    taken: list[str] = []
    size = 0
    for line in lines:
        if len(taken) >= max_lines or size + len(line) > max_chars:
            taken.append("…")
            break
        taken.append(line)
        size += len(line) + 1
    while taken and not taken[-1].strip():
        taken.pop()
    return "\n".join(taken)


def code(text: str) -> str:
    """Inline markdown code that survives backticks in the text."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
