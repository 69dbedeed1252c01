"""One name per concept across the public API.

Walks every public function, class constructor and public method, and fails when
a parameter uses another name for a concept the package already names. The list of
concepts lives here: when a new concept appears, add it with its synonyms.
"""

import inspect
from importlib import import_module

import pytest

PUBLIC_MODULES = [
    "sklearn_selective",
    "sklearn_selective.metrics",
    "sklearn_selective.confidence",
    "sklearn_selective.datasets",
]

# canonical name -> names that must not be used for the same concept
CONCEPTS = {
    "csf": {
        "score",
        "score_function",
        "scoring_function",
        "confidence_function",
        "csf_name",
        "uncertainty_function",
    },
    "csf_params": {
        "score_params",
        "score_kwargs",
        "csf_kwargs",
        "score_function_params",
    },
    "confidence_level": {
        "delta",
        "level",
        "conf_level",
        "ci_level",
        "cl",
        "coverage_level",
    },
    "n_resamples": {
        "n_bootstrap",
        "n_bootstraps",
        "n_boot",
        "bootstrap_samples",
        "n_samples_bootstrap",
        "B",
    },
    "sample_weight": {"weights", "sample_weights", "w", "weight"},
    "confidence": {"conf", "confids", "scores", "uncertainty", "certainty"},
    "loss": {"residuals", "errors", "losses"},
    "random_state": {"seed", "rng", "random_seed"},
    "y_proba": {"probs", "probas", "probabilities", "y_prob", "y_probas", "y_score"},
    "target_coverage": {"desired_coverage", "coverage_target"},
    "target_risk": {"desired_risk", "risk_target", "max_risk"},
    "rejection_cost": {"abstention_cost", "reject_cost", "cost_of_rejection"},
    "reject_label": {"abstain_label", "rejection_label"},
    "name": {"label", "model_name", "estimator_name"},
    "plot_chance_level": {"plot_random", "plot_baseline"},
    "chance_level_kw": {"random_kw", "baseline_kw"},
    "aurc_estimator": {"estimator_kind", "aurc_method", "weight_estimator"},
}
SYNONYM_OF = {syn: canon for canon, syns in CONCEPTS.items() for syn in syns}
# (qualified name, parameter) pairs whose name is a synonym above but which mean
# something else; each with a comment saying why.
EXCEPTIONS = set()


def _public_objects():
    seen = {}
    for module_name in PUBLIC_MODULES:
        try:
            module = import_module(module_name)
        except ImportError:
            continue
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                seen[f"{module_name}.{name}"] = obj
            elif inspect.isclass(obj):
                seen[f"{module_name}.{name}"] = obj
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    func = (
                        member.__func__ if isinstance(member, classmethod) else member
                    )
                    if inspect.isfunction(func):
                        seen[f"{module_name}.{name}.{attr}"] = func
    return seen


PUBLIC = _public_objects()


def _parameters(obj):
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return []
    return [p for p in signature.parameters if p not in ("self", "cls")]


def test_the_api_is_walked():
    assert "sklearn_selective.SelectiveClassifier" in PUBLIC
    assert "sklearn_selective.metrics.aurc" in PUBLIC
    assert "sklearn_selective.SelectiveClassifier.fit" in PUBLIC


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_one_name_per_concept(qualname):
    wrong = {
        p: SYNONYM_OF[p]
        for p in _parameters(PUBLIC[qualname])
        if p in SYNONYM_OF and (qualname, p) not in EXCEPTIONS
    }
    assert not wrong, (
        f"{qualname} names concepts differently from the rest of the package: "
        + ", ".join(f"{p!r} should be {c!r}" for p, c in wrong.items())
    )


def test_estimator_means_a_scikit_learn_estimator():
    """``estimator`` is a scikit-learn estimator everywhere; the AURC formula is
    ``aurc_estimator`` (SPEC section 11)."""
    formula = []
    for qualname, obj in PUBLIC.items():
        try:
            parameters = inspect.signature(obj).parameters
        except (TypeError, ValueError):  # pragma: no cover - builtins
            continue
        estimator = parameters.get("estimator")
        if estimator is not None and isinstance(estimator.default, str):
            formula.append(qualname)
    assert formula == []
    for name in ("aurc", "e_aurc", "naurc", "aurc_weights"):
        parameters = inspect.signature(PUBLIC[f"sklearn_selective.metrics.{name}"])
        assert parameters.parameters["aurc_estimator"].default == "harmonic"
