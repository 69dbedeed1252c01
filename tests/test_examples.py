"""Every gallery example runs as a plain Python script."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example_runs(script, tmp_path):
    pytest.importorskip("matplotlib")
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        # the checkout first, so that the examples run on this code even when the
        # package is not installed
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
    assert result.returncode == 0, result.stderr[-3000:]
