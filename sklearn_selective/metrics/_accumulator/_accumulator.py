"""``RiskCoverageAccumulator``: the risk-coverage metrics of data seen in batches."""

import copy
from numbers import Integral
from typing import NamedTuple

import numpy as np

from ..._utils._docstrings import fill_doc
from ..._utils._results import ResultMixin, import_pandas
from ..._utils._validation import (
    _check_nonnegative_1d,
    _is_zero_one,
    _validate_risk_inputs,
)
from .._dask import accumulate_dask, is_dask_input
from ._metrics import BOUNDED, METRICS, ROUNDING_MARGIN
from ._table import GroupTable, compact, union

# Batches are kept aside and folded into the state when they hold twice as many
# groups as the state (at least this many): each group is then re-sorted
# O(log n) times, and the batches aside take at most twice the state's memory.
_MIN_FOLD = 1 << 16


class _Seen(NamedTuple):
    """What the metrics read: the groups of the ranking, those of the oracle
    (confidence ``-loss``) and whether every loss seen was 0 or 1."""

    groups: GroupTable
    oracle: GroupTable
    binary: bool


def _loss_setting(loss):
    """A name for the loss convention, compared between batches and states."""
    if isinstance(loss, str):
        return loss
    if callable(loss):
        module = getattr(loss, "__module__", None) or ""
        name = getattr(loss, "__qualname__", None) or repr(loss)
        return f"callable {module}.{name}" if module else f"callable {name}"
    return "per-sample array"


@fill_doc
class RiskCoverageAccumulator(ResultMixin):
    """Risk-coverage metrics of data seen in batches, with mergeable state.

    Every risk-coverage metric of this package is a function of the tie groups
    of the confidence: per distinct confidence value, the total weight and the
    total loss. The accumulator keeps these groups (and, for E-AURC and NAURC,
    the groups of the losses, the oracle's ranking), so that :meth:`update`
    adds a batch, :meth:`merge` (or ``a + b``) joins the states of two
    accumulators, in any order and grouping, and :meth:`compute` returns what
    the metric function returns on all the data seen at once (exactly, ties
    and weights included, up to the rounding of sums in another order). States
    pickle, so they travel between processes, e.g. one per partition of a
    Dask collection merged in a tree.

    With ``max_groups=None`` the state has one entry per distinct confidence.
    With an integer budget, neighbouring groups are merged whenever the state
    exceeds it, the memory stays ``O(max_groups)`` plus one batch, and:

    - :meth:`compute` returns the metric of the merged ties (each merged group
      treated as one tie group);
    - :meth:`bounds` returns ``(lower, upper)``, a certified range of the exact
      metric: its value for every order of the samples inside the merged
      groups lies in it. For losses in ``[m, M]`` within a group, the two
      extreme orders put the group's loss at its top or its bottom at the
      densest possible rate ``M``; as the metrics weigh a loss by an
      increasing function of the position (Notes), no order of the group can
      be worse or better.

    :attr:`exact_` says whether the state is exact (then
    ``lower == upper == compute(...)``).

    Parameters
    ----------
    max_groups : int, default=None
        Largest number of groups kept; None keeps every distinct confidence
        (exact). The oracle's table of loss values (more than two groups only
        for losses other than 0/1) keeps the same budget, or two groups.

    Attributes
    ----------
    exact_ : bool
        Whether no two distinct confidences (or loss values of the oracle)
        have been merged: :meth:`compute` is then exact.

    n_groups_ : int
        Number of groups of the state.

    n_samples_seen_ : int
        Number of samples passed to :meth:`update`, zero weights included.

    total_weight_ : float
        Total weight of the samples seen.

    loss_ : str or None
        The loss convention of the data seen (``"zero_one"``, ``"log_loss"``,
        ``"brier"``, ``"per-sample array"`` or the name of a callable); None
        before the first sample. Batches and states with another convention
        cannot be added.

    See Also
    --------
    aurc : The AURC of data in memory.
    augrc : The AUGRC of data in memory.
    risk_coverage_curve : The curve of data in memory.

    Notes
    -----
    Metrics (``metric`` of :meth:`compute`): ``"aurc"``, ``"augrc"``,
    ``"sele"``, ``"e_aurc"``, ``"naurc"``, ``"uq_auc"``,
    ``"selective_risk_at_coverage"``, ``"coverage_at_risk"``,
    ``"risk_coverage_curve"``, ``"generalized_risk_coverage_curve"``, and the
    OOD metrics ``"ood_auroc"`` and ``"fpr_at_tpr"`` when the loss passed is
    the OOD indicator ``y_ood``. The keyword arguments are those of the
    metric function (``aurc_estimator``, ``coverage_range``, ``oracle``,
    ``coverage``, ``risk``, ``tpr``); ``class_balanced=True`` needs the
    classes, which the groups do not keep.

    Why the bounds hold. For a fixed total weight ``n``, each bounded metric
    is ``sum_i phi(t) l_i`` integrated over the cumulative-weight interval of
    sample ``i`` in ascending confidence, ``phi`` increasing: the harmonic
    weights ``H_n - H_{n-r}`` of the AURC ([AURC] Eq. 13), the log weights
    (Eq. 18), ``r - 1/2`` of AUGRC ([AUGRC]), the mid-ranks of SELE, the
    indicator of the accepted weight for the working points. Tied samples
    share the mean over their positions. Inside a merged group of weight
    ``W`` and loss ``S`` the loss density ``lam`` is between the group's
    smallest and largest loss ``m`` and ``M`` and integrates to ``S``; the
    integral of ``phi lam`` is then largest with ``lam = M`` on the top
    ``(S - m W) / (M - m)`` of the group and ``m`` below, smallest in the
    mirror order (moving loss upwards never decreases it). The failure AUROC
    has the same extreme orders (failures all above, or all below, the
    correct predictions of the group), E-AURC and NAURC take the extremes of
    the ranking's and the oracle's AURC. The bounds are widened by
    ``2**-36`` of their magnitude for the rounding of the two evaluations.
    Budgets spend half of the groups evenly over the weight and half on a
    logarithmic scale towards the most confident end, where the harmonic
    AURC weighs losses most.

    References
    ----------
    %(ref_aurc)s
    %(ref_augrc)s

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.metrics import aurc
    >>> from sklearn_selective.metrics import RiskCoverageAccumulator
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 1000)
    >>> y_pred = rng.integers(0, 2, 1000)
    >>> confidence = np.round(rng.random(1000), 2)
    >>> accumulator = RiskCoverageAccumulator()
    >>> for batch in np.array_split(np.arange(1000), 4):
    ...     _ = accumulator.update(y_true[batch], y_pred[batch], confidence[batch])
    >>> accumulator
    RiskCoverageAccumulator(max_groups=None): 1000 samples in 101 exact groups, \
loss='zero_one'
    >>> value = aurc(y_true, y_pred, confidence)
    >>> bool(abs(accumulator.compute("aurc") - value) < 1e-12)
    True

    States merge in any order, e.g. one per process:

    >>> first = RiskCoverageAccumulator().update(y_true[:600], y_pred[:600],
    ...                                          confidence[:600])
    >>> second = RiskCoverageAccumulator().update(y_true[600:], y_pred[600:],
    ...                                           confidence[600:])
    >>> bool(abs((first + second).compute("aurc") - value) < 1e-12)
    True

    With a budget of groups, certified bounds of the exact value:

    >>> small = RiskCoverageAccumulator(max_groups=16)
    >>> _ = small.update(y_true, y_pred, confidence)
    >>> small.exact_
    False
    >>> lower, upper = small.bounds("aurc")
    >>> bool(lower <= value <= upper)
    True
    """

    def __init__(self, *, max_groups=None):
        if max_groups is not None and (
            isinstance(max_groups, bool)
            or not isinstance(max_groups, Integral)
            or max_groups < 1
        ):
            raise ValueError(
                "max_groups must be None (exact) or a positive integer, e.g. "
                f"max_groups=2**16; got {max_groups!r}."
            )
        self.max_groups = None if max_groups is None else int(max_groups)
        self._groups = GroupTable.empty()
        self._oracle = GroupTable.empty()
        self._pending = []  # (groups, oracle) of batches not folded yet
        self._pending_groups = 0
        self._loss = None
        self._binary = True
        self._n_samples = 0

    # ----------------------------------------------------------------------------------
    # Adding data
    # ----------------------------------------------------------------------------------
    def update(
        self, y_true, y_pred, confidence, *, loss=None, sample_weight=None, labels=None
    ):
        """Add a batch of predictions.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or None
            True labels; None when ``loss`` is a per-sample array.

        y_pred : array-like of shape (n_samples,) or (n_samples, n_classes), or None
            Predicted labels, or class probabilities for ``loss="log_loss"``
            or ``"brier"`` (and the 0/1 loss of their most likely class).

        confidence : array-like of shape (n_samples,)
            Confidence of each prediction; higher means more confident.

        loss : {"zero_one", "log_loss", "brier"}, callable or array-like, \
default=None
            The per-sample loss, as for the metric functions; None is
            ``"zero_one"``. Every batch of an accumulator uses the same
            convention.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights (frequencies for the AURC estimators and SELE).
            A batch may have zero total weight.

        labels : array-like of shape (n_classes,), default=None
            Classes of the columns of probabilities in ``y_pred``.

        Returns
        -------
        self : RiskCoverageAccumulator
            The accumulator, updated.

        Notes
        -----
        The inputs may be Dask arrays or Dask DataFrame columns: each partition
        then becomes a state on its worker with this accumulator's budget, the
        states merge in a tree on the cluster, and the result is merged here
        (the way to a budget, and certified bounds, for Dask collections whose
        distinct confidences do not fit a worker).
        """
        if is_dask_input(y_true, y_pred, confidence, loss, sample_weight):
            state = accumulate_dask(
                type(self)(max_groups=self.max_groups),
                y_true,
                y_pred,
                confidence,
                loss="zero_one" if loss is None else loss,
                sample_weight=sample_weight,
                labels=labels,
            ).compute()
            return self.merge(state)
        loss = "zero_one" if loss is None else loss
        setting = _loss_setting(loss)
        self._check_loss_setting(setting, "update(loss=...)")
        if not np.shape(confidence)[:1] or np.shape(confidence)[0] == 0:
            if np.ndim(confidence) == 0:
                raise ValueError(
                    "confidence must hold one value per sample, of shape "
                    f"(n_samples,); got a scalar {confidence!r}."
                )
            return self  # an empty batch adds nothing
        confidence, losses, _ = _validate_risk_inputs(
            y_true, y_pred, confidence, loss=loss, sample_weight=None, labels=labels
        )
        n_samples = confidence.shape[0]
        if sample_weight is not None:
            sample_weight = _check_nonnegative_1d(
                sample_weight, "sample_weight", n_samples
            )
        binary = _is_zero_one(loss) or bool(np.all((losses == 0.0) | (losses == 1.0)))
        self._binary = self._binary and binary
        self._loss = setting
        self._n_samples += n_samples
        groups = GroupTable.from_samples(confidence, losses, sample_weight)
        if binary:
            oracle = GroupTable.of_binary_losses(losses, sample_weight)
        else:
            oracle = GroupTable.from_samples(-losses, losses, sample_weight)
        self._pending.append((groups, oracle))
        self._pending_groups += groups.n_groups
        limit = max(2 * self._groups.n_groups, _MIN_FOLD)
        if self.max_groups is not None:
            limit = min(limit, self.max_groups)
        if self._pending_groups > limit:
            self._fold()
        return self

    def merge(self, other):
        """Add the data seen by another accumulator, in place.

        Parameters
        ----------
        other : RiskCoverageAccumulator
            An accumulator with the same loss convention (or no data). With
            budgets, the smaller one is kept.

        Returns
        -------
        self : RiskCoverageAccumulator
            The accumulator, holding the data of both. ``a + b`` returns a new
            accumulator instead and leaves both unchanged.
        """
        self._absorb(other)
        self._fold()
        return self

    def _absorb(self, other):
        """Take ``other``'s data aside, to be folded in with the next fold."""
        if not isinstance(other, RiskCoverageAccumulator):
            raise TypeError(
                "merge() takes another RiskCoverageAccumulator; got "
                f"{type(other).__name__}."
            )
        if other._loss is not None:
            self._check_loss_setting(other._loss, "the other accumulator's loss")
            self._loss = other._loss
        budgets = [b for b in (self.max_groups, other.max_groups) if b is not None]
        self.max_groups = min(budgets) if budgets else None
        self._binary = self._binary and other._binary
        self._n_samples += other._n_samples
        self._pending.extend([(other._groups, other._oracle), *other._pending])

    def __add__(self, other):
        if not isinstance(other, RiskCoverageAccumulator):
            return NotImplemented
        return self._copy().merge(other)

    def __radd__(self, other):
        # sum(accumulators) starts from 0.
        if isinstance(other, int) and other == 0:
            return self._copy()
        return NotImplemented

    def _copy(self):
        result = copy.copy(self)
        result._pending = list(self._pending)
        return result

    def _check_loss_setting(self, setting, source):
        if self._loss is not None and setting != self._loss:
            raise ValueError(
                f"{source} is {setting!r} but this accumulator holds data with "
                f"loss {self._loss!r}: the losses of one accumulator must follow "
                "one convention. Use one accumulator per loss."
            )

    def _fold(self):
        """Fold the batches kept aside into the state (and apply the budget)."""
        if not self._pending:
            return
        groups, oracle = zip(*self._pending, strict=True)
        self._groups = self._within_budget(union([self._groups, *groups]))
        # The oracle keeps two groups at least: the 0/1 losses' stay exact.
        self._oracle = self._within_budget(union([self._oracle, *oracle]), 2)
        self._pending = []
        self._pending_groups = 0

    def _within_budget(self, table, at_least=1):
        if self.max_groups is None:
            return table
        return compact(table, max(self.max_groups, at_least))

    def __getstate__(self):
        self._fold()  # one table travels, not the batches
        return self.__dict__.copy()

    # ----------------------------------------------------------------------------------
    # Results
    # ----------------------------------------------------------------------------------
    @property
    def exact_(self):
        self._fold()
        return self._groups.exact and self._oracle.exact

    @property
    def n_groups_(self):
        self._fold()
        return self._groups.n_groups

    @property
    def n_samples_seen_(self):
        return self._n_samples

    @property
    def total_weight_(self):
        self._fold()
        return float(self._groups.weight.sum())

    @property
    def loss_(self):
        return self._loss

    def _seen(self, metric):
        if metric not in METRICS:
            raise ValueError(
                f"metric must be one of {sorted(METRICS)}; got {metric!r}. The "
                "accumulator computes the metrics that are functions of the tie "
                "groups of the confidence."
            )
        self._fold()
        if not self._groups.n_groups:
            raise ValueError(
                f"compute({metric!r}) needs data: the accumulator has seen no "
                "sample of positive weight. Call update() first."
            )
        seen = _Seen(self._groups, self._oracle, self._binary)
        METRICS[metric].check(seen)
        return seen

    def compute(self, metric, **kwargs):
        """The metric on all the data seen.

        Parameters
        ----------
        metric : str
            Name of the metric function, e.g. ``"aurc"`` (see Notes of the
            class).

        **kwargs : dict
            Keyword arguments of the metric function, e.g.
            ``aurc_estimator="log"`` or ``coverage=0.8``.

        Returns
        -------
        value : float or tuple of ndarray
            What the metric function returns on all the data (the curves:
            ``(coverage, risk, thresholds)``, the threshold of a merged group
            being its smallest confidence). With merged groups, the metric of
            the merged ties.
        """
        options = self._options(metric, kwargs)
        return METRICS[metric].value(self._seen(metric), options)

    def bounds(self, metric, **kwargs):
        """Certified range of the exact metric on all the data seen.

        Parameters
        ----------
        metric : str
            Name of a scalar metric: ``"aurc"`` (plug-in estimators, whole
            coverage range),
            ``"augrc"``, ``"sele"``, ``"e_aurc"``, ``"naurc"``, ``"uq_auc"``,
            ``"ood_auroc"``, ``"selective_risk_at_coverage"``,
            ``"coverage_at_risk"``.

        **kwargs : dict
            Keyword arguments of the metric function.

        Returns
        -------
        lower, upper : float
            The exact metric lies in ``[lower, upper]`` for every order of the
            samples of the merged groups; ``lower == upper == compute(...)``
            when :attr:`exact_`. ``(nan, nan)`` where the metric is undefined.
        """
        options = self._options(metric, kwargs)
        spec = METRICS[metric]
        if spec.scalar and self.exact_:
            value = spec.value(self._seen(metric), options)
            return value, value
        seen = self._seen(metric)
        if metric not in BOUNDED:
            spec.extremes(seen, options)  # raises, saying what is bounded
        lower, upper = spec.bounds(seen, options)
        if np.isnan(lower):
            return lower, upper
        margin = ROUNDING_MARGIN * max(abs(lower), abs(upper))
        return lower - margin, upper + margin

    def _options(self, metric, kwargs):
        if metric not in METRICS:
            self._seen(metric)  # raises, naming the metrics
        return METRICS[metric].options(kwargs)

    # ----------------------------------------------------------------------------------
    # Representations
    # ----------------------------------------------------------------------------------
    def to_dict(self, *, include_distribution=False):
        """The state's summary as a dict of plain Python values.

        Parameters
        ----------
        include_distribution : bool, default=False
            Whether to include the table of groups (one list per column:
            ``low``, ``high`` confidence, ``weight``, ``loss`` total,
            ``loss_min``, ``loss_max``), the state itself.

        Returns
        -------
        data : dict
        """
        self._fold()
        data = {
            "max_groups": self.max_groups,
            "exact": self.exact_,
            "n_groups": self.n_groups_,
            "n_samples_seen": self._n_samples,
            "total_weight": self.total_weight_,
            "loss": self._loss,
            "binary_losses": self._binary,
        }
        if include_distribution:
            data["groups"] = {
                name: column.tolist()
                for name, column in zip(GroupTable._fields, self._groups, strict=True)
            }
        return data

    def to_frame(self):
        """The table of groups as a :class:`pandas.DataFrame`, one row per group
        in ascending confidence.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``low``, ``high`` (the group's confidence range), ``weight``,
            ``loss`` (total weighted loss), ``loss_min``, ``loss_max``.
        """
        pandas = import_pandas("RiskCoverageAccumulator")
        self._fold()
        columns = zip(GroupTable._fields, self._groups, strict=True)
        return pandas.DataFrame(dict(columns))

    def __repr__(self):
        self._fold()
        kind = "exact" if self.exact_ else "merged"
        return (
            f"RiskCoverageAccumulator(max_groups={self.max_groups}): "
            f"{self._n_samples} samples in {self.n_groups_} {kind} groups, "
            f"loss={self._loss!r}"
        )
