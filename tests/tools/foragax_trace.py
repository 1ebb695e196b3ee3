"""Records a Foragax trajectory for the parity tests (``test_foragax_parity.py``).

Runs in any Python that has Foragax (PyPI ``continual-foragax``); imports nothing from
gridax, so that a release which cannot live beside gridax's dependencies can run in a
virtual environment of its own:

    python foragax_trace.py trace ENV_ID SEED STEPS APERTURE OUT.npz
    python foragax_trace.py stats ENV_ID SEED STEPS APERTURE OUT.npz NUM_ENVS

Writes, for states 0..STEPS: the object grid, the regrowth timers and the objects they
hold, every cell's fourier parameters, generation and biome, the agent's (row, column),
time and clock offset, and the observation; for steps 1..STEPS: the action, reward and
``info``; and the temperature record of weather worlds. ``stats`` runs NUM_ENVS worlds
in parallel under uniform random actions and writes each one's total reward, summed biome
regret and collections per object id. Both write the release and the weather record.
"""

from __future__ import annotations

import sys
from importlib.metadata import version

import jax
import numpy as np
from foragax.registry import make  # pyright: ignore[reportMissingImports]

INFO_KEYS = (
    "object_collected_id",
    "current_biome_mean",
    "max_biome_mean",
    "biome_regret",
    "biome_rank",
)


def make_env(env_id: str, aperture: int):
    env = make(env_id, aperture_size=(aperture, aperture), observation_type="object")
    if "is_terminated" not in vars(type(env)):
        # Foragax defines gymnax 0.x's `is_terminal`; gymnax 1.x's `discount`, which its
        # `step_env` calls, asks for `is_terminated` (a Foragax world never terminates).
        env.is_terminated = env.is_terminal
    return env


def record(env_id: str, seed: int, steps: int, aperture: int) -> dict[str, np.ndarray]:
    env = make_env(env_id, aperture)
    params = env.default_params
    key, reset_key = jax.random.split(jax.random.key(seed))
    obs, state = env.reset_env(reset_key, params)
    step = jax.jit(env.step_env)
    actions = np.random.default_rng(seed).integers(0, 4, steps)
    rows: dict[str, list] = {}

    def note(name, value):
        rows.setdefault(name, []).append(np.asarray(value))

    def note_state(state, obs):
        objects = state.object_state
        note("object_id", objects.object_id)
        note("respawn_timer", objects.respawn_timer)
        note("respawn_object_id", objects.respawn_object_id)
        note("state_params", np.asarray(objects.state_params, np.float32))
        note("generation", objects.generation)
        note("biome_id", objects.biome_id)
        note("row_col", np.asarray(state.pos)[::-1])  # Foragax holds (x, y)
        note("time", state.time)
        note("offset", state.offset)
        note("obs", obs["image"] if isinstance(obs, dict) else obs)
        if isinstance(obs, dict):
            note("hint", obs["hint"])

    note_state(state, obs)
    for action in actions:
        key, step_key = jax.random.split(key)
        obs, state, reward, _, info = step(step_key, state, int(action), params)
        note_state(state, obs)
        note("reward", reward)
        note("info_biome_id", info["biome_id"])
        for name in INFO_KEYS:
            note(name, info[name])
    trace = {name: np.stack(values) for name, values in rows.items()}
    trace["actions"] = actions
    return {**trace, **about(env)}


def about(env) -> dict[str, np.ndarray]:
    """The release, and the temperature record of the first (hot) weather object."""
    facts = {"foragax_version": np.asarray(version("continual-foragax"))}
    weather = [o for o in env.objects if hasattr(o, "rewards")]
    if weather:
        facts["temperatures"] = np.asarray(weather[0].rewards, np.float32)
    return facts


def statistics(env_id: str, seed: int, steps: int, aperture: int, num_envs: int) -> dict:
    env = make_env(env_id, aperture)
    params = env.default_params
    keys = jax.random.split(jax.random.key(seed), num_envs)
    _, states = jax.vmap(env.reset_env, in_axes=(0, None))(keys, params)
    step = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))
    num_ids = len(env.objects)

    def body(carry, key):
        states, reward, regret, collections = carry
        action_key, step_key = jax.random.split(key)
        actions = jax.random.randint(action_key, (num_envs,), 0, 4)
        _, states, r, _, info = step(jax.random.split(step_key, num_envs), states, actions, params)
        collected = jax.nn.one_hot(info["object_collected_id"], num_ids, dtype=jax.numpy.int32)
        carry = (states, reward + r, regret + info["biome_regret"], collections + collected)
        return carry, None

    zeros = jax.numpy.zeros(num_envs)
    init = (states, zeros, zeros, jax.numpy.zeros((num_envs, num_ids), jax.numpy.int32))
    carry, _ = jax.jit(lambda c: jax.lax.scan(body, c, jax.random.split(keys[0], steps)))(init)
    _, reward, regret, collections = carry
    return {
        "reward": np.asarray(reward),
        "regret": np.asarray(regret),
        "collections": np.asarray(collections),
        **about(env),
    }


if __name__ == "__main__":
    mode, env_id, seed, steps, aperture, out, *rest = sys.argv[1:]
    if mode == "trace":
        result = record(env_id, int(seed), int(steps), int(aperture))
    else:
        result = statistics(env_id, int(seed), int(steps), int(aperture), int(rest[0]))
    np.savez_compressed(out, **result)
