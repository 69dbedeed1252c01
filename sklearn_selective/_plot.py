"""RiskCoverageDisplay: risk-coverage curves in scikit-learn's Display style."""

import numpy as np
from sklearn.utils import _safe_indexing
from sklearn.utils._optional_dependencies import check_matplotlib_support
from sklearn.utils._plotting import _validate_style_kwargs

from .confidence import predict_with_confidence
from .metrics import (
    augrc,
    aurc,
    generalized_risk_coverage_curve,
    risk_coverage_curve,
)
from .metrics._validation import _validate_risk_inputs

# kind -> (curve function, metric shown in the legend, its name, y-axis label)
_KINDS = {
    "selective": (risk_coverage_curve, aurc, "AURC", "Selective risk"),
    "generalized": (
        generalized_risk_coverage_curve,
        augrc,
        "AUGRC",
        "Generalized risk",
    ),
}


def _as_list(value):
    return value if isinstance(value, list) else [value]


class RiskCoverageDisplay:
    """Risk-coverage curve visualisation.

    Create it with :meth:`from_estimator`, :meth:`from_predictions` or
    :meth:`from_cv_results`; all parameters are stored as attributes.
    ``matplotlib`` is needed only to :meth:`plot` (``pip install
    sklearn-selective[plot]``).

    Parameters
    ----------
    coverage : ndarray or list of ndarray
        Coverage at each threshold (one array per curve), as returned by
        :func:`~sklearn_selective.metrics.risk_coverage_curve`.

    risk : ndarray or list of ndarray
        Selective risk (``kind="selective"``) or generalized risk
        (``kind="generalized"``) at each threshold.

    thresholds : ndarray or list of ndarray
        The decreasing confidence thresholds.

    kind : {"selective", "generalized"}, default="selective"
        Which risk is plotted.

    metric_value : float or list of float, default=None
        Area shown in the legend: AURC for ``"selective"``, AUGRC for
        ``"generalized"``.

    name : str or list of str, default=None
        Legend name of each curve.

    mean_loss : float or list of float, default=None
        Weighted mean loss, which defines the random-ranking reference curve.

    oracle_coverage, oracle_risk : ndarray or list of ndarray, default=None
        The curve of the oracle ranking (confidence ``-loss``).

    Attributes
    ----------
    line_ : matplotlib Line2D or list of Line2D
        The risk-coverage curve(s).

    oracle_line_ : matplotlib Line2D or None
        The oracle reference curve, if plotted.

    random_line_ : matplotlib Line2D or None
        The random-ranking reference curve, if plotted.

    ax_ : matplotlib Axes
        The axes of the plot.

    figure_ : matplotlib Figure
        The figure of the plot.

    See Also
    --------
    sklearn_selective.metrics.risk_coverage_curve : The data of the curve.
    sklearn_selective.metrics.aurc : The area under the selective curve.
    sklearn_selective.metrics.augrc : The area under the generalized curve.

    References
    ----------
    Traub et al. "Overcoming Common Flaws in the Evaluation of Selective
    Classification Systems." NeurIPS 2024 (selective vs generalized risk).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_selective import RiskCoverageDisplay
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> display = RiskCoverageDisplay.from_predictions(
    ...     y_true, y_pred, confidence, name="model", plot_oracle=True
    ... )
    >>> display.coverage
    array([0.2, 0.6, 0.8, 1. ])
    >>> display.line_.get_label()
    'model (AURC = 0.2467)'
    """

    def __init__(
        self,
        *,
        coverage,
        risk,
        thresholds,
        kind="selective",
        metric_value=None,
        name=None,
        mean_loss=None,
        oracle_coverage=None,
        oracle_risk=None,
    ):
        self.coverage = coverage
        self.risk = risk
        self.thresholds = thresholds
        self.kind = kind
        self.metric_value = metric_value
        self.name = name
        self.mean_loss = mean_loss
        self.oracle_coverage = oracle_coverage
        self.oracle_risk = oracle_risk

    def _points(self, coverage, risk):
        if self.kind == "generalized":  # the area is taken from coverage 0
            return np.r_[0.0, coverage], np.r_[0.0, risk]
        return coverage, risk

    def plot(
        self,
        ax=None,
        *,
        name=None,
        curve_kwargs=None,
        plot_oracle=False,
        oracle_kw=None,
        plot_random=False,
        random_kw=None,
    ):
        """Plot the curve(s).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; a new figure is created when None.

        name : str or list of str, default=None
            Legend name(s); defaults to the ``name`` given at construction.

        curve_kwargs : dict or list of dict, default=None
            Keyword arguments of matplotlib's ``plot`` for each curve.

        plot_oracle : bool, default=False
            Also plot the curve of the oracle ranking (of the first curve).

        oracle_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the oracle curve.

        plot_random : bool, default=False
            Also plot the expected curve of a random ranking (of the first
            curve): constant selective risk, or generalized risk growing
            linearly, at the mean loss.

        random_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the random curve.

        Returns
        -------
        display : RiskCoverageDisplay
            The display, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        import matplotlib.pyplot as plt

        if self.kind not in _KINDS:
            raise ValueError(
                f"kind must be one of {sorted(_KINDS)}, got {self.kind!r}."
            )
        coverages, risks = _as_list(self.coverage), _as_list(self.risk)
        if len(coverages) != len(risks):
            raise ValueError(
                f"coverage and risk describe {len(coverages)} and {len(risks)} "
                "curves; pass one of each per curve."
            )
        n_curves = len(coverages)
        names = _as_list(self.name if name is None else name)
        values = _as_list(self.metric_value)
        names = names * n_curves if len(names) == 1 else names
        values = values * n_curves if len(values) == 1 else values
        kwargs = _as_list({} if curve_kwargs is None else curve_kwargs)
        kwargs = kwargs * n_curves if len(kwargs) == 1 else kwargs
        for label, arguments in (("name", names), ("curve_kwargs", kwargs)):
            if len(arguments) != n_curves:
                raise ValueError(
                    f"{label} has {len(arguments)} entries for {n_curves} curves."
                )

        if ax is None:
            _, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        _, _, metric_name, ylabel = _KINDS[self.kind]
        self.line_ = []
        for coverage, risk, curve_name, value, line_kw in zip(
            coverages, risks, names, values, kwargs, strict=True
        ):
            parts = [p for p in (curve_name,) if p is not None]
            if value is not None:
                parts.append(f"({metric_name} = {value:.4f})")
            default = {"label": " ".join(parts)} if parts else {}
            x, y = self._points(coverage, risk)
            self.line_.extend(ax.plot(x, y, **_validate_style_kwargs(default, line_kw)))
        self.line_ = self.line_[0] if n_curves == 1 else self.line_

        self.oracle_line_ = self.random_line_ = None
        if plot_oracle:
            if self.oracle_coverage is None:
                raise ValueError(
                    "This display has no oracle curve; create it with "
                    "from_predictions/from_estimator or pass oracle_coverage and "
                    "oracle_risk."
                )
            x, y = self._points(
                _as_list(self.oracle_coverage)[0], _as_list(self.oracle_risk)[0]
            )
            style = _validate_style_kwargs(
                {"label": "Oracle", "color": "black", "linestyle": ":"},
                oracle_kw or {},
            )
            (self.oracle_line_,) = ax.plot(x, y, **style)
        if plot_random:
            if self.mean_loss is None:
                raise ValueError("This display has no mean_loss for the random curve.")
            mean_loss = _as_list(self.mean_loss)[0]
            # Random ranking: selective risk stays at the mean loss, generalized
            # risk grows linearly to it.
            start = 0.0 if self.kind == "generalized" else mean_loss
            style = _validate_style_kwargs(
                {"label": "Random", "color": "gray", "linestyle": "--"},
                random_kw or {},
            )
            (self.random_line_,) = ax.plot([0, 1], [start, mean_loss], **style)

        ax.set(xlabel="Coverage", ylabel=ylabel, xlim=(-0.01, 1.01))
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper left")
        return self

    @classmethod
    def _from_losses(
        cls, confidence, losses, sample_weight, *, kind, name, metric_kwargs
    ):
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {sorted(_KINDS)}, got {kind!r}.")
        curve, metric, _, _ = _KINDS[kind]
        coverage, risk, thresholds = curve(
            None, None, confidence, loss=losses, sample_weight=sample_weight
        )
        oracle_coverage, oracle_risk, _ = curve(
            None, None, -losses, loss=losses, sample_weight=sample_weight
        )
        return {
            "coverage": coverage,
            "risk": risk,
            "thresholds": thresholds,
            "metric_value": metric(
                None,
                None,
                confidence,
                loss=losses,
                sample_weight=sample_weight,
                **metric_kwargs,
            ),
            "name": name,
            "mean_loss": float(np.average(losses, weights=sample_weight)),
            "oracle_coverage": oracle_coverage,
            "oracle_risk": oracle_risk,
        }

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_pred,
        confidence,
        *,
        kind="selective",
        loss="zero_one",
        sample_weight=None,
        labels=None,
        estimator="harmonic",
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_oracle=False,
        plot_random=False,
    ):
        """Plot the risk-coverage curve of predictions and their confidences.

        Parameters
        ----------
        y_true, y_pred, confidence, loss, sample_weight, labels
            As in :func:`~sklearn_selective.metrics.risk_coverage_curve`
            (``y_true`` and ``y_pred`` may be None with an array ``loss``).

        kind : {"selective", "generalized"}, default="selective"
            Selective risk (legend: AURC) or generalized risk (legend: AUGRC).

        estimator : {"harmonic", "log"}, default="harmonic"
            AURC estimator shown in the legend (``kind="selective"`` only).

        name : str, default=None
            Legend name of the curve.

        ax : matplotlib Axes, default=None
            Axes to plot on.

        curve_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the curve.

        plot_oracle, plot_random : bool, default=False
            Add the oracle and random-ranking reference curves.

        Returns
        -------
        display : RiskCoverageDisplay
            The plotted display.
        """
        check_matplotlib_support(f"{cls.__name__}.from_predictions")
        confidence, losses, sample_weight = _validate_risk_inputs(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
        )
        metric_kwargs = {"estimator": estimator} if kind == "selective" else {}
        display = cls(
            kind=kind,
            **cls._from_losses(
                confidence,
                losses,
                sample_weight,
                kind=kind,
                name=name,
                metric_kwargs=metric_kwargs,
            ),
        )
        return display.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_oracle=plot_oracle,
            plot_random=plot_random,
        )

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        csf=None,
        kind="selective",
        loss="zero_one",
        sample_weight=None,
        estimator_kind="harmonic",
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_oracle=False,
        plot_random=False,
    ):
        """Plot the risk-coverage curve of a fitted classifier on data.

        Parameters
        ----------
        estimator : fitted classifier
            Any fitted scikit-learn classifier, ``Pipeline`` or
            :class:`~sklearn_selective.SelectiveClassifier`.

        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        y : array-like of shape (n_samples,)
            True labels.

        csf : str or callable, default=None
            Confidence score function (see :mod:`sklearn_selective.confidence`).
            None uses a ``SelectiveClassifier``'s own CSF, and otherwise
            ``"msp"`` (or ``"max_logit"`` for a classifier without
            ``predict_proba``).

        kind, loss, sample_weight, name, ax, curve_kwargs, plot_oracle, plot_random
            As in :meth:`from_predictions`.

        estimator_kind : {"harmonic", "log"}, default="harmonic"
            AURC estimator shown in the legend.

        Returns
        -------
        display : RiskCoverageDisplay
            The plotted display.
        """
        check_matplotlib_support(f"{cls.__name__}.from_estimator")
        y_pred, confidence = predict_with_confidence(estimator, X, csf)
        return cls.from_predictions(
            y,
            y_pred,
            confidence,
            kind=kind,
            loss=loss,
            sample_weight=sample_weight,
            estimator=estimator_kind,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_oracle=plot_oracle,
            plot_random=plot_random,
        )

    @classmethod
    def from_cv_results(
        cls,
        cv_results,
        X,
        y,
        *,
        csf=None,
        kind="selective",
        loss="zero_one",
        sample_weight=None,
        name=None,
        ax=None,
        curve_kwargs=None,
    ):
        """Plot one risk-coverage curve per cross-validation fold.

        Parameters
        ----------
        cv_results : dict
            Output of :func:`sklearn.model_selection.cross_validate` with
            ``return_estimator=True`` and ``return_indices=True``.

        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data passed to ``cross_validate``.

        y : array-like of shape (n_samples,)
            The labels passed to ``cross_validate``.

        csf, kind, loss, sample_weight, ax, curve_kwargs
            As in :meth:`from_estimator`.

        name : str or list of str, default=None
            Legend names; defaults to "Fold 1", "Fold 2", ...

        Returns
        -------
        display : RiskCoverageDisplay
            The plotted display, with one curve per fold.
        """
        check_matplotlib_support(f"{cls.__name__}.from_cv_results")
        missing = {"estimator", "indices"} - set(cv_results)
        if missing:
            raise ValueError(
                f"cv_results lacks {sorted(missing)}: call cross_validate with "
                "return_estimator=True and return_indices=True."
            )
        folds = []
        for fitted, test in zip(
            cv_results["estimator"], cv_results["indices"]["test"], strict=True
        ):
            y_pred, confidence = predict_with_confidence(
                fitted, _safe_indexing(X, test), csf
            )
            weights = None if sample_weight is None else np.asarray(sample_weight)[test]
            confidence, losses, weights = _validate_risk_inputs(
                _safe_indexing(y, test),
                y_pred,
                confidence,
                loss=loss,
                sample_weight=weights,
            )
            folds.append(
                cls._from_losses(
                    confidence, losses, weights, kind=kind, name=None, metric_kwargs={}
                )
            )
        names = name or [f"Fold {i + 1}" for i in range(len(folds))]
        display = cls(
            kind=kind,
            name=names,
            **{key: [fold[key] for fold in folds] for key in folds[0] if key != "name"},
        )
        return display.plot(ax=ax, curve_kwargs=curve_kwargs)
