"""Label-free accuracy estimates under synthetic shifts: error against the truth.

Run: ``python benchmarks/bench_atc.py [--repeats 20]``

Data: a 4-class Gaussian mixture in 10 dimensions (labels are the mixture
component, so every shift has a known true accuracy). Per repetition, a model is
trained on 2000 source samples, the estimators see 2000 held-out labelled
source samples (``FrozenEstimator``) and estimate the accuracy on 2000
unlabelled target samples drawn under each shift:

- none: the source distribution itself (ATC should be unbiased);
- covariate selection: target samples kept with probability sigmoid(2 x_0);
- label shift: class priors (0.55, 0.25, 0.15, 0.05) instead of uniform;
- additive noise: x + N(0, 1) per feature;
- over-confident: 30 % of the target labels replaced by another class (a
  concept shift: confidences are unchanged while accuracy drops, so every
  confidence-based method must over-estimate).

Prints the mean absolute error (MAE) and the mean signed error (estimate -
truth) of each method, for logistic regression and gradient boosting.

Two further studies (``--study variance`` / ``--study protocol``; default all):

- variance: how much bootstrap averaging (``n_resamples=200``) reduces the
  variance of the ATC-MC estimate. The model and the target set are fixed and
  the labelled source set is redrawn ``--sources`` times; the table gives the
  variance of the plain and of the bagged estimate and their ratio.
- protocol: ATCEstimator's default with an unfitted model (5-fold out-of-fold
  source scores pooled, then the model refit on all labelled data) against the
  papers' protocol (the model trained on one part, frozen, and the threshold
  learnt on a held-out part). Both get the same 4000 labelled samples; each is
  compared with the true accuracy of its own deployed model.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_selective import ATCEstimator, AverageConfidenceEstimator, DoCEstimator

N_CLASSES, N_FEATURES = 4, 10


def _mixture(rng, means, n, priors=None):
    y = rng.choice(N_CLASSES, size=n, p=priors)
    return means[y] + rng.normal(size=(n, N_FEATURES)), y


def _targets(rng, means, n):
    X, y = _mixture(rng, means, 4 * n)
    keep = rng.random(4 * n) < 1 / (1 + np.exp(-2 * X[:, 0]))
    flipped = _mixture(rng, means, n)
    wrong = rng.random(n) < 0.3
    shift = rng.integers(1, N_CLASSES, size=n)
    flipped[1][wrong] = (flipped[1][wrong] + shift[wrong]) % N_CLASSES
    noisy = _mixture(rng, means, n)
    return {
        "none": _mixture(rng, means, n),
        "covariate selection": (X[keep][:n], y[keep][:n]),
        "label shift": _mixture(rng, means, n, priors=[0.55, 0.25, 0.15, 0.05]),
        "additive noise": (noisy[0] + rng.normal(size=noisy[0].shape), noisy[1]),
        "over-confident": flipped,
    }


METHODS = {
    "ATC-MC": lambda m: ATCEstimator(m, csf="msp"),
    "ATC-NE": lambda m: ATCEstimator(m, csf="negative_entropy"),
    "ATC-MC boot": lambda m: ATCEstimator(m, n_resamples=200, random_state=0),
    "AC": AverageConfidenceEstimator,
    "DoC": DoCEstimator,
}
MODELS = {
    "logistic regression": lambda: LogisticRegression(max_iter=1000),
    "gradient boosting": lambda: HistGradientBoostingClassifier(
        max_iter=100, random_state=0
    ),
}


def _error_study(args):
    errors = {}  # (model, shift, method) -> list of estimate - truth
    for repeat in range(args.repeats):
        rng = np.random.default_rng(repeat)
        means = rng.normal(scale=0.9, size=(N_CLASSES, N_FEATURES))
        X_train, y_train = _mixture(rng, means, args.n)
        X_source, y_source = _mixture(rng, means, args.n)
        targets = _targets(rng, means, args.n)
        for model_name, make_model in MODELS.items():
            model = FrozenEstimator(make_model().fit(X_train, y_train))
            fitted = {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                for method, make in METHODS.items():
                    fitted[method] = make(model).fit(X_source, y_source)
            for shift, (X_target, y_target) in targets.items():
                truth = np.mean(model.predict(X_target) == y_target)
                for method, estimator in fitted.items():
                    estimate = estimator.estimate_accuracy(X_target)
                    key = (model_name, shift, method)
                    errors.setdefault(key, []).append(estimate - truth)

    width = 12
    for model_name in MODELS:
        print(f"\n{model_name}: MAE (mean signed error), {args.repeats} repetitions")
        print(f"{'shift':<22}" + "".join(f"{m:>{width + 9}}" for m in METHODS))
        for shift in _targets(np.random.default_rng(0), np.zeros((4, 10)), 10):
            cells = []
            for method in METHODS:
                e = np.asarray(errors[(model_name, shift, method)])
                cells.append(f"{np.abs(e).mean():>{width}.3f} ({e.mean():+.3f})")
            print(f"{shift:<22}" + "".join(cells))


def _variance_study(args):
    """Variance of plain and bagged ATC-MC over redrawn source sets."""
    print(
        f"\nBootstrap averaging: variance over {args.sources} source sets of "
        f"{args.n} samples (model and target fixed), {args.repeats} models"
    )
    print(f"{'model':<22}{'shift':<22}{'var plain':>12}{'var bagged':>12}{'ratio':>8}")
    for model_name, make_model in MODELS.items():
        ratios = {}
        plain_vars, bagged_vars = {}, {}
        for repeat in range(args.repeats):
            rng = np.random.default_rng(1000 + repeat)
            means = rng.normal(scale=0.9, size=(N_CLASSES, N_FEATURES))
            model = FrozenEstimator(make_model().fit(*_mixture(rng, means, args.n)))
            targets = _targets(rng, means, args.n)
            estimates = {shift: ([], []) for shift in targets}
            for source in range(args.sources):
                X_source, y_source = _mixture(rng, means, args.n)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    plain = ATCEstimator(model).fit(X_source, y_source)
                    bagged = ATCEstimator(
                        model, n_resamples=200, random_state=source
                    ).fit(X_source, y_source)
                for shift, (X_target, _) in targets.items():
                    estimates[shift][0].append(plain.estimate_accuracy(X_target))
                    estimates[shift][1].append(bagged.estimate_accuracy(X_target))
            for shift, (plain_estimates, bagged_estimates) in estimates.items():
                plain_vars.setdefault(shift, []).append(np.var(plain_estimates))
                bagged_vars.setdefault(shift, []).append(np.var(bagged_estimates))
        for shift in plain_vars:
            var_plain = np.mean(plain_vars[shift])
            var_bagged = np.mean(bagged_vars[shift])
            ratios[shift] = var_bagged / var_plain
            print(
                f"{model_name:<22}{shift:<22}{var_plain:>12.2e}{var_bagged:>12.2e}"
                f"{ratios[shift]:>8.3f}"
            )


def _protocol_study(args):
    """Pooled out-of-fold scores + refit against a held-out split."""
    print(
        f"\nProtocol: MAE (mean signed error) over {args.repeats} repetitions, "
        f"{2 * args.n} labelled samples each"
    )
    errors = {}
    for repeat in range(args.repeats):
        rng = np.random.default_rng(2000 + repeat)
        means = rng.normal(scale=0.9, size=(N_CLASSES, N_FEATURES))
        X, y = _mixture(rng, means, 2 * args.n)
        targets = _targets(rng, means, args.n)
        for model_name, make_model in MODELS.items():
            held_out_model = FrozenEstimator(make_model().fit(X[: args.n], y[: args.n]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                fitted = {
                    "held-out split": ATCEstimator(held_out_model).fit(
                        X[args.n :], y[args.n :]
                    ),
                    "pooled 5-fold + refit": ATCEstimator(make_model(), cv=5).fit(X, y),
                }
            for protocol, atc in fitted.items():
                for shift, (X_target, y_target) in targets.items():
                    truth = np.mean(atc.estimator_.predict(X_target) == y_target)
                    estimate = atc.estimate_accuracy(X_target)
                    key = (model_name, shift, protocol)
                    errors.setdefault(key, []).append(estimate - truth)
    protocols = ("held-out split", "pooled 5-fold + refit")
    print(f"{'model':<22}{'shift':<22}" + "".join(f"{p:>26}" for p in protocols))
    for model_name in MODELS:
        for shift in _targets(np.random.default_rng(0), np.zeros((4, 10)), 10):
            cells = []
            for protocol in protocols:
                e = np.asarray(errors[(model_name, shift, protocol)])
                cells.append(f"{np.abs(e).mean():>17.4f} ({e.mean():+.4f})")
            print(f"{model_name:<22}{shift:<22}" + "".join(cells))


STUDIES = {
    "errors": _error_study,
    "variance": _variance_study,
    "protocol": _protocol_study,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--sources", type=int, default=30)
    parser.add_argument("--study", choices=["all", *STUDIES], default="all")
    parser.add_argument("--model", choices=["all", *MODELS], default="all")
    args = parser.parse_args()
    if args.model != "all":
        for name in [name for name in MODELS if name != args.model]:
            del MODELS[name]
    start = time.perf_counter()
    for name, study in STUDIES.items():
        if args.study in ("all", name):
            study(args)
    print(f"\n{time.perf_counter() - start:.0f} s (shared machine)")


if __name__ == "__main__":
    main()
