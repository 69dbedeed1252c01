"""Links to the scikit-learn, SciPy, NumPy and joblib API pages by a rule.

Intersphinx needs each project's ``objects.inv``, fetched at build time, and the
documentation builds offline. Their API pages follow fixed patterns, so a
reference Sphinx cannot resolve (``:class:`sklearn.pipeline.Pipeline```) is
linked to the page the pattern gives for its full name. Only names under these
packages are linked; anything else stays unresolved, as before.
"""

from docutils import nodes

# Package prefix -> the URL of a public object's page, from its full name.
RULES = {
    "sklearn": "https://scikit-learn.org/stable/modules/generated/{name}.html",
    "scipy": "https://docs.scipy.org/doc/scipy/reference/generated/{name}.html",
    "numpy": "https://numpy.org/doc/stable/reference/generated/{name}.html",
    "joblib": "https://joblib.readthedocs.io/en/stable/generated/{name}.html",
}


def external_url(target):
    """The page of ``target`` (a full dotted name), or None if no rule applies."""
    package = target.split(".", 1)[0]
    rule = RULES.get(package)
    if rule is None or "." not in target:
        return None
    return rule.format(name=target)


def _resolve(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    url = external_url(node.get("reftarget", ""))
    if url is None:
        return None
    reference = nodes.reference("", "", internal=False, refuri=url)
    reference += contnode
    return reference


def setup(app):
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
