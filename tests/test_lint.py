"""The code stays ruff-clean (lint and format) and pyright-clean (basic mode, on src), so
CI catches what editors miss."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = [p for p in ("src", "tests", "benchmarks", "examples") if (ROOT / p).exists()]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]])
def test_ruff(command):
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_pyright():
    result = subprocess.run(
        [sys.executable, "-m", "pyright", "src"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert "0 errors" in result.stdout
