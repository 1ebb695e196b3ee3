"""The foraging env: functional ``reset``/``step`` and their batched forms.

``_step`` reads as the list of the world's mechanics (move, collect, regrow, regenerate,
tick, refresh rewards, end, observe); each rule lives in its own module. Rare events
(random respawn, a biome regenerating, a reward refresh) go through
:func:`gridax.batching.cond_rare`, so a batch pays for them only on steps where some env
needs them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, UInt32

from gridax.dispatch import per_config
from gridax.envs.forage import biomes, centring, checks, movement, regrowth, schedules
from gridax.envs.forage.config import ForageConfig
from gridax.envs.forage.observation import observe as observe_one
from gridax.envs.forage.params import ForageParams
from gridax.envs.forage.reward import refresh_after_step, refresh_rewards, step_reward
from gridax.envs.forage.structure import Structure
from gridax.envs.forage.types import Biomes, Cells, Food, ForageState
from gridax.prng import check_batch_keys, key_data, require_array, split_uniform


def _reset(key: UInt32[Array, "2"], params: ForageParams, structure: Structure):
    spawn_key, draw_key, offset_key, next_key = jax.random.split(key, 4)
    shape = (structure.height, structure.width)
    objects, origin = biomes.place_objects(spawn_key, params, structure)
    # The agent starts in the centre; a wall drawn there is removed (Foragax keeps it and
    # starts the agent inside the wall).
    start = (structure.height // 2, structure.width // 2)
    under_agent = objects[start].astype(jnp.int32)
    objects = objects.at[start].set(jnp.where(params.blocking[under_agent], 0, objects[start]))

    num_ids, kept, num_biomes = (
        structure.num_objects + 2,
        structure.generations_kept,
        structure.num_biomes,
    )
    draws = jax.random.uniform(
        draw_key, (num_biomes, num_ids, schedules.generation_draws(structure))
    )
    curves, palette = jax.vmap(lambda u: schedules.draw_generation(u, params, structure))(draws)
    shift = jax.random.uniform(offset_key) * (params.random_shift + 1).astype(jnp.float32)
    zeros = jnp.zeros(shape, jnp.int32)
    state = ForageState(
        cells=Cells(object=objects, ready_at=zeros, origin=origin, generation=zeros),
        position=jnp.array(start, jnp.int32),
        time=0,
        offset=jnp.floor(shift).astype(jnp.int32),
        biomes=Biomes(
            generation=jnp.zeros(num_biomes, jnp.int32),
            consumed=jnp.zeros(num_biomes, jnp.int32),
            spawned=biomes.count_spawned(objects, params, structure),
            curves=jnp.repeat(curves[:, None], kept, axis=1),
            palette=jnp.repeat(palette[:, None], kept, axis=1),
            curve_values=jnp.zeros((num_biomes, kept, num_ids), jnp.float32),
        ),
        food=Food(
            value=jnp.zeros(shape, jnp.float32),
            total=0.0,
            count=0,
            calendar_total=jnp.zeros(structure.horizon, jnp.float32),
            calendar_count=jnp.zeros(structure.horizon, jnp.int32),
        ),
        key=next_key,
        params=params,
    )
    state = refresh_rewards(state, jnp.bool_(True), structure)
    return state, observe_one(state, structure)


def _collect(state: ForageState, clock, structure: Structure):
    """``(object, collects, reward)`` of what lies under the agent."""
    obj = state.object_at(state.position)
    collects = (obj > 0) & state.params.collectable[obj]
    return obj, collects, step_reward(state, obj, collects, clock, structure)


def _tick(state: ForageState, key, structure: Structure) -> ForageState:
    """The next state time, with the next key and the food that regrows then."""
    state = eqx.tree_at(lambda s: (s.time, s.key), state, (state.time + 1, key))
    return centring.advance_calendar(state, structure.horizon)


def termination(state: ForageState, episode_length: int | None):
    """``(terminated, truncated)`` of a state or a batch: a world never ends from inside,
    and with an ``episode_length`` it is cut once that many steps are taken. ``step``
    and :class:`~gridax.envs.forage.ForageEnv`'s hooks both ask this."""
    never = jnp.zeros(state.time.shape, bool)
    if episode_length is None:
        return never, never
    return never, state.time >= episode_length


def _step(state: ForageState, action, structure: Structure):
    params, time, clock = state.params, state.time, state.clock
    with jax.named_scope("random"):
        # Every random number of a step from one fused threefry kernel: a row of draws per
        # removal (a collection, and an expiry if any).
        rows, per_removal = (2 if structure.expiry else 1), regrowth.RANDOM_PER_REMOVAL
        (key, biome_key), draws = split_uniform(state.key, 2, rows * per_removal)
        draws = draws.reshape(rows, per_removal)
    with jax.named_scope("move"):
        state = movement.move(state, jnp.asarray(action, jnp.int32), structure)
    with jax.named_scope("collect"):
        obj, collects, reward = _collect(state, clock, structure)
        state = biomes.count_consumption(state, collects, structure)
    with jax.named_scope("regrow"):
        collected = regrowth.Pick(collects, state.position, obj, params.regen[obj])
        state, removals = regrowth.regrow(state, collected, draws, time, structure)
        state = centring.account(state, removals, structure.horizon)
    with jax.named_scope("biomes"):
        state, regenerated = biomes.regenerate_due(state, time, biome_key, structure)
    state = _tick(state, key, structure)
    state = refresh_after_step(state, clock, regenerated, structure)
    terminated, truncated = termination(state, structure.episode_length)
    biome = params.biome_map[state.position[0], state.position[1]].astype(jnp.int32)
    info = {"collected": jnp.where(collects, obj, -1), "biome": biome}
    with jax.named_scope("observe"):
        obs = observe_one(state, structure)
    return state, obs, reward, terminated | truncated, info


class _Compiled(NamedTuple):
    """A config's params and the public functions' jitted bodies, built once per config
    (see :mod:`gridax.dispatch`; ``config.params()`` alone takes about a millisecond)."""

    params: ForageParams
    structure: Structure
    state_layout: Callable[[], tuple]  # the checks' leaf shapes, traced on first use
    reset: Callable
    batch_reset: Callable  # params shared by the batch
    batch_reset_each: Callable  # params per env
    step: Callable
    batch_step: Callable
    observe: Callable


def _compile(config: ForageConfig) -> _Compiled:
    structure = config.structure()

    def reset(key, params):  # the key is checked and converted here, at trace time
        return _reset(key_data(key), params, structure)

    def batch_reset(params_axis):  # None: params shared by the batch; 0: one per env
        def run(keys, params):
            check_batch_keys(keys)
            return jax.vmap(reset, in_axes=(0, params_axis))(keys, params)

        return jax.jit(run)

    def step(state, action):
        return _step(state, action, structure)

    # The bundle outlives the call that builds it, which may be inside a caller's jit:
    # its arrays must be concrete, not that trace's tracers.
    with jax.ensure_compile_time_eval():
        params = config.params()
    return _Compiled(
        params=params,
        structure=structure,
        state_layout=functools.cache(lambda: checks.state_layout(reset, params)),
        reset=jax.jit(reset),
        batch_reset=batch_reset(None),
        batch_reset_each=batch_reset(0),
        step=jax.jit(step),
        batch_step=jax.jit(jax.vmap(step)),
        observe=jax.jit(lambda state: observe_one(state, structure)),
    )


_compiled = per_config(_compile)


# --- the public functions, with their argument checks (checks.py) ---------------------


def reset(key, config: ForageConfig, params: ForageParams | None = None):
    """Starts a world: ``reset(key, config, params=None) -> (state, obs)``.

    ``params`` defaults to ``config.params()``; pass another variant's params of the
    same structure to reuse the compilation.
    """
    require_array("key", key)
    compiled = _compiled(checks.checked_config(config))
    return compiled.reset(key, checks.params_or(params, compiled.params))


def batch_reset(keys, config: ForageConfig, params: ForageParams | None = None):
    """``reset`` for a batch of keys; ``params`` may be shared or batched (one per env)."""
    require_array("keys", keys)
    compiled = _compiled(checks.checked_config(config))
    variant = checks.params_or(params, compiled.params)
    if jax.tree.leaves(variant)[0].ndim == jax.tree.leaves(compiled.params)[0].ndim:
        return compiled.batch_reset(keys, variant)
    return compiled.batch_reset_each(keys, variant)


def step(state: ForageState, action, config: ForageConfig):
    """``step(state, action, config) -> (state, obs, reward, done, info)``.

    ``action`` is 0-3 (DOWN, RIGHT, UP, LEFT); an id outside 0-3 is clipped. ``done``
    is false in a continuing world. ``info``: ``collected`` (object id, -1 for none) and
    ``biome`` (the agent's biome, -1 for none).
    """
    compiled = _compiled(checks.checked_config(config))
    action = checks.step_action(state, action, compiled.state_layout(), batched=False)
    return compiled.step(state, action)


def batch_step(states: ForageState, actions, config: ForageConfig):
    """``step`` over a batch: states and actions carry a leading batch axis."""
    compiled = _compiled(checks.checked_config(config))
    actions = checks.step_action(states, actions, compiled.state_layout(), batched=True)
    return compiled.batch_step(states, actions)


def observe(state: ForageState, config: ForageConfig):
    """The observation of a state (or a batch), as ``reset`` and ``step`` return it
    (docs/forage.md)."""
    observe_jit = _compiled(checks.checked_config(config)).observe
    if state.time.ndim:
        return jax.vmap(observe_jit)(state)
    return observe_jit(state)


__all__ = ["batch_reset", "batch_step", "observe", "reset", "step"]
