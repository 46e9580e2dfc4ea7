"""A small workspace with one private secret, for privacy and front-end tests."""

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
