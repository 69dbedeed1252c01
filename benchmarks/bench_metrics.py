"""Time and peak memory of every metric, relative to ``numpy.argsort``.

Run: ``python benchmarks/bench_metrics.py [--sizes 1e6 1e7] [--repeat 7] [--huge]``

Three tables (targets of issue 15 in brackets):

1. microseconds per call at n = 1e3, cycling through 64 distinct input sets, in
   both call forms: ``metric(y_true, y_pred, confidence)`` and
   ``metric(None, None, confidence, loss=losses)`` [<= 100 us];
2. the time of each metric over that of ``numpy.argsort`` of the same float64
   confidence array, at n = 1e6 and 1e7 [aurc, sele, augrc, uq_auc, risk@coverage,
   coverage@risk <= 2; e_aurc, naurc <= 3; uq_c_index <= 8];
3. the peak extra memory of one call (``tracemalloc``) over the bytes of the input
   arrays, at n = 1e7 (and 1e8 with ``--huge``: about 10 GB) [<= 3].

Inputs: a continuous confidence (few ties), labels with a 20 % error rate, and for
uq_c_index 10-class probabilities. Every call goes through the public function,
validation included. Times are the best of ``--repeat`` rounds, in wall time and in
the CPU time of the thread (which leaves out waiting for a core on a shared
machine); the ratios use the same clock for the metric and for argsort.
"""

import argparse
import gc
from functools import partial

import numpy as np
from _measure import best_times, peak_memory

from sklearn_selective.metrics import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    generalized_risk_coverage_curve,
    naurc,
    risk_coverage_curve,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)

# Goal for the ratio to argsort (issue 15); None: no target.
RATIO_GOALS = {
    "aurc": 2,
    "aurc (log)": None,
    "sele": 2,
    "augrc": 2,
    "e_aurc": 3,
    "naurc": 3,
    "uq_auc": 2,
    "uq_c_index": 8,
    "risk_coverage_curve": None,
    "generalized_risk_coverage_curve": None,
    "selective_risk_at_coverage": 2,
    "coverage_at_risk": 2,
}
MICROSECONDS_GOAL = 100
MEMORY_GOAL = 3


def _inputs(n, rng, n_classes=10, proba=True):
    y_true = rng.integers(0, n_classes, n)
    wrong = rng.random(n) < 0.2
    y_pred = np.where(wrong, (y_true + 1) % n_classes, y_true)
    confidence = rng.random(n) + 0.3 * ~wrong
    y_proba = None
    if proba:
        y_proba = rng.random((n, n_classes))
        y_proba /= y_proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, confidence, y_proba


_METRICS = {
    "aurc": aurc,
    "aurc (log)": partial(aurc, aurc_estimator="log"),
    "sele": sele,
    "augrc": augrc,
    "e_aurc": e_aurc,
    "naurc": naurc,
    "uq_auc": uq_auc,
    "risk_coverage_curve": risk_coverage_curve,
    "generalized_risk_coverage_curve": generalized_risk_coverage_curve,
    "selective_risk_at_coverage": partial(selective_risk_at_coverage, coverage=0.8),
    "coverage_at_risk": partial(coverage_at_risk, risk=0.05),
}


def _calls(y_true, y_pred, confidence, y_proba, form):
    """name -> (zero-argument call, input arrays) in one call form."""
    losses = (y_true != y_pred).astype(np.float64)
    calls = {}
    for name, metric in _METRICS.items():
        if form == "labels":
            calls[name] = (
                partial(metric, y_true, y_pred, confidence),
                (y_true, y_pred, confidence),
            )
        else:
            calls[name] = (
                partial(metric, None, None, confidence, loss=losses),
                (confidence, losses),
            )
    if y_proba is not None:
        calls["uq_c_index"] = (
            partial(uq_c_index, y_true, y_proba, confidence),
            (y_true, y_proba, confidence),
        )
    return calls


# Distinct input sets the small calls cycle through (see small_calls).
_SMALL_INPUTS = 64


def _cycling(calls):
    """One zero-argument call that makes the next of ``calls`` in turn."""
    state = {"next": 0}

    def call():
        index = state["next"]
        state["next"] = (index + 1) % len(calls)
        calls[index]()

    return call


def small_calls(repeat, rng):
    """Microseconds per call at n = 1e3, each call on the next of 64 distinct input
    sets. Calling a function again and again on the *same* arrays lets the CPU's
    branch predictor learn the comparisons of a sort: a stable argsort of 1000
    floats then takes 24 us instead of the 56 us it takes on fresh data (numpy's
    default quicksort is branch-free: 18 us either way), so a benchmark on one
    input favours branchy code that is slow in real use."""
    inputs = [_inputs(1000, rng) for _ in range(_SMALL_INPUTS)]
    by_form = {
        form: [_calls(*arrays, form) for arrays in inputs]
        for form in ("labels", "loss")
    }
    number = 4 * _SMALL_INPUTS
    argsorts = [partial(np.argsort, arrays[2]) for arrays in inputs]
    _, argsort = best_times(_cycling(argsorts), repeat, number=number)
    print(
        f"n = 1e3: microseconds per call, {_SMALL_INPUTS} distinct input sets "
        f"(goal <= {MICROSECONDS_GOAL} us)"
    )
    header = f"{'metric':<32} {'labels wall':>12} {'labels cpu':>11} "
    header += f"{'loss= wall':>11} {'loss= cpu':>10}"
    print(header)
    print("-" * len(header))
    print(f"{'numpy.argsort':<32} {'':>12} {argsort * 1e6:>11.1f}")
    for name in by_form["labels"][0]:
        cells = []
        for form in ("labels", "loss"):
            if name not in by_form[form][0]:
                cells += [f"{'-':>11}", f"{'-':>10}"]
                continue
            call = _cycling([calls[name][0] for calls in by_form[form]])
            wall, cpu = (t * 1e6 for t in best_times(call, repeat, number=number))
            flag = " !" if cpu > MICROSECONDS_GOAL else "  "
            cells += [f"{wall:>11.1f}", f"{cpu:>8.1f}{flag}"]
        print(f"{name:<32} " + " ".join(cells))
    print()


def ratios(sizes, repeat, rng):
    print("Time over numpy.argsort of the same confidence (labels call form)")
    header = f"{'n':>10} {'metric':<32} {'wall [s]':>9} {'x argsort':>9} "
    header += f"{'cpu [s]':>8} {'x argsort':>9} {'goal':>5}"
    print(header)
    print("-" * len(header))
    for n in sizes:
        y_true, y_pred, confidence, y_proba = _inputs(n, rng)
        wall_base, cpu_base = best_times(lambda c=confidence: np.argsort(c), repeat)
        print(
            f"{n:>10.0e} {'numpy.argsort':<32} {wall_base:>9.4f} {1:>9.2f} "
            f"{cpu_base:>8.4f} {1:>9.2f}"
        )
        for name, (call, _) in _calls(
            y_true, y_pred, confidence, y_proba, "labels"
        ).items():
            wall, cpu = best_times(call, repeat)
            goal = RATIO_GOALS.get(name)
            flag = " !" if goal and cpu / cpu_base > goal else ""
            goal_text = f"{goal:>5}" if goal else f"{'':>5}"
            print(
                f"{n:>10.0e} {name:<32} {wall:>9.4f} {wall / wall_base:>9.2f} "
                f"{cpu:>8.4f} {cpu / cpu_base:>9.2f} {goal_text}{flag}"
            )
        del y_true, y_pred, confidence, y_proba
        gc.collect()
        print()


def memory(sizes, rng):
    print(f"Peak extra memory of one call over the input bytes (goal <= {MEMORY_GOAL})")
    header = f"{'n':>10} {'metric':<32} {'form':<7} {'input MiB':>10} "
    header += f"{'peak MiB':>9} {'x input':>8}"
    print(header)
    print("-" * len(header))
    for n in sizes:
        y_true, y_pred, confidence, y_proba = _inputs(n, rng, proba=n <= 10**7)
        for form in ("labels", "loss"):
            for name, (call, arrays) in _calls(
                y_true, y_pred, confidence, y_proba, form
            ).items():
                if form == "loss" and name == "uq_c_index":
                    continue
                gc.collect()
                size = sum(a.nbytes for a in arrays)
                peak = peak_memory(call)
                flag = " !" if peak > MEMORY_GOAL * size else ""
                print(
                    f"{n:>10.0e} {name:<32} {form:<7} {size / 2**20:>10.1f} "
                    f"{peak / 2**20:>9.1f} {peak / size:>8.2f}{flag}"
                )
        del y_true, y_pred, confidence, y_proba
        gc.collect()
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[1e6, 1e7])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--memory-sizes", type=float, nargs="*", default=[1e7])
    parser.add_argument(
        "--huge", action="store_true", help="also measure the memory at n = 1e8"
    )
    parser.add_argument("--skip", nargs="*", default=[], choices=["small", "ratios"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    if "small" not in args.skip:
        small_calls(args.repeat, rng)
    if "ratios" not in args.skip:
        ratios([int(n) for n in args.sizes], args.repeat, rng)
    memory_sizes = [int(n) for n in args.memory_sizes] + ([10**8] if args.huge else [])
    memory(memory_sizes, rng)


if __name__ == "__main__":
    main()
