"""The Gymnasium adapters against Gymnasium's contract: its env checker, its own
SyncVectorEnv over the single env, its three auto-reset modes, and plain batch_step."""

import jax
import numpy as np
import pytest

import gridax

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

from gridax.wrappers.gymnasium import (  # noqa: E402
    GymnasiumEnv,
    GymnasiumVectorEnv,
    register_envs,
)

SINGLE_CASES = [
    ("ArcAgi1-v0", {}),
    ("ArcAgi1-v0", {"selection_format": "bbox"}),
    ("ArcAgi1-v0", {"selection_format": "mask"}),
    ("ForagaxTwoBiome-v1", {}),
    ("ForagaxBig-v5", {}),  # a dict observation
]


@pytest.mark.parametrize(("env_id", "overrides"), SINGLE_CASES)
def test_single_env_passes_gymnasiums_checker_and_renders_gridax_pictures(env_id, overrides):
    env = gymnasium.make(f"gridax/{env_id}", render_mode="rgb_array", **overrides).unwrapped
    assert isinstance(env, GymnasiumEnv)
    check_env(env, skip_render_check=False)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(env.render(), np.asarray(env.env.render(env._state)))


def test_every_gridax_id_is_registered_and_make_builds_it():
    ids = register_envs()
    assert ids == [f"gridax/{i}" for i in gridax.registered_ids()]
    env = gymnasium.make("gridax/ForagaxTwoBiome-v1", aperture=7)
    assert env.observation_space.shape == (7, 7, 2)
    vec = gymnasium.make_vec(
        "gridax/ArcAgi1-v0", num_envs=3, vectorization_mode="vector_entry_point"
    )
    assert isinstance(vec.unwrapped, GymnasiumVectorEnv) and vec.num_envs == 3
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP


def test_vector_env_equals_gymnasiums_sync_vector_env_over_the_single_env():
    """Same seeds, same actions, no episode ending: the same observations, rewards,
    flags and info, in Gymnasium's own vector conventions (``_key`` masks)."""
    num_envs = 3
    ours = GymnasiumVectorEnv("ArcAgi1-v0", num_envs)
    theirs = SyncVectorEnv([lambda: GymnasiumEnv("ArcAgi1-v0")] * num_envs)
    theirs.action_space.seed(0)
    a, _ = ours.reset(seed=11)
    b, _ = theirs.reset(seed=11)
    jax.tree.map(np.testing.assert_array_equal, a, b)
    for _ in range(4):
        actions = theirs.action_space.sample()
        a = ours.step(actions)
        b = theirs.step(actions)
        jax.tree.map(np.testing.assert_array_equal, a[:4], b[:4])
        assert sorted(a[4]) == sorted(b[4])
        for key in b[4]:
            np.testing.assert_array_equal(a[4][key], b[4][key])


def test_vector_env_steps_as_plain_batch_step():
    env = gridax.make("ForagaxTwoBiome-v1")
    vec = GymnasiumVectorEnv(env, 4)
    obs, _ = vec.reset(seed=[1, 2, 3, 4])
    states, expected = env.batch_reset(jax.vmap(jax.random.PRNGKey)(np.arange(1, 5)))
    np.testing.assert_array_equal(obs, expected)
    for action in range(4):
        actions = np.full(4, action)
        states, expected, reward, _, _ = env.batch_step(states, actions)
        obs, got_reward, *_ = vec.step(actions)
        np.testing.assert_array_equal(obs, expected)
        np.testing.assert_array_equal(got_reward, reward)


def _arc(mode, num_envs=2):
    """ARC with 2-step episodes: every env truncates on its second step."""
    vec = GymnasiumVectorEnv("ArcAgi1-v0", num_envs, autoreset_mode=mode, max_episode_steps=2)
    vec.reset(seed=0)
    noop = {"operation": np.zeros(num_envs, int), "row": np.zeros(num_envs, int)}
    return vec, {**noop, "col": np.zeros(num_envs, int)}


def test_next_step_mode_starts_the_new_episode_on_the_step_after_the_end():
    vec, action = _arc(AutoresetMode.NEXT_STEP)
    vec.step(action)
    obs, _, terminated, truncated, _ = vec.step(action)
    assert truncated.all() and not terminated.any()
    assert (obs["step_count"] == 2).all()
    obs, reward, terminated, truncated, _ = vec.step(action)  # the action is ignored
    assert (obs["step_count"] == 0).all() and (reward == 0).all()
    assert not (terminated | truncated).any()


def test_same_step_mode_resets_at_once_and_keeps_the_last_observation():
    vec, action = _arc("SameStep")
    vec.step(action)
    obs, _, _, truncated, info = vec.step(action)
    assert truncated.all() and (obs["step_count"] == 0).all()
    assert info["_final_obs"].all() and (info["final_obs"]["step_count"] == 2).all()
    assert info["final_info"]["truncated"].all() and info["final_info"]["_truncated"].all()


def test_disabled_mode_restarts_only_the_envs_of_the_reset_mask():
    vec, action = _arc(AutoresetMode.DISABLED, num_envs=3)
    vec.step(action)
    vec.step(action)
    obs, _, _, truncated, _ = vec.step(action)
    assert truncated.all() and (obs["step_count"] == 2).all()  # ended and stays so
    obs, _ = vec.reset(options={"reset_mask": np.array([True, False, True])})
    np.testing.assert_array_equal(obs["step_count"], [[0], [2], [0]])


def test_same_seed_same_trajectory():
    def run():
        vec = GymnasiumVectorEnv("ArcAgi1-v0", 4, max_episode_steps=3)
        vec.action_space.seed(5)
        out = [vec.reset(seed=7)[0]]
        out += [vec.step(vec.action_space.sample())[:4] for _ in range(6)]
        return out

    jax.tree.map(np.testing.assert_array_equal, run(), run())


def test_bad_input_is_named_at_the_boundary():
    with pytest.raises(ValueError, match="unknown env id 'ArcAgi3-v0'"):
        GymnasiumVectorEnv("ArcAgi3-v0", 4)
    with pytest.raises(ValueError, match="num_envs"):
        GymnasiumVectorEnv("ForagaxTwoBiome-v1", 0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        GymnasiumVectorEnv("ForagaxTwoBiome-v1", 2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="array_type"):
        GymnasiumVectorEnv("ForagaxTwoBiome-v1", 2, array_type="tensorflow")
    vec = GymnasiumVectorEnv("ArcAgi1-v0", 2)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(vec.action_space.sample())
    vec.reset(seed=0)
    action = {"operation": np.array([3, 35]), "row": np.zeros(2, int), "col": np.zeros(2, int)}
    with pytest.raises(
        ValueError, match=r"ArcAgi1-v0: action\['operation'\] .* 0..34; got 35 \(env 1\)"
    ):
        vec.step(action)
    with pytest.raises(ValueError, match=r"action\['row'\] must have shape \(2,\)"):
        vec.step({**action, "operation": np.zeros(2, int), "row": np.zeros(3, int)})
    with pytest.raises(ValueError, match="fields"):
        vec.step(np.zeros(2, int))
    single = GymnasiumEnv("ForagaxTwoBiome-v1")
    single.reset(seed=0)
    with pytest.raises(ValueError, match=r"ForagaxTwoBiome-v1: action must be an integer in 0..3"):
        single.step(4)
    with pytest.raises(ValueError, match="seed"):
        single.reset(seed=2**32)


def test_torch_receives_the_buffers_without_a_copy():
    torch = pytest.importorskip("torch")
    vec = GymnasiumVectorEnv("ForagaxTwoBiome-v1", 4, array_type="torch")
    obs, _ = vec.reset(seed=0)
    obs, reward, terminated, _, info = vec.step(torch.zeros(4, dtype=torch.int64))
    assert isinstance(obs, torch.Tensor) and obs.shape == (4, 5, 5, 2)
    assert reward.dtype == torch.float32 and terminated.dtype == torch.bool
    reference = GymnasiumVectorEnv("ForagaxTwoBiome-v1", 4)
    reference.reset(seed=0)
    np.testing.assert_array_equal(obs.numpy(), reference.step(np.zeros(4, int))[0])
    # No copy: the tensor the adapter hands out uses the JAX buffer's memory.
    jax_obs, _ = GymnasiumVectorEnv("ForagaxTwoBiome-v1", 4, array_type="jax").reset(seed=0)
    assert vec._out(jax_obs).data_ptr() == jax_obs.unsafe_buffer_pointer()
