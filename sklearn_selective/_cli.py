"""The ``python -m sklearn_selective`` command line."""

import argparse

from ._demo import run_demo
from ._evaluate import add_arguments, run_evaluate


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_selective",
        description="Selective classification for scikit-learn.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo",
        help="fit a selective classifier on a bundled dataset: abstain, report, plot",
    )
    demo.add_argument(
        "--random-state", type=int, default=0, help="seed of the split and bootstrap"
    )
    demo.add_argument(
        "--n-resamples", type=int, default=1000, help="bootstrap resamples"
    )
    demo.add_argument(
        "--plot",
        default="risk_coverage.png",
        help="where to save the risk-coverage plot ('' for none)",
    )
    demo.set_defaults(
        handler=lambda args: run_demo(
            random_state=args.random_state,
            n_resamples=args.n_resamples,
            plot=args.plot,
        )
    )
    evaluate = commands.add_parser(
        "evaluate",
        help="metrics with bootstrap intervals of a .csv or .npz file of predictions",
        description=(
            "Evaluate predictions made by any framework. The file holds the true "
            "labels (y_true) and either class probabilities (CSV columns "
            "proba_<label>, NPZ array proba) or a prediction and a confidence per "
            "sample (y_pred, confidence)."
        ),
    )
    add_arguments(evaluate)
    evaluate.set_defaults(handler=run_evaluate)
    return parser


def main(argv=None):
    args = _build_parser().parse_args(argv)
    return args.handler(args)
