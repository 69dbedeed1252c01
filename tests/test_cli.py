import subprocess
import sys

from sklearn_selective._cli import main


def test_demo_prints_the_metrics(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for name in ("accuracy", "AURC (harmonic)", "AUGRC", "UQ-AUC", "UQ-C-index"):
        assert name in out


def test_module_entry_point_without_a_command_fails_with_usage():
    result = subprocess.run(
        [sys.executable, "-m", "sklearn_selective"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "usage:" in result.stderr
