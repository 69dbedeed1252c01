"""Abstain: :class:`SelectiveClassifier` and its threshold policies.

``_classifier`` is the thin meta-estimator; each policy is a function of a
validation risk-coverage curve (``_thresholds``), the cost-sensitive rule is
another policy (``_cost``), ``_decisions`` turns confidences and thresholds into
accept/reject decisions, and ``_policy_params`` checks which parameters belong
to the chosen policy.
"""
