"""Every gallery example runs as a plain Python script."""

import pytest
from _scripts import ROOT, ConcurrentRuns, selected_parameters

EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


@pytest.fixture(scope="module")
def example_runs(request, tmp_path_factory):
    pytest.importorskip("matplotlib")
    selected = selected_parameters(request, "test_example_runs")
    runs = ConcurrentRuns({s.name: (s, ()) for s in selected}, tmp_path_factory)
    yield runs
    runs.close()


@pytest.mark.slow
# One worker runs the gallery (its fixture starts every selected script).
@pytest.mark.xdist_group("gallery")
@pytest.mark.parametrize("script", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example_runs(script, example_runs):
    result = example_runs.result(script.name)
    assert result.returncode == 0, result.stderr[-3000:]
