"""The Gymnasium adapters' forms for PyTorch trainers: flat actions (``MultiDiscrete``),
flat and image observations, and ``action_masks()``. Flat and ``Dict`` forms of one env
play the same trajectories for the same actions."""

import jax
import numpy as np
import pytest

import gridax

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from gridax.validation import UnknownOptionError  # noqa: E402
from gridax.wrappers.gymnasium import (  # noqa: E402
    FlatActions,
    GymnasiumEnv,
    GymnasiumVectorEnv,
)

STRUCTURED = [
    ("ArcAgi1-v0", {}, [35, 30, 30]),
    ("ArcAgi1-v0", {"selection_format": "bbox"}, [35, 30, 30, 30, 30]),
    ("ArcAgi1-v0", {"selection_format": "mask"}, [35] + [2] * 900),
    ("Arc3-Keys-v0", {}, [8, 64, 64]),
]


@pytest.mark.parametrize(("env_id", "overrides", "nvec"), STRUCTURED)
def test_flat_actions_are_a_multi_discrete_of_the_fields_in_order(env_id, overrides, nvec):
    single = GymnasiumEnv(env_id, flat_actions=True, **overrides)
    assert single.action_space == gymnasium.spaces.MultiDiscrete(nvec)
    vec = GymnasiumVectorEnv(env_id, 3, flat_actions=True, **overrides)
    assert vec.single_action_space == single.action_space
    assert vec.action_space.shape == (3, len(nvec))


@pytest.mark.parametrize(("env_id", "overrides", "nvec"), STRUCTURED)
def test_flat_and_dict_actions_play_the_same_trajectory(env_id, overrides, nvec):
    """The same actions, sampled in the Dict form and flattened, give the same
    observations, rewards, flags and info, one env and a batch."""
    structured = GymnasiumEnv(env_id, **overrides)
    flat = GymnasiumEnv(env_id, flat_actions=True, **overrides)
    encode = FlatActions(structured.env.action_space).flat
    structured.action_space.seed(5)
    a, _ = structured.reset(seed=9)
    b, _ = flat.reset(seed=9)
    jax.tree.map(np.testing.assert_array_equal, a, b)
    for _ in range(6):
        action = structured.action_space.sample()
        assert flat.action_space.contains(encode(action))
        a, b = structured.step(action), flat.step(encode(action))
        jax.tree.map(np.testing.assert_array_equal, a, b)

    structured = GymnasiumVectorEnv(env_id, 3, **overrides)
    flat = GymnasiumVectorEnv(env_id, 3, flat_actions=True, **overrides)
    structured.action_space.seed(6)
    jax.tree.map(np.testing.assert_array_equal, structured.reset(seed=2), flat.reset(seed=2))
    for _ in range(6):
        actions = structured.action_space.sample()
        a, b = structured.step(actions), flat.step(encode(actions))
        jax.tree.map(np.testing.assert_array_equal, a, b)


def test_flat_actions_round_trip_and_leave_a_discrete_space_as_it_is():
    space = gridax.make("ArcAgi1-v0", selection_format="mask").action_space
    flat = FlatActions(space)
    vector = np.random.default_rng(0).integers(0, flat.nvec, size=(4, len(flat.nvec)))
    action = flat.structured("test", vector, (4,))
    assert action.selection.shape == (4, 30, 30) and action.selection.dtype == bool
    np.testing.assert_array_equal(flat.flat(action), vector)
    forage = GymnasiumEnv("ForagaxTwoBiome-v1", flat_actions=True)
    assert forage.action_space == gymnasium.spaces.Discrete(4, dtype=np.int32)


@pytest.mark.parametrize(
    ("env_id", "overrides"),
    [
        ("ArcAgi1-v0", {"observations": "flat"}),
        ("ArcAgi1-v0", {"observations": "flat", "context": True}),  # a nested Dict
        ("ArcGen-Copy-v0", {"observations": "flat"}),
        ("ForagaxBig-v5", {"observations": "flat"}),
        ("Arc3-Keys-v0", {"observations": "flat"}),
        ("Arc3-Keys-v0", {"observations": "image"}),
    ],
)
def test_flat_and_image_forms_pass_gymnasiums_checker(env_id, overrides):
    env = GymnasiumEnv(env_id, flat_actions=True, **overrides)
    check_env(env, skip_render_check=True)
    assert isinstance(env.observation_space, gymnasium.spaces.Box)


def test_flat_observations_scale_every_field_by_its_bounds_in_field_order():
    native = GymnasiumEnv("ArcGen-Copy-v0")
    flat = GymnasiumEnv("ArcGen-Copy-v0", observations="flat")
    obs, _ = native.reset(seed=4)
    vector, _ = flat.reset(seed=4)
    assert vector.dtype == np.float32 and vector.min() >= 0 and vector.max() <= 1
    np.testing.assert_allclose(vector[:900], obs["working_grid"].ravel() / 9)
    np.testing.assert_allclose(vector[900:902], (obs["working_shape"] - 1) / 29)
    task_index = obs["task_index"] / 2147483647  # an identifier, scaled as well
    np.testing.assert_allclose(vector[-2], task_index, rtol=1e-6)


def test_image_observations_are_the_frame_in_arc_agi_3s_colours():
    native = GymnasiumVectorEnv("Arc3-Keys-v0", 2)
    image = GymnasiumVectorEnv("Arc3-Keys-v0", 2, observations="image")
    assert image.single_observation_space == gymnasium.spaces.Box(0, 255, (64, 64, 3), np.uint8)
    frames, _ = native.reset(seed=1)
    pictures, _ = image.reset(seed=1)
    assert pictures.shape == (2, 64, 64, 3) and pictures.dtype == np.uint8
    for env in range(2):
        expected = native.env.render(native._states, env=env, cell=1)
        np.testing.assert_array_equal(pictures[env], expected)
    assert np.array_equal(frames.shape, (2, 64, 64))


def test_action_masks_offer_arc_agi_3s_available_actions():
    lights = GymnasiumEnv("Arc3-Lights-v0", flat_actions=True)  # RESET and clicks only
    lights.reset(seed=0)
    mask = lights.action_masks()
    assert mask.shape == (8 + 64 + 64,) and mask.dtype == bool
    np.testing.assert_array_equal(mask[:8], [True, False, False, False, False, False, True, False])
    assert mask[8:].all()
    vec = GymnasiumVectorEnv("Arc3-Lights-v0", 3, flat_actions=True)
    vec.reset(seed=0)
    np.testing.assert_array_equal(vec.action_masks(), np.stack([mask] * 3))
    arc = GymnasiumEnv("ArcAgi1-v0", flat_actions=True)
    arc.reset(seed=0)
    assert arc.action_masks().shape == (35 + 30 + 30,) and arc.action_masks().all()
    forage = GymnasiumEnv("ForagaxTwoBiome-v1")
    forage.reset(seed=0)
    np.testing.assert_array_equal(forage.action_masks(), np.ones(4, bool))


def test_bad_flat_input_is_named():
    vec = GymnasiumVectorEnv("ArcAgi1-v0", 2, flat_actions=True)
    vec.reset(seed=0)
    bad_col = r"entry 2 \(field 'col'\) must be an integer in 0..29; got 30 \(env 1\)"
    with pytest.raises(ValueError, match=bad_col):
        vec.step(np.array([[0, 0, 0], [0, 0, 30]]))
    with pytest.raises(ValueError, match=r"must have shape \(2, 3\); got \(2,\)"):
        vec.step(np.zeros(2, int))
    with pytest.raises(ValueError, match="must be integers; got dtype float64"):
        vec.step(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="unknown observations 'pixels'"):
        GymnasiumEnv("Arc3-Keys-v0", observations="pixels")
    with pytest.raises(TypeError, match="ArcAgi1-v0's observation is not one picture"):
        GymnasiumEnv("ArcAgi1-v0", observations="image")
    structured = GymnasiumEnv("ArcAgi1-v0")
    structured.reset(seed=0)
    with pytest.raises(ValueError, match="flat_actions=True"):
        structured.action_masks()
    with pytest.raises(RuntimeError, match="reset"):
        GymnasiumEnv("Arc3-Keys-v0", flat_actions=True).action_masks()


def test_an_unknown_option_is_also_a_type_error_as_pythons_own():
    """TorchRL's GymEnv tries ``frameskip=`` and drops it on Python's TypeError."""
    for env_id in ("ArcAgi1-v0", "ForagaxTwoBiome-v1", "Arc3-Keys-v0"):
        with pytest.raises(UnknownOptionError, match="unexpected keyword argument 'frameskip'"):
            gymnasium.make(f"gridax/{env_id}", frameskip=1)
    assert issubclass(UnknownOptionError, TypeError) and issubclass(UnknownOptionError, ValueError)
