"""The import-layer check (tools/layers/check.py) fails on what it must: an import up a layer,
a circle, a module in no layer. Trees of a few files, built per test. That brain itself passes
is the check's own run in `make lint`, `make check` and scripts/test (a test here repeated it,
the same call on the same tree, 2 s of a core)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("layers_check", REPO / "tools" / "layers" / "check.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["layers_check"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


check = _checker()


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for folder in {p.parent for p in tmp_path.rglob("*.py")}:
        (folder / "__init__.py").touch()
    return tmp_path


def test_an_import_up_a_layer_is_named_with_its_line(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "brain/model.py": "\n\nfrom brain.service.brain import Brain\n",
        "brain/service/brain.py": "from brain import model\n",
    })
    found = check.problems(root)
    assert found[0].startswith("brain/model.py:3: brain.model (base) imports brain.service.brain (service)")
    assert any("import circle: brain.model -> brain.service.brain" in line for line in found)


def test_a_lazy_import_inside_a_function_counts(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "brain/store/base.py": "def f():\n    from brain.api.http import app\n",
        "brain/api/http/app.py": "",
    })
    assert [line.split(":")[0] for line in check.problems(root)] == ["brain/store/base.py"]


def test_annotations_under_type_checking_do_not_count(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "brain/store/base.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from brain.api.http.app import App\n"
        ),
        "brain/api/http/app.py": "from brain.store import base\n",
    })
    assert check.problems(root) == []


def test_a_subcommand_parser_belongs_to_the_command_line(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "brain/maintain/cli.py": "from brain.cli import progress\n",
        "brain/cli/progress.py": "",
        "brain/maintain/run.py": "from brain.cli import progress\n",
    })
    assert [line.split(":")[0] for line in check.problems(root)] == ["brain/maintain/run.py"]


def test_a_circle_within_one_layer_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "brain/ingest/a.py": "from brain.ingest import b\n",
        "brain/ingest/b.py": "def f():\n    from brain.ingest import c\n",
        "brain/ingest/c.py": "from brain.ingest.a import x\n",
    })
    assert check.problems(root) == [
        "import circle: brain.ingest.a -> brain.ingest.b -> brain.ingest.c: move what they share into a "
        "module both import"
    ]


def test_a_module_in_no_layer_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"elsewhere/x.py": "", "brain/model.py": "import elsewhere.x\n"})
    assert check.problems(root) == []  # only brain's modules are placed
    with pytest.raises(ValueError, match="in no layer"):
        check.layer_of("brainstorm")


def test_the_architecture_page_draws_the_packages_as_they_are() -> None:
    page = (REPO / "docs" / "architecture.md").read_text()
    drawn = page.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert drawn == check.mermaid(REPO), "draw it again: python tools/layers/check.py --draw"


def test_a_view_that_imports_the_shell_that_loads_it_is_a_circle(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "web/src/main.ts": "import type { View } from './view';\nconst g = await import('./graph');\n",
        "web/src/view.ts": "export interface View {}\n",
        "web/src/graph.ts": "import type { View } from './main';\n",
    })
    assert check.problems(root) == [
        "import circle in the web UI: web.graph -> web.main: move what they share into a module both import"
    ]
