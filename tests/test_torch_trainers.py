"""PyTorch's trainers, unchanged, on an ARC id, a forage id and an ARC-AGI-3 id:
Stable-Baselines3's PPO (and sb3-contrib's MaskablePPO on a real ARC-AGI-3 game), a
CleanRL-style PPO on the vector env with torch arrays, and TorchRL's collector with
ClipPPOLoss; each runs a few thousand steps through the examples in examples/pytorch.
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

EXAMPLES = Path(__file__).parents[1] / "examples" / "pytorch"
sys.path.insert(0, str(EXAMPLES))
with warnings.catch_warnings():  # torchrl 0.14 deprecates its own weight updaters on import
    warnings.simplefilter("ignore", DeprecationWarning)
    import cleanrl_ppo  # noqa: E402
    import common  # noqa: E402
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


@pytest.mark.parametrize(
    ("name", "dummy"),
    [(name, False) for name in TASKS] + [("arc-copy", True)],
    ids=[*TASKS, "arc-copy-make_vec_env"],
)
def test_stable_baselines3_ppo_trains(name, dummy):
    result = sb3_ppo.train(
        name, STEPS, n_envs=4, window=512, dummy=dummy, n_steps=128, batch_size=128
    )
    _ran(result, STEPS)
    assert 0 < result["env_seconds"] < result["wall_seconds"]
    assert result["model"].num_timesteps >= STEPS


def test_sb3_vec_env_steps_as_sb3s_own_vec_env_until_an_episode_ends():
    """Same seeds, same actions: the same observations, rewards and flags as
    ``make_vec_env`` over the single adapter, and at the first end the same terminal
    observation and truncation flag. (After it, each draws its new task from its own key
    stream.)"""
    from stable_baselines3.common.env_util import make_vec_env

    from gridax.wrappers.sb3 import SB3VecEnv

    options = {"initial_grid": "empty", "success_bonus": 1.0}
    ours = SB3VecEnv("ArcGen-Copy-v0", 4, **options)
    theirs = make_vec_env("gridax/ArcGen-Copy-v0", 4, env_kwargs={**common.TORCH_FORMS, **options})
    ours.seed(3)
    theirs.seed(3)
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    rng = np.random.default_rng(0)
    for step in range(6):
        actions = rng.integers(0, [35, 30, 30], size=(4, 3))
        actions[:, 0] = rng.choice([3, 5, 32], size=4) if step < 5 else 34  # then submit
        (obs, reward, done, info), expected = ours.step(actions), theirs.step(actions)
        np.testing.assert_allclose(reward, expected[1])
        np.testing.assert_array_equal(done, expected[2])
        if step < 5:
            np.testing.assert_array_equal(obs, expected[0])
    assert done.all()
    for ended, reference in zip(info, expected[3], strict=True):
        final = ended["terminal_observation"]
        np.testing.assert_array_equal(final, reference["terminal_observation"])
        assert ended["TimeLimit.truncated"] is reference["TimeLimit.truncated"] is False
        assert ended["success"] == reference["success"]


@pytest.mark.ci_only
def test_maskable_ppo_sees_only_the_games_actions_on_a_real_game():
    """ft09 offers RESET and clicks: the masked CNN policy never picks another id."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    result = sb3_ppo.train(
        "Arc3-ft09-v0",
        STEPS,
        n_envs=4,
        dummy=True,  # the single adapter's action_masks(), through SB3's DummyVecEnv
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


def test_maskable_ppo_on_sb3_vec_env():
    """MaskablePPO reads SB3VecEnv's masks (one row per env): RESET and clicks only."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from gridax.wrappers.sb3 import SB3VecEnv

    envs = SB3VecEnv("Arc3-Lights-v0", 4)
    envs.reset()
    masks = get_action_masks(envs)
    assert masks.shape == (4, 8 + 64 + 64)
    model = MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=64, seed=0).learn(256)
    obs = envs.reset()
    for _ in range(10):
        actions, _ = model.predict(obs, action_masks=get_action_masks(envs))
        assert set(actions[:, 0]) <= {0, 6}
        obs, *_ = envs.step(actions)


@pytest.mark.parametrize("context", [False, True], ids=["plain", "context"])
def test_multi_input_policy_takes_the_native_dict_observations(context):
    """The command users try first, SB3 unchanged: ``MultiInputPolicy`` on gridax's
    Dict observations (scalars as shape (1,), the demonstrations' nested fields named
    "context/inputs"...), through ``make_vec_env``; :class:`SB3VecEnv` gives the same
    observations."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    from gridax.wrappers.sb3 import SB3VecEnv

    options = {"flat_actions": True, "context": context}
    theirs = make_vec_env("gridax/ArcAgi1-v0", n_envs=2, env_kwargs=options)
    ours = SB3VecEnv("ArcAgi1-v0", 2, observations="native", context=context)
    assert ("context/inputs" in theirs.observation_space.spaces) is context
    assert theirs.observation_space.spaces["step_count"].shape == (1,)
    theirs.seed(5)
    ours.seed(5)
    first, expected = ours.reset(), theirs.reset()
    assert first.keys() == expected.keys()
    for key in first:
        np.testing.assert_array_equal(first[key], expected[key], err_msg=key)
    for envs in (theirs, ours) if not context else (theirs,):  # ours once: its dict path
        model = PPO("MultiInputPolicy", envs, n_steps=32, batch_size=32, n_epochs=1, seed=0)
        model.learn(64)
        assert model.num_timesteps >= 64
