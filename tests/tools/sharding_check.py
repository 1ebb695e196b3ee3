"""Run by test_sharding.py in a process with 8 simulated CPU devices (XLA_FLAGS)."""

import equinox as eqx
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec

import gridax
from gridax import sharding
from gridax.envs import arc
from gridax.wrappers import AutoReset

NUM_ENVS, NUM_STEPS = 16, 6
assert jax.device_count() == 8, jax.devices()
mesh = sharding.make_mesh()


def arc_rollout(config):
    def rollout(states, actions):  # actions carry the batch axis first: [B, T, ...]
        def body(states, step_actions):
            states, obs, reward, done, _ = gridax.envs.arc.batch_step(states, step_actions, config)
            return states, (reward, done)

        states, (rewards, dones) = jax.lax.scan(
            body, states, jax.tree.map(lambda a: a.swapaxes(0, 1), actions)
        )
        return states, rewards.T, dones.T

    return rollout


def check_arc():
    env = gridax.make("ArcAgi1-v0", max_episode_steps=4)
    bank = env.default_params
    keys = jax.random.split(jax.random.key(0), NUM_ENVS)
    states, _ = env.batch_reset(keys, bank)
    step_keys = jax.random.split(jax.random.key(1), NUM_STEPS)
    per_step = [arc.random_actions(k, states.working_shape, "point", 35) for k in step_keys]
    actions = jax.tree.map(lambda *a: jnp.stack(a, axis=1), *per_step)
    plain = jax.jit(arc_rollout(env.config))(states, actions)
    sharded_fn = sharding.device_local(arc_rollout(env.config), mesh)
    sharded = sharded_fn(sharding.shard_batch(states, mesh), sharding.shard_batch(actions, mesh))
    assert eqx.tree_equal(jax.device_get(sharded), jax.device_get(plain)), "ARC sharded != plain"
    expected = NamedSharding(mesh, PartitionSpec("envs"))
    for leaf in jax.tree.leaves(sharded):
        assert leaf.sharding.is_equivalent_to(expected, leaf.ndim), leaf.sharding
    # Other states of the same shapes: no new compilation.
    other, _ = env.batch_reset(jax.random.split(jax.random.key(5), NUM_ENVS), bank)
    sharded_fn(sharding.shard_batch(other, mesh), sharding.shard_batch(actions, mesh))
    assert sharded_fn._cache_size() == 1, sharded_fn._cache_size()
    # Sharded batch_reset with the bank replicated.
    reset = sharding.device_local(lambda k, b: env.batch_reset(k, b), mesh, batched=(True, False))
    sharded_reset = reset(
        sharding.shard_batch(keys, mesh), sharding.replicate(bank.arrays_only(), mesh)
    )
    assert eqx.tree_equal(
        jax.device_get(sharded_reset), jax.device_get(env.batch_reset(keys, bank))
    )
    try:
        sharding.shard_batch(jnp.zeros((12, 2)), mesh)
    except ValueError as error:
        assert "12 envs does not split evenly over 8 devices" in str(error)
    else:
        raise AssertionError("an uneven batch was accepted")


def check_forage_through_autoreset():
    # Diwali: fourier curves drawn at every reset, on 2 envs per device against 16.
    env = gridax.make("ForagaxDiwali-v5", episode_length=3)
    wrapper = AutoReset(env, "any_done")
    state, _ = wrapper.reset(jax.random.key(0), NUM_ENVS)
    moves = jax.random.randint(jax.random.key(1), (NUM_ENVS, NUM_STEPS), 0, 4)

    def rollout(state, moves):
        def body(state, step_moves):
            state, obs, reward, done, _ = wrapper.step(state, step_moves)
            return state, (reward, done)

        state, (rewards, dones) = jax.lax.scan(body, state, moves.T)
        return state, rewards.T, dones.T

    plain = jax.jit(rollout)(state, moves)
    prefix = sharding.autoreset_batched(state)
    sharded_fn = sharding.device_local(
        rollout, mesh, batched=(prefix, True), out_batched=(prefix, True, True)
    )
    placed = jax.device_put(
        state,
        jax.tree.map(
            lambda flag: NamedSharding(mesh, PartitionSpec("envs") if flag else PartitionSpec()),
            prefix,
        ),
    )
    sharded = sharded_fn(placed, sharding.shard_batch(moves, mesh))
    assert eqx.tree_equal(jax.device_get(sharded), jax.device_get(plain)), "forage sharded != plain"
    assert bool(sharded[2].any()), "episodes of 3 steps ended"


def check_diwali_across_reward_refreshes():
    # 250 steps: the cached fourier values refresh every 100 (repeat) steps.
    env = gridax.make("ForagaxDiwali-v5")
    states, _ = env.batch_reset(jax.random.split(jax.random.key(0), NUM_ENVS))
    moves = jax.random.randint(jax.random.key(1), (NUM_ENVS, 250), 0, 4)

    def rollout(states, moves):
        def body(states, step_moves):
            states, _, rewards, _, _ = env.batch_step(states, step_moves)
            return states, rewards

        states, rewards = jax.lax.scan(body, states, moves.T)
        return states, rewards.T

    plain = jax.jit(rollout)(states, moves)
    run = sharding.device_local(rollout, mesh)
    sharded = run(sharding.shard_batch(states, mesh), sharding.shard_batch(moves, mesh))
    assert eqx.tree_equal(jax.device_get(sharded), jax.device_get(plain)), "Diwali differs"


check_arc()
check_forage_through_autoreset()
check_diwali_across_reward_refreshes()
print("sharding checks passed on", jax.device_count(), "devices")
