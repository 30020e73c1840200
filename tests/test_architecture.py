"""The seams of the package: subpackages use each other's public names only, module-level imports
form no cycle, importing changes no global state, and the earlier module paths still import."""
import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import pyterrier_boot

PACKAGE = Path(pyterrier_boot.__file__).parent


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        yield path, parts, is_package


def _imports(tree, parts, is_package, top_level_only):
    """``(imported module parts, imported names)`` of every relative or absolute package import."""
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if node.level:
            base = parts if is_package else parts[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = base + (module.split(".") if module else [])
        elif module.split(".")[0] == "pyterrier_boot":
            target = module.split(".")[1:]
        else:
            continue
        yield target, [alias.name for alias in node.names]


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def test_no_module_imports_private_parts_of_another_subpackage():
    found = []
    for path, parts, is_package in _modules():
        top = parts[0] if parts and (len(parts) > 1 or is_package) else ""
        for target, names in _imports(ast.parse(path.read_text()), parts, is_package, top_level_only=False):
            if not target or target[0] == top:
                continue  # a package-level module (pyterrier_boot/_x.py) or the same subpackage
            if any(_private(p) for p in target[1:]) or any(_private(n) for n in names):
                found.append(f"{path.relative_to(PACKAGE)}: {'.'.join(target)} {names}")
    assert found == []


def test_no_function_is_over_60_lines():
    """pt_docs/architecture.md: functions read as their steps, none over 60 lines, docstring included."""
    long = [f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path, _, _ in _modules() for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60]
    assert not long, long


def test_module_level_imports_form_no_cycle():
    modules = {tuple(parts): (path, is_package) for path, parts, is_package in _modules()}
    graph = {}
    for key, (path, is_package) in modules.items():
        edges = set()
        for target, names in _imports(ast.parse(path.read_text()), list(key), is_package, top_level_only=True):
            for name in names:  # "from . import plotting" imports a module
                if tuple(target + [name]) in modules:
                    edges.add(tuple(target + [name]))
            if tuple(target) in modules and tuple(target) != key:
                edges.add(tuple(target))
        graph[key] = edges
    state, cycle = {}, []

    def visit(node, stack):
        state[node] = "open"
        for nxt in graph.get(node, ()):
            if nxt in key_of_packages(node):
                continue  # a module importing its own package's __init__ runs after it
            if state.get(nxt) == "open":
                cycle.append(stack + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    def key_of_packages(node):
        return {node[:i] for i in range(len(node))}

    for node in graph:
        if node not in state:
            visit(node, [node])
    assert cycle == []


def test_import_changes_no_global_state():
    # the libraries we build on first: their own import-time warning filters are not ours
    code = ("import decimal, warnings, numpy as np, scipy.stats, pandas, numba\n"
            "before = (decimal.getcontext().prec, list(warnings.filters), np.geterr(), np.get_printoptions())\n"
            "import pyterrier_boot.corpus.multiplicity, pyterrier_boot.stats.significance, pyterrier_boot.meta.quality.swap\n"
            "after = (decimal.getcontext().prec, list(warnings.filters), np.geterr(), np.get_printoptions())\n"
            "print(before == after)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent)
    assert out.stdout.strip() == "True"


def _modules_loaded_by(code):
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, cwd=PACKAGE.parent)
    return set(out.stdout.split())


def test_import_pyterrier_loads_the_plugin_without_its_heavy_dependencies():
    """``import pyterrier`` loads pyterrier_boot as ``pt.boot`` through its entry point: its names
    are loaded on first use, so numba, scipy and statsmodels wait for a call that needs them."""
    loaded = _modules_loaded_by("import pyterrier as pt\nassert pt.boot.__name__ == 'pyterrier_boot'")
    assert "pyterrier_boot" in loaded
    assert not {"numba", "scipy", "statsmodels", "matplotlib", "pyterrier_boot.measures"} & loaded


def test_evaluate_loads_numba_but_not_scipy_stats_statsmodels_or_pyterrier():
    """The first ``evaluate`` pays for numba (its kernels) and ir_measures (parsing the measures),
    not for modules it does not use (numba itself imports scipy.linalg)."""
    loaded = _modules_loaded_by("import pandas as pd\nfrom pyterrier_boot import evaluate\n"
                                "evaluate(pd.DataFrame({'qid': ['1'], 'docno': ['a'], 'score': [1.0]}), "
                                "pd.DataFrame({'qid': ['1'], 'docno': ['a'], 'label': [1]}), ['AP', 'nDCG@10'])")
    assert "numba" in loaded
    assert not {"scipy.stats", "statsmodels", "pyterrier", "matplotlib", "pyterrier_boot.stats"} & loaded


@pytest.mark.parametrize("old", sorted(importlib.import_module("pyterrier_boot.meta").MOVED))
def test_earlier_meta_module_paths_import_the_same_module(old):
    meta = importlib.import_module("pyterrier_boot.meta")
    earlier = importlib.import_module(f"pyterrier_boot.meta.{old}")
    now = importlib.import_module(f"pyterrier_boot.meta.{meta.MOVED[old]}")
    assert earlier is now
    assert now.__spec__.name == now.__name__ == f"pyterrier_boot.meta.{meta.MOVED[old]}"


def test_every_test_name_comes_from_the_registry():
    from pyterrier_boot.cli.evaluate import TESTS as CLI_TESTS
    from pyterrier_boot.experiment.experiment import TESTS as EXPERIMENT_TESTS
    from pyterrier_boot.meta.quality.discriminative_power import TESTS as DP_TESTS
    from pyterrier_boot.stats import registry
    from pyterrier_boot.stats.comparison import TESTS as COMPARE_TESTS

    assert set(COMPARE_TESTS) == set(registry.PAIRED) and set(DP_TESTS) == set(registry.TESTS)
    assert {registry.canonical(t) for t in CLI_TESTS} == set(registry.PAIRED)
    assert set(EXPERIMENT_TESTS.values()) == set(registry.PAIRED) and "paired-bootstrap" in EXPERIMENT_TESTS
    for name in registry.PAIRED:  # every paired test has its single-pair function and its vectorised core
        test = registry.TESTS[name]
        assert callable(test.function) and callable(test.core)
    assert registry.test_label("paired-bootstrap") == "paired bootstrap test"
    with pytest.raises(ValueError, match=r"'test' must be one of 'paired_bootstrap', .*; got 'student'"):
        registry.get_test("student")


def _import_graph(top_level_only):
    """``module -> modules it imports`` (imports in functions and under TYPE_CHECKING included
    unless ``top_level_only``: a reader follows all of them)."""
    modules = {tuple(parts): (path, is_package) for path, parts, is_package in _modules()}
    graph = {}
    for key, (path, is_package) in modules.items():
        edges = set()
        for target, names in _imports(ast.parse(path.read_text()), list(key), is_package, top_level_only):
            edges |= {tuple(target + [n]) for n in names if tuple(target + [n]) in modules}
            if tuple(target) in modules:
                edges.add(tuple(target))
        # a module importing its own package (``from .. import __version__``) is not a circle
        graph[key] = {e for e in edges if e != key[:len(e)]}
    return graph


def _import_circles(top_level_only):
    """Groups of modules that import each other in a circle (strongly connected components of the
    import graph, imports in functions and under TYPE_CHECKING included unless ``top_level_only``)."""
    graph = _import_graph(top_level_only)
    index, low, stack, circles = {}, {}, [], []

    def connect(node):  # Tarjan (1972)
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                circles.append(sorted(".".join(m) for m in group))

    for node in graph:
        if node not in index:
            connect(node)
    return circles


def test_leaderboards_import_in_one_direction():
    """board -> site, even counting imports inside functions: the site reads a board through a
    protocol, and Leaderboard.write calls it."""
    circles = [c for c in _import_circles(top_level_only=False) if any(m.startswith("leaderboards") for m in c)]
    assert circles == []
    assert _import_circles(top_level_only=True) == []


def _reachable(graph, start):
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


DRAWERS = ["plotting", "report", "experiment.storage"]


def test_results_import_none_of_the_modules_that_draw_or_store_them():
    """The result reads one way: plotting, the report and save/load import ``experiment.result``;
    it imports none of them (not in a function, not for a type), and no circle of imports touches
    it, them or the readable table (``experiment.display``, whose type ``display()`` names)."""
    graph = _import_graph(top_level_only=False)
    below = {".".join(m) for m in _reachable(graph, ("experiment", "result"))}
    assert [d for d in DRAWERS if d in below] == []
    for drawer in DRAWERS:  # they build on the result, not the other way
        assert "experiment.result" in {".".join(m) for m in _reachable(graph, tuple(drawer.split(".")))}
    watched = {"experiment.result", "experiment.display", *DRAWERS}
    assert [c for c in _import_circles(top_level_only=False) if watched & set(c)] == []


def test_every_result_method_that_draws_has_its_function():
    """``display()`` and every ``plot_*()`` method of a result reach the function of the module that
    draws it (wired by ``pyterrier_boot.experiment``), and draw what that function draws."""
    from pyterrier_boot import plotting
    from pyterrier_boot.experiment import display, result

    methods = {name for name in vars(result.ExperimentResult) if name.startswith("plot_")} | {"display"}
    assert set(result.VIEWS) == methods
    assert result.VIEWS["display"] is display.result_table
    assert all(result.VIEWS[name] is getattr(plotting, name) for name in methods - {"display"})
