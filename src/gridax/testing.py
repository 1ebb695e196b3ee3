"""The conformance check every gridax environment passes: ``check_env``.

It is public so that an environment built on :class:`gridax.Env` outside this package
can hold itself to the same contract::

    from gridax.testing import check_env
    report = check_env("ArcAgi1-v0", num_envs=8, num_steps=32)
    print(report)

What it checks, in order (each failure raises :class:`ConformanceError` naming the
check, the env and the step):

1. **spaces**: every observation from ``reset``, ``step``, ``batch_reset`` and
   ``batch_step`` has the shape and dtype of ``env.observation_space`` (with a leading
   batch axis when batched) and lies inside it; every sampled action lies inside
   ``env.action_space``.
2. **finite rewards**: rewards are floating-point, finite, of shape ``()`` or
   ``(num_envs,)``; ``done`` is boolean of the same shape, and equals
   ``env.terminated(state) | env.truncated(state)`` of the state the step returned.
3. **state invariants**: ``env.invariant_violations`` of every state is all zero (for
   ARC: colours in 0-9, dead cells zero, history in step with the step count; for
   forage: the agent inside the world and off walls, finite food values).
4. **stable state types**: the shape, dtype and weak type of every state leaf after
   any step equal those after ``reset`` (a drifting dtype or weak type is what makes
   a jitted training loop recompile).
5. **no retracing**: ``step``, ``batch_step``, ``reset`` and ``batch_reset`` each
   compile once, however many states, keys and episodes go through them.
6. **batch equals loop**: ``batch_reset`` equals ``reset`` of each key and
   ``batch_step`` equals ``step`` of each env, leaf for leaf (exactly, unless
   ``rtol`` is given), states, observations, rewards, dones and infos.
7. **determinism**: the same seed gives the same trajectory, bit for bit.
8. **levels** (an env with ``has_levels``): ``reset_to_level(key, sample_level(key))``
   equals ``reset(key)``, vmapped under ``jit`` over a batch of keys; ``mutate_level``
   keeps a level's structure, shapes and dtypes, and an episode on a mutated level
   keeps the state invariants.

Actions are drawn from ``env.action_space``; episodes that end in the single-env run are
reset with a fresh key, while a batch keeps stepping its finished envs (``batch_step``
has no auto-reset; see :class:`gridax.wrappers.AutoReset`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NoReturn

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from gridax import spaces
from gridax.interface import Env
from gridax.registry import make
from gridax.validation import require_int, require_type

CHECKS = (
    "observations inside observation_space",
    "actions inside action_space",
    "finite float rewards, boolean dones",
    "done equals terminated | truncated",
    "state invariants hold (env.invariant_violations)",
    "state leaf shapes, dtypes and weak types fixed across steps",
    "each of reset, step, batch_reset, batch_step compiled once",
    "batch_reset equals a loop of reset",
    "batch_step equals a loop of step",
    "same seed, same trajectory",
)
LEVEL_CHECKS = (  # for an env with has_levels
    "reset_to_level of sample_level equals reset",
    "mutate_level keeps the level structure",
)


class ConformanceError(AssertionError):
    """An environment broke the contract that :func:`check_env` checks."""


@dataclasses.dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_env` ran; every check in :data:`CHECKS` passed (and in
    :data:`LEVEL_CHECKS`, for an env with levels)."""

    env: str
    num_envs: int
    num_steps: int
    episodes_ended: int  # single-env episodes ended plus batched envs that reached done
    reward_min: float
    reward_max: float
    levels_checked: bool = False

    def __str__(self) -> str:
        lines = [
            f"{self.env}: conformant ({self.num_steps} steps single and batched x "
            f"{self.num_envs}, {self.episodes_ended} episodes ended, rewards in "
            f"[{self.reward_min:.4g}, {self.reward_max:.4g}])"
        ]
        checks = CHECKS + LEVEL_CHECKS * self.levels_checked
        return "\n".join(lines + [f"  ok  {check}" for check in checks])


def _leaf_types(tree) -> list[tuple]:
    return [
        (jax.tree_util.keystr(path), leaf.shape, leaf.dtype, bool(getattr(leaf, "weak_type", 0)))
        for path, leaf in jax.tree_util.tree_leaves_with_path(tree)
    ]


class _Checker:
    """Holds the env and its compiled functions; each method checks one thing."""

    def __init__(self, env: Env, params, rtol: float):
        self.env, self.params, self.rtol = env, params, rtol
        self.traces: dict[str, int] = {}
        self.reset = self._counted("reset", env.reset)
        self.step = self._counted("step", env.step)
        self.batch_reset = self._counted("batch_reset", env.batch_reset)
        self.batch_step = self._counted("batch_step", env.batch_step)
        # Everything else that touches arrays is jitted too, or runs in NumPy: eager JAX
        # would compile one small program per operation and leaf shape.
        self.observation_space, self.action_space = env.observation_space, env.action_space
        self.sample_action = jax.jit(self.action_space.sample)
        self.sample_actions = jax.jit(jax.vmap(self.action_space.sample))
        self.action_inside = jax.jit(self.action_space.contains)
        self.observation_inside = jax.jit(self.observation_space.contains)
        self.violations = jax.jit(env.invariant_violations)
        self.state_types: list[tuple] | None = None
        self.rewards: list[float] = []
        self.episodes_ended = 0

    def fail(self, check: str, where: str, detail: str) -> NoReturn:
        raise ConformanceError(f"{self.env!r} fails {check!r} at {where}: {detail}")

    def _counted(self, name: str, function) -> Callable[..., Any]:
        self.traces[name] = 0

        def traced(*args):
            self.traces[name] += 1
            return function(*args)

        return eqx.filter_jit(traced)

    # --- per-output checks ---------------------------------------------------------

    def check_observation(self, obs, batch: tuple, where: str):
        """Shapes and dtypes field by field in Python; values with the space's jitted
        ``contains``, then field by field only to name the culprit."""
        check = "observations inside observation_space"
        fields = list(_leaf_spaces(self.observation_space, obs))
        for name, space, value in fields:
            if value is None:
                self.fail(check, where, f"the observation has no field {name!r}")
            shape, dtype = batch + tuple(space.shape), jnp.dtype(space.dtype)
            if np.shape(value) != shape or jnp.result_type(value) != dtype:
                self.fail(
                    check,
                    where,
                    f"observation{name} should have shape {shape} and dtype {dtype.name}, "
                    f"got {np.shape(value)} and {jnp.result_type(value).name}",
                )
        if not bool(self.observation_inside(obs)):
            outside = [f"observation{n} outside {s!r}" for n, s, v in fields if not s.contains(v)]
            self.fail(check, where, ", ".join(outside))

    def check_reset(self, state, obs, batch: tuple, where: str):
        self.check_observation(obs, batch, where)
        self.check_state_types(state, batch, where)
        broken = {k: int(v) for k, v in self.violations(state).items() if int(v)}
        if broken:
            self.fail("state invariants hold (env.invariant_violations)", where, str(broken))

    def check_transition(self, state, obs, reward, done, info, batch: tuple, where: str):
        self.check_reset(state, obs, batch, where)
        check = "finite float rewards, boolean dones"
        reward, done = np.asarray(reward), np.asarray(done)
        if reward.shape != batch or not np.issubdtype(reward.dtype, np.floating):
            self.fail(check, where, f"reward has shape {reward.shape} and dtype {reward.dtype}")
        if not np.isfinite(reward).all():
            self.fail(check, where, f"reward is not finite: {reward}")
        if done.shape != batch or done.dtype != np.bool_:
            self.fail(check, where, f"done has shape {done.shape} and dtype {done.dtype}")
        if not isinstance(info, dict):
            self.fail(check, where, f"info must be a dict, got {type(info).__name__}")
        ended = np.asarray(self.env.terminated(state)) | np.asarray(self.env.truncated(state))
        if not np.array_equal(ended, done):
            self.fail(
                "done equals terminated | truncated",
                where,
                f"done is {done.tolist()}, terminated | truncated is {ended.tolist()}",
            )
        self.rewards.extend(np.asarray(reward, dtype=np.float64).ravel().tolist())

    def check_state_types(self, state, batch: tuple, where: str):
        types = [
            (path, shape[len(batch) :], dtype, weak)
            for path, shape, dtype, weak in _leaf_types(state)
        ]
        if self.state_types is None:
            self.state_types = types
            return
        check = "state leaf shapes, dtypes and weak types fixed across steps"
        if len(types) != len(self.state_types):
            detail = f"the state had {len(self.state_types)} leaves after reset, now {len(types)}"
            self.fail(check, where, detail)
        for before, after in zip(self.state_types, types, strict=True):
            if before != after:
                self.fail(
                    check,
                    where,
                    f"state{after[0]} was (shape {before[1]}, {before[2]}, weak={before[3]}) "
                    f"after reset, now (shape {after[1]}, {after[2]}, weak={after[3]})",
                )

    def check_equal(self, check: str, where: str, expected, actual) -> None:
        expected_leaves = jax.tree_util.tree_leaves_with_path(expected)
        actual_leaves = jax.tree.leaves(actual)
        if len(expected_leaves) != len(actual_leaves):
            self.fail(check, where, "the outputs have different structures")
        for (path, want), got in zip(expected_leaves, actual_leaves, strict=True):
            want, got = np.asarray(want), np.asarray(got)
            same = want.shape == got.shape and (
                np.allclose(want, got, rtol=self.rtol, atol=0, equal_nan=True)
                if self.rtol and np.issubdtype(want.dtype, np.floating)
                else np.array_equal(want, got, equal_nan=want.dtype.kind in "fc")
            )
            if not same:
                self.fail(check, where, f"{jax.tree_util.keystr(path)} differs")

    # --- the runs --------------------------------------------------------------------

    def single_episodes(self, key, num_steps: int) -> None:
        reset_key, key = jax.random.split(key)
        state, obs = self.reset(reset_key, self.params)
        self.check_reset(state, obs, (), "reset")
        for t in range(num_steps):
            key, action_key, next_reset_key = jax.random.split(key, 3)
            action = self.sample_action(action_key)
            if not bool(self.action_inside(action)):
                self.fail("actions inside action_space", f"step {t}", "a sampled action")
            state, obs, reward, done, info = self.step(state, action)
            self.check_transition(state, obs, reward, done, info, (), f"step {t}")
            if bool(done):
                self.episodes_ended += 1
                state, obs = self.reset(next_reset_key, self.params)

    def batched_run(self, key, num_envs: int, num_steps: int, compare: bool) -> list:
        """Steps a batch; with ``compare`` checks it against per-env calls. Returns the
        trajectory (every output of every step) for the determinism check."""
        reset_key, key = jax.random.split(key)
        keys = jax.random.split(reset_key, num_envs)
        batch = (num_envs,)
        states, obs = self.batch_reset(keys, self.params)
        self.check_reset(states, obs, batch, "batch_reset")
        if compare:
            singles = [jax.device_get(self.reset(k, self.params)) for k in keys]
            self.check_equal(
                "batch_reset equals a loop of reset", "batch_reset", _stack(singles), (states, obs)
            )
        trajectory: list[Any] = [(states, obs)]
        for t in range(num_steps):
            key, action_key = jax.random.split(key)
            actions = self.sample_actions(jax.random.split(action_key, num_envs))
            outputs = self.batch_step(states, actions)
            where = f"batch_step {t}"
            next_states, obs, reward, done, info = outputs
            self.check_transition(next_states, obs, reward, done, info, batch, where)
            if compare:  # per-env slices taken in NumPy, outputs compared in NumPy
                host_states, host_actions = jax.device_get((states, actions))
                singles = [
                    jax.device_get(self.step(_index(host_states, i), _index(host_actions, i)))
                    for i in range(num_envs)
                ]
                self.check_equal(
                    "batch_step equals a loop of step", where, _stack(singles), outputs
                )
            states = next_states
            trajectory.append(outputs)
        if compare:
            self.episodes_ended += int(np.sum(trajectory[-1][3]))
        return trajectory

    def levels(self, key, num_envs: int) -> None:
        env, params = self.env, self.params
        keys = jax.random.split(key, num_envs)
        levels = jax.jit(jax.vmap(lambda k: env.sample_level(k, params)))(keys)
        reset_to_level = jax.jit(jax.vmap(lambda k, v: env.reset_to_level(k, v, params)))
        self.check_equal(
            "reset_to_level of sample_level equals reset",
            "a batch of keys",
            self.batch_reset(keys, params),
            reset_to_level(keys, levels),
        )
        mutate = jax.jit(jax.vmap(lambda k, v: env.mutate_level(k, v, params)))
        mutated = mutate(jax.random.split(jax.random.fold_in(key, 1), num_envs), levels)
        before, after = _leaf_types(levels), _leaf_types(mutated)
        if after != before:
            self.fail("mutate_level keeps the level structure", "a batch", f"{before} -> {after}")
        states, obs = reset_to_level(keys, mutated)
        self.check_reset(states, obs, (num_envs,), "reset_to_level of mutated levels")

    def check_compiled_once(self) -> None:
        for name, count in self.traces.items():
            if count > 1:
                self.fail(
                    "each of reset, step, batch_reset, batch_step compiled once",
                    name,
                    f"traced {count} times; some argument changed type between calls "
                    "(a weak type, a dtype or a Python scalar where an array belongs)",
                )


def _leaf_spaces(space: spaces.Space, value, name: str = ""):
    """``(name, leaf space, value)`` for every leaf of a (nested) ``Dict`` space; the value
    is ``None`` where the observation lacks the field."""
    if not isinstance(space, spaces.Dict):
        yield name, space, value
        return
    for key, subspace in space.spaces.items():
        field = value.get(key) if isinstance(value, dict) else getattr(value, key, None)
        yield from _leaf_spaces(subspace, field, f"{name}.{key}")


def _index(tree, i: int):
    return jax.tree.map(lambda x: x[i], tree)


def _stack(trees: list):
    return jax.tree.map(lambda *xs: np.stack(xs), *trees)


def check_env(
    env: str | Env,
    num_envs: int = 8,
    num_steps: int = 32,
    seed: int = 0,
    params=None,
    rtol: float = 0.0,
) -> ConformanceReport:
    """Runs the conformance checks of this module on ``env`` (an id or an :class:`Env`).

    Args:
        env: a registered id (``gridax.make(env)`` is checked) or an ``Env`` instance.
        num_envs: batch size of the batched run (at least 2).
        num_steps: steps of the single-env run and of the batched run.
        seed: the runs' PRNG seed.
        params: the env params to reset with; ``env.default_params`` if ``None``.
        rtol: tolerance for floating-point leaves in the batch-equals-loop check; 0
            demands bit-identical results, which every gridax env gives.

    Returns:
        A :class:`ConformanceReport` (``print`` it for a summary).

    Raises:
        ConformanceError: the first check that failed, with where and why.
    """
    if isinstance(env, str):
        env = make(env)
    require_type("check_env's env", env, Env, "an env id or a gridax.Env")
    require_int("check_env: num_envs", num_envs, 2)
    require_int("check_env: num_steps", num_steps, 1)
    checker = _Checker(env, env.default_params if params is None else params, rtol)
    single_key, batch_key = jax.random.split(jax.random.key(seed))
    checker.single_episodes(single_key, num_steps)
    first = checker.batched_run(batch_key, num_envs, num_steps, compare=True)
    again = checker.batched_run(batch_key, num_envs, num_steps, compare=False)
    checker.check_equal(
        "same seed, same trajectory", "the batched run", *jax.device_get((first, again))
    )
    checker.check_compiled_once()
    if env.has_levels:
        checker.levels(jax.random.fold_in(batch_key, 2), num_envs)
    return ConformanceReport(
        env=repr(env),
        num_envs=num_envs,
        num_steps=num_steps,
        episodes_ended=checker.episodes_ended,
        reward_min=min(checker.rewards),
        reward_max=max(checker.rewards),
        levels_checked=env.has_levels,
    )


__all__ = ["CHECKS", "LEVEL_CHECKS", "ConformanceError", "ConformanceReport", "check_env"]
