"""README.md's set-up commands are the ones CI runs."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands():
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_has_exactly_two_setup_commands():
    commands = _readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("-m sklearn_selective demo")
    assert commands[1].endswith("-m pytest")


def test_ci_runs_the_readme_test_command_verbatim():
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci_lines[-1] == _readme_commands()[1]


@pytest.mark.slow
def test_readme_quick_start_runs():
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks
    namespace = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert set(namespace["search"].best_params_) == {
        "csf",
        "estimator__logisticregression__C",
    }
    assert 0.8 < namespace["atc"].estimate_accuracy(namespace["X_test"]) <= 1
