"""Run by test_distributed.py: one process of a sharded ARC rollout and a sharded forage
rollout, keys and actions by docs/scaling.md's scheme. Saves this process's envs.

    python tests/tools/distributed_check.py PROCESS_ID NUM_PROCESSES PORT OUT_DIR

With NUM_PROCESSES 1 it is the single-process reference (no distributed runtime).
"""

import sys
from pathlib import Path

import jax
import numpy as np

NUM_ENVS, NUM_STEPS, SEED = 8, 12, 0
process_id, num_processes, port, out_dir = (*map(int, sys.argv[1:4]), Path(sys.argv[4]))
if num_processes > 1:
    # CPU collectives between processes go through gloo, over loopback only.
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes, process_id)

import gridax  # noqa: E402  (after the distributed runtime, as its docs ask)
from gridax import sharding  # noqa: E402
from gridax.envs import arc  # noqa: E402

assert jax.process_count() == num_processes and jax.device_count() == num_processes
mesh = sharding.make_mesh()  # every device of every process
envs = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("envs"))
local = NUM_ENVS // num_processes
mine = slice(process_id * local, (process_id + 1) * local)


def global_batch(tree):
    """Every process builds the whole batch identically and contributes its own envs
    (docs/scaling.md's key scheme); a step-major tree is split on its env axis 1."""
    return jax.tree.map(lambda x: jax.make_array_from_process_local_data(envs, x[mine]), tree)


def replicated(tree):
    spec = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    return jax.tree.map(lambda x: jax.make_array_from_process_local_data(spec, np.asarray(x)), tree)


def rollout(env, make_actions):
    def run(states, inputs):  # inputs env-major: [local envs, steps, ...]
        def body(states, step_inputs):
            states, _, rewards, dones, _ = env.batch_step(states, make_actions(states, step_inputs))
            return states, (rewards, dones)

        steps_first = jax.tree.map(lambda x: x.swapaxes(0, 1), inputs)
        states, (rewards, dones) = jax.lax.scan(body, states, steps_first)
        return states, rewards.T, dones.T

    return run


def save(name, result):
    leaves = [leaf for leaf in jax.tree.leaves(result) if leaf.size]  # empty leaves: no data
    local_parts = [np.asarray(leaf.addressable_shards[0].data) for leaf in leaves]
    np.savez(out_dir / f"{name}-{process_id}.npz", *local_parts)


# ARC: point actions drawn for every env before the rollout, the same in every process.
env = gridax.make("ArcAgi1-v0", max_episode_steps=NUM_STEPS)
keys = jax.random.split(jax.random.key(SEED), NUM_ENVS)
draws = arc.draw_actions(jax.random.key(SEED + 1), (NUM_ENVS, NUM_STEPS), arc.NUM_OPERATIONS)
bank = replicated(env.default_params.arrays_only())
reset = sharding.device_local(env.batch_reset, mesh, batched=(True, False))
states, _ = reset(global_batch(keys), bank)


def arc_actions(states, step_draws):
    return arc.actions_from_draws(step_draws, states.working_shape, "point")


save("arc", sharding.device_local(rollout(env, arc_actions), mesh)(states, global_batch(draws)))

# Forage: Diwali (fourier curves drawn at reset), random moves.
env = gridax.make("ForagaxDiwali-v5")
moves = jax.random.randint(jax.random.key(SEED + 2), (NUM_ENVS, NUM_STEPS), 0, 4)
states, _ = sharding.device_local(env.batch_reset, mesh)(global_batch(keys))
forage_rollout = sharding.device_local(rollout(env, lambda states, m: m), mesh)
save("forage", forage_rollout(states, global_batch(moves)))
print(f"process {process_id} of {num_processes}: done")
