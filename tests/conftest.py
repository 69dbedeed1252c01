import os

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
