"""RiskCoverageDisplay: risk-coverage curves in scikit-learn's Display style."""

import numpy as np

from ..._utils._sklearn import (
    check_matplotlib_support,
    safe_indexing,
    validate_style_kwargs,
)
from ..._utils._validation import _validate_risk_inputs
from ...confidence import predict_with_confidence
from ._data import KINDS, check_kind, curve_data, display_data, selective_line


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _per_curve(values, n_curves, argument):
    """``values`` as a list with one entry per curve (a single entry is repeated)."""
    values = _as_list(values)
    if len(values) == 1:
        return values * n_curves
    if len(values) != n_curves:
        raise ValueError(
            f"{argument} has {len(values)} entries for {n_curves} curves; pass one "
            "per curve (or a single value for all)."
        )
    return values


def _single(lines):
    return lines[0] if len(lines) == 1 else lines


class RiskCoverageDisplay:
    """Risk-coverage curve visualisation.

    Create it with :meth:`from_estimator`, :meth:`from_predictions` or
    :meth:`from_cv_results`; all parameters are stored as attributes.
    ``matplotlib`` is needed only to :meth:`plot` (``pip install
    sklearn-selective[plot]``).

    A selective risk curve is drawn as the expected selective risk at every
    coverage from 0 to 1 (a random part of a tie group accepted, as
    :func:`~sklearn_selective.metrics.selective_risk_at_coverage` computes
    it), so that wide tie groups, such as the two groups of the oracle of the
    0/1 loss, show their true shape; the curve passes through every point of
    ``coverage`` and ``risk``. A generalized risk curve is linear inside a tie
    group and is drawn from the origin, so that its trapezoid area is AUGRC.

    Parameters
    ----------
    coverage : ndarray or list of ndarray
        Increasing coverage at each threshold (one array per curve), as
        returned by :func:`~sklearn_selective.metrics.risk_coverage_curve`.

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
        Weighted mean loss of each curve's samples, which defines its
        random-ranking (chance level) reference.

    oracle_coverage, oracle_risk : ndarray or list of ndarray, default=None
        The curve of the oracle ranking (confidence ``-loss``) of each curve's
        samples.

    Attributes
    ----------
    line_ : matplotlib Line2D or list of Line2D
        The risk-coverage curve(s).

    oracle_line_ : matplotlib Line2D, list of Line2D or None
        The oracle curve of each curve, if plotted.

    chance_level_ : matplotlib Line2D, list of Line2D or None
        The random-ranking curve of each curve, if plotted.

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
    J. Traub et al. "Overcoming Common Flaws in the Evaluation of Selective
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
    >>> display.oracle_line_.get_label()
    'Oracle (model)'
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

    def _line_data(self, coverage, risk):
        if self.kind == "generalized":  # the area is taken from coverage 0
            return np.r_[0.0, coverage], np.r_[0.0, risk]
        return selective_line(coverage, risk)

    def plot(
        self,
        ax=None,
        *,
        name=None,
        curve_kwargs=None,
        plot_oracle=False,
        oracle_kw=None,
        plot_chance_level=False,
        chance_level_kw=None,
        despine=False,
    ):
        """Plot the curve(s), each with its own reference curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to plot on; a new figure is created when None.

        name : str or list of str, default=None
            Legend name(s); defaults to the ``name`` given at construction.

        curve_kwargs : dict or list of dict, default=None
            Keyword arguments of matplotlib's ``plot`` for each curve.

        plot_oracle : bool, default=False
            Also plot, for each curve, the curve of the oracle ranking of its
            samples (every loss ranked by itself), labelled "Oracle (name)" and
            drawn dotted in the curve's colour.

        oracle_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the oracle curves.

        plot_chance_level : bool, default=False
            Also plot, for each curve, the expected curve of a random ranking
            of its samples: constant selective risk, or generalized risk
            growing linearly, at the mean loss. Labelled "Chance level (name)"
            and drawn dashed in the curve's colour.

        chance_level_kw : dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the chance level.

        despine : bool, default=False
            Remove the top and right spines.

        Returns
        -------
        display : RiskCoverageDisplay
            The display, with ``line_``, ``oracle_line_``, ``chance_level_``,
            ``ax_`` and ``figure_`` set.
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        import matplotlib.pyplot as plt

        check_kind(self.kind)
        coverages, risks = _as_list(self.coverage), _as_list(self.risk)
        if len(coverages) != len(risks):
            raise ValueError(
                f"coverage and risk describe {len(coverages)} and {len(risks)} "
                "curves; pass one of each per curve."
            )
        n_curves = len(coverages)
        names = _per_curve(self.name if name is None else name, n_curves, "name")
        values = _per_curve(self.metric_value, n_curves, "metric_value")
        kwargs = _per_curve(curve_kwargs or {}, n_curves, "curve_kwargs")
        # Validate the references before drawing anything.
        self._check_references(plot_oracle, plot_chance_level)

        if ax is None:
            _, ax = plt.subplots()
        self.ax_, self.figure_ = ax, ax.figure
        _, _, metric_name, ylabel = KINDS[self.kind]
        lines = self._plot_curves(
            ax, zip(coverages, risks, names, values, kwargs, strict=True), metric_name
        )
        self.line_ = _single(lines)

        self.oracle_line_ = self.chance_level_ = None
        if plot_oracle:
            curves = zip(
                _per_curve(self.oracle_coverage, n_curves, "oracle_coverage"),
                _per_curve(self.oracle_risk, n_curves, "oracle_risk"),
                strict=True,
            )
            self.oracle_line_ = self._plot_references(
                "Oracle",
                ":",
                [self._line_data(*c) for c in curves],
                names,
                lines,
                oracle_kw,
            )
        if plot_chance_level:
            # Random ranking: selective risk stays at the mean loss, generalized
            # risk grows linearly to it.
            start = 1.0 if self.kind == "selective" else 0.0
            curves = [
                ([0.0, 1.0], [start * mean_loss, mean_loss])
                for mean_loss in _per_curve(self.mean_loss, n_curves, "mean_loss")
            ]
            self.chance_level_ = self._plot_references(
                "Chance level", "--", curves, names, lines, chance_level_kw
            )

        ax.set(xlabel="Coverage", ylabel=ylabel, xlim=(-0.01, 1.01))
        if despine:
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper left")
        return self

    def _check_references(self, plot_oracle, plot_chance_level):
        """A ValueError, before anything is drawn, for a reference line the
        display lacks the data of."""
        if plot_oracle and (self.oracle_coverage is None or self.oracle_risk is None):
            raise ValueError(
                "This display has no oracle curve; create it with from_predictions, "
                "from_estimator or from_cv_results, or pass oracle_coverage and "
                "oracle_risk."
            )
        if plot_chance_level and self.mean_loss is None:
            raise ValueError(
                "This display has no mean_loss for the chance level; create it with "
                "from_predictions, from_estimator or from_cv_results, or pass "
                "mean_loss."
            )

    def _plot_curves(self, ax, curves, metric_name):
        """One line per curve, labelled with its name and metric value."""
        lines = []
        for coverage, risk, curve_name, value, line_kw in curves:
            parts = [] if curve_name is None else [str(curve_name)]
            if value is not None:
                parts.append(f"({metric_name} = {value:.4f})")
            default = {"label": " ".join(parts)} if parts else {}
            x, y = self._line_data(coverage, risk)
            lines.extend(ax.plot(x, y, **validate_style_kwargs(default, line_kw)))
        return lines

    def _plot_references(self, label, linestyle, curves, names, lines, user_kw):
        """One reference line per curve, in its colour, labelled with its name."""
        references = []
        for (x, y), curve_name, line in zip(curves, names, lines, strict=True):
            default = {
                "label": label if curve_name is None else f"{label} ({curve_name})",
                "color": line.get_color(),
                "linestyle": linestyle,
            }
            style = validate_style_kwargs(default, user_kw or {})
            references.extend(self.ax_.plot(x, y, **style))
        return _single(references)

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_pred,
        confidence,
        *,
        loss="zero_one",
        sample_weight=None,
        labels=None,
        kind="selective",
        groups=None,
        aurc_estimator="harmonic",
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_oracle=False,
        oracle_kw=None,
        plot_chance_level=False,
        chance_level_kw=None,
        despine=False,
    ):
        """Plot the risk-coverage curve of predictions and their confidences.

        Parameters
        ----------
        y_true, y_pred, confidence, loss, sample_weight, labels
            As in :func:`~sklearn_selective.metrics.risk_coverage_curve`
            (``y_true`` and ``y_pred`` may be None with an array ``loss``).

        kind : {"selective", "generalized"}, default="selective"
            Selective risk (legend: AURC) or generalized risk (legend: AUGRC).

        groups : array-like of shape (n_samples,), default=None
            A group label per sample (a class, a site, a device, ...): one
            curve per group, computed on the group's samples only and labelled
            "name, group g", with its own area and references.

        aurc_estimator : {"harmonic", "log"}, default="harmonic"
            The ``estimator`` of :func:`~sklearn_selective.metrics.aurc` shown
            in the legend (``kind="selective"`` only).

        name : str, default=None
            Legend name of the curve.

        ax : matplotlib Axes, default=None
            Axes to plot on.

        curve_kwargs : dict or list of dict, default=None
            Keyword arguments of matplotlib's ``plot`` for the curve (one dict
            per group, or one for all).

        plot_oracle, oracle_kw, plot_chance_level, chance_level_kw, despine
            As in :meth:`plot`.

        Returns
        -------
        display : RiskCoverageDisplay
            The plotted display.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn_selective import RiskCoverageDisplay
        >>> display = RiskCoverageDisplay.from_predictions(
        ...     [0, 1, 1, 0], [0, 1, 0, 0], [0.9, 0.8, 0.4, 0.7],
        ...     groups=["a", "a", "b", "b"], plot_chance_level=True,
        ... )
        >>> [line.get_label() for line in display.line_]
        ['group a (AURC = 0.0000)', 'group b (AURC = 0.2500)']
        >>> display.chance_level_[1].get_label()
        'Chance level (group b)'
        """
        check_matplotlib_support(f"{cls.__name__}.from_predictions")
        check_kind(kind)
        confidence, losses, sample_weight = _validate_risk_inputs(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
        )
        curves = display_data(
            confidence,
            losses,
            sample_weight,
            groups=groups,
            name=name,
            kind=kind,
            aurc_estimator=aurc_estimator,
        )
        return cls(kind=kind, **curves).plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_oracle=plot_oracle,
            oracle_kw=oracle_kw,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
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
        groups=None,
        aurc_estimator="harmonic",
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_oracle=False,
        oracle_kw=None,
        plot_chance_level=False,
        chance_level_kw=None,
        despine=False,
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

        kind, loss, sample_weight, groups, aurc_estimator
            As in :meth:`from_predictions`.

        name : str, default=None
            Legend name; defaults to the estimator's class name.

        ax, curve_kwargs, plot_oracle, oracle_kw, plot_chance_level, \
chance_level_kw, despine
            As in :meth:`plot`.

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
            groups=groups,
            aurc_estimator=aurc_estimator,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_oracle=plot_oracle,
            oracle_kw=oracle_kw,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
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
        aurc_estimator="harmonic",
        name=None,
        ax=None,
        curve_kwargs=None,
        plot_oracle=False,
        oracle_kw=None,
        plot_chance_level=False,
        chance_level_kw=None,
        despine=False,
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

        csf, kind, loss, sample_weight, aurc_estimator
            As in :meth:`from_estimator`.

        name : str or list of str, default=None
            Legend names; defaults to "Fold 1", "Fold 2", ...

        ax, curve_kwargs, plot_oracle, oracle_kw, plot_chance_level, \
chance_level_kw, despine
            As in :meth:`plot`; each fold gets its own references.

        Returns
        -------
        display : RiskCoverageDisplay
            The plotted display, with one curve per fold.
        """
        check_matplotlib_support(f"{cls.__name__}.from_cv_results")
        check_kind(kind)
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
                fitted, safe_indexing(X, test), csf
            )
            weights = None if sample_weight is None else np.asarray(sample_weight)[test]
            confidence, losses, weights = _validate_risk_inputs(
                safe_indexing(y, test),
                y_pred,
                confidence,
                loss=loss,
                sample_weight=weights,
            )
            folds.append(
                curve_data(
                    confidence,
                    losses,
                    weights,
                    kind=kind,
                    aurc_estimator=aurc_estimator,
                )
            )
        names = name or [f"Fold {i + 1}" for i in range(len(folds))]
        display = cls(
            kind=kind,
            name=names,
            **{key: [fold[key] for fold in folds] for key in folds[0]},
        )
        return display.plot(
            ax=ax,
            curve_kwargs=curve_kwargs,
            plot_oracle=plot_oracle,
            oracle_kw=oracle_kw,
            plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw,
            despine=despine,
        )
