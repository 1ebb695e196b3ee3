"""benchmarks/device.sh, the GPU run, at tiny sizes on the CPU (what CI can run): it
writes its results folder with every part it promises."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "device.sh"


@pytest.mark.ci_only  # 47-72 s of one worker: make ci-extra runs it (CI)
def test_the_device_script_runs_on_the_cpu_at_tiny_sizes(tmp_path):
    environment = {
        **os.environ,
        "PYTHON": sys.executable,
        "SIZES": "1",
        "ARC3_SIZES": "2",
        "GAMES": "cn04",
        "FORMATS": "point",
        "FORAGE": "ForagaxDiwali-v5",
        "STEPS": "2",
        "OUT": str(tmp_path),
        "JAX_PLATFORMS": "cpu",
    }
    result = subprocess.run(
        ["bash", str(SCRIPT)], env=environment, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert "jax" in (tmp_path / "device.txt").read_text()
    for part in ("arc-forage", "arc3"):
        assert (tmp_path / f"{part}.txt").stat().st_size > 0
        assert any((tmp_path / part).glob("*.json")), part
