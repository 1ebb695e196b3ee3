"""gridax.testing.check_env: every registered env passes, and each broken contract is caught."""

import json
from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax import spaces
from gridax.testing import ConformanceError, check_env
from tests.tools.arc3_sample import sampled


def _checked(env_id: str) -> bool:
    """Generated-task ids share one env (the mixture draws from every family, below);
    ARC-AGI-3 games are sampled outside make arc3-parity (tests/tools/arc3_sample.py)."""
    if env_id == "ArcFolder-v0" or env_id.startswith("ArcGen-"):
        return False
    return not env_id.startswith("Arc3-") or sampled(env_id.split("-")[1])


CHECKED_IDS = [i for i in gridax.registered_ids() if _checked(i)]
CHECKED_IDS += ["ArcGen-Recolour-v0", "ArcGen-Mixture-v0"]


@pytest.fixture
def _free_each_envs_code():
    """Each env's compiled code dropped after its check: this module compiles every
    registered env, more executables than one module may keep mapped (conftest's
    ``_free_compiled_code``; XLA aborted serialising one, at wa30, the 31st)."""
    yield
    jax.clear_caches()


@pytest.mark.usefixtures("_free_each_envs_code")
@pytest.mark.parametrize("env_id", CHECKED_IDS)
def test_every_registered_env_conforms(env_id):
    report = check_env(env_id, num_envs=3, num_steps=6)
    assert np.isfinite([report.reward_min, report.reward_max]).all()


@pytest.mark.parametrize("selection_format", ["bbox", "mask"])
def test_a_task_folder_conforms_in_every_action_format(selection_format, tmp_path):
    for name, colour in (("one", 1), ("two", 2)):
        pair = {"input": [[colour, 0], [0, colour]], "output": [[colour]]}
        (tmp_path / f"{name}.json").write_text(json.dumps({"train": [pair], "test": [pair]}))
    env = gridax.make(
        "ArcFolder-v0", path=tmp_path, selection_format=selection_format, max_episode_steps=4
    )
    report = check_env(env, num_envs=2, num_steps=6)
    assert report.episodes_ended >= 1  # the single run crossed an episode boundary


_CALLS = [0]


def _count_call():
    _CALLS[0] += 1
    return np.uint32(_CALLS[0] - 1)


class CounterState(eqx.Module):
    count: jax.Array
    key: jax.Array


class CounterEnv(gridax.Env):
    """A third-party env built on gridax.Env: a counter that ends at 3. ``bug`` breaks
    one part of the contract."""

    env_id: str = eqx.field(static=True)
    bug: str = eqx.field(static=True, default="")
    config: None = None
    kind: ClassVar[str] = "counter"

    @property
    def default_params(self):
        return None

    def reset(self, key, params=None):
        state = CounterState(jnp.int32(0), jax.random.key_data(key))
        return state, self.observe(state)

    def step(self, state, action):
        count = jnp.minimum(state.count + action.astype(jnp.int32), 3)  # 3 is absorbing
        if self.bug == "weak type":
            count = jnp.where(count > 0, 1, 0)  # Python ints make a weakly typed result
        if self.bug == "dtype drift":
            count = count.astype(jnp.int16)
        reward = 1 / (count - 1).astype(jnp.float32) if self.bug == "nan reward" else jnp.float32(1)
        state = CounterState(count, state.key)
        done = count >= (2 if self.bug == "early done" else 3)
        return state, self.observe(state), reward, done, {}

    def batch_reset(self, keys, params=None):
        states, obs = jax.vmap(self.reset)(keys)
        if self.bug == "hidden global state":  # the second run differs from the first
            calls = jax.pure_callback(_count_call, jax.ShapeDtypeStruct((), jnp.uint32))
            states = eqx.tree_at(lambda s: s.key, states, states.key + calls)
        return states, obs

    def batch_step(self, states, actions):
        if self.bug == "batch differs":
            actions = jnp.zeros_like(actions)
        return jax.vmap(self.step)(states, actions)

    def observe(self, state):
        return state.count.astype(jnp.int32) * (2 if self.bug == "obs outside" else 1)

    def terminated(self, state):
        return state.count >= 3

    def truncated(self, state):
        return jnp.zeros_like(state.count, bool)

    def episode_metrics(self, info, length):
        return {}

    def invariant_violations(self, states):
        return {"count above 3": jnp.sum(states.count > 3, dtype=jnp.int32)}

    def render(self, state, **options):
        return np.zeros((8, 8 * 4, 3), np.uint8)

    def checkpoint_filter(self, state):
        return jax.tree.map(lambda _: True, state)

    def restore_task_data(self, state, params=None):
        return state

    def params_identity(self, params=None):
        return {}

    @property
    def observation_space(self):
        return spaces.Box(0, 3, (), jnp.int32)

    @property
    def action_space(self):
        return spaces.Discrete(2)


def test_a_third_party_env_conforms():
    report = check_env(CounterEnv("Counter-v0"), num_envs=2, num_steps=8)
    assert report.episodes_ended >= 1
    assert report.reward_min == report.reward_max == 1.0
    assert "ok  same seed, same trajectory" in str(report)


@pytest.mark.parametrize(
    ("bug", "message"),
    [
        (
            "obs outside",
            r"fails 'observations inside observation_space' at step \d: observation outside Box",
        ),
        ("nan reward", r"fails 'finite float rewards, boolean dones' at step \d: reward is not"),
        ("weak type", r"state.count was \(shape \(\), int32, weak=False\) after reset, now "),
        ("dtype drift", r"at step 0: state.count was \(shape \(\), int32, weak=False\)"),
        ("batch differs", "fails 'batch_step equals a loop of step' at batch_step 0"),
        ("early done", r"fails 'done equals terminated \| truncated' at step \d: done is True"),
        ("hidden global state", "fails 'same seed, same trajectory' at the batched run: "),
    ],
)
def test_each_broken_contract_is_named(bug, message):
    with pytest.raises(ConformanceError, match=message):
        check_env(CounterEnv("Counter-v0", bug=bug), num_envs=2, num_steps=4)


class LevelledCounterEnv(CounterEnv):
    """The counter with levels: a level is the count an episode starts from."""

    has_levels: ClassVar[bool] = True

    def sample_level(self, key, params=None):
        return jnp.int32(0)  # where reset starts

    def reset_to_level(self, key, level, params=None):
        start = jnp.int32(1) if self.bug == "level ignored" else level
        state = CounterState(jnp.asarray(start, jnp.int32), jax.random.key_data(key))
        return state, self.observe(state)

    def mutate_level(self, key, level, params=None):
        level = jnp.minimum(level + 1, 2)
        return level.astype(jnp.int16) if self.bug == "level dtype drift" else level


def test_a_third_party_env_with_levels_conforms():
    report = check_env(LevelledCounterEnv("Counter-v0"), num_envs=2, num_steps=4)
    assert "ok  reset_to_level of sample_level equals reset" in str(report)
    assert "reset_to_level" not in str(check_env(CounterEnv("Counter-v0"), 2, 4))


@pytest.mark.parametrize(
    ("bug", "message"),
    [
        ("level ignored", "fails 'reset_to_level of sample_level equals reset' at a batch"),
        ("level dtype drift", "fails 'mutate_level keeps the level structure'"),
    ],
)
def test_each_broken_level_contract_is_named(bug, message):
    with pytest.raises(ConformanceError, match=message):
        check_env(LevelledCounterEnv("Counter-v0", bug=bug), num_envs=2, num_steps=4)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="unknown env id 'ArcAgi3-v0'"):
        check_env("ArcAgi3-v0")
    with pytest.raises(TypeError, match="env must be an env id or a gridax.Env, got int"):
        check_env(3)
    with pytest.raises(ValueError, match="num_envs must be an integer >= 2; got 1"):
        check_env(CounterEnv("Counter-v0"), num_envs=1)
