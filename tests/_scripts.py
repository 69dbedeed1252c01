"""Running a repository script as a user would, on this checkout's code."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_script(script, *arguments, cwd, threads=None):
    """Run ``python script arguments`` in ``cwd``; the checkout comes first on the
    path, so that the script runs on this code even when the package is not
    installed, and plots go to a file backend. ``threads`` caps the threads of
    the numerical libraries (for scripts run side by side)."""
    capped = {}
    if threads is not None:
        capped = {
            name: str(threads)
            for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
        }
    return subprocess.run(
        [sys.executable, str(script), *arguments],
        cwd=cwd,
        env={
            **os.environ,
            **capped,
            "MPLBACKEND": "Agg",
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
            ),
        },
        capture_output=True,
        text=True,
        timeout=600,
    )


class ConcurrentRuns:
    """The scripts a session selected, started two at a time (each with half
    the cores' threads) as soon as the first is asked for: each spends a
    second or two importing, and much of its time in one thread.
    ``result(name)`` waits for one script's completed process."""

    def __init__(self, runs, tmp_path_factory):
        workers = min(2, os.cpu_count() or 1)
        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._futures = {
            name: self._pool.submit(
                run_script,
                script,
                *arguments,
                cwd=tmp_path_factory.mktemp("run"),
                threads=max(1, (os.cpu_count() or 1) // workers),
            )
            for name, (script, arguments) in runs.items()
        }

    def result(self, name):
        return self._futures[name].result()

    def close(self):
        self._pool.shutdown(cancel_futures=True)


def selected_parameters(request, test_name):
    """The ``script`` parameters of the tests named ``test_name`` that this
    session runs (all, or those ``-k`` kept)."""
    return [
        item.callspec.params["script"]
        for item in request.session.items
        if getattr(item, "originalname", None) == test_name
    ]
