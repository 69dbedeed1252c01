"""The house can be read from the tree: public import paths and the layering.

Three products (abstain ``_selective``, the command line ``_cli``, estimate
without labels ``_shift``) stand on ``confidence``, ``metrics`` and
``datasets``, which stand on one utility layer ``_utils``. The rules below are
checked on the import statements of every module, so a change that breaks one
fails here with the module and the line.
"""

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

import sklearn_selective

PACKAGE = Path(sklearn_selective.__file__).resolve().parent
PRODUCTS = ("_selective", "_shift", "_cli")
FOUNDATIONS = ("confidence", "metrics", "datasets")

# Private modules of the foundations that a product may import, and why.
# Everything else a product takes from them goes through their public names.
SHARED_PRIVATE = {
    # The risk-coverage core: the threshold policies are functions of the
    # validation curve, ATC's threshold is a rule on tie groups.
    "sklearn_selective.metrics._core._group_stats",
    # The coverage and risk of one threshold (the working point a fit marks).
    "sklearn_selective.metrics._core._threshold_point",
    # One set of bootstrap resamples shared by the metrics of a prediction file.
    "sklearn_selective.metrics._shared_resamples",
    # Several statistics bootstrapped on the same resamples (a cascade's report).
    "sklearn_selective.metrics._bootstrap_statistics",
    # The one registry of metrics (function, direction, needs), read by the
    # command line's table of metric names.
    "sklearn_selective.metrics._metric_registry",
    # The tree of merges of mergeable states on Dask (evaluate --dask merges
    # the states of its partitions in the tree the metric functions use).
    "sklearn_selective.metrics._dask",
    # Which model output a CSF reads, and whether a model can give it.
    "sklearn_selective.confidence._model_output",
    "sklearn_selective.confidence._registry",
    # Feature-space CSFs fitted on each training fold of a meta-estimator.
    "sklearn_selective.confidence._feature_space",
    # The one room of probability calibrators (cost rule, monitor, per class).
    "sklearn_selective.confidence._calibrators",
}

# Every public name and the path users import it from.
PUBLIC = {
    "sklearn_selective": sklearn_selective.__all__,
    "sklearn_selective.metrics": sklearn_selective.metrics.__all__,
    "sklearn_selective.confidence": sklearn_selective.confidence.__all__,
    "sklearn_selective.datasets": sklearn_selective.datasets.__all__,
}


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts), path.name == "__init__.py"


def _imports(path):
    """``(line, module, names)`` of every import of ``path``, absolute."""
    name, is_package = _module_name(path)
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            yield node.lineno, module, tuple(alias.name for alias in node.names)


def _room(module):
    """The top-level room of a package module: ``'_utils'``, ``'metrics'``..."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


MODULES = sorted(PACKAGE.rglob("*.py"))


def _targets(module, names):
    """The package modules an import statement reaches (``from . import x``
    reaches the submodule ``x`` when there is one)."""
    found = [module]
    if _is_package(module):
        found += [
            f"{module}.{name}"
            for name in names
            if importlib.util.find_spec(f"{module}.{name}") is not None
        ]
    return found


def _is_package(module):
    spec = importlib.util.find_spec(module)
    return spec is not None and spec.submodule_search_locations is not None


def _violations(rule):
    found = []
    for path in MODULES:
        source, _ = _module_name(path)
        for line, module, names in _imports(path):
            for target in _targets(module, names):
                message = rule(source, target, names)
                if message:
                    found.append(
                        f"{path.relative_to(PACKAGE.parent)}:{line}: {message}"
                    )
    return found


def test_every_public_name_imports_from_its_documented_path():
    missing = []
    for path, names in PUBLIC.items():
        module = importlib.import_module(path)
        # In the module's namespace, not produced by a module-level __getattr__.
        missing += [f"{path}.{name}" for name in names if name not in vars(module)]
    assert missing == []
    assert len(PUBLIC["sklearn_selective.metrics"]) >= 26
    assert {"SelectiveClassifier", "PerformanceMonitor", "ATCEstimator"} <= set(
        PUBLIC["sklearn_selective"]
    )


def test_utils_import_nothing_else_from_the_package():
    def rule(source, target, names):
        inside = target.startswith("sklearn_selective")
        if _room(source) == "_utils" and inside and _room(target) != "_utils":
            return f"_utils imports {target}"
        return None

    assert _violations(rule) == []


def test_foundations_import_no_product():
    def rule(source, target, names):
        if _room(source) in FOUNDATIONS and _room(target) in PRODUCTS:
            return f"{_room(source)} imports the product {target}"

    assert _violations(rule) == []


def test_a_product_imports_another_only_through_public_names():
    def rule(source, target, names):
        room = _room(source)
        if room not in PRODUCTS or not target.startswith("sklearn_selective"):
            return None
        if target == "sklearn_selective":
            private = [n for n in names if n not in sklearn_selective.__all__]
            return f"imports private {private} from the package" if private else None
        if _room(target) in PRODUCTS and _room(target) != room:
            return f"{room} imports {target}: use the public name"
        private = target.rpartition(".")[2].startswith("_")
        if _room(target) in FOUNDATIONS and private and target not in SHARED_PRIVATE:
            return f"{room} imports the private {target}"
        return None

    assert _violations(rule) == []


def test_scikit_learn_private_apis_enter_through_one_module():
    gateway = "sklearn_selective._utils._sklearn"

    def rule(source, target, names):
        if source == gateway or target.partition(".")[0] != "sklearn":
            return None
        private_module = any(part.startswith("_") for part in target.split("."))
        private_names = [n for n in names if n.startswith("_")]
        if private_module or private_names:
            return f"imports scikit-learn's private {target} {private_names}"

    assert _violations(rule) == []


def test_at_most_six_private_modules_directly_under_the_package():
    flat = [p.name for p in PACKAGE.glob("_*.py") if p.name not in ("__init__.py",)]
    assert len([n for n in flat if n != "__main__.py"]) <= 6, flat


def test_no_module_file_name_appears_twice():
    """Two files of one name in two folders are one concept split, or two
    concepts unnamed (STYLE.md, "The house")."""
    by_name = {}
    for path in MODULES:
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    twice = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert twice == {}


def test_no_private_names_in_an_all():
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "__all__" for t in node.targets
            ):
                names = ast.literal_eval(node.value)
                private = [n for n in names if n.startswith("_") and n != "__version__"]
                assert private == [], f"{path}: {private}"


def test_no_import_of_the_package_inside_a_function():
    """A lazy import of the package's own modules hides a cycle."""
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (
                    inner.level or (inner.module or "").startswith("sklearn_selective")
                ):
                    pytest.fail(f"{path}:{inner.lineno}: import inside {node.name}")


def _lines_of_code(source_lines, node):
    """Lines of a function that are code: no blank line, comment or docstring."""
    docstring = range(0)
    first = node.body[0]
    text = getattr(getattr(first, "value", None), "value", None)
    if isinstance(first, ast.Expr) and isinstance(text, str):
        docstring = range(first.lineno, first.end_lineno + 1)
    return sum(
        1
        for number in range(node.lineno, node.end_lineno + 1)
        if number not in docstring
        and source_lines[number - 1].strip()
        and not source_lines[number - 1].strip().startswith("#")
    )


def test_no_function_has_more_than_80_lines_of_code():
    """A longer function is two concepts (STYLE.md, "Size")."""
    long = []
    for path in MODULES:
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_function and _lines_of_code(lines, node) > 80:
                long.append(f"{path.relative_to(PACKAGE)}::{node.name}")
    assert long == []


def test_the_function_length_check_can_fail():
    source = "def f():\n" + "    x = 1\n" * 81
    node = ast.parse(source).body[0]
    assert _lines_of_code(source.splitlines(), node) == 82
