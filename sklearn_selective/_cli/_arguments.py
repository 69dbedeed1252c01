"""The options of ``sklearn-selective evaluate``: what to compute, what to write,
where the predictions are in the file, and how to read a file larger than memory."""

import argparse

import numpy as np

from ..confidence import get_confidence_function_names
from ..confidence._registry import model_output_of
from . import _ood_column
from ._files import InputError
from ._report import METRIC_HELP, default_metrics


def _column_list(text):
    names = [name.strip() for name in text.split(",")]
    if len(names) < 2 or not all(names) or len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give two or more distinct column names separated by commas, "
            "one per class, e.g. 0,1,2"
        )
    return tuple(names)


_FORMATS = ("table", "json", "csv")


def usable_csfs():
    """The CSFs a prediction file can feed: all but the feature-space ones,
    which read the model's inputs."""
    return [
        name
        for name in get_confidence_function_names()
        if model_output_of(name) != "features"
    ]


def _nonnegative_int(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


# More resamples never change a printed interval, and would run for hours (the
# bootstrap keeps every resampled value): a typo's extra zeros fail at once.
MAX_RESAMPLES = 10**7


def _n_resamples(text):
    value = _nonnegative_int(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_RESAMPLES:_} resamples (1000 to 10_000 give "
            f"stable intervals), got {text!r}"
        )
    return value


def _seed(text):
    value = _nonnegative_int(text)
    if value >= 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer < 2**32, got {text!r}")
    return value


def _level(text):
    try:
        value = float(text)
    except ValueError:
        value = np.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number strictly between 0 and 1 (e.g. 0.95), got {text!r}"
        )
    return value


def add_arguments(parser):
    """The options of ``evaluate``: what to compute, what to write, where the
    predictions are in the file."""
    parser.add_argument(
        "file",
        help="a .csv (with header row), .parquet or .npz file; with --dask, a "
        "directory or glob of Parquet files",
    )
    _add_metric_arguments(parser)
    _add_output_arguments(parser)
    _add_column_arguments(parser)
    _ood_column.add_arguments(parser)
    _add_scale_arguments(parser)


def _positive_int(text):
    value = _nonnegative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def _add_scale_arguments(parser):
    group = parser.add_argument_group(
        "files larger than memory",
        "stream the file in batches through an accumulator of tie groups "
        "(values without bootstrap intervals; not uq_c_index)",
    )
    group.add_argument(
        "--stream",
        action="store_true",
        help="read a .csv or .parquet file in batches with bounded memory; "
        "the values equal the in-memory ones (default: read the whole file)",
    )
    group.add_argument(
        "--batch-size",
        type=_positive_int,
        default=1_000_000,
        metavar="ROWS",
        help="rows read at a time by --stream",
    )
    group.add_argument(
        "--max-groups",
        type=_positive_int,
        default=None,
        metavar="N",
        help="keep at most N groups of confidences (implies --stream): memory "
        "bounded by N, each value reported with certified bounds of the exact "
        "one (default: exact, one group per distinct confidence)",
    )
    group.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help="compute on a Dask cluster: the scheduler's address, or 'local' "
        "for a local cluster; FILE is then a directory or glob of Parquet files "
        "(needs sklearn-selective[dask]; default: no cluster)",
    )


def _add_metric_arguments(parser):
    parser.add_argument(
        "--metrics",
        default=None,
        help=f"comma-separated {METRIC_HELP} (default: {default_metrics('zero_one')}"
        f"; with --loss log_loss or brier: {default_metrics('brier')})",
    )
    parser.add_argument(
        "--csf",
        default=None,
        metavar="NAME",
        help="confidence score function applied to the probabilities or logits "
        f"in the file, one of {', '.join(usable_csfs())} (default: msp; "
        "max_logit, energy and logit_pnorm read logits, the others read "
        "probabilities, the softmax of logits if the file holds logits)",
    )
    parser.add_argument(
        "--loss",
        choices=["zero_one", "log_loss", "brier"],
        default="zero_one",
        help="per-sample loss; log_loss and brier need probabilities or logits",
    )
    parser.add_argument(
        "--n-resamples",
        type=_n_resamples,
        default=None,
        help="bootstrap resamples for the intervals (0: values without "
        f"intervals; at most {MAX_RESAMPLES:_}; default: 1000, 0 with --stream, "
        "--max-groups or --dask)",
    )
    parser.add_argument(
        "--confidence-level",
        type=_level,
        default=0.95,
        help="probability that each interval covers the metric",
    )
    parser.add_argument(
        "--random-state",
        type=_seed,
        default=0,
        help="seed of the bootstrap",
    )
    parser.add_argument(
        "--renormalize",
        action="store_true",
        help="divide each probability row that does not sum to 1 by its sum "
        "(without it, rows must sum to 1 within 1e-3 per class, as probabilities "
        "rounded to 3 decimals do, and are used as given)",
    )


def _add_output_arguments(parser):
    parser.add_argument(
        "--format",
        choices=_FORMATS,
        default="table",
        help="output: an aligned table, or JSON / CSV for pipelines",
    )
    parser.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="save the risk-coverage curves here, e.g. curves.png (default: none)",
    )


def _add_column_arguments(parser):
    parser.add_argument(
        "--label-column", default="y_true", help="column or .npz array: labels"
    )
    parser.add_argument(
        "--pred-column", default="y_pred", help="column or .npz array: predictions"
    )
    parser.add_argument(
        "--confidence-column",
        default="confidence",
        help="column or .npz array: confidences",
    )
    parser.add_argument(
        "--proba-prefix",
        default="proba_",
        help="CSV, Parquet: probability columns' prefix",
    )
    parser.add_argument(
        "--logit-prefix", default="logit_", help="CSV, Parquet: logit columns' prefix"
    )
    parser.add_argument(
        "--proba-columns",
        type=_column_list,
        default=None,
        metavar="A,B,...",
        help="CSV, Parquet: the probability columns, one per class, each named by its "
        "label, e.g. 0,1,2 for pandas' to_csv (default: the --proba-prefix "
        "columns)",
    )
    parser.add_argument(
        "--logit-columns",
        type=_column_list,
        default=None,
        metavar="A,B,...",
        help="CSV, Parquet: the logit columns, one per class, each named by its label "
        "(default: the --logit-prefix columns)",
    )


def check_csf(options):
    """``options.csf`` resolved (msp by default); an InputError for a CSF a
    prediction file cannot feed."""
    options.csf_given = options.csf is not None
    options.csf = "msp" if options.csf is None else options.csf
    if (
        options.csf in get_confidence_function_names()
        and model_output_of(options.csf) == "features"
    ):
        raise InputError(
            f"--csf {options.csf}: reads the model's inputs and training data, "
            "which a prediction file does not hold. Compute it in Python "
            "(sklearn_selective.confidence.fit_feature_confidence) and pass the "
            "values with --confidence-column"
        )
    if options.csf not in get_confidence_function_names():
        raise InputError(
            f"--csf {options.csf!r}: unknown; use one of {', '.join(usable_csfs())}"
        )
