"""Neovim's root markers (lsp/nvim/brain.lua `find_root`): brain.toml, else memory/, in a real
headless Neovim."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.lsp.test_nvim import NVIM, PLUGIN, pytestmark  # noqa: F401  (the same skip rules)


def roots(files: list[Path], touch: list[str], base: Path) -> list[str | None]:
    for rel in touch:
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text("layout = \"space\"\n" if rel.endswith(".toml") else "x\n")
    out = base / "roots.json"
    lua = (
        f"local brain = dofile({json.dumps(str(PLUGIN))}) "
        f"local files = vim.fn.json_decode({json.dumps(json.dumps([str(f) for f in files]))}) "
        "local out = {} for _, f in ipairs(files) "
        "do table.insert(out, brain.find_root(f) or vim.NIL) end "
        f"vim.fn.writefile({{vim.fn.json_encode(out)}}, {json.dumps(str(out))}) vim.cmd('qa!')"
    )
    assert NVIM is not None
    subprocess.run([NVIM, "--headless", "--clean", "-n", "-c", f"lua {lua}"], timeout=60, check=True,
                   capture_output=True)
    found: list[str | None] = json.loads(out.read_text())
    return found


def test_brain_toml_is_a_root_marker_and_wins_over_an_agents_memory(tmp_path: Path) -> None:
    ws, lab, old = tmp_path / "ws", tmp_path / "lab", tmp_path / "old"
    found = roots(
        [ws / "alice/memory/drafts/plan.md", lab / "skills/deploy/SKILL.md", old / "memory/bot/x.md",
         tmp_path / "elsewhere/x.md"],
        touch=["ws/brain.toml", "ws/alice/memory/drafts/plan.md", "lab/brain.toml",
               "lab/skills/deploy/SKILL.md", "old/memory/bot/x.md", "elsewhere/x.md"],
        base=tmp_path,
    )
    assert found == [str(ws), str(lab), str(old), None]
