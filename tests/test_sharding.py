"""gridax.sharding on 8 simulated CPU devices (a subprocess: the device count is fixed
when JAX starts), and its errors in this process."""

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh

from gridax import sharding

CHECKS = Path(__file__).parent / "tools" / "sharding_check.py"


def test_sharded_rollouts_equal_unsharded_ones_on_8_devices():
    # The script asserts: ARC and forage rollouts (the latter through AutoReset) give the
    # same states and rewards sharded and unsharded, outputs stay sharded, no recompiles,
    # and an uneven batch is refused.
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    result = subprocess.run(
        [sys.executable, str(CHECKS)], env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert "sharding checks passed on 8 devices" in result.stdout


def test_errors_name_the_problem():
    mesh = sharding.make_mesh()
    with pytest.raises(ValueError, match="at least one device"):
        sharding.make_mesh([])
    assert sharding.shard_batch(jnp.zeros((4, 2)), mesh).shape == (4, 2)
    grid = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("a", "b"))
    with pytest.raises(ValueError, match="1-D mesh; got axes"):
        sharding.shard_batch(jnp.zeros((4, 2)), grid)
