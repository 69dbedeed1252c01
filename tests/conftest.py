import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
# CI explores the same examples on every run, so a red build is reproducible.
settings.register_profile(
    "ci", parent=settings.get_profile("default"), derandomize=True
)
# The fast loop (-m "not slow") explores fewer examples per property; the full
# run (README's command, CI) explores them all.
settings.register_profile(
    "fast", parent=settings.get_profile("default"), max_examples=25
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_configure(config):
    if "not slow" in (config.getoption("markexpr") or "") and not os.environ.get("CI"):
        settings.load_profile("fast")
    # Each pytest-xdist worker takes its share of the cores for BLAS and
    # OpenMP (the workers inherit this environment; the libraries read it when
    # they load), so that the workers' threads do not oversubscribe the cores.
    workers = getattr(config.option, "numprocesses", None)
    if workers and not os.environ.get("PYTEST_XDIST_WORKER"):
        share = str(max(1, (os.cpu_count() or 1) // workers))
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, share)


@pytest.fixture(scope="module")
def client():
    """A Dask ``LocalCluster`` of two in-process workers (one thread each) and
    its client, for the tests of Dask collections (skipped without dask)."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
