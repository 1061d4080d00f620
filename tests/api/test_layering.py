"""The package's layers stay in order (docs/ARCHITECTURE.md §1): ``rt.runtime``, ``rt.devices``
and ``rt.compiler`` import nothing from the API layer ``rt/``, and the API modules import each
other in one direction only (no cycles, counting imports inside functions too)."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
API = {p.stem for p in (ROOT / "rt").glob("*.py")} | {p.stem for p in (ROOT / "rt").glob("*.pyx")}


def _imports(path):
    """Every module name ``path`` imports, at top level or inside functions."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _api_module(name):
    parts = name.split(".")
    if parts[0] == "rt" and len(parts) > 1 and parts[1] in API:
        return parts[1]
    return None


def test_lower_layers_import_nothing_from_the_api_layer():
    offenders = []
    for folder in ("runtime", "devices", "compiler"):
        for path in (ROOT / folder).rglob("*.py"):
            used = sorted({m for m in map(_api_module, _imports(path)) if m})
            if used:
                offenders.append(f"{path.relative_to(ROOT)} imports rt.{', rt.'.join(used)}")
    assert offenders == []


def test_api_modules_import_each_other_without_cycles():
    graph = {}
    for path in (ROOT / "rt").glob("*.py"):
        graph[path.stem] = {m for m in map(_api_module, _imports(path)) if m and m != path.stem}
    cycles = sorted(f"rt.{a} <-> rt.{b}" for a in graph for b in graph[a]
                    if a < b and a in graph.get(b, ()))
    assert cycles == []
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack + [node, nxt]))
            if nxt not in state:
                visit(nxt, stack + [node])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
