"""The dialect modules import in one direction: each imports alone, and their import graph has no cycle."""
import os
import re
import subprocess
import sys

import pytest

DIALECTS_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "dialects")
_IMPORT = re.compile(r"^\s*from rt\.compiler\.dialects(?:\.(\w+))? import (.+)$", re.MULTILINE)


def _modules():
    return sorted(f[:-3] for f in os.listdir(DIALECTS_DIR) if f.endswith(".py") and f != "__init__.py")


def import_graph():
    """module -> the set of sibling dialect modules it imports (at top level or inside a function)."""
    modules = set(_modules())
    graph = {}
    for module in modules:
        with open(os.path.join(DIALECTS_DIR, module + ".py")) as f:
            source = f.read()
        edges = set()
        for target, names in _IMPORT.findall(source):
            if target:
                edges.add(target)
            else:
                edges |= {n.split(" as ")[0].strip() for n in names.split(",")} & modules
        graph[module] = edges - {module}
    return graph


def find_cycle(graph):
    """One import cycle as a list of modules (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_find_cycle_reports_a_cycle_and_accepts_a_dag():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_graph_sees_the_known_edges():
    graph = import_graph()
    assert "hal_attrs" in graph["util"]
    assert "_syntax" in graph["hal"] or "_format" in graph["hal"]
    assert "hal_channel" in graph["hal"]


def test_dialect_import_graph_has_no_cycle():
    assert find_cycle(import_graph()) is None


@pytest.mark.parametrize("module", _modules())
def test_each_dialect_module_imports_alone(module):
    code = f"import rt.compiler.dialects.{module} as m; print(m.__name__)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"rt.compiler.dialects.{module}"
