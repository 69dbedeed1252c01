"""Running a repository script as a user would, on this checkout's code."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_script(script, *arguments, cwd):
    """Run ``python script arguments`` in ``cwd``; the checkout comes first on the
    path, so that the script runs on this code even when the package is not
    installed, and plots go to a file backend."""
    return subprocess.run(
        [sys.executable, str(script), *arguments],
        cwd=cwd,
        env={
            **os.environ,
            "MPLBACKEND": "Agg",
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
            ),
        },
        capture_output=True,
        text=True,
        timeout=600,
    )
