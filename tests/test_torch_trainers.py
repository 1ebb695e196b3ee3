"""PyTorch's trainers, unchanged, on an ARC id, a forage id and an ARC-AGI-3 id:
Stable-Baselines3's PPO (and sb3-contrib's MaskablePPO on a real ARC-AGI-3 game), a
CleanRL-style PPO on the vector env with torch arrays, and TorchRL's collector with
ClipPPOLoss; each runs a few thousand steps through the examples in examples/torch.
The extra ``torch`` brings them (``make torch``; CI installs it)."""

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

for module in ("torch", "stable_baselines3", "sb3_contrib", "torchrl"):
    if importlib.util.find_spec(module) is None:
        pytest.skip(
            f"{module} is not installed: `make torch` installs the extra 'torch' (CPU torch)",
            allow_module_level=True,
        )

import torch  # noqa: E402

EXAMPLES = Path(__file__).parents[1] / "examples" / "torch"
sys.path.insert(0, str(EXAMPLES))
with warnings.catch_warnings():  # torchrl 0.14 deprecates its own weight updaters on import
    warnings.simplefilter("ignore", DeprecationWarning)
    import cleanrl_ppo  # noqa: E402
    import sb3_ppo  # noqa: E402
    import torchrl_ppo  # noqa: E402
    from common import Curve  # noqa: E402

# The adapter's NumPy arrays are read-only views of JAX's buffers; TorchRL copies them
# with torch.as_tensor, which warns that it could not share a read-only buffer.
pytestmark = pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")

TASKS = ["arc-copy", "ForagaxTwoBiome-v1", "Arc3-Keys-v0"]
STEPS = 2048


def _ran(result: dict, steps: int) -> None:
    curve: Curve = result["curve"]
    assert curve.count >= steps
    assert all(np.isfinite(curve.reward_per_step))
    assert result["wall_seconds"] > 0


@pytest.mark.parametrize("name", TASKS)
def test_stable_baselines3_ppo_trains(name):
    result = sb3_ppo.train(name, STEPS, n_envs=4, window=512, n_steps=128, batch_size=128)
    _ran(result, STEPS)
    assert 0 < result["env_seconds"] < result["wall_seconds"]
    assert result["model"].num_timesteps >= STEPS


def test_maskable_ppo_sees_only_the_games_actions_on_a_real_game():
    """ft09 offers RESET and clicks: the masked CNN policy never picks another id."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    result = sb3_ppo.train(
        "Arc3-ft09-v0",
        STEPS,
        n_envs=4,
        algorithm=MaskablePPO,
        policy="CnnPolicy",
        forms={"observations": "image"},
        window=512,
        n_steps=128,
        batch_size=128,
    )
    _ran(result, STEPS)
    model = result["model"]
    envs = model.get_env()
    obs = envs.reset()
    for _ in range(20):
        actions, _ = model.predict(obs, action_masks=get_action_masks(envs))
        assert set(actions[:, 0]) <= {0, 6}
        obs, *_ = envs.step(actions)


@pytest.mark.parametrize("name", TASKS)
def test_cleanrl_style_ppo_trains_on_torch_arrays(name):
    settings = cleanrl_ppo.Settings(num_envs=16, num_steps=32)
    result = cleanrl_ppo.train(name, 4 * 512, settings=settings, window=512)
    _ran(result, 2048)
    assert result["env_seconds"] > 0 and result["torch_seconds"] > 0


def test_cleanrl_style_ppo_masks_and_sees_images_on_arc_agi_3():
    settings = cleanrl_ppo.Settings(num_envs=8, num_steps=16)
    result = cleanrl_ppo.train(
        "Arc3-Lights-v0", 512, settings=settings, forms={"observations": "image"}, masked=True,
        window=128,
    )  # fmt: skip
    _ran(result, 512)
    agent = result["agent"]
    envs = cleanrl_ppo.make_envs("Arc3-Lights-v0", 8, {"observations": "image"})
    obs, _ = envs.reset(seed=1)
    with torch.no_grad():
        action, *_ = agent.act(obs, envs.action_masks())
    assert set(action[:, 0].tolist()) <= {0, 6}


def test_cleanrl_style_ppo_learns_arc_copy_beyond_a_random_policy():
    """Copy-input then submit: a random policy solves about 3 % of episodes."""
    settings = cleanrl_ppo.Settings(num_envs=64, num_steps=32)
    result = cleanrl_ppo.train("arc-copy", 16 * 2048, settings=settings, window=4096)
    assert result["curve"].final(last=2)["success_rate"] > 0.15


@pytest.mark.parametrize("name", TASKS)
def test_torchrl_collector_and_ppo_loss_train(name):
    result = torchrl_ppo.train(name, STEPS, num_envs=16, frames_per_batch=512, window=512)
    _ran(result, STEPS)
    assert result["update_seconds"] > 0
