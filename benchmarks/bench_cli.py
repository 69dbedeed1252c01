"""``evaluate`` on large files: reading, and the whole command.

Run: ``python benchmarks/bench_cli.py [--n 1e6] [--classes 10] [--n-resamples 0]``

Writes a CSV with integer labels, a CSV with text labels (probabilities with 6
decimals) and an NPZ of ``--n`` rows to a temporary folder, then prints, for
each file, the time to read it into labels, predictions and confidences
(best of ``--repeat``; wall and CPU time, and the ratio to ``numpy.argsort`` of
``--n`` floats measured in the same process) and the time of the whole
``evaluate`` command with ``--n-resamples`` (default 0: the metric values
without the bootstrap, whose time is ``bench_bootstrap.py``'s). On a shared
machine the CPU time is the steadier number.
"""

import argparse
import contextlib
import io
import tempfile
import time
from pathlib import Path

import numpy as np
from _measure import best_time

from sklearn_selective._cli._evaluate import load_predictions
from sklearn_selective._cli._main import _build_parser, main


def _write_files(folder, n, k):
    rng = np.random.default_rng(0)
    logits = 2 * rng.normal(size=(n, k))
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    y = (rng.random(n)[:, None] > proba.cumsum(axis=1)).sum(axis=1).clip(0, k - 1)
    paths = {"CSV, integer labels": folder / "int.csv"}
    header = "y_true," + ",".join(f"proba_{j}" for j in range(k))
    np.savetxt(
        paths["CSV, integer labels"],
        np.column_stack([y, proba]),
        fmt=["%d"] + ["%.6f"] * k,
        delimiter=",",
        header=header,
        comments="",
    )
    names = np.array([f"class{j}" for j in range(k)])
    lines = paths["CSV, integer labels"].read_text().splitlines()[1:]
    text = [
        f"{names[label]}{line[line.index(',') :]}"
        for label, line in zip(y, lines, strict=True)
    ]
    paths["CSV, text labels"] = folder / "text.csv"
    header = "y_true," + ",".join(f"proba_{name}" for name in names)
    paths["CSV, text labels"].write_text("\n".join([header, *text]) + "\n")
    paths["NPZ"] = folder / "arrays.npz"
    np.savez(paths["NPZ"], y_true=y, proba=proba)
    return paths


def _cpu_time(func):
    start = time.process_time()
    func()
    return time.process_time() - start


def main_():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--n-resamples", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = int(args.n)
    values = np.random.default_rng(1).random(n)
    # The command's own defaults, so that the reading matches ``evaluate``.
    options = _build_parser().parse_args(["evaluate", "predictions.csv"])
    options.csf = "msp"
    print(f"n = {n}, {args.classes} classes, evaluate --n-resamples {args.n_resamples}")
    print(
        f"{'file':<22} {'MB':>5} {'read s':>7} {'read CPU s':>10} "
        f"{'x argsort':>9} {'evaluate s':>10} {'CPU s':>6}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name, path in _write_files(Path(folder), n, args.classes).items():
            argsort = best_time(lambda: np.argsort(values), args.repeat)

            def read_file(path=path):
                return load_predictions(path, options)

            read = best_time(read_file, args.repeat)
            cpu = _cpu_time(read_file)
            command = ["evaluate", str(path), "--n-resamples", str(args.n_resamples)]
            with contextlib.redirect_stdout(io.StringIO()):
                start, start_cpu = time.perf_counter(), time.process_time()
                main(command)
                total = time.perf_counter() - start
                total_cpu = time.process_time() - start_cpu
            print(
                f"{name:<22} {path.stat().st_size / 1e6:>5.0f} {read:>7.2f} "
                f"{cpu:>10.2f} {read / argsort:>9.0f} {total:>10.1f} {total_cpu:>6.1f}"
            )


if __name__ == "__main__":
    main_()
