"""The contract of a gridax environment: :class:`Env`.

``gridax.make(env_id)`` returns a final subclass of :class:`Env` (``ArcEnv``,
``ForageEnv``); everything outside the env packages (wrappers, checkpoints,
:func:`gridax.testing.check_env`, benchmarks) sees an env only through these methods, so
a new env, inside gridax or outside it, works with all of them by implementing them.

The env object holds only static data (its config and where its params come from),
never arrays, so ``jax.jit(env.step)`` and ``jax.vmap(env.step)`` work on its methods.
The variant data (an ARC task bank, forage variant arrays) is ``env.default_params``;
``reset`` uses it unless given other params of the same shape. Pass it explicitly inside
a jitted function (``env.reset(key, params)``), as gymnax code does: a closed-over bank
would be baked into the compiled code as a constant.

States are PyTrees of arrays whose PRNG key is the field ``key`` (raw ``uint32`` key
data), so that :class:`gridax.wrappers.AutoReset` can give a pooled state a fresh key.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Bool, Int32

from gridax import spaces


class Env(eqx.Module):
    """A gridax environment (module docstring). Subclasses are final and implement every
    abstract method; ``env_id`` and ``config`` are their fields, ``kind`` a class
    variable naming the env family in checkpoints."""

    env_id: eqx.AbstractVar[str]
    config: eqx.AbstractVar[Any]  # static settings; None if the env has none
    kind: eqx.AbstractClassVar[str]

    # --- the functional API ------------------------------------------------------------

    @property
    @abc.abstractmethod
    def default_params(self) -> Any:
        """The params ``reset`` uses when given none."""

    @abc.abstractmethod
    def reset(self, key, params=None) -> tuple[Any, Any]:
        """``reset(key, params=None) -> (state, obs)``."""

    @abc.abstractmethod
    def step(self, state, action) -> tuple[Any, Any, Array, Bool[Array, "..."], dict]:
        """``step(state, action) -> (state, obs, reward, done, info)``; a finished episode
        is absorbing (``step`` never resets; see :class:`gridax.wrappers.AutoReset`)."""

    @abc.abstractmethod
    def batch_reset(self, keys, params=None) -> tuple[Any, Any]:
        """``reset`` over a batch of keys (a leading axis on every output)."""

    @abc.abstractmethod
    def batch_step(self, states, actions) -> tuple[Any, Any, Array, Bool[Array, "..."], dict]:
        """``step`` over a batch: states and actions carry a leading batch axis."""

    @abc.abstractmethod
    def observe(self, state) -> Any:
        """The observation of a state (or a batch), as ``reset`` and ``step`` return it."""

    @abc.abstractmethod
    def terminated(self, state) -> Bool[Array, "..."]:
        """Whether the episode ended inside the MDP (ARC: submitted)."""

    @abc.abstractmethod
    def truncated(self, state) -> Bool[Array, "..."]:
        """Whether the episode was cut by a time limit without terminating."""

    @property
    @abc.abstractmethod
    def observation_space(self) -> spaces.Space: ...

    @property
    @abc.abstractmethod
    def action_space(self) -> spaces.Space: ...

    @abc.abstractmethod
    def episode_metrics(self, info: dict, length: Int32[Array, "..."]) -> dict[str, Array]:
        """The env's own metrics of episodes that end with this step, from the step's
        ``info`` and the episode's ``length`` (ARC: ``solved``, ``steps_to_solve``,
        ``similarity``); ``{}`` for none. :class:`gridax.wrappers.EpisodeMetrics` reports
        them as ``returned_episode_<name>``."""

    # --- levels, for curricula (optional: an env with levels sets has_levels) -----------

    has_levels: ClassVar[bool] = False

    def sample_level(self, key, params=None) -> Any:
        """The level ``reset(key, params)`` plays (ARC: the task; ARC-AGI-3: the start
        level), so that ``reset_to_level(key, sample_level(key, params), params)`` equals
        ``reset(key, params)``. Jittable and vmappable over keys: the level generator of
        unsupervised environment design (jaxued's ``rng -> level``)."""
        raise TypeError(f"{self.env_id} has no levels (has_levels is False)")

    def reset_to_level(self, key, level, params=None) -> tuple[Any, Any]:
        """``(state, obs)`` of an episode on ``level`` (a value of :meth:`sample_level`'s
        structure, from it, a mutator or a curriculum's buffer), drawing what else the
        episode needs from ``key`` as ``reset`` does. Jittable and vmappable."""
        raise TypeError(f"{self.env_id} has no levels (has_levels is False)")

    def mutate_level(self, key, level, params=None) -> Any:
        """A small random edit of ``level`` with the same structure (ACCEL's mutator;
        apply it ``n`` times for ``n`` edits). Jittable and vmappable."""
        raise TypeError(f"{self.env_id} has no levels (has_levels is False)")

    # --- for policies (optional: the defaults allow every action, have no image) ---------

    def action_mask(self, state) -> dict[str, Bool[Array, "... n"]]:
        """Which values the ``Discrete`` fields of the action may take in ``state`` (one
        state or a batch): per field name, a bool array over the field's values with the
        state's batch shape in front; a field left out takes every value. What masked
        policies read (``action_masks()`` of the Gymnasium adapters, for SB3-contrib's
        ``MaskablePPO``). The default: every action."""
        return {}

    def observation_image(self, obs) -> Any:
        """The observation (or a batch) as a channel-last RGB ``uint8`` image, for CNN
        policies (``observations="image"`` of the Gymnasium adapters); only envs whose
        observation is one picture have it (ARC-AGI-3's 64x64 frame)."""
        raise TypeError(
            f"{self.env_id}'s observation is not one picture; only ARC-AGI-3's 64x64 frame "
            "has an image form (observation_image)"
        )

    # --- checks and pictures -----------------------------------------------------------

    @abc.abstractmethod
    def invariant_violations(self, states) -> dict[str, Int32[Array, ""]]:
        """For each invariant of the env's state, how many envs of ``states`` (one state
        or a batch) break it; all zero for a healthy state. Jittable; ``{}`` for an env
        without invariants. :func:`gridax.testing.check_env` and ``benchmarks/soak.py``
        check these."""

    @abc.abstractmethod
    def render(self, state, **options) -> Any:
        """A picture of ``state`` (env ``env=0`` of a batch) as an RGB ``uint8`` array;
        ``path=`` also writes it (``.png``/``.svg``). Options: docs/rendering.md."""

    # --- checkpoints (gridax.serialization) --------------------------------------------

    @abc.abstractmethod
    def checkpoint_filter(self, state) -> Any:
        """Per leaf of ``state``, True if a checkpoint stores it; False for task data
        that :meth:`restore_task_data` copies back from the params on load."""

    @abc.abstractmethod
    def restore_task_data(self, state, params) -> Any:
        """``state`` with the leaves :meth:`checkpoint_filter` left out filled in from
        ``params`` (``default_params`` when None)."""

    @abc.abstractmethod
    def params_identity(self, params) -> dict[str, Any]:
        """What a checkpoint records of ``params`` (``default_params`` when None), so
        that loading with other params fails by name; ``{}`` when the state holds
        everything."""

    def __repr__(self) -> str:
        return f"gridax.make({self.env_id!r})"


def zero_info(env: Env) -> dict:
    """Zeros shaped as the ``info`` of one env's step: what adapters whose reset returns a
    step record (Jumanji's and Stoa's ``TimeStep``) put there, so that reset and step
    return one PyTree structure, as ``lax.scan`` carries need. Traced once, not run."""
    key = jax.random.key(0)
    action = env.action_space.sample(key)

    def first_info(key):
        state, _ = env.reset(key)
        return env.step(state, action)[4]

    shapes = jax.eval_shape(first_info, key)
    return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)
