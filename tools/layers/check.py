"""brain's import layers: every import runs down (or within its layer), and no module imports
round in a circle. `make lint` runs this; tests/unit/test_layers.py plants violations.

The layers are the README's architecture (docs/architecture.md), bottom first. A module is
placed by the first rule whose prefix it starts with; a subcommand's own parser module
(`brain.maintain.cli`, ...) belongs to the command line, whatever package it sits in.
Imports under `if TYPE_CHECKING:` are annotations only (strawberry's lazy types use them),
so they run no code and count for neither rule.

    python tools/layers/check.py [ROOT]            exit 1 and one line per violation
    python tools/layers/check.py --mermaid [ROOT]  the package graph docs/architecture.md shows
    python tools/layers/check.py --draw            draw it again into docs/architecture.md
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# (layer, module prefixes), bottom first. A module matches the longest prefix of any layer.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("brain", "brain.model", "brain.allocator", "brain.gcpause", "brain.metrics",
              "brain.snapshot.cachepaths", "brain.parse.native")),
    ("parse", ("brain.parse", "brain.resolve")),
    ("workspace", ("brain.config", "brain.workspace", "brain.layouts", "brain.rules")),
    ("index", ("brain.index",)),
    ("store", ("brain.store",)),
    ("search", ("brain.search",)),
    ("ingest", ("brain.ingest", "brain.snapshot")),
    ("service", ("brain.service", "brain.tool", "brain.maintain", "brain.integrations")),
    ("front ends", ("brain.api", "brain.lsp", "brain.mcp")),
    ("command line", ("brain.cli", "brain.maintain.cli", "brain.mcp.cli", "brain.search.cli",
                      "brain.tool.cli", "brain.tool.layouts.cli", "brain.__main__")),
)


# Circles kept on purpose, each with why. A circle that grows, shrinks or is new fails.
ALLOWED_CIRCLES: dict[frozenset[str], str] = {
    frozenset({
        "brain.api.graph.connections", "brain.api.graph.links", "brain.api.graph.nearby",
        "brain.api.graph.nodes",
    }): (
        "GraphQL object types are a graph: a Memory has links, a link lands on a Memory or an Agent, "
        "an Agent's memories are a connection of Memories, a Memory's related notes are Memories. "
        "Annotations are strawberry.lazy; only resolvers import the other module, when they run."
    ),
}


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    if rank < 0:
        raise ValueError(f"{module} is in no layer: add it to LAYERS in tools/layers/check.py")
    return rank


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node but what sits under `if TYPE_CHECKING:`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imports(root: Path) -> list[Import]:
    """Every import of a brain module by a brain module, resolved to the module it loads."""
    known = {module_name(root, p) for p in (root / "brain").rglob("*.py")}
    found: list[Import] = []
    for path in sorted((root / "brain").rglob("*.py")):
        source = module_name(root, path)
        package = source if path.name == "__init__.py" else source.rpartition(".")[0]
        for node in _nodes(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            for target in targets:
                if target in known and target != source:
                    found.append(Import(source, target, node.lineno))
    return found


def upward(found: list[Import]) -> list[Import]:
    """The imports that run up a layer, the first of each (source, target) pair."""
    seen: set[tuple[str, str]] = set()
    up: list[Import] = []
    for i in sorted(found, key=lambda i: (i.source, i.line)):
        if layer_of(i.target) > layer_of(i.source) and (i.source, i.target) not in seen:
            seen.add((i.source, i.target))
            up.append(i)
    return up


def circles(found: list[Import]) -> list[list[str]]:
    """The import circles among modules (strongly connected components of two or more)."""
    graph: dict[str, set[str]] = {}
    for i in found:
        # A package's __init__ importing its own modules is how a package names them, not a
        # circle of design: leave out edges from a package to its children.
        if not i.target.startswith(i.source + "."):
            graph.setdefault(i.source, set()).add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found_circles: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        # Tarjan's algorithm, iteratively: brain's import graph is deep enough to matter.
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found_circles.append(sorted(component))
    return found_circles


_TS_IMPORT = re.compile(r"""(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\./[\w./-]+)['"]"""
                        r"""|\bimport\(\s*['"](\./[\w./-]+)['"]\s*\)""")


def web_imports(root: Path) -> list[Import]:
    """The web UI's imports of its own modules (web/src), type-only and dynamic ones too: a
    view and the shell that loads it must not import each other."""
    found: list[Import] = []
    for path in sorted((root / "web" / "src").glob("*.ts")):
        text = path.read_text(encoding="utf-8")
        for match in _TS_IMPORT.finditer(text):
            target = (match.group(1) or match.group(2)).removeprefix("./").removesuffix(".js")
            found.append(Import(f"web.{path.stem}", f"web.{target}", text.count("\n", 0, match.start()) + 1))
    return found


def problems(root: Path) -> list[str]:
    found = imports(root)
    lines = [
        f"{i.source.replace('.', '/')}.py:{i.line}: {i.source} ({LAYERS[layer_of(i.source)][0]}) "
        f"imports {i.target} ({LAYERS[layer_of(i.target)][0]}), a layer above it: move the shared "
        "piece down to the layer that owns it"
        for i in upward(found)
    ]
    lines += [f"import circle: {' -> '.join(c)}: move what they share into a module both import"
              for c in circles(found) if frozenset(c) not in ALLOWED_CIRCLES]
    if (root / "web" / "src").is_dir():
        lines += [f"import circle in the web UI: {' -> '.join(c)}: move what they share into a module "
                  "both import" for c in circles(web_imports(root))]
    return lines


def package_of(module: str) -> str:
    """The box a module is drawn in: its package under brain/ (`brain.store.memory.store` -> `store`),
    a root module its own (`brain.model` -> `model`), and every subcommand's parser `cli`."""
    if layer_of(module) == len(LAYERS) - 1:
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "brain"


def mermaid(root: Path) -> str:
    """The packages as a Mermaid graph, by layer (top first), an arrow for each package that
    imports another at run time; arrows into the base layer (which everything imports) are
    left out."""
    found = [i for i in imports(root) if "brain" not in (package_of(i.source), package_of(i.target))]
    layer: dict[str, int] = {}
    for i in found:
        for module in (i.source, i.target):
            layer[package_of(module)] = layer_of(module if package_of(module) == "cli" else
                                                 "brain." + package_of(module))
    edges = sorted({(package_of(i.source), package_of(i.target)) for i in found
                    if package_of(i.source) != package_of(i.target) and layer[package_of(i.target)] > 0})
    lines = ["flowchart TD"]
    for index in range(len(LAYERS) - 1, -1, -1):
        members = sorted(p for p, at in layer.items() if at == index)
        if members:
            lines += [f'  subgraph L{index}["{LAYERS[index][0]}"]', f"    {' & '.join(members)}", "  end"]
    lines += [f"  {a} --> {b}" for a, b in edges]
    return "\n".join(lines) + "\n"


def draw(root: Path) -> None:
    """docs/architecture.md's picture, drawn again from the code."""
    page = root / "docs" / "architecture.md"
    head, rest = page.read_text().split("```mermaid\n", 1)
    page.write_text(head + "```mermaid\n" + mermaid(root) + "```" + rest.split("```", 1)[1])


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] == "--draw":
        draw(Path(__file__).resolve().parents[2])
        return 0
    if len(argv) > 1 and argv[1] == "--mermaid":
        root = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parents[2]
        print(mermaid(root), end="")
        return 0
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2]
    found = problems(root)
    for line in found:
        print(line)
    print(f"layers: {len(found)} problem(s)" if found else "layers: every import runs down, no circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
