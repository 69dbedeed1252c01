"""Abstain: :class:`SelectiveClassifier` and its threshold policies.

``_classifier`` is the thin meta-estimator (parameters, ``fit``, the fitted
state, the prediction methods); its parameters resolve to one policy object
(``_policies``: one room per policy, the per-class wrapper and the resolver),
fitted on the validation curve (``_curve``) or, for a guarantee, certified by a
procedure (``_guarantees``). Every prediction method reads one decision
(``_decision``) from the model's inference (``_inference``); the reject label
(``_reject_label``), labels to class indices (``_classes``), the per-fold
results (``_cv_results``), novelty (``_novelty``), the score (``_scoring``) and
the inner classifier's outputs (``_inner_outputs``) have rooms of their own.
"""
