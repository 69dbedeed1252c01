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
settings.load_profile("ci" if os.environ.get("CI") else "default")
