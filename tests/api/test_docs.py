"""The documentation: every public name is in the API reference, and it builds."""

import inspect
import re
import shutil
from importlib import import_module
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_MODULES = [
    "sklearn_selective",
    "sklearn_selective.metrics",
    "sklearn_selective.confidence",
]


def _public_names():
    for module_name in PUBLIC_MODULES:
        module = import_module(module_name)
        for name in module.__all__:
            if name.startswith("__") or inspect.ismodule(getattr(module, name)):
                continue
            yield module_name, name


def test_every_public_name_is_in_the_api_reference():
    api = (ROOT / "docs" / "api.rst").read_text()
    listed = set(re.findall(r"^   (\w+)$", api, re.M))
    sections = re.split(r"^\.\. currentmodule:: ", api, flags=re.M)[1:]
    by_module = {
        section.split("\n", 1)[0].strip(): set(re.findall(r"^   (\w+)$", section, re.M))
        for section in sections
    }
    missing = [
        f"{module}.{name}"
        for module, name in _public_names()
        if name not in by_module.get(module, set())
    ]
    assert not missing, f"add to docs/api.rst: {missing}"
    assert listed


def test_docs_build_without_warnings(tmp_path):
    """Sphinx with -W on a copy of docs/ (the gallery is run by test_examples)."""
    sphinx_cmd = pytest.importorskip("sphinx.cmd.build")
    pytest.importorskip("numpydoc")
    pytest.importorskip("sphinx_gallery")
    pytest.importorskip("pydata_sphinx_theme")
    source = tmp_path / "docs"
    shutil.copytree(
        ROOT / "docs",
        source,
        ignore=shutil.ignore_patterns("_build", "generated", "auto_examples"),
    )
    status = sphinx_cmd.build_main(
        [
            "-W",
            "-q",
            "-b",
            "html",
            "-D",
            "plot_gallery=0",
            str(source),
            str(tmp_path / "html"),
        ]
    )
    assert status == 0
    assert (tmp_path / "html" / "api.html").exists()
