"""Which inputs moved: a two-sample test per feature, adjusted for their number.

An alert says that a chunk's inputs moved, not which. Per feature, the
chunk's values are compared with the reference's:

- numeric features: the two-sample Kolmogorov-Smirnov statistic ``D``, the
  largest gap between the two empirical distribution functions, with
  :func:`scipy.stats.ks_2samp`'s p-value (exact when both samples have at most
  10 000 values, as its ``method="auto"``; above, ``D`` is computed for all
  columns at once and the p-value is Smirnov's asymptotic one, scipy's
  ``method="asymp"``). Ties (pixels, counts) make it conservative;
- categorical features (pandas ``object``, ``category``, ``string`` and
  ``bool`` columns, those named in ``categorical_features``, and numeric
  columns with at most ``max_categories`` distinct values on the
  reference): Pearson's
  chi-square test of the 2 x (categories) table of counts, ``(k - 1)``
  degrees of freedom for the ``k`` categories seen on either side, missing
  values a category of their own.

**Multiple testing.** With ``p`` features tested at once, the raw p-values
are adjusted by Holm's step-down procedure (default) or Bonferroni's: a
feature is called drifted when its *adjusted* p-value is below ``alpha``,
which bounds the probability of calling any unmoved feature drifted by
``alpha`` (family-wise error rate, any dependence between the features).
Holm's adjusted p-values are never larger than Bonferroni's.

References
----------
.. [1] S. Holm. *A simple sequentially rejective multiple test procedure.*
   Scandinavian Journal of Statistics 6(2), 1979.
.. [2] NannyML. *Univariate drift detection* (Kolmogorov-Smirnov and
   chi-square per column). https://nannyml.readthedocs.io
"""

import numpy as np
import scipy.sparse as sp
from scipy.stats import chi2, ks_2samp, kstwo

# Above this many values on one side, scipy's "auto" leaves the exact p-value.
_EXACT_KS_MAX = 10_000
_CORRECTIONS = ("holm", "bonferroni")


def _adjust_holm(p_values):
    """Holm's step-down adjusted p-values (monotone, capped at 1)."""
    m = p_values.shape[0]
    order = np.argsort(p_values, kind="stable")
    scaled = np.maximum.accumulate((m - np.arange(m)) * p_values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(scaled, 1.0)
    return adjusted


def _adjust_bonferroni(p_values):
    return np.minimum(p_values * p_values.shape[0], 1.0)


_ADJUST = {"holm": _adjust_holm, "bonferroni": _adjust_bonferroni}


class FeatureDrift:
    """Per-feature drift of a chunk against the reference.

    Attributes
    ----------
    feature_names : ndarray of str
        The features, in the input's order.
    test : ndarray of str
        ``"ks"`` or ``"chi2"`` per feature.
    statistic : ndarray of float
        Kolmogorov-Smirnov ``D`` or the chi-square statistic.
    p_value : ndarray of float
        Unadjusted p-values.
    adjusted_p_value : ndarray of float
        p-values adjusted by ``correction`` over all features.
    correction : {"holm", "bonferroni"}
        The multiple-testing adjustment.
    """

    def __init__(self, feature_names, test, statistic, p_value, correction):
        self.feature_names = np.asarray(feature_names, dtype=object)
        self.test = np.asarray(test, dtype=object)
        self.statistic = np.asarray(statistic, dtype=np.float64)
        self.p_value = np.asarray(p_value, dtype=np.float64)
        self.correction = correction
        self.adjusted_p_value = _ADJUST[correction](self.p_value)

    def ranking(self):
        """Feature indices, most drifted first: by adjusted p-value, ties (e.g.
        p-values that underflow to 0) by the p-value, then by the statistic
        within a test."""
        return np.lexsort((-self.statistic, self.p_value, self.adjusted_p_value))

    def drifted(self, alpha=0.05):
        """Names of the features whose adjusted p-value is below ``alpha``,
        most drifted first."""
        order = self.ranking()
        return [
            str(n)
            for n in self.feature_names[order][self.adjusted_p_value[order] < alpha]
        ]

    def summary(self, alpha=0.05, max_features=3):
        """One line for a table cell: the drifted features (at most
        ``max_features``) with their statistic and adjusted p-value; ``""``
        when none drifted."""
        order = self.ranking()
        cells = [
            f"{self.feature_names[i]} ({self.test[i]} {self.statistic[i]:.3g}, "
            f"p={self.adjusted_p_value[i]:.2g})"
            for i in order[:max_features]
            if self.adjusted_p_value[i] < alpha
        ]
        extra = int((self.adjusted_p_value < alpha).sum()) - len(cells)
        return ", ".join(cells) + (f" and {extra} more" if extra > 0 else "")

    def records(self, alpha=0.05):
        """The drifted features (adjusted p-value below ``alpha``), most
        drifted first, as dicts with ``feature``, ``test``, ``statistic``,
        ``p_value`` and ``adjusted_p_value``."""
        order = self.ranking()
        return [
            {
                "feature": str(self.feature_names[i]),
                "test": str(self.test[i]),
                "statistic": float(self.statistic[i]),
                "p_value": float(self.p_value[i]),
                "adjusted_p_value": float(self.adjusted_p_value[i]),
            }
            for i in order
            if self.adjusted_p_value[i] < alpha
        ]

    def to_frame(self):
        """A pandas DataFrame, one row per feature, most drifted first."""
        import pandas as pd

        order = self.ranking()
        return pd.DataFrame(
            {
                "feature": self.feature_names[order],
                "test": self.test[order],
                "statistic": self.statistic[order],
                "p_value": self.p_value[order],
                "adjusted_p_value": self.adjusted_p_value[order],
            }
        )

    def __repr__(self):
        drifted = self.drifted()
        return (
            f"FeatureDrift({len(drifted)} of {self.feature_names.shape[0]} features "
            f"drifted at adjusted p < 0.05, {self.correction}: "
            f"{self.summary() or 'none'})"
        )


def _columns(X, name):
    """``(names, columns, categorical_dtype)``: a list of 1-D arrays."""
    if sp.issparse(X):
        raise TypeError(
            f"{name} is a sparse matrix; per-feature tests need dense columns. "
            f"Pass {name}.toarray() (or the columns of interest)."
        )
    if hasattr(X, "columns") and hasattr(X, "dtypes"):  # a pandas DataFrame
        names = [str(c) for c in X.columns]
        columns = [X[c].to_numpy() for c in X.columns]
        categorical = [
            str(d) in ("object", "category", "bool", "string", "str")
            or str(d).startswith("string")
            for d in X.dtypes
        ]
        return names, columns, np.array(categorical, dtype=bool)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_features); got shape "
            f"{X.shape}."
        )
    categorical = X.dtype.kind not in "iufb" or X.dtype.kind == "b"
    return (
        [f"x{j}" for j in range(X.shape[1])],
        list(X.T),
        np.full(X.shape[1], categorical, dtype=bool),
    )


def _categorical_mask(categorical_features, names, by_dtype):
    if categorical_features is None:
        return by_dtype.copy()
    selected = np.asarray(categorical_features)
    mask = by_dtype.copy()
    if selected.dtype.kind == "b":
        if selected.shape != (len(names),):
            raise ValueError(
                f"categorical_features as a mask needs {len(names)} values; got "
                f"{selected.shape[0]}."
            )
        return mask | selected
    if selected.dtype.kind in "iu":
        mask[selected] = True
        return mask
    unknown = sorted(set(map(str, selected)) - set(names))
    if unknown:
        raise ValueError(
            f"categorical_features names unknown columns {unknown[:5]}; the "
            f"columns are {names[:10]}."
        )
    return mask | np.isin(names, selected.astype(str))


def _ks_statistic(reference, chunk):
    """Kolmogorov-Smirnov ``D`` of one column, NaNs left out.

    Between two distinct reference values ``u_{i-1} < u_i`` the reference's
    ECDF is flat and the chunk's increases, so the largest gap is at ``u_i``
    (both ECDFs there) or just below it (the reference's at ``u_{i-1}``, the
    chunk's share of values ``< u_i``); beyond the last reference value both
    reach 1. So only the ``m`` reference values are searched in the sorted
    chunk.
    """
    reference = reference[~np.isnan(reference)]
    chunk = np.sort(chunk[~np.isnan(chunk)])
    if not (reference.size and chunk.size):
        return np.nan, 0, 0
    grid, counts = np.unique(reference, return_counts=True)
    at_reference = np.cumsum(counts) / reference.size
    below_reference = np.r_[0.0, at_reference[:-1]]
    upto = np.searchsorted(chunk, grid, side="right") / chunk.size
    less = np.searchsorted(chunk, grid, side="left") / chunk.size
    gap = max(np.abs(at_reference - upto).max(), np.abs(below_reference - less).max())
    return float(gap), reference.size, chunk.size


def _ks_asymptotic(reference, chunk):
    """Kolmogorov-Smirnov ``D`` and Smirnov's asymptotic p-value (scipy's
    ``method="asymp"``) of every pair of columns of two lists."""
    results = [
        _ks_statistic(np.asarray(r, dtype=np.float64), np.asarray(c, np.float64))
        for r, c in zip(reference, chunk, strict=True)
    ]
    statistic, n_reference, n_chunk = (
        np.array(v, dtype=np.float64) for v in zip(*results, strict=True)
    )
    larger = np.maximum(n_reference, n_chunk)
    smaller = np.minimum(n_reference, n_chunk)
    with np.errstate(invalid="ignore", divide="ignore"):
        en = np.round(larger * smaller / (larger + smaller))
        p_value = np.where(en > 0, np.clip(kstwo.sf(statistic, en), 0, 1), np.nan)
    return statistic, p_value


def _ks(reference, chunk):
    """``(statistic, p_value)`` of the numeric columns (lists of 1-D arrays)."""
    if max(reference[0].shape[0], chunk[0].shape[0]) > _EXACT_KS_MAX:
        return _ks_asymptotic(reference, chunk)
    # One call per feature (scipy < 1.12 has no axis): a loop over columns.
    results = [
        _ks_column(np.asarray(r, np.float64), np.asarray(c, np.float64))
        for r, c in zip(reference, chunk, strict=True)
    ]
    statistic, p_value = zip(*results, strict=True)
    return np.array(statistic), np.array(p_value)


def _ks_column(reference, chunk):
    """scipy's two-sample KS test of one feature, missing values left out
    (NaN when a side has none left, as scipy's ``nan_policy="omit"``)."""
    reference = reference[~np.isnan(reference)]
    chunk = chunk[~np.isnan(chunk)]
    if reference.size == 0 or chunk.size == 0:
        return np.nan, np.nan
    result = ks_2samp(reference, chunk)
    return float(result.statistic), float(result.pvalue)


def _isnan(values):
    if values.dtype.kind in "fc":
        return np.isnan(values)
    return np.zeros(values.shape, dtype=bool)


def _chi_square(reference, chunk):
    """Pearson's chi-square test of homogeneity of one categorical column."""
    values = np.concatenate([reference, chunk])
    if values.dtype.kind not in "iufb":
        values = values.astype(str)  # NaN and None become categories
    _, codes = np.unique(values, return_inverse=True, equal_nan=True)
    n_categories = codes.max() + 1
    table = np.stack(
        [
            np.bincount(codes[: reference.shape[0]], minlength=n_categories),
            np.bincount(codes[reference.shape[0] :], minlength=n_categories),
        ]
    ).astype(np.float64)
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    statistic = float(((table - expected) ** 2 / expected).sum())
    if n_categories < 2:
        return 0.0, 1.0
    return statistic, float(chi2.sf(statistic, n_categories - 1))


def drifted_features(
    X_reference,
    X,
    *,
    categorical_features=None,
    max_categories=10,
    correction="holm",
):
    """Per-feature two-sample tests of a chunk against the reference.

    Kolmogorov-Smirnov for numeric features, chi-square for categorical and
    low-cardinality ones, p-values adjusted for the number of features (see
    the module's notes). The chunk's values are not sorted: a large chunk
    costs ``O(n log m)`` per numeric feature, ``m`` the reference size.

    Parameters
    ----------
    X_reference : array-like or pandas DataFrame of shape (n_reference, n_features)
        The reference inputs.
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        The chunk's inputs, same columns (a DataFrame's column names are the
        feature names; ``x0, x1, ...`` for arrays).
    categorical_features : array-like of bool, int or str, default=None
        Features to test as categorical (a mask, indices or column names), on
        top of the non-numeric columns.
    max_categories : int >= 0, default=10
        Numeric features with at most this many distinct values on the
        reference are tested as categorical; 0 tests every numeric
        feature with Kolmogorov-Smirnov.
    correction : {"holm", "bonferroni"}, default="holm"
        Multiple-testing adjustment of the p-values (family-wise error rate).

    Returns
    -------
    drift : FeatureDrift
        Statistic, p-value and adjusted p-value per feature; ``drifted()``
        lists the features whose adjusted p-value is below a level.

    References
    ----------
    .. [1] S. Holm. *A simple sequentially rejective multiple test
       procedure.* Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] NannyML. *Univariate drift detection.*
       https://nannyml.readthedocs.io

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective._shift._feature_drift import drifted_features
    >>> rng = np.random.default_rng(0)
    >>> reference = rng.normal(size=(500, 4))
    >>> chunk = rng.normal(size=(300, 4))
    >>> chunk[:, 2] += 1.0
    >>> drift = drifted_features(reference, chunk)
    >>> drift.drifted()
    ['x2']
    """
    if correction not in _CORRECTIONS:
        raise ValueError(
            f"correction must be one of {_CORRECTIONS}; got {correction!r}."
        )
    if not (isinstance(max_categories, int | np.integer) and max_categories >= 0):
        raise ValueError(
            f"max_categories must be an integer >= 0; got {max_categories!r}."
        )
    names, reference, by_dtype = _columns(X_reference, "X_reference")
    chunk_names, chunk, _ = _columns(X, "X")
    if chunk_names != names:
        raise ValueError(
            f"X has columns {chunk_names[:5]}... but X_reference has "
            f"{names[:5]}...; pass the same features in the same order."
        )
    if not (reference and reference[0].shape[0] and chunk[0].shape[0]):
        raise ValueError("X_reference and X need at least one sample and feature.")
    categorical = _categorical_mask(categorical_features, names, by_dtype)
    numeric = np.flatnonzero(~categorical)
    if numeric.size and max_categories:
        distinct = np.array(
            [np.unique(reference[j][~_isnan(reference[j])]).size for j in numeric]
        )
        categorical[numeric[distinct <= max_categories]] = True
        numeric = np.flatnonzero(~categorical)
    statistic = np.zeros(len(names))
    p_value = np.ones(len(names))
    test = np.where(categorical, "chi2", "ks").astype(object)
    if numeric.size:
        statistic[numeric], p_value[numeric] = _ks(
            [reference[j] for j in numeric], [chunk[j] for j in numeric]
        )
    for j in np.flatnonzero(categorical):
        statistic[j], p_value[j] = _chi_square(reference[j], chunk[j])
    p_value = np.where(np.isnan(p_value), 1.0, p_value)
    return FeatureDrift(names, test, statistic, p_value, correction)
