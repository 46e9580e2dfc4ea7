"""docs/deploy.md's pieces work as shipped: the systemd unit passes `systemd-analyze verify`
(with ExecStart pointed at the brain under test), its command line is one brain accepts, and
the example operator config loads with the values the page explains."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from brain.cli.main import build_parser
from brain.config.operator import load_settings

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "docs" / "deploy" / "brain.service"
PAGE = REPO / "docs" / "deploy.md"
SHIPPED = "/opt/brain/venv/bin/brain"


def exec_start(text: str) -> list[str]:
    found = re.search(r"^ExecStart=(.+)$", text, flags=re.M)
    assert found is not None
    return shlex.split(found.group(1))


def installed_brain() -> Path:
    beside = Path(sys.executable).with_name("brain")
    found = beside if beside.is_file() else Path(shutil.which("brain") or "")
    assert found.is_file(), "no `brain` executable beside the interpreter or on PATH"
    return found


def verify(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    unit = tmp_path / "brain.service"
    unit.write_text(unit_text)
    analyze = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"
    return subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)


def test_the_unit_verifies(tmp_path: Path) -> None:
    shipped = UNIT.read_text()
    assert exec_start(shipped)[0] == SHIPPED
    done = verify(shipped.replace(SHIPPED, str(installed_brain())), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", done.stderr  # not even a warning (a typo is one)


def test_a_broken_unit_is_caught(tmp_path: Path) -> None:
    """The check above can fail: a misspelt value and a missing executable both show."""
    shipped = UNIT.read_text().replace(SHIPPED, str(installed_brain()))
    assert "Failed to parse" in verify(shipped.replace("RestartSec=5", "RestartSec=five"), tmp_path).stderr
    assert verify(UNIT.read_text().replace(SHIPPED, str(tmp_path / "nope")), tmp_path).returncode != 0


def test_the_units_command_is_one_brain_takes() -> None:
    words = exec_start(UNIT.read_text())
    args = build_parser().parse_args(words[1:])
    assert args.command == "serve"
    assert str(args.config) == "/etc/brain/brain.toml"
    assert "RestartPreventExitStatus=2" in UNIT.read_text()  # a wrong setting is not retried


def test_the_pages_operator_config_loads(tmp_path: Path) -> None:
    block = re.search(r"```toml\n(# /etc/brain/brain\.toml.*?)```", PAGE.read_text(), flags=re.S)
    assert block is not None
    ops = tmp_path / "brain.toml"
    ops.write_text(block.group(1))
    settings = load_settings({}, config=ops)
    assert settings.store.kind == "neo4j"
    assert settings.serve.allowed_hosts == ("brain.example.org",)
    assert settings.log.format == "json"
    assert settings.budgets.note_bytes == 1048576

