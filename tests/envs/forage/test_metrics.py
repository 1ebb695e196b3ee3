"""Continual-RL metrics: hand-checked on a small world, EWMs against their closed form,
batched equals single, under scan, and checkpointed with the state."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.envs import forage
from gridax.envs.forage import reward
from gridax.envs.forage.objects import Biome
from gridax.serialization import load_state, save_state
from tests.envs.forage.helpers import FOOD, POISON

# Food biome 0 in columns 0-1, food biome 1 in columns 4-5, the void between; F pays 5,
# P pays -2, the agent (A) starts in the void.
WORLD = """
F . . . F P
F . A . . .
P . P . . .
"""


def hand_world():
    config = forage.ForageConfig(
        name="metrics",
        width=6,
        height=3,
        objects=(FOOD, POISON),
        biomes=(Biome((0, 0), (2, 3), (0.5, 0.5)), Biome((4, 0), (6, 3), (0.5, 0.5))),
        observation="object",
    )
    marks = {".": 0, "A": 0, "F": 1, "P": 2}
    rows = [line.split() for line in WORLD.strip().splitlines()]
    ids = np.array([[marks[m] for m in row] for row in rows], np.int8)
    state, _ = forage.reset(jax.random.key(0), config)
    state = eqx.tree_at(
        lambda s: (s.cells.object, s.cells.ready_at, s.position),
        state,
        (jnp.asarray(ids), jnp.zeros(ids.shape, jnp.int32), jnp.array([1, 2], jnp.int32)),
    )
    # The cached food values follow the objects placed by hand.
    state = reward.refresh_rewards(state, jnp.bool_(True), config.structure())
    return config, state


def test_metrics_on_a_hand_checked_world():
    config, state = hand_world()
    env = forage.ForageEnv("metrics", config)
    tracker = forage.ContinualMetrics(env, rate=0.5)
    tracked = forage.Tracked(state, forage.initial_metrics(config))
    steps = []
    for action in (forage.RIGHT, forage.UP, forage.RIGHT, forage.RIGHT):
        tracked, _, reward, _, info = tracker.step(tracked, action)
        steps.append((float(reward), info))
    assert [r for r, _ in steps] == [0.0, 0.0, 5.0, -2.0]
    # Region means before each step: biome 0 holds F, F, P (8/3); biome 1 F, P (1.5), then
    # P alone (-2) once its F is collected; the void P (-2). Ties rank the lower region
    # first, so at the last step biome 1 ranks 2 and the void 3.
    regrets = [14 / 3, 14 / 3, 8 / 3 - 1.5, 8 / 3 + 2]
    ranks = [3, 3, 2, 2]
    means = [-2.0, -2.0, 1.5, -2.0]
    for (_, info), regret, rank, mean in zip(steps, regrets, ranks, means, strict=True):
        np.testing.assert_allclose(info["biome_regret"], regret, rtol=1e-6)
        assert int(info["biome_rank"]) == rank
        np.testing.assert_allclose(info["current_biome_mean"], mean, rtol=1e-6)
        np.testing.assert_allclose(info["max_biome_mean"], 8 / 3, rtol=1e-6)
    last = steps[-1][1]
    # EWM at rate 0.5 of rewards 0, 0, 5, -2: online 0.25; corrected 0.5 / 1.875.
    np.testing.assert_allclose(last["ewm_reward_online"], 0.25, rtol=1e-6)
    np.testing.assert_allclose(last["ewm_reward"], 0.5 / 1.875, rtol=1e-6)
    assert np.asarray(last["biome_steps"]).tolist() == [0, 2, 2]  # biome 0, 1, none
    assert np.asarray(last["collections"]).tolist() == [2, 1, 1]  # nothing, F, P


def ewm_adjusted(values, rate):
    """pandas' ``ewm(alpha=rate, adjust=True).mean()``, written out."""
    out = []
    for t in range(len(values)):
        weights = (1 - rate) ** np.arange(t, -1, -1)
        out.append(np.sum(weights * values[: t + 1]) / np.sum(weights))
    return np.array(out)


def test_batch_under_scan_equals_single_steps_and_closed_forms():
    env = gridax.make("ForagaxTwoBiome-v1")
    tracker = forage.ContinualMetrics(env, rate=0.05)
    keys = jax.random.split(jax.random.key(3), 3)
    actions = jax.random.randint(jax.random.key(4), (60, 3), 0, 4)

    @jax.jit
    def run(tracked):
        def body(tracked, action):
            tracked, _, reward, _, info = tracker.batch_step(tracked, action)
            return tracked, (reward, info)

        return jax.lax.scan(body, tracked, actions)

    tracked, _ = tracker.batch_reset(keys)
    final, (rewards, infos) = run(tracked)
    rewards = np.asarray(rewards)
    for env_index in range(3):
        single, _ = tracker.reset(keys[env_index])
        for t in range(60):
            single, _, _, _, info = tracker.step(single, actions[t, env_index])
        one = jax.tree.map(lambda x, i=env_index: x[i], final)
        assert eqx.tree_equal(one, single)
        np.testing.assert_allclose(
            infos["ewm_reward"][:, env_index], ewm_adjusted(rewards[:, env_index], 0.05), rtol=1e-4
        )
        np.testing.assert_allclose(
            infos["ewm_biome_regret"][:, env_index],
            ewm_adjusted(np.asarray(infos["biome_regret"][:, env_index]), 0.05),
            rtol=1e-4,
        )
    assert (np.asarray(infos["biome_regret"]) >= 0).all()
    assert (np.asarray(final.metrics.biome_steps).sum(-1) == 60).all()
    collected = np.asarray(infos["collected"])
    for object_id in (1, 2, 3, 4):
        counts = (collected == object_id).sum(0)
        assert np.asarray(final.metrics.collections[:, object_id]).tolist() == counts.tolist()
    # Without metrics the env steps the same way.
    plain, _ = env.batch_reset(keys)
    for t in range(60):
        plain, *_ = env.batch_step(plain, actions[t])
    assert eqx.tree_equal(plain, final.state)


def test_metrics_are_checkpointed_with_the_state(tmp_path):
    env = gridax.make("ForagaxSquareWaveTwoBiome-v11")
    tracker = forage.ContinualMetrics(env)
    keys = jax.random.split(jax.random.key(0), 4)
    tracked, _ = tracker.batch_reset(keys)
    for t in range(5):
        tracked, *_ = tracker.batch_step(tracked, jnp.full(4, t % 4))
    path = save_state(tmp_path / "tracked.ckpt", tracked, env)
    like, _ = tracker.batch_reset(jax.random.split(jax.random.key(1), 4))
    assert eqx.tree_equal(load_state(path, like, env), tracked)
    with pytest.raises(ValueError, match="holds a Tracked, but like= is a ForageState"):
        load_state(path, like.state, env)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="rate must be in"):
        forage.ContinualMetrics(gridax.make("ForagaxTwoBiome-v1"), rate=0.0)
    with pytest.raises(TypeError, match="ContinualMetrics' env must be a forage env"):
        forage.ContinualMetrics(gridax.make("ArcAgi1-v0"))  # pyright: ignore[reportArgumentType]
