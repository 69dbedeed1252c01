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
    "sklearn_selective.exceptions",
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


@pytest.mark.slow
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
    _check_pages_load_nothing_from_another_host(tmp_path / "html")


# A script, or a stylesheet (or preloaded resource), whose address names a host.
_EXTERNAL_RESOURCE = re.compile(
    r"<script\b[^>]*\bsrc=\"(?:https?:)?//[^\"]*\""
    r"|<link\b(?=[^>]*\brel=\"(?:stylesheet|preload|modulepreload)\")"
    r"[^>]*\bhref=\"(?:https?:)?//[^\"]*\"",
    re.IGNORECASE,
)


def _check_pages_load_nothing_from_another_host(html):
    """Every page reads offline: no script or stylesheet from another host, and
    the formulas are typeset by the MathJax copied into the build."""
    loads = {
        str(page.relative_to(html)): _EXTERNAL_RESOURCE.findall(page.read_text())
        for page in html.rglob("*.html")
    }
    assert not {page: found for page, found in loads.items() if found}
    mathjax = html / "_static" / "mathjax" / "tex-chtml.js"
    assert mathjax.exists()
    guide = (html / "user_guide" / "metrics.html").read_text()
    assert "_static/mathjax/tex-chtml.js" in guide and 'class="math' in guide


def test_external_resource_pattern_can_fail():
    """The check above finds what a CDN page loads (it must be able to fail)."""
    cdn = '<script defer src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js">'
    sheet = '<link rel="stylesheet" href="//cdn.example.org/d.css" />'
    local = '<script src="_static/mathjax/tex-chtml.js"></script>'
    assert _EXTERNAL_RESOURCE.findall(cdn) and _EXTERNAL_RESOURCE.findall(sheet)
    assert not _EXTERNAL_RESOURCE.findall(local)
    assert not _EXTERNAL_RESOURCE.findall('<link rel="canonical" href="https://x">')


# ----------------------------------------------------------------------------------
# Numpydoc validation: the docstrings say what the signatures take
# ----------------------------------------------------------------------------------
# Checks of numpydoc.validate: a parameter missing from the docstring (PR01), a
# documented parameter the signature lacks (PR02), the order (PR03), a
# parameter without a description (PR07), a missing docstring (GL08), a
# summary that does not start with a capital letter (SS01), and broken
# indentation (GL03: double line breaks, GL05: tabs).
NUMPYDOC_CHECKS = {"PR01", "PR02", "PR03", "PR07", "GL08", "SS01", "GL03", "GL05"}


def _public_objects():
    """Every public function, class and public method or property, by path."""
    for module_name in PUBLIC_MODULES:
        module = import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if name.startswith("__") or inspect.ismodule(value):
                continue
            path = f"{module_name}.{name}"
            yield path, value
            if not inspect.isclass(value):
                continue
            for attribute, member in vars(value).items():
                if attribute.startswith("_"):
                    continue
                if inspect.isfunction(member) or isinstance(
                    member, classmethod | staticmethod
                ):
                    yield f"{path}.{attribute}", member


def _documented_attributes(value):
    """Names a class documents under Attributes: result objects and fitted
    scores are made by the library, and their constructor arguments are the
    attributes they document."""
    from numpydoc.docscrape import ClassDoc

    return {
        name.strip()
        for cls in value.__mro__
        if cls.__module__.startswith("sklearn_selective") and cls.__doc__
        for section in ("Attributes", "Parameters")
        for item in ClassDoc(cls)[section]
        for name in item.name.split(",")  # "start, stop : ndarray"
    }


PUBLIC_OBJECTS = list(_public_objects())


@pytest.mark.parametrize(
    "path, value", PUBLIC_OBJECTS, ids=[path for path, _ in PUBLIC_OBJECTS]
)
def test_public_docstrings_pass_numpydoc_validation(path, value):
    validate = pytest.importorskip("numpydoc.validate").validate
    errors = [
        (code, message)
        for code, message in validate(path)["errors"]
        if code in NUMPYDOC_CHECKS
    ]
    if inspect.isclass(value) and errors:
        documented = _documented_attributes(value)
        parameters = set(inspect.signature(value).parameters) - {"self"}
        if parameters <= documented:  # every argument is a documented attribute
            errors = [(c, m) for c, m in errors if c not in {"PR01", "PR03"}]
    assert not errors, f"{path}: {errors}"
