"""Parameter descriptions shared by the metric docstrings.

A public function's docstring names a snippet as ``%(name)s``; :func:`fill_doc`
substitutes it, re-indented to the docstring's indentation.
"""

import textwrap

_SNIPPETS = {
    "feature_space_inputs": """
features : {array-like, sparse matrix} of shape (n_samples, n_features)
    Inputs to score, as the classifier's final step sees them.

training_features : {array-like, sparse matrix} of shape (n_train, n_features)
    The inputs the classifier was trained on (same space). In
    :class:`~sklearn_selective.SelectiveClassifier` or
    :class:`~sklearn_selective.ATCEstimator` with an unfitted classifier, the
    CSF by name reads the final step's inputs and each training fold's; for a
    fitted model, use :func:`fit_feature_confidence`.
""",
    "baseline_estimator_and_cv": """
estimator : estimator instance
    The probabilistic classifier, unfitted or wrapped in
    :class:`~sklearn.frozen.FrozenEstimator`.

%(held_out_cv)s

random_state : int, RandomState instance or None, default=None
    Seed of a float ``cv`` split.
""",
    "baseline_fitted": """
estimator_ : estimator instance
    The fitted classifier.

classes_ : ndarray of shape (n_classes,)
    The class labels.

source_accuracy_ : float
    The held-out source accuracy.
""",
    "held_out_cv": """
cv : int, cross-validation generator, iterable or float, default=None
    How held-out source scores are produced, as in
    :class:`~sklearn_selective.SelectiveClassifier`: 5-fold stratified
    cross-validation by default, a float for one held-out fraction; ignored
    for a ``FrozenEstimator``, whose source data is all held out.

refit : bool, default=True
    Whether to refit the classifier on all the source data.

n_jobs : int, default=None
    Number of jobs fitting the cross-validation folds in parallel.
""",
    "inputs": """
y_true : array-like of shape (n_samples,) or None
    True labels. May be None when ``loss`` is an array of per-sample losses.

y_pred : array-like of shape (n_samples,) or (n_samples, n_classes), or None
    Predicted labels, or predicted class probabilities (columns ordered as
    ``labels``; with the default 0/1 loss the prediction is the most probable
    class). May be None when ``loss`` is an array of per-sample losses.

confidence : array-like of shape (n_samples,)
    Confidence score of each prediction; higher means more confident. A sample
    is accepted at threshold ``tau`` iff ``confidence >= tau``. Pass the negated
    value of an uncertainty score.
""",
    "loss": """
loss : {"zero_one", "log_loss", "brier"}, callable or array-like of shape \
(n_samples,), default="zero_one"
    Per-sample loss, non-negative:

    - ``"zero_one"``: the error indicator ``y_pred != y_true``;
    - ``"log_loss"``: ``-log p_true`` (clipped at machine epsilon); needs
      probabilities in ``y_pred``;
    - ``"brier"``: squared distance of the probabilities to the one-hot label,
      halved for two classes as in :func:`sklearn.metrics.brier_score_loss`;
    - a callable ``loss(y_true, y_pred) -> array of shape (n_samples,)``;
    - an array of precomputed per-sample losses, in which case ``y_true`` and
      ``y_pred`` may be None.
""",
    "sample_weight_proportion": """
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative sample weights. Integer weights are the same as repeating
    samples, zero weight the same as removing them, and scaling all weights by
    a constant changes nothing.
""",
    "sample_weight_frequency": """
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative **frequency** weights: integer weights are the same as
    repeating samples and zero weight the same as removing them. This
    finite-sample estimator depends on the sample size ``n = sum(sample_weight)``
    by design ([AURC] Sec. 3.6), so scaling all weights changes its value.
""",
    "labels": """
labels : array-like of shape (n_classes,), default=None
    Class of each column of ``y_pred`` when it holds probabilities. Defaults to
    the sorted unique values of ``y_true``.
""",
    "aurc_estimator": """
aurc_estimator : {"harmonic", "log"}, default="harmonic"
    Plug-in weight estimator of [AURC]: ``"harmonic"`` uses
    ``alpha_i = H_n - H_{n - r_i}`` (Eq. 13; without ties this is exactly the
    classic empirical AURC, Eq. 10), ``"log"`` uses
    ``alpha_i = -ln(1 - r_i / (n + 1))`` (Eq. 18), which is never larger.
""",
    "aurc_estimator_with_trapezoid": """
aurc_estimator : {"harmonic", "log", "trapezoid"}, default="harmonic"
    Plug-in weight estimator of [AURC]: ``"harmonic"`` uses
    ``alpha_i = H_n - H_{n - r_i}`` (Eq. 13; without ties this is exactly
    the classic empirical AURC, Eq. 10), ``"log"`` uses
    ``alpha_i = -ln(1 - r_i / (n + 1))`` (Eq. 18), which is never larger.
    ``"trapezoid"`` is the convention of the FD-Shifts reference code
    ([AUGRC]): the trapezoid area under the selective risk at the distinct
    thresholds, with the risk of the most confident group extended to
    coverage 0. It is not a plug-in estimator (not ``mean(alpha * l)``
    with rank weights) and is offered to reproduce published numbers.
""",
    "ties": """
Tied confidences are handled as the expectation over a uniformly random order
of the tied samples, so the result never depends on the input order.
""",
    "ref_aurc": """
.. [AURC] Zhou, Van Landeghem, Popordanoska and Blaschko. "A Novel
   Characterization of the Population AURC and Rates of Finite Sample
   Estimators." ICML 2025.
""",
    "ref_augrc": """
.. [AUGRC] Traub, Bungert, Lüth, Baumgartner, Maier-Hein, Maier-Hein and Jäger.
   "Overcoming Common Flaws in the Evaluation of Selective Classification
   Systems." NeurIPS 2024.
""",
    "resampled_metric": """
metric : str or callable
    One of this package's metrics, by name (``"aurc"``, ``"augrc"``,
    ``"e_aurc"``, ``"naurc"``, ``"sele"``, ``"uq_auc"``,
    ``"uq_c_index"``, ``"selective_risk_at_coverage"``,
    ``"coverage_at_risk"``) or as the function itself, or any callable
    ``metric(y_true, y_pred, confidence, **metric_kwargs) -> float``
    (called with ``sample_weight=`` too when weights are given).
""",
    "comparison_resampling": """
n_resamples : int, default=500
    Number of paired bootstrap resamples ([AUGRC] uses 500).

alpha : float in (0, 1), default=0.05
    Family-wise significance level of the Holm-adjusted tests; the
    confidence intervals have level ``1 - alpha``.

random_state : int, RandomState instance, Generator or None, default=None
    Source of the resamples; see :func:`bootstrap_metric`.

sample_weight : array-like of shape (n_samples,), default=None
    Non-negative sample weights, kept by every resampled sample.
""",
    "ref_uq": """
.. [UQ] Pignet, Regniez and Klein. "Legitimate ground-truth-free metrics for
   deep uncertainty classification scoring."
""",
}


def _fill(text):
    """``text`` with every line ``%(name)s`` replaced by its snippet, indented
    like the line; snippets may hold snippets of their own."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("%(") and stripped.endswith(")s"):
            indent = line[: len(line) - len(line.lstrip())]
            snippet = _fill(_SNIPPETS[stripped[2:-2]].strip("\n"))
            lines[index] = textwrap.indent(snippet, indent)
    return "\n".join(lines)


def fill_doc(function):
    """Substitute the ``%(name)s`` snippets in ``function.__doc__``."""
    function.__doc__ = _fill(function.__doc__)
    return function
