"""Config validation and the errors a user sees for wrong arguments."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc
from gridax.envs.arc.operations import RESIZE

from .helpers import one_task_bank, start


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"max_episode_steps": 0}, "max_episode_steps must be an integer >= 1; got 0"),
        ({"max_episode_steps": 10.0}, "max_episode_steps"),
        ({"selection_format": "pixel"}, "'point', 'bbox', 'mask'; got 'pixel'"),
        ({"mode": "test"}, "mode must be one of 'train', 'eval'"),
        ({"initial_grid": "random"}, "initial_grid"),
        ({"reward_mode": "shaped"}, "reward_mode"),
        ({"step_penalty": float("nan")}, "step_penalty must be a finite number"),
        ({"history_length": 0}, "history_length"),
        ({"strict": 1}, "strict must be True or False"),
    ],
)
def test_bad_config_values(fields, message):
    with pytest.raises(ValueError, match=message):
        arc.ArcConfig(**fields)


def test_config_is_hashable_and_static():
    assert hash(arc.ArcConfig()) == hash(arc.ArcConfig())
    assert arc.ArcConfig(history_length=7).history_size == 7


def test_step_argument_errors():
    state, config = start("1 2\n3 4")
    with pytest.raises(TypeError, match="takes a PointAction; got BboxAction"):
        arc.step(state, BboxAction(0, 0, 0, 0, 0), config)
    batch = PointAction(jnp.array([1, 2]), jnp.array([0, 0]), jnp.array([0, 0]))
    with pytest.raises(ValueError, match="use batch_step"):
        arc.step(state, batch, config)
    with pytest.raises(ValueError, match="different ArcConfig"):
        arc.step(state, PointAction(0, 0, 0), arc.ArcConfig(max_episode_steps=5))
    with pytest.raises(ValueError, match="one action per state"):
        arc.batch_step(state, PointAction(0, 0, 0), config)


def test_reset_argument_errors():
    bank = one_task_bank("1")
    config = arc.ArcConfig()
    with pytest.raises(TypeError, match="must be a TaskBank"):
        arc.reset(jax.random.key(0), config, {"train": []})
    with pytest.raises(ValueError, match="out of range: the bank has 1 tasks"):
        arc.reset(jax.random.key(0), config, bank, task_index=3)
    with pytest.raises(TypeError, match="task_index must be an integer"):
        arc.reset(jax.random.key(0), config, bank, task_index=0.5)
    with pytest.raises(ValueError, match="one PRNG key"):
        arc.reset(jax.random.split(jax.random.key(0), 2), config, bank)
    with pytest.raises(ValueError, match="batch of keys"):
        arc.batch_reset(jax.random.key(0), config, bank)


# Each invalid input of strict mode, with the message eqx.error_if gives it.
INVALID_STEPS = [
    (PointAction(99, 0, 0), "operation id outside 0-34"),
    (PointAction(3, -1, 0), "coordinates outside the 30x30 canvas"),
    (PointAction(3, 5, 5), "no cell on the live grid"),
    (BboxAction(30, 40, 40, 50, 50), "coordinates outside the 30x30 canvas"),
    (MaskAction(RESIZE, np.zeros((30, 30), bool)), "resize needs a non-empty selection"),
]
PAINT_TOP_LEFT_GREEN = {
    PointAction: PointAction(3, 0, 0),
    BboxAction: BboxAction(3, 0, 0, 0, 0),
    MaskAction: MaskAction(3, np.eye(1, 900, 0, dtype=bool).reshape(30, 30)),
}


def start_for(action, **config_fields):
    fmt = {PointAction: "point", BboxAction: "bbox", MaskAction: "mask"}[type(action)]
    return start("1 2\n3 4", selection_format=fmt, **config_fields)


@pytest.mark.parametrize(("action", "message"), INVALID_STEPS)
def test_strict_mode_raises_with_the_problem_named(action, message):
    state, config = start_for(action, strict=True)
    with pytest.raises(Exception, match=message):
        arc.step(state, action, config)
    state, *_ = arc.step(state, PAINT_TOP_LEFT_GREEN[type(action)], config)  # valid: passes
    assert int(state.working_grid[0, 0]) == 3


@pytest.mark.parametrize(("action", "message"), INVALID_STEPS)
def test_without_strict_the_same_inputs_are_flagged_no_ops(action, message):
    state, config = start_for(action)
    after, _, reward, done, info = arc.step(state, action, config)
    assert bool(info["invalid_action"]) and not bool(done)
    assert float(reward) == np.float32(config.step_penalty)  # the step penalty, nothing else
    for field in ("working_grid", "working_shape", "clipboard", "clipboard_mask", "similarity"):
        assert np.array_equal(getattr(after, field), getattr(state, field)), field
    assert int(after.step_count) == 1 and bool(after.history.invalid[0])


STRICT_SCRIPT = """
import jax, math, sys
from gridax.actions import PointAction
from gridax.envs import arc
bank = arc.tasks_from_dict({"t": {"train": [{"input": [[1, 2]], "output": [[1, 3]]}],
                                  "test": [{"input": [[1]], "output": [[1]]}]}})
config = arc.ArcConfig(strict=True)
state, _ = arc.reset(jax.random.key(0), config, bank, 0, 0)
if sys.argv[1] == "raise":
    try:
        arc.step(state, PointAction(99, 0, 0), config)
    except Exception as error:
        assert "operation id outside 0-34" in str(error), error
    else:
        raise AssertionError("EQX_ON_ERROR=raise did not raise")
else:
    after, _, reward, _, info = arc.step(state, PointAction(99, 0, 0), config)
    assert math.isnan(float(reward)), reward
    assert bool(info["invalid_action"])
    assert after.working_grid.tolist() == state.working_grid.tolist()
after, _, reward, _, _ = arc.step(state, PointAction(3, 0, 1), config)
assert float(reward) > 0 and int(after.working_grid[0, 1]) == 3
print("strict-ok")
"""


@pytest.mark.parametrize("mode", ["raise", "nan"])
def test_strict_mode_follows_eqx_on_error(mode):
    """``raise`` raises naming the problem; ``nan`` poisons only that step's reward and
    leaves the state a clean no-op; valid actions pass untouched in both."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, EQX_ON_ERROR=mode, JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, "-c", STRICT_SCRIPT, mode], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "strict-ok" in result.stdout
