"""The command line: ``sklearn-selective`` or ``python -m sklearn_selective``."""

import argparse
import sys
from pathlib import Path

from .. import __version__
from ._arguments import _n_resamples, _seed
from ._demo import run_demo
from ._evaluate import InputError, add_arguments, run_evaluate


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows every option's default, without repeating one the help states."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.default in (None, argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


def _program_name():
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if name in ("", "__main__.py", "-c"):
        return "python -m sklearn_selective"
    return name


def _add_demo(commands):
    demo = commands.add_parser(
        "demo",
        help="fit a selective classifier on a bundled dataset: abstain, report, plot",
        description="Fit a SelectiveClassifier on the digits bundled with "
        "scikit-learn, print the fitted threshold and the metrics, save a plot.",
        formatter_class=_Formatter,
    )
    demo.add_argument(
        "--random-state",
        type=_seed,
        default=0,
        help="seed of the split and bootstrap",
    )
    demo.add_argument(
        "--n-resamples",
        type=_n_resamples,
        default=1000,
        help="bootstrap resamples (0: values without intervals)",
    )
    demo.add_argument(
        "--plot",
        default="risk_coverage.png",
        metavar="FILE",
        help="where to save the risk-coverage plot ('' for none)",
    )
    demo.set_defaults(
        handler=lambda args: run_demo(
            random_state=args.random_state,
            n_resamples=args.n_resamples,
            plot=args.plot,
        )
    )


def _build_parser():
    parser = argparse.ArgumentParser(
        prog=_program_name(),
        description="Selective classification for scikit-learn: evaluate the "
        "predictions of any model (evaluate), or see the package at work (demo).",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    _add_demo(commands)
    evaluate = commands.add_parser(
        "evaluate",
        help="metrics with bootstrap intervals of a .csv, .parquet or .npz file of "
        "predictions",
        description=(
            "Evaluate predictions made by any framework. The file holds the true "
            "labels (y_true) and either class probabilities (CSV columns "
            "proba_<label>, NPZ array proba), logits (CSV columns logit_<label>, "
            "NPZ array logits), or a prediction and a confidence per sample "
            "(y_pred, confidence). A single probability or logit column is the "
            "positive class of a binary problem."
        ),
        formatter_class=_Formatter,
    )
    add_arguments(evaluate)
    evaluate.set_defaults(handler=run_evaluate)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status (0 success, 2 bad input)."""
    args = _build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (InputError, OSError) as error:  # e.g. the demo's plot: no permission
        print(f"error: {' '.join(str(error).split())}", file=sys.stderr)
        return 2
