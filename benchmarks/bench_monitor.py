"""PerformanceMonitor: error of every method across shift types, and its speed.

Run: ``python benchmarks/bench_monitor.py [--repeats 20]``

Data (the setup of issue 17): 3 classes, 5 standard Gaussian features, and a
fixed conditional ``P(y | x) = softmax(W x + b)`` (drawn per repetition), so a
covariate shift moves ``x`` and leaves ``P(y | x)`` unchanged. Per repetition a
model is trained on 2000 samples; a ``SelectiveClassifier`` (target coverage
0.8) and the monitor are fitted on 2000 held-out reference samples; each method
estimates the accuracy and the selective accuracy of 10000 target samples (one
chunk), compared with the realised values on those samples. Shifts:

- none: the source distribution;
- move +1, move +1.5: the first two coordinates shifted by that much;
- contraction: ``x * 0.5``;
- label shift, label shift 2: class priors (0.6, 0.3, 0.1) and (0.1, 0.1,
  0.8) instead of the source's, with ``P(x | y)`` unchanged (rejection
  sampling on y);
- additive noise: the model sees ``x + N(0, 0.7^2)``, the labels follow the
  clean ``x``;
- new class: 30 % of the samples come from a class the model never saw
  (label 3, its inputs ``N(0, I)`` moved by 2.5 in the last three
  coordinates): every prediction of them is wrong.

Models: logistic regression (well specified, so calibrated) and Gaussian naive
Bayes (miscalibrated). The method ``auto`` (the default) runs with its drift
signal, which it needs to choose between its two estimates. Prints the mean
|error| of each method per model and shift (accuracy / selective accuracy),
the mean over the issue's covariate setup (2 models x {none, move +1, move
+1.5, contraction}) and over all shifts, and the time of ``fit`` +
``estimate`` with the default 200 bootstrap resamples. Where NannyML is
installed (``_nannyml_cbpe.py``), its CBPE is a column too: on all samples
for the accuracy, on the accepted ones for the selective accuracy.

Per class (issue 27): the mean |error| over classes of the selective precision
and recall estimates, as ``auto`` gives them (label-shift adjusted where it
chooses so) and without adjustment (``calibrated_ac``), and of the mean cost
per sample of a cost-sensitive ``SelectiveClassifier`` (cost matrix 1 per
error, 4 between classes 0 and 2; rejection cost 0.5) under ``auto``.

Alerts per shift: the default monitor (both input signals) on 5 chunks of 200
samples of each shift; the share of chunks whose realised accuracy is more
than 10 points below the reference accuracy that alert, and the share of
chunks without shift that alert.

Alerts (the setup of issue 27): digits, a logistic regression trained on 1000
images, a ``SelectiveClassifier`` (coverage 0.8) and the default monitor
fitted on 366 reference images, and the other 431 in 10 chunks of 43, with
Gaussian noise of standard deviation ``0.5 i`` or a brightness ``+i`` added to
chunk ``i``, or nothing. Prints the share of chunks whose realised accuracy
is more than 10 points below the reference accuracy that alert (recall), the
share of chunks without shift that alert (false alerts), and which signals
fired.
"""

import argparse
import time
import warnings

import _nannyml_cbpe
import numpy as np
from _measure import best_time
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from sklearn_selective import PerformanceMonitor, SelectiveClassifier
from sklearn_selective._shift._methods import METHODS

N_CLASSES, N_FEATURES = 3, 5
COST_MATRIX = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
REJECTION_COST = 0.5
CLASS_METHODS = ("auto", "calibrated_ac")  # adjusted where auto says / never
ISSUE_SHIFTS = ("none", "move +1", "move +1.5", "contraction")
# "auto" (the default) chooses per chunk with the domain classifier of the
# drift signal; the other methods need no input signal for their estimates.
BENCH_METHODS = ("auto", *METHODS)
MODELS = {
    "logistic regression": lambda: LogisticRegression(),
    "gaussian naive bayes": GaussianNB,
}


def _labels(rng, X, weights, bias):
    logits = X @ weights + bias
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    return (rng.random((X.shape[0], 1)) > proba.cumsum(axis=1)).sum(axis=1)


def _source(rng, truth, n):
    X = rng.normal(size=(n, N_FEATURES))
    return X, _labels(rng, X, *truth)


def _label_shift(rng, truth, n, priors=(0.6, 0.3, 0.1)):
    X, y = _source(rng, truth, 12 * n)
    source_priors = np.bincount(y, minlength=N_CLASSES) / y.shape[0]
    ratio = np.asarray(priors) / source_priors
    keep = rng.random(y.shape[0]) < ratio[y] / ratio.max()
    return X[keep][:n], y[keep][:n]


def _shifted(rng, truth, n, move=0.0, scale=1.0):
    X = rng.normal(size=(n, N_FEATURES)) * scale
    X[:, :2] += move
    return X, _labels(rng, X, *truth)


def _new_class(rng, truth, n, share=0.3):
    X, y = _source(rng, truth, n)
    new = rng.random(n) < share
    X[new] = rng.normal(size=(new.sum(), N_FEATURES))
    X[new, 2:] += 2.5
    y[new] = N_CLASSES
    return X, y


def targets(rng, truth, n):
    noisy_X, noisy_y = _source(rng, truth, n)
    return {
        "none": _source(rng, truth, n),
        "move +1": _shifted(rng, truth, n, move=1.0),
        "move +1.5": _shifted(rng, truth, n, move=1.5),
        "contraction": _shifted(rng, truth, n, scale=0.5),
        "label shift": _label_shift(rng, truth, n),
        "label shift 2": _label_shift(rng, truth, n, priors=(0.1, 0.1, 0.8)),
        "additive noise": (noisy_X + 0.7 * rng.normal(size=noisy_X.shape), noisy_y),
        "new class": _new_class(rng, truth, n),
    }


def _nannyml_errors(clf, X_ref, y_ref, X, realised):
    """NannyML CBPE's errors (accuracy on all samples, selective accuracy on
    the accepted ones)."""
    estimates = []
    for rows_ref, rows in ((slice(None), slice(None)), _accepted_rows(clf, X_ref, X)):
        proba_ref, proba = (
            clf.predict_proba(X_ref[rows_ref]),
            clf.predict_proba(X[rows]),
        )
        estimates.append(
            _nannyml_cbpe.cbpe_accuracy(
                proba_ref,
                np.searchsorted(clf.classes_, clf.predict(X_ref[rows_ref])),
                y_ref[rows_ref],
                proba,
                np.searchsorted(clf.classes_, clf.predict(X[rows])),
            )
        )
    return np.subtract(estimates, realised)


def _accepted_rows(clf, X_ref, X):
    return clf.predict_accept(X_ref), clf.predict_accept(X)


def _class_errors(result):
    """Mean |error| over classes of the selective precision and recall."""
    return [
        np.nanmean(np.abs(getattr(result, name) - getattr(result, f"realised_{name}")))
        for name in ("selective_precision", "selective_recall")
    ]


def _errors(repeats, n, n_target):
    """Per (model, shift, method): errors of the accuracies; per (model, shift,
    "class " + method): of the per-class values; per (model, shift, "cost"):
    of the mean cost."""
    errors = {}
    nannyml = _nannyml_cbpe.available()
    for repeat in range(repeats):
        rng = np.random.default_rng(repeat)
        truth = (rng.normal(size=(N_FEATURES, N_CLASSES)), rng.normal(size=N_CLASSES))
        X_train, y_train = _source(rng, truth, n)
        X_ref, y_ref = _source(rng, truth, n)
        shifted = targets(rng, truth, n_target)
        for model_name, make_model in MODELS.items():
            model = FrozenEstimator(make_model().fit(X_train, y_train))
            clf = SelectiveClassifier(model, target_coverage=0.8).fit(X_ref, y_ref)
            costly = SelectiveClassifier(
                model, cost_matrix=COST_MATRIX, rejection_cost=REJECTION_COST
            ).fit(X_ref, y_ref)
            monitors = {
                method: _estimates_only(clf, method, repeat).fit(X_ref, y_ref)
                for method in BENCH_METHODS
            }
            cost_monitor = _estimates_only(costly, "auto", repeat).fit(X_ref, y_ref)
            for shift, (X, y) in shifted.items():
                correct = clf.predict(X) == y
                accepted = clf.predict_accept(X)
                realised = correct.mean(), correct[accepted].mean()
                key = (model_name, shift)
                for method, monitor in monitors.items():
                    result = monitor.estimate(X).with_labels(y)
                    estimate = result.accuracy[0], result.selective_accuracy[0]
                    errors.setdefault((*key, method), []).append(
                        np.subtract(estimate, realised)
                    )
                    if method in CLASS_METHODS:
                        errors.setdefault((*key, f"class {method}"), []).append(
                            _class_errors(result)
                        )
                result = cost_monitor.estimate(X).with_labels(y)
                errors.setdefault((*key, "cost"), []).append(
                    [result.cost[0] - _realised_cost(costly, X, y)]
                )
                if nannyml:
                    errors.setdefault((*key, "nannyml cbpe"), []).append(
                        _nannyml_errors(clf, X_ref, y_ref, X, realised)
                    )
    return {key: np.asarray(value) for key, value in errors.items()}


def _estimates_only(clf, method, seed):
    return PerformanceMonitor(
        clf,
        method=method,
        n_resamples=0,
        novelty_detector=None,  # the estimates only
        drift_estimator="auto" if method == "auto" else None,
        random_state=seed,
    )


def _realised_cost(clf, X, y):
    """The mean cost per sample; a sample of a new class costs as the worst
    error (predicted) or the rejection (rejected)."""
    index = np.searchsorted(clf.classes_, clf.predict(X))
    known = y < N_CLASSES
    truth = np.where(known, y, 0)
    accepted = np.where(known, COST_MATRIX[truth, index], COST_MATRIX.max())
    each = np.where(clf.predict_accept(X), accepted, REJECTION_COST)
    return each.mean()


def _print_errors(errors, repeats):
    shifts = list(targets(np.random.default_rng(0), (np.zeros((5, 3)), 0), 10))
    methods = [*BENCH_METHODS]
    if any(key[2] == "nannyml cbpe" for key in errors):
        methods.append("nannyml cbpe")
    print(
        f"mean |error| of the estimates, accuracy / selective accuracy "
        f"(mean signed error of the accuracy), {repeats} repetitions"
    )
    header = f"{'model':<22}{'shift':<16}" + "".join(f"{m:>26}" for m in methods)
    print(header)
    for model in MODELS:
        for shift in shifts:
            cells = []
            for method in methods:
                e = errors[(model, shift, method)]
                mae = np.abs(e).mean(axis=0)
                cells.append(f"{mae[0]:.3f} / {mae[1]:.3f} ({e[:, 0].mean():+.3f})")
            print(f"{model:<22}{shift:<16}" + "".join(f"{c:>26}" for c in cells))
    print()
    for label, chosen in (("issue setup", ISSUE_SHIFTS), ("all shifts", shifts)):
        cells = []
        for method in methods:
            e = np.concatenate(
                [errors[(m, s, method)] for m in MODELS for s in chosen], axis=0
            )
            mae = np.abs(e).mean(axis=0)
            cells.append(f"{mae[0]:.4f} / {mae[1]:.4f} ({mae.mean():.4f})")
        print(f"{'mean ' + label:<38}" + "".join(f"{c:>26}" for c in cells))
    print("(in parentheses: the mean of the two)")
    _print_class_errors(errors, shifts)


def _print_class_errors(errors, shifts):
    print(
        "\nper class among the accepted samples: mean |error| over classes of "
        "the selective precision / recall; mean |error| of the mean cost per "
        "sample (cost-sensitive SelectiveClassifier, auto)"
    )
    print(
        f"{'model':<22}{'shift':<16}"
        + "".join(f"{'p / r ' + m:>26}" for m in CLASS_METHODS)
        + f"{'cost':>10}"
    )
    for model in MODELS:
        for shift in shifts:
            cells = [
                "{:.3f} / {:.3f}".format(*errors[(model, shift, f"class {m}")].mean(0))
                for m in CLASS_METHODS
            ]
            cost = np.abs(errors[(model, shift, "cost")]).mean()
            print(
                f"{model:<22}{shift:<16}"
                + "".join(f"{c:>26}" for c in cells)
                + f"{cost:>10.3f}"
            )


def _shift_alerts(repeats, chunk_size=200, n_chunks=5):
    """Alert recall per shift of the default monitor (both input signals)."""
    dropped, alerted = {}, {}
    for repeat in range(repeats):
        rng = np.random.default_rng(10_000 + repeat)
        truth = (rng.normal(size=(N_FEATURES, N_CLASSES)), rng.normal(size=N_CLASSES))
        X_train, y_train = _source(rng, truth, 2000)
        X_ref, y_ref = _source(rng, truth, 2000)
        shifted = targets(rng, truth, chunk_size * n_chunks)
        for make_model in MODELS.values():
            model = FrozenEstimator(make_model().fit(X_train, y_train))
            clf = SelectiveClassifier(model, target_coverage=0.8).fit(X_ref, y_ref)
            monitor = PerformanceMonitor(clf, n_resamples=0, random_state=repeat)
            monitor.fit(X_ref, y_ref)
            for shift, (X, y) in shifted.items():
                result = monitor.estimate(X, chunk_size=chunk_size).with_labels(y)
                drop = result.realised_accuracy < monitor.reference_accuracy_ - 0.1
                dropped.setdefault(shift, []).append(drop)
                alerted.setdefault(shift, []).append(result.alert)
    print(
        f"\nalerts of the default monitor, {n_chunks} chunks of {chunk_size} per "
        f"shift, 2 models, {repeats} repetitions: recall on chunks more than 10 "
        "points below the reference accuracy, and all alerts"
    )
    for shift in dropped:
        drop, alert = np.concatenate(dropped[shift]), np.concatenate(alerted[shift])
        recall = f"{(drop & alert).sum()}/{drop.sum()}" if drop.any() else "-"
        print(
            f"{shift:<16} recall {recall:>9}   alerts {alert.sum():>4}/"
            f"{alert.shape[0]} ({alert.mean():.3f})"
        )


def _print_timing(n, runs):
    rng = np.random.default_rng(0)
    truth = (rng.normal(size=(N_FEATURES, N_CLASSES)), rng.normal(size=N_CLASSES))
    X_train, y_train = _source(rng, truth, n)
    X_ref, y_ref = _source(rng, truth, n)
    X, _ = _source(rng, truth, 20 * n)
    model = FrozenEstimator(LogisticRegression().fit(X_train, y_train))
    clf = SelectiveClassifier(model, target_coverage=0.8).fit(X_ref, y_ref)
    reference = best_time(lambda: clf.predict_accept(X), 5)
    print(
        f"\ntime of fit on {n} reference samples + estimate on {20 * n} samples "
        f"in 20 chunks, 200 bootstrap resamples (best of {runs}; shared 2-core "
        f"machine); predict_accept on the same data: {1e3 * reference:.1f} ms"
    )
    for method in BENCH_METHODS:

        def run(method=method):
            monitor = PerformanceMonitor(clf, method=method, random_state=0)
            monitor.fit(X_ref, y_ref).estimate(X, n_chunks=20)

        seconds = best_time(run, runs)
        print(
            f"{method:<16}{seconds:>8.3f} s  "
            f"({seconds / reference:.0f} x predict_accept)"
        )

    def per_class():
        monitor = PerformanceMonitor(clf, random_state=0).fit(X_ref, y_ref)
        result = monitor.estimate(X, n_chunks=20)
        start = time.perf_counter()
        _ = result.selective_precision  # computed (and fitted) when first read
        return time.perf_counter() - start

    seconds = min(per_class() for _ in range(runs))
    print(f"{'per-class values, first read (auto)':<16}{seconds:>8.3f} s")


def _digit_alerts(seed, shift):
    from sklearn.datasets import load_digits
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(seed)
    train, reference, pool = np.split(rng.permutation(len(y)), [1000, 1366])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(X[train], y[train])
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.8)
    clf.fit(X[reference], y[reference])
    monitor = PerformanceMonitor(clf, n_resamples=0, random_state=seed)
    monitor.fit(X[reference], y[reference])
    chunks = np.array_split(pool, 10)
    images = []
    for i, chunk in enumerate(chunks):
        moved = X[chunk].astype(float)
        if shift == "noise":
            moved = moved + rng.normal(scale=0.5 * i, size=moved.shape)
        elif shift == "brightness":
            moved = moved + i
        images.append(moved)
    result = monitor.estimate(np.vstack(images), n_chunks=10)
    result = result.with_labels(np.concatenate([y[chunk] for chunk in chunks]))
    dropped = result.realised_accuracy < monitor.reference_accuracy_ - 0.10
    return dropped, result.alert, result.alerted_by


def _print_alerts(shift_repeats, none_repeats):
    print(
        "\nalerts on digits (10 chunks of 43; reference 366): recall on chunks "
        "more than 10 points below the reference accuracy, false alerts "
        "without shift"
    )
    for shift, repeats in (
        ("noise", shift_repeats),
        ("brightness", shift_repeats),
        ("none", none_repeats),
    ):
        if not repeats:
            continue
        dropped, alerted, fired = [], [], {}
        for seed in range(repeats):
            d, a, names = _digit_alerts(seed, shift)
            dropped.append(d)
            alerted.append(a)
            for signals in names:  # alerted_by: a tuple of signal names per chunk
                for name in signals:
                    fired[name] = fired.get(name, 0) + 1
        dropped, alerted = np.concatenate(dropped), np.concatenate(alerted)
        recall = (
            f"{(dropped & alerted).sum()}/{dropped.sum()}" if dropped.any() else "-"
        )
        print(
            f"{shift:<11} {repeats:>3} seeds: recall {recall:>7}, alerts "
            f"{alerted.sum()}/{alerted.shape[0]} ({alerted.mean():.3f}); fired: "
            + ", ".join(f"{name} {count}" for name, count in sorted(fired.items()))
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="0: no errors")
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--n-target", type=int, default=10000)
    parser.add_argument("--alert-repeats", type=int, nargs=2, default=[5, 100])
    parser.add_argument("--shift-alert-repeats", type=int, default=10)
    parser.add_argument("--shift-alert-chunks", type=int, default=5)
    parser.add_argument("--timing-runs", type=int, default=3, help="0: no timing")
    args = parser.parse_args()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        errors = _errors(args.repeats, args.n, args.n_target)
    if args.repeats:
        _print_errors(errors, args.repeats)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _print_alerts(*args.alert_repeats)
        if args.shift_alert_repeats:
            _shift_alerts(args.shift_alert_repeats, n_chunks=args.shift_alert_chunks)
    if args.timing_runs:
        _print_timing(args.n, args.timing_runs)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
