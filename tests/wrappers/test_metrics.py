"""EpisodeMetrics: returns, lengths and ARC's solved/steps-to-solve/similarity per finished
episode, against a loop over the same run's rewards and dones; under scan and vmap."""

import jax
import jax.numpy as jnp
import numpy as np

import gridax
from gridax.envs import arc
from gridax.wrappers import AutoReset, EpisodeMetrics

NUM_ENVS, NUM_STEPS = 6, 40


def run(wrapper, key, actions_of):
    """``(infos, rewards, dones)`` of a ``lax.scan`` of ``NUM_STEPS`` steps."""

    def body(state, key):
        state, _, reward, done, info = wrapper.step(state, actions_of(key, state))
        return state, (info, reward, done)

    state, _ = wrapper.reset(key, NUM_ENVS)
    _, out = jax.lax.scan(body, state, jax.random.split(key, NUM_STEPS))
    return out


def arc_actions(key, state):
    # Submit often (1 in 4), so episodes end, some of them solved (copy tasks).
    shape = state.inner.env_state.working_shape
    action = arc.random_actions(key, shape, "point", arc.NUM_OPERATIONS)
    submit = jax.random.bernoulli(jax.random.fold_in(key, 1), 0.25, (NUM_ENVS,))
    return arc.PointAction(jnp.where(submit, arc.SUBMIT, action.operation), action.row, action.col)


def reference(rewards, dones):
    """Per step and env: the return and length of the last finished episode, by loop."""
    returns, lengths = np.zeros_like(rewards), np.zeros(rewards.shape, np.int32)
    total, count = np.zeros(rewards.shape[1]), np.zeros(rewards.shape[1], np.int32)
    last_total, last_count = np.zeros(rewards.shape[1]), np.zeros(rewards.shape[1], np.int32)
    for t in range(rewards.shape[0]):
        total, count = total + rewards[t], count + 1
        last_total = np.where(dones[t], total, last_total)
        last_count = np.where(dones[t], count, last_count)
        total, count = np.where(dones[t], 0, total), np.where(dones[t], 0, count)
        returns[t], lengths[t] = last_total, last_count
    return returns, lengths


def test_arc_episode_metrics_match_a_loop():
    env = gridax.make("ArcGen-Copy-v0", max_episode_steps=8)
    wrapper = EpisodeMetrics(AutoReset(env, "any_done"))
    info, rewards, dones = jax.device_get(
        jax.jit(lambda k: run(wrapper, k, arc_actions))(jax.random.key(0))
    )
    returns, lengths = reference(rewards, dones)
    np.testing.assert_allclose(info["returned_episode_returns"], returns, rtol=1e-5)
    np.testing.assert_array_equal(info["returned_episode_lengths"], lengths)
    np.testing.assert_array_equal(info["returned_episode"], dones)
    assert info["timestep"].tolist() == list(range(1, NUM_STEPS + 1))
    solved = info["returned_episode_solved"]
    assert dones.sum() > 10 and solved[dones].any() and not solved[dones].all()
    np.testing.assert_array_equal(solved[dones], info["success"][dones])
    steps = info["returned_episode_steps_to_solve"]
    np.testing.assert_array_equal(steps[dones], np.where(solved[dones], lengths[dones], -1))
    assert (info["returned_episode_similarity"][dones & solved] == 1.0).all()


def test_forage_metrics_under_vmap_equal_each_seed_alone():
    env = gridax.make("ForagaxTwoBiome-v1", episode_length=7)
    wrapper = EpisodeMetrics(AutoReset(env))

    def moves(key, state):
        return jax.random.randint(key, (NUM_ENVS,), 0, 4)

    keys = jax.random.split(jax.random.key(1), 3)
    batched = jax.jit(jax.vmap(lambda k: run(wrapper, k, moves)))(keys)
    for i, key in enumerate(keys):
        alone = jax.jit(lambda k: run(wrapper, k, moves))(key)
        same = jax.tree.map(lambda a, b, i=i: np.array_equal(a[i], b), batched, alone)
        assert jax.tree.all(same)
    info, rewards, dones = jax.device_get(batched)
    assert set(np.unique(info["returned_episode_lengths"][dones])) == {7}
    returns, _ = reference(rewards[0], dones[0])
    np.testing.assert_allclose(info["returned_episode_returns"][0], returns, rtol=1e-5)
    assert not any(k.startswith("returned_episode_solved") for k in info)  # forage: none
