"""Two processes on this machine (loopback only), joined by ``jax.distributed`` with CPU
collectives, run a sharded ARC rollout and a sharded forage rollout; their envs equal the
single-process run's bit for bit (tests/tools/distributed_check.py, docs/scaling.md)."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).parent / "tools" / "distributed_check.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(num_processes: int, out_dir: Path) -> None:
    port = str(free_port())
    # One CPU device per process, whatever the environment asks for.
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS="")
    processes = [
        subprocess.Popen(
            [sys.executable, str(SCRIPT), str(i), str(num_processes), port, str(out_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for i in range(num_processes)
    ]
    for process in processes:
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output[-3000:]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    single, double = tmp_path_factory.mktemp("single"), tmp_path_factory.mktemp("double")
    run(1, single)
    run(2, double)
    return single, double


@pytest.mark.parametrize("name", ["arc", "forage"])
def test_two_processes_equal_one_bit_for_bit(results, name):
    single, double = results
    with np.load(single / f"{name}-0.npz") as whole:
        expected = [whole[k] for k in whole.files]
    parts = [np.load(double / f"{name}-{i}.npz") for i in range(2)]
    assert len(expected) == len(parts[0].files) > 10  # states, rewards and dones
    for i, leaf in enumerate(expected):
        joined = np.concatenate([p[f"arr_{i}"] for p in parts])
        np.testing.assert_array_equal(joined, leaf)
    rewards = expected[-2]
    assert rewards.shape == (8, 12) and np.any(rewards != 0)
