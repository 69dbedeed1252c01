"""The ``python -m sklearn_selective`` command line."""

import argparse

from ._demo import run_demo


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_selective",
        description="Selective classification for scikit-learn.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo",
        help="fit a classifier on a bundled dataset and print its selective metrics",
    )
    demo.add_argument(
        "--random-state", type=int, default=0, help="seed of the train/test split"
    )
    demo.set_defaults(handler=lambda args: run_demo(random_state=args.random_state))
    return parser


def main(argv=None):
    args = _build_parser().parse_args(argv)
    return args.handler(args)
