"""Risk guarantees by Learn-then-Test: fixed-sequence testing along the
threshold path (Angelopoulos et al. 2021), with several constraints at once.

The validation curve lists the distinct thresholds from the most confident down,
so coverage grows along it. At each threshold ``j`` with ``n_j`` accepted
samples of which ``k_j`` are failures:

- selective risk: the null ``R_j > target_risk`` has the exact binomial p-value
  ``P(Bin(n_j, target_risk) <= k_j)``, conditional on the number accepted;
- abstention rate: the null ``coverage_j < 1 - max_abstention_rate`` has the
  exact p-value ``P(Bin(n, 1 - max_abstention_rate) >= n_j)``.

**Fixed-sequence testing.** Tests run in an order fixed before the labels are
seen, each at the full level ``alpha``, and stop at the first that does not
reject; the family-wise error is at most ``alpha`` without any multiplicity
correction, because a false rejection needs the first true null of the order to
be rejected, which has probability at most ``alpha``.

**Starts.** One walk from the most confident sample certifies nothing once an
early error stops it. So the risk is walked from ``S`` starts chosen without
the labels, each at level ``alpha_risk / S`` (Bonferroni over the walks), each
toward more coverage; the union of what the walks certify holds family-wise at
``alpha_risk``. The starts are where a walk can succeed at all: below
``m0 = ceil(log(alpha_risk / S) / log(1 - target_risk))`` accepted samples even
no failure cannot reject (``(1 - target)^m > alpha_risk / S``), so the walks
start at ``m0, 3 m0, 9 m0, ...`` accepted samples (``START_RATIO``), up to the
validation size; ``S`` is the smallest number of walks that leaves room for
all of them (``m0`` grows with ``S``).
This adapts to the target and the sample size, where starts at fixed
coverages do not; ``benchmarks/bench_guarantees.py`` compares them. The
abstention rate falls the other way (coverage grows as the threshold drops), so
its walk starts at full coverage and goes toward less.

**Several constraints.** The risk and the abstention rate share the level by
Bonferroni, ``alpha_risk = alpha_cap = alpha / 2`` when both are stated (all of
``alpha`` to the risk otherwise): the probability that any certified statement
is false is at most ``alpha_risk + alpha_cap = alpha``. Per-class risks split
the level over the classes in the same way (``_policies/_per_class.py``).

**Procedures as objects.** Each procedure (:class:`FixedSequence`,
:class:`SGR`) is an object with one method, ``certify(curve, target_risk,
confidence_level, level_text=None)``, returning the certified
:class:`~._curve.ThresholdFit`; ``PROCEDURES`` names them for the
``guarantee`` parameter. Both refuse (``TooFewSamplesError``) validation data too
few to certify the target even with no failure, and abstain on everything with
a ``GuaranteeNotMetWarning`` when no threshold is certified.
"""

import math

import numpy as np
from scipy.stats import beta, binom

from ..exceptions import TooFewSamplesError
from ._curve import ABSTAINS, abstain_on_everything

# Ratio of consecutive starts (in accepted samples) of the risk walks: see
# benchmarks/bench_guarantees.py for the choice.
START_RATIO = 3.0


def risk_p_values(accepted_failures, accepted, target_risk):
    """``P(Bin(n_j, target_risk) <= k_j)`` at every threshold (1 where nothing is
    accepted)."""
    accepted_failures = np.rint(accepted_failures)
    accepted = np.rint(accepted)
    return np.where(
        accepted > 0, binom.cdf(accepted_failures, accepted, target_risk), 1.0
    )


def coverage_p_values(accepted, n_samples, min_coverage):
    """``P(Bin(n, min_coverage) >= n_j)`` at every threshold."""
    return binom.sf(np.rint(accepted) - 1, n_samples, min_coverage)


def walk(p_values, alpha, start, step):
    """Fixed-sequence test from ``start`` by ``step`` (+1 toward more coverage,
    -1 toward less): the last index rejected before the first that is not, or
    None when the first test does not reject."""
    passed = p_values <= alpha
    order = passed[start:] if step > 0 else passed[start::-1]
    failed = np.flatnonzero(~order)
    length = order.shape[0] if failed.size == 0 else int(failed[0])
    if length == 0:
        return None
    return start + step * (length - 1)


def risk_starts(n_samples, target_risk, alpha, ratio=START_RATIO):
    """``(counts, n_walks)``: the accepted-sample counts where the risk walks
    start, ``m0 * ratio**i`` up to ``n_samples``, and the number of walks the
    level is split over. ``m0`` is the fewest accepted samples whose p-value
    with no failure, ``(1 - target_risk)**m0``, reaches ``alpha / n_walks``;
    ``n_walks`` is the smallest number of walks that leaves room for all the
    starts (at most ``n_walks`` of them), so the split is never too thin."""
    n_walks = 1
    while True:
        m0 = math.ceil(math.log(alpha / n_walks) / math.log1p(-target_risk))
        if m0 >= n_samples:
            return [n_samples], n_walks
        counts = [m0]
        while counts[-1] * ratio <= n_samples:
            counts.append(counts[-1] * ratio)
        if len(counts) <= n_walks:
            return [min(n_samples, math.ceil(c)) for c in counts], n_walks
        n_walks += 1


def risk_certified(curve, target_risk, alpha, ratio=START_RATIO):
    """Index of the largest coverage whose risk the walks certify (None if none),
    and the level of each walk."""
    p_values = risk_p_values(curve.accepted_loss, curve.accepted_weight, target_risk)
    starts, n_walks = risk_starts(round(curve.total_weight), target_risk, alpha, ratio)
    level = alpha / n_walks
    best = None
    for count in starts:
        start = int(np.searchsorted(curve.accepted_weight, count - 0.5))
        if start >= p_values.shape[0]:
            continue
        last = walk(p_values, level, start, +1)
        if last is not None and (best is None or last > best):
            best = last
    return best, level


def cap_certified(curve, max_abstention_rate, alpha):
    """Smallest index whose abstention rate the walk from full coverage
    certifies to be at most ``max_abstention_rate`` (None if none)."""
    n_samples = round(curve.total_weight)
    p_values = coverage_p_values(
        curve.accepted_weight, n_samples, 1.0 - max_abstention_rate
    )
    return walk(p_values, alpha, p_values.shape[0] - 1, -1)


def samples_needed(risk, target_risk, alpha, limit=10**7):
    """Fewest validation samples at which an observed selective risk ``risk``
    would be certified at level ``alpha`` (None when ``risk >= target_risk``)."""
    if not risk < target_risk:
        return None
    low, high = 1, 1
    while high < limit:
        k = math.floor(risk * high)
        if clopper_pearson_upper(k, high, alpha) <= target_risk:
            break
        low, high = high, high * 2
    else:
        return None
    while high - low > 1:  # the bound falls with n at a fixed risk (to rounding)
        middle = (low + high) // 2
        k = math.floor(risk * middle)
        if clopper_pearson_upper(k, middle, alpha) <= target_risk:
            high = middle
        else:
            low = middle
    return high


def clopper_pearson_upper(n_failures, n_trials, alpha):
    """One-sided upper confidence bound, level ``1 - alpha``, of a binomial rate."""
    n_failures, n_trials = np.asarray(n_failures), np.asarray(n_trials)
    with np.errstate(invalid="ignore"):
        bound = beta.ppf(1 - alpha, n_failures + 1, n_trials - n_failures)
    return np.where(n_failures >= n_trials, 1.0, bound)


def min_samples_for_guarantee(target_risk, confidence_level, n_tests):
    """Fewest validation samples for which zero failures can certify the target."""
    # Upper bound with 0 failures in m trials: 1 - (delta / k)^(1/m) < target, where
    # delta = 1 - confidence_level is the failure probability.
    delta = 1 - confidence_level
    return math.floor(math.log(delta / n_tests) / math.log1p(-target_risk)) + 1


def check_enough_samples(curve, target_risk, confidence_level, n_tests, level_text):
    """TooFewSamplesError when even no failure among all the validation samples
    could certify the target with ``n_tests`` tests at ``confidence_level``."""
    n_samples = round(curve.total_weight)
    needed = min_samples_for_guarantee(target_risk, confidence_level, n_tests)
    if n_samples < needed:
        raise TooFewSamplesError(
            f"A selective risk <= {target_risk} with {level_text} cannot be "
            f"certified from {n_samples} validation samples: even with no error at "
            f"all, at least {needed} are needed. Use more validation data (a "
            "larger cv fraction or held-out set), a larger target_risk or a "
            "smaller confidence_level.",
            needed,
        )


def _bound_at(curve, index, alpha):
    """The Clopper-Pearson bound of the selective risk at ``index``."""
    return float(
        clopper_pearson_upper(
            round(curve.accepted_loss[index]),
            round(curve.accepted_weight[index]),
            alpha,
        )
    )


# ----------------------------------------------------------------------------------
# Learn-then-Test with fixed-sequence walks: guarantee="fixed_sequence"
# ----------------------------------------------------------------------------------
class FixedSequence:
    """Learn-then-Test with fixed-sequence walks (see the module docstring).

    Parameters
    ----------
    max_abstention_rate : float or None
        The review capacity certified with the risk (the level split in half).
    start_ratio : float
        Ratio of consecutive starts of the risk walks, in accepted samples.
    """

    def __init__(self, max_abstention_rate=None, start_ratio=START_RATIO):
        self.max_abstention_rate = max_abstention_rate
        self.start_ratio = start_ratio

    def certify(self, curve, target_risk, confidence_level, level_text=None):
        """The :class:`~._curve.ThresholdFit` of the largest coverage that every
        stated constraint certifies, with ``risk_bound`` the Clopper-Pearson
        bound at its walk's level (at most ``target_risk``); abstains on
        everything with a warning when no threshold is certified."""
        if level_text is None:
            level_text = f"confidence_level={confidence_level}"
        cap = self.max_abstention_rate
        alpha = 1.0 - confidence_level
        alpha_risk = alpha if cap is None else alpha / 2
        check_enough_samples(curve, target_risk, 1.0 - alpha_risk, 1, level_text)
        best, level = risk_certified(curve, target_risk, alpha_risk, self.start_ratio)
        if best is None:
            return _abstain_with_advice(curve, target_risk, level, level_text)
        if cap is not None:
            lowest = cap_certified(curve, cap, alpha / 2)
            if lowest is None or best < lowest:
                return _abstain_for_the_cap(
                    curve, target_risk, cap, level_text, best, lowest
                )
        return curve.at(best, risk_bound=_bound_at(curve, best, level))


def _abstain_with_advice(curve, target_risk, level, level_text):
    """Abstain on everything, with the best bound the data allow and the
    validation size that would certify the target."""
    bounds = clopper_pearson_upper(
        np.rint(curve.accepted_loss), np.rint(curve.accepted_weight), level
    )
    best = int(np.argmin(bounds))
    risk = float(curve.risk[best])
    needed = samples_needed(risk, target_risk, level)
    size = (
        f"about {math.ceil(needed / curve.coverage[best]):,} validation samples "
        f"(at this coverage and risk) would certify it"
        if needed is not None
        else "no validation size would certify it (the empirical risk is above "
        "the target)"
    )
    return abstain_on_everything(
        f"No threshold certifies a selective risk <= {target_risk} with "
        f"{level_text}. The best bound on this validation data is "
        f"{bounds[best]:.4g} (at coverage {curve.coverage[best]:.3f}, empirical "
        f"risk {risk:.4g}); {size}. {ABSTAINS}"
    )


def _abstain_for_the_cap(curve, target_risk, cap, level_text, best, lowest):
    """Abstain on everything when the risk and the review capacity cannot be
    certified at once, saying how far apart they are."""
    reach = (
        "no threshold"
        if lowest is None
        else f"only thresholds of validation coverage >= {curve.coverage[lowest]:.3f}"
    )
    return abstain_on_everything(
        f"No threshold certifies a selective risk <= {target_risk} and an "
        f"abstention rate <= {cap} at once with {level_text}: the risk is "
        f"certified up to validation coverage {curve.coverage[best]:.3f}, and the "
        f"abstention rate for {reach} (the level is split between the two). More "
        "validation data narrow the gap; otherwise relax target_risk or "
        "max_abstention_rate. The classifier abstains on every sample "
        "(threshold_ = inf), which exceeds the review capacity: the requirement "
        "cannot be met on this data."
    )


# ----------------------------------------------------------------------------------
# SGR (Geifman and El-Yaniv 2017), kept for reproduction: guarantee="sgr"
# ----------------------------------------------------------------------------------
def sgr_n_tests(n_thresholds):
    """Number of bound evaluations of the binary search over ``n_thresholds``."""
    return max(1, math.ceil(math.log2(n_thresholds + 1)))


class SGR:
    """SGR (Geifman & El-Yaniv 2017): binary search over the distinct thresholds
    for the lowest one whose Clopper-Pearson upper bound on the selective risk,
    at level ``1 - delta / k`` (``delta = 1 - confidence_level``) for the ``k``
    tests of the search, is below ``target_risk``.

    With probability at least ``confidence_level`` over the validation sample,
    the selective risk of the returned threshold on new data is at most the
    target. Assumes unit weights (binomial counts) and 0/1 losses. It certifies
    the risk alone (no review capacity).
    """

    max_abstention_rate = None

    def certify(self, curve, target_risk, confidence_level, level_text=None):
        """The certified :class:`~._curve.ThresholdFit`; ``level_text`` says in
        messages where ``confidence_level`` comes from when the caller changed
        it (the per-class Bonferroni split)."""
        if level_text is None:
            level_text = f"confidence_level={confidence_level}"
        n_thresholds = curve.thresholds.shape[0]
        n_tests = sgr_n_tests(n_thresholds)
        check_enough_samples(curve, target_risk, confidence_level, n_tests, level_text)
        alpha = (1 - confidence_level) / n_tests
        # lo: largest index known feasible (-1: accept nothing); hi: smallest not.
        lo, hi, lo_bound = -1, n_thresholds, None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            bound = _bound_at(curve, mid, alpha)
            if bound < target_risk:
                lo, lo_bound = mid, bound
            else:
                hi = mid
        if lo < 0:
            return abstain_on_everything(
                f"No threshold certifies a selective risk <= {target_risk} with "
                f"{level_text} on this validation data. {ABSTAINS}"
            )
        return curve.at(lo, risk_bound=lo_bound)


# The procedure of each value of the ``guarantee`` parameter.
PROCEDURES = {"fixed_sequence": FixedSequence, "sgr": SGR}
