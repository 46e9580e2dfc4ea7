"""Small workspaces of agents alice and bob: one with a private secret, for privacy and
front-end tests, and `alice_and_bob` of any files, for the reach of mentions and related notes."""

from __future__ import annotations

from pathlib import Path

from tests.contract.helpers import Workspace

SECRET_WORD = "zebracorn"


def private_workspace(root: Path) -> Workspace:
    """Agents alice and bob with memory on; alice keeps a private note bob must never see."""
    ws = Workspace(root)
    for agent in ("alice", "bob"):
        ws.write(f"agents/{agent}.md", f"---\nname: {agent}\nmemory: true\n---\n{agent}\n")
    ws.write(
        "memory/alice/launch-codes.md",
        f"---\ndescription: Alice's private {SECRET_WORD} plan\ntype: project\n---\n"
        f"The {SECRET_WORD} rollout ships on Friday. Deployment happens at night.\n",
    )
    ws.write(
        "memory/bob/deploy-notes.md",
        "---\ndescription: How bob deploys\ntype: reference\n---\nDeploy with the blue-green switch.\n",
    )
    ws.write(
        "memory/shared/release-calendar.md",
        "---\ndescription: Release days for everyone\ntype: reference\n---\nReleases ship on Friday.\n",
    )
    return ws


def alice_and_bob(root: Path, files: dict[str, str]) -> Path:
    """Agents alice and bob with memory on, and `files` (workspace path -> text)."""
    (root / "agents").mkdir(parents=True, exist_ok=True)
    for agent in ("alice", "bob"):
        (root / "agents" / f"{agent}.md").write_text("---\nmemory: true\n---\n", encoding="utf-8")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
