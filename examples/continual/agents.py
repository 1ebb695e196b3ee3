"""Single-stream agents for continual RL: one agent in one world that never resets.

Every agent learns in blocks: it acts for ``block`` steps (storing what it saw), then
updates once. A run is ``lax.scan`` over blocks of ``lax.scan`` over steps, with no
``lax.cond`` (under ``vmap`` over seeds a ``cond`` runs both branches), so a run is one
jitted function vmapped over seeds. An agent is frozen by a step count: from
``freeze_at`` on its updates are discarded (it keeps acting, exploring as before), which
is how the plasticity probes (frozen copies) are made.

- :class:`DQN`: the Foragax paper's DQN with its published Two Biome hyperparameters
  (step size 3e-3, epsilon 0.1, replay 1,000, batch 32, target refresh every 128 steps,
  discount 0.99, an update every 4 steps, Adam) on an MLP of two hidden layers of 64.
- :class:`PPO`: PPO on one stream (rollouts of 128 steps, 4 epochs of 4 minibatches,
  clip 0.2, GAE lambda 0.95, entropy 0.01, Adam 3e-4) on two MLPs of 64;
  :func:`recurrent_ppo` the same on a GRU of 64 (the recurrent agent: the paper found
  state construction helped most), its memory carried across the whole run and replayed
  in order from each rollout's start.
- :class:`Random`: uniform actions.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/ppo.py's GAE
from ppo import gae  # noqa: E402

NUM_ACTIONS = 4


def features(obs) -> jax.Array:
    """One forage observation, flat (a hint, if the world has one, appended)."""
    if isinstance(obs, dict):
        return jnp.concatenate([obs["image"].reshape(-1), obs["hint"].reshape(-1)])
    return obs.reshape(-1)


def frozen(learning, new, old):
    """``new`` while learning, ``old`` once frozen (per leaf)."""
    return jax.tree.map(lambda n, o: jnp.where(learning, n, o), new, old)


class Networked:
    """An agent's network, split once into its weights (carried through ``lax.scan``)
    and its static rest; subclasses say how to build it (``network(key)``)."""

    def network(self, key):
        raise NotImplementedError

    @functools.cached_property
    def static(self):
        return eqx.partition(self.network(jax.random.key(0)), eqx.is_array)[1]

    def model(self, weights):
        return eqx.combine(weights, self.static)

    def initial_weights(self, key):
        return eqx.filter(self.network(key), eqx.is_array)


# --- random ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Random:
    num_features: int
    block: int = 128
    name: str = "random"

    def init(self, key):
        return jnp.zeros(())

    def act(self, state, obs_features, key):
        return jax.random.randint(key, (), 0, NUM_ACTIONS), state

    def remember(self, state, step):
        return state

    def update(self, state, key, learning):
        return state


# --- DQN ----------------------------------------------------------------------------------


class Replay(eqx.Module):
    """A ring buffer of transitions (features, action, reward, next features)."""

    features: jax.Array
    action: jax.Array
    reward: jax.Array
    next_features: jax.Array
    count: jax.Array  # transitions written so far

    @classmethod
    def empty(cls, size: int, num_features: int) -> Replay:
        zeros = jnp.zeros((size, num_features))
        return cls(zeros, jnp.zeros(size, jnp.int32), jnp.zeros(size), zeros, jnp.int32(0))

    def add(self, features, action, reward, next_features) -> Replay:
        i = self.count % self.action.shape[0]
        return Replay(
            self.features.at[i].set(features),
            self.action.at[i].set(action),
            self.reward.at[i].set(reward),
            self.next_features.at[i].set(next_features),
            self.count + 1,
        )

    def sample(self, key, batch: int):
        index = jax.random.randint(key, (batch,), 0, jnp.minimum(self.count, self.action.shape[0]))
        return (
            self.features[index],
            self.action[index],
            self.reward[index],
            self.next_features[index],
        )


class DQNState(eqx.Module):
    online: Any
    target: Any
    opt_state: Any
    replay: Replay
    updates: jax.Array


@dataclasses.dataclass(frozen=True)
class DQN(Networked):
    num_features: int
    learning_rate: float = 3e-3
    epsilon: float = 0.1
    buffer_size: int = 1_000
    batch_size: int = 32
    target_every: int = 128  # steps
    gamma: float = 0.99
    block: int = 4  # steps per update
    hidden: int = 64
    name: str = "dqn"

    def network(self, key):
        return eqx.nn.MLP(self.num_features, NUM_ACTIONS, self.hidden, 2, jax.nn.relu, key=key)

    def optimiser(self):
        return optax.adam(self.learning_rate)

    def init(self, key) -> DQNState:
        weights = self.initial_weights(key)
        empty = Replay.empty(self.buffer_size, self.num_features)
        return DQNState(weights, weights, self.optimiser().init(weights), empty, jnp.int32(0))

    def act(self, state: DQNState, obs_features, key):
        explore_key, action_key = jax.random.split(key)
        greedy = jnp.argmax(self.model(state.online)(obs_features))
        random = jax.random.randint(action_key, (), 0, NUM_ACTIONS)
        explore = jax.random.uniform(explore_key) < self.epsilon
        return jnp.where(explore, random, greedy), state

    def remember(self, state: DQNState, step) -> DQNState:
        return eqx.tree_at(lambda s: s.replay, state, state.replay.add(*step))

    def update(self, state: DQNState, key, learning) -> DQNState:
        obs_features, action, reward, next_features = state.replay.sample(key, self.batch_size)

        def loss(weights):
            q = jax.vmap(self.model(weights))(obs_features)
            next_q = jax.vmap(self.model(state.target))(next_features)
            # A continuing world: every transition bootstraps.
            target = reward + self.gamma * jnp.max(next_q, axis=-1)
            chosen = jnp.take_along_axis(q, action[:, None], axis=-1)[:, 0]
            return jnp.mean((chosen - jax.lax.stop_gradient(target)) ** 2)

        updates, opt_state = self.optimiser().update(jax.grad(loss)(state.online), state.opt_state)
        online = optax.apply_updates(state.online, updates)
        ready = learning & (state.replay.count >= self.batch_size)
        online, opt_state = frozen(ready, (online, opt_state), (state.online, state.opt_state))
        count = state.updates + 1
        target = frozen((count * self.block) % self.target_every == 0, online, state.target)
        return DQNState(online, target, opt_state, state.replay, count)


# --- PPO on one stream ------------------------------------------------------------------


class Rollout(eqx.Module):
    """The current block's steps, written as they happen."""

    features: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    next_features: jax.Array  # after the block's last step: what its value bootstraps from
    start_memory: jax.Array  # the recurrent state before the block's first step
    index: jax.Array


class PPOState(eqx.Module):
    weights: Any
    opt_state: Any
    rollout: Rollout
    memory: jax.Array  # the recurrent state now (empty for the feedforward model)


class ActorCritic(eqx.Module):
    """Two MLPs over the observation; no memory."""

    actor: eqx.nn.MLP
    critic: eqx.nn.MLP
    memory_size: int = eqx.field(static=True, default=0)

    def __init__(self, num_features: int, hidden: int, key):
        actor_key, critic_key = jax.random.split(key)
        self.actor = eqx.nn.MLP(num_features, NUM_ACTIONS, hidden, 2, jnp.tanh, key=actor_key)
        self.critic = eqx.nn.MLP(num_features, "scalar", hidden, 2, jnp.tanh, key=critic_key)

    def step(self, memory, obs_features):
        """``(memory, log-probabilities, value)`` after seeing ``obs_features``."""
        return memory, jax.nn.log_softmax(self.actor(obs_features)), self.critic(obs_features)


class RecurrentActorCritic(eqx.Module):
    """A GRU over the encoded observations; the policy and value read its state."""

    encoder: eqx.nn.Linear
    cell: eqx.nn.GRUCell
    actor: eqx.nn.Linear
    critic: eqx.nn.Linear
    memory_size: int = eqx.field(static=True)

    def __init__(self, num_features: int, hidden: int, key):
        keys = jax.random.split(key, 4)
        self.encoder = eqx.nn.Linear(num_features, hidden, key=keys[0])
        self.cell = eqx.nn.GRUCell(hidden, hidden, key=keys[1])
        self.actor = eqx.nn.Linear(hidden, NUM_ACTIONS, key=keys[2])
        self.critic = eqx.nn.Linear(hidden, "scalar", key=keys[3])
        self.memory_size = hidden

    def step(self, memory, obs_features):
        memory = self.cell(jnp.tanh(self.encoder(obs_features)), memory)
        return memory, jax.nn.log_softmax(self.actor(memory)), self.critic(memory)


@dataclasses.dataclass(frozen=True)
class PPO(Networked):
    num_features: int
    learning_rate: float = 3e-4
    block: int = 128  # rollout length
    epochs: int = 4
    minibatches: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy_coef: float = 0.01
    value_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 64
    name: str = "ppo"
    architecture: Any = ActorCritic

    def network(self, key):
        return self.architecture(self.num_features, self.hidden, key)

    def optimiser(self):
        return optax.chain(
            optax.clip_by_global_norm(self.max_grad_norm), optax.adam(self.learning_rate)
        )

    def init(self, key) -> PPOState:
        weights = self.initial_weights(key)
        n, f, m = self.block, self.num_features, self.static.memory_size
        rollout = Rollout(
            jnp.zeros((n, f)), jnp.zeros(n, jnp.int32), jnp.zeros(n), jnp.zeros(n), jnp.zeros(n),
            jnp.zeros(f), jnp.zeros(m), jnp.int32(0),
        )  # fmt: skip
        return PPOState(weights, self.optimiser().init(weights), rollout, jnp.zeros(m))

    def act(self, state: PPOState, obs_features, key):
        memory, log_probs, value = self.model(state.weights).step(state.memory, obs_features)
        action = jax.random.categorical(key, log_probs)
        r = state.rollout
        i = r.index % self.block
        start = jnp.where(i == 0, state.memory, r.start_memory)
        rollout = eqx.tree_at(
            lambda r: (r.features, r.action, r.log_prob, r.value, r.start_memory),
            r,
            (r.features.at[i].set(obs_features), r.action.at[i].set(action),
             r.log_prob.at[i].set(log_probs[action]), r.value.at[i].set(value), start),
        )  # fmt: skip
        return action, PPOState(state.weights, state.opt_state, rollout, memory)

    def remember(self, state: PPOState, step) -> PPOState:
        _, _, reward, next_features = step
        r = state.rollout
        rollout = eqx.tree_at(
            lambda r: (r.reward, r.next_features, r.index),
            r,
            (r.reward.at[r.index % self.block].set(reward), next_features, r.index + 1),
        )
        return eqx.tree_at(lambda s: s.rollout, state, rollout)

    def replay(self, weights, r: Rollout):
        """The block's log-probabilities and values under ``weights``, replayed in order
        from its start memory, and the value of what follows it."""
        model = self.model(weights)
        if not model.memory_size:  # no memory: every step on its own, in parallel
            _, log_probs, values = jax.vmap(model.step, in_axes=(None, 0))(
                r.start_memory, r.features
            )
            return log_probs, values, model.step(r.start_memory, r.next_features)[2]

        def one(memory, obs_features):
            memory, log_probs, value = model.step(memory, obs_features)
            return memory, (log_probs, value)

        memory, (log_probs, values) = jax.lax.scan(one, r.start_memory, r.features)
        return log_probs, values, model.step(memory, r.next_features)[2]

    def update(self, state: PPOState, key, learning) -> PPOState:
        r = state.rollout
        _, _, last_value = self.replay(state.weights, r)
        never = jnp.zeros(self.block, bool)  # a continuing world: no episode ends
        advantage, target = gae(r.value, r.reward, never, last_value, self.gamma, self.gae_lambda)

        def loss(weights, index):
            log_probs, value, _ = self.replay(weights, r)
            log_probs, value = log_probs[index], value[index]
            log_prob = jnp.take_along_axis(log_probs, r.action[index, None], axis=-1)[:, 0]
            entropy = -jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1)
            ratio = jnp.exp(log_prob - r.log_prob[index])
            adv = advantage[index]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            clipped = jnp.clip(ratio, 1 - self.clip, 1 + self.clip)
            policy = -jnp.mean(jnp.minimum(ratio * adv, clipped * adv))
            value_loss = 0.5 * jnp.mean((value - target[index]) ** 2)
            return policy + self.value_coef * value_loss - self.entropy_coef * jnp.mean(entropy)

        def minibatch(carry, index):
            weights, opt_state = carry
            updates, opt_state = self.optimiser().update(jax.grad(loss)(weights, index), opt_state)
            return (optax.apply_updates(weights, updates), opt_state), None

        def epoch(carry, key):
            # Every minibatch replays the whole block (the memory needs it in order) and
            # learns from a random part of its steps.
            order = jax.random.permutation(key, self.block).reshape(self.minibatches, -1)
            return jax.lax.scan(minibatch, carry, order)[0], None

        carry = (state.weights, state.opt_state)
        trained = jax.lax.scan(epoch, carry, jax.random.split(key, self.epochs))[0]
        weights, opt_state = frozen(learning, trained, carry)
        return PPOState(weights, opt_state, r, state.memory)


def recurrent_ppo(num_features: int, **settings) -> PPO:
    """PPO whose policy and value read a GRU's state (hidden 64): it can remember what it
    saw outside its aperture, which the paper found helps most. Each gradient step
    learns from the whole rollout (one minibatch), since it replays it in order anyway."""
    settings = {"architecture": RecurrentActorCritic, "name": "recurrent ppo",
                "minibatches": 1, **settings}  # fmt: skip
    return PPO(num_features, **settings)
