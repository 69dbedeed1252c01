"""Every benchmark script still runs (at tiny sizes): the numbers in the issue
notes come from them, and nothing else imports them."""

import pytest
from _scripts import ROOT, ConcurrentRuns, selected_parameters

# Script -> arguments for a run of a few seconds; None: the two slowest scripts,
# whose sizes are fixed, only parse their options and import what they measure.
TINY = {
    "bench_atc.py": None,
    "bench_bootstrap.py": [
        "--sizes", "1e3", "--n-resamples", "10", "--max-generic-n", "1e3",
        "--max-c-index-resamples", "2",
    ],
    "bench_cascade.py": [
        "--repeats", "2", "--sizes", "300", "--time-n", "1e3", "--time-repeat", "1",
    ],
    "bench_cli.py": ["--n", "1e3", "--n-resamples", "10", "--repeat", "1"],
    "bench_coverage.py": [
        "--repeats", "2", "--n-resamples", "20", "--sizes", "50",
        "--bootstrap-resamples", "50", "--monitor-scale", "0.1",
        "--class-repeats", "2", "--class-settings", "1", "--weighted-repeats", "2",
    ],
    "bench_estimates.py": [
        "--repeats", "1", "--data-sets", "gauss LR", "--coverage-repeats", "0",
        "--floor-repeats", "1",
    ],
    "bench_guarantees.py": ["--repeats", "2", "--sizes", "300"],
    "bench_confidence.py": [
        "--n", "1e3", "--classes", "10", "--feature-n", "200", "--feature-dims", "8",
    ],
    "bench_metrics.py": ["--sizes", "1e3", "--repeat", "1", "--memory-sizes", "1e3"],
    "bench_metrics_new.py": ["--max-n", "1e3", "--repeat", "1"],
    "bench_monitor.py": [
        "--repeats", "1", "--n", "100", "--n-target", "1000",
        "--alert-repeats", "1", "1", "--timing-runs", "0",
        "--shift-alert-repeats", "1", "--shift-alert-chunks", "1",
    ],
    "bench_monitor_scale.py": [
        "--rows", "2000", "--methods", "auto", "--resamples", "10",
    ],
    "bench_outputs_moved.py": ["--repeats", "2"],
    "bench_scale.py": ["--tiny"],
    "bench_scale_cluster.py": ["--tiny"],
    "bench_scorers.py": None,
    "bench_selective.py": [
        "--n-predict", "1e3", "--n-fit", "2e3", "--n-search", "1e3", "--repeat", "1",
    ],
}  # fmt: skip


def test_every_benchmark_is_listed():
    scripts = {path.name for path in (ROOT / "benchmarks").glob("bench_*.py")}
    assert scripts == set(TINY)


@pytest.fixture(scope="module")
def benchmark_runs(request, tmp_path_factory):
    selected = selected_parameters(request, "test_benchmark_runs")
    runs = ConcurrentRuns(
        {s: (ROOT / "benchmarks" / s, TINY[s] or ["--help"]) for s in selected},
        tmp_path_factory,
    )
    yield runs
    runs.close()


@pytest.mark.slow
# One worker runs the scripts (its fixture starts every selected script).
@pytest.mark.xdist_group("benchmarks")
@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_runs(script, benchmark_runs):
    result = benchmark_runs.result(script)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()
