"""Every gallery example runs as a plain Python script."""

import pytest
from _scripts import ROOT, run_script

EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example_runs(script, tmp_path):
    pytest.importorskip("matplotlib")
    result = run_script(script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
