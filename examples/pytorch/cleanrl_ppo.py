"""A CleanRL-style PPO (one file, plain PyTorch) on gridax's vector env.

    python examples/pytorch/cleanrl_ppo.py                  # arc-copy and ForagaxTwoBiome-v1
    python examples/pytorch/cleanrl_ppo.py --tasks Arc3-Keys-v0 --steps 50000

The env is ``gymnasium.make_vec("gridax/<id>", num_envs, vectorization_mode=
"vector_entry_point", array_type="torch", flat_actions=True, observations="flat")``:
all envs step in one jitted ``batch_step`` and hand their arrays to torch through
DLPack. ``autoreset_mode="SameStep"`` gives what CleanRL's loop assumes: after an
episode ends, the next observation is the new episode's first. One categorical head per
entry of the ``MultiDiscrete`` action (as CleanRL's ``ppo_multidiscrete.py``), masked by
``action_masks()`` where the env offers only some actions (ARC-AGI-3's games). Images
(``observations="image"``) go through a small CNN, vectors through an MLP.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import gridax.wrappers.gymnasium  # noqa: F401  (registers the gridax/ ids)

sys.path.insert(0, str(Path(__file__).parent))
from common import Curve, Stopwatch, random_curve, save, task  # noqa: E402


@dataclass
class Settings:
    num_envs: int = 64
    num_steps: int = 32  # per env per rollout
    learning_rate: float = 2.5e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    minibatches: int = 4
    epochs: int = 4
    clip: float = 0.2
    entropy: float = 0.01
    value: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256


def make_envs(name: str, num_envs: int, forms: dict | None = None):
    gym_id, options = task(name)
    return gymnasium.make_vec(
        gym_id,
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        array_type="torch",
        autoreset_mode="SameStep",
        **{**options, **(forms or {})},
    )


class Agent(nn.Module):
    """An actor-critic: a CNN over an image (``[H, W, C]`` uint8) or an MLP over a
    vector, then a value and one logit per value of each action entry."""

    def __init__(self, obs_shape: tuple[int, ...], nvec: list[int], hidden: int):
        super().__init__()
        if len(obs_shape) == 3:
            channels = obs_shape[-1]
            self.torso = nn.Sequential(
                nn.Conv2d(channels, 32, 4, stride=2),
                nn.ReLU(),
                nn.Conv2d(32, 64, 4, stride=2),
                nn.ReLU(),
                nn.Conv2d(64, 64, 3, stride=2),
                nn.ReLU(),
                nn.Flatten(),
                nn.LazyLinear(hidden),
                nn.ReLU(),
            )
        else:
            self.torso = nn.Sequential(
                nn.Flatten(),
                nn.Linear(int(np.prod(obs_shape)), hidden),
                nn.Tanh(),
                nn.Linear(hidden, hidden),
                nn.Tanh(),
            )
        self.image = len(obs_shape) == 3
        self.nvec = list(nvec)
        self.actor = nn.Linear(hidden, sum(self.nvec))
        self.critic = nn.Linear(hidden, 1)

    def features(self, obs):
        if self.image:  # [B, H, W, C] uint8 -> [B, C, H, W] in [0, 1]
            obs = obs.permute(0, 3, 1, 2).float() / 255.0
        return self.torso(obs.float())

    def value(self, obs):
        return self.critic(self.features(obs)).squeeze(-1)

    def act(self, obs, mask=None, action=None):
        """``(action, log-prob, entropy, value)``; ``action`` given: its log-prob."""
        hidden = self.features(obs)
        logits = self.actor(hidden)
        if mask is not None:
            logits = logits.masked_fill(~mask, -1e8)
        heads = [Categorical(logits=part) for part in logits.split(self.nvec, dim=-1)]
        if action is None:
            action = torch.stack([head.sample() for head in heads], dim=-1)
        log_prob = sum(head.log_prob(action[:, i]) for i, head in enumerate(heads))
        entropy = sum(head.entropy() for head in heads)
        return action, log_prob, entropy, self.critic(hidden).squeeze(-1)


def nvec_of(space) -> list[int]:
    if isinstance(space, gymnasium.spaces.Discrete):
        return [int(space.n)]
    return [int(n) for n in space.nvec]


def train(
    name: str,
    steps: int,
    *,
    seed: int = 0,
    settings: Settings | None = None,
    forms: dict | None = None,
    masked: bool = False,
    window: int = 8192,
) -> dict:
    """PPO for ``steps`` env steps on a task of :mod:`common` or a gridax id."""
    s = settings or Settings()
    torch.manual_seed(seed)
    envs = make_envs(name, s.num_envs, forms)
    single_action = envs.single_action_space
    discrete = isinstance(single_action, gymnasium.spaces.Discrete)
    obs_shape = envs.single_observation_space.shape
    agent = Agent(obs_shape, nvec_of(single_action), s.hidden)
    agent.act(torch.zeros((1, *obs_shape), dtype=torch.uint8 if agent.image else torch.float32))
    optimiser = torch.optim.Adam(agent.parameters(), lr=s.learning_rate, eps=1e-5)
    curve, watch = Curve(window), Stopwatch()
    batch = s.num_envs * s.num_steps
    minibatch = batch // s.minibatches

    observations = torch.zeros((s.num_steps, s.num_envs, *obs_shape))
    masks = torch.ones((s.num_steps, s.num_envs, sum(agent.nvec)), dtype=torch.bool)
    actions = torch.zeros((s.num_steps, s.num_envs, len(agent.nvec)), dtype=torch.long)
    log_probs, rewards, dones, values = (torch.zeros((s.num_steps, s.num_envs)) for _ in range(4))

    start = time.perf_counter()
    with watch("env"):
        obs, _ = envs.reset(seed=seed)
    done = torch.zeros(s.num_envs)
    for _ in range(max(1, steps // batch)):
        for t in range(s.num_steps):  # the rollout
            observations[t], dones[t] = obs, done
            if masked:
                masks[t] = envs.action_masks()
            with watch("torch"), torch.no_grad():
                action, log_probs[t], _, values[t] = agent.act(obs, masks[t] if masked else None)
            actions[t] = action
            with watch("env"):
                obs, reward, terminated, truncated, info = envs.step(
                    action[:, 0] if discrete else action
                )
            done = (terminated | truncated).float()
            rewards[t] = reward
            curve.add(reward.numpy(), done.numpy().astype(bool), _numpy(info.get("success")))
        with watch("torch"):
            _update(agent, optimiser, s, obs, done, observations, masks if masked else None,
                    actions, log_probs, rewards, dones, values, minibatch)  # fmt: skip
    wall = time.perf_counter() - start
    envs.close()
    return {
        "trainer": "CleanRL-style PPO",
        "steps": curve.count,
        "seed": seed,
        "num_envs": s.num_envs,
        "wall_seconds": wall,
        "env_seconds": watch.seconds["env"],
        "torch_seconds": watch.seconds["torch"],
        "curve": curve,
        "agent": agent,
    }


def _numpy(value):
    return None if value is None else np.asarray(value)


def _update(agent, optimiser, s, obs, done, observations, masks, actions, log_probs, rewards,
            dones, values, minibatch):  # fmt: skip
    """GAE over the rollout, then clipped-PPO epochs over shuffled minibatches."""
    with torch.no_grad():
        next_value = agent.value(obs)
        advantages = torch.zeros_like(rewards)
        last = torch.zeros(s.num_envs)
        for t in reversed(range(s.num_steps)):
            next_nonterminal = 1.0 - (done if t == s.num_steps - 1 else dones[t + 1])
            following = next_value if t == s.num_steps - 1 else values[t + 1]
            delta = rewards[t] + s.gamma * following * next_nonterminal - values[t]
            last = delta + s.gamma * s.gae_lambda * next_nonterminal * last
            advantages[t] = last
        returns = advantages + values
    flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731
    b_obs, b_actions, b_log_probs = flat(observations), flat(actions), flat(log_probs)
    b_advantages, b_returns = flat(advantages), flat(returns)
    b_masks = None if masks is None else flat(masks)
    for _ in range(s.epochs):
        order = torch.randperm(b_obs.shape[0])
        for begin in range(0, b_obs.shape[0], minibatch):
            index = order[begin : begin + minibatch]
            mask = None if b_masks is None else b_masks[index]
            _, new_log_prob, entropy, new_value = agent.act(b_obs[index], mask, b_actions[index])
            ratio = (new_log_prob - b_log_probs[index]).exp()
            advantage = b_advantages[index]
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            clipped = torch.clamp(ratio, 1 - s.clip, 1 + s.clip)
            policy_loss = torch.max(-advantage * ratio, -advantage * clipped).mean()
            value_loss = 0.5 * ((new_value - b_returns[index]) ** 2).mean()
            loss = policy_loss - s.entropy * entropy.mean() + s.value * value_loss
            optimiser.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), s.max_grad_norm)
            optimiser.step()


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", default=["arc-copy", "ForagaxTwoBiome-v1"])
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/torch/cleanrl"))
    args = parser.parse_args(argv)
    results = {}
    for name in args.tasks:
        result = train(name, args.steps, seed=args.seed)
        result.pop("agent")
        envs = make_envs(name, Settings.num_envs)
        result["random"] = random_curve(envs, result["steps"], result["curve"].window, args.seed)
        results[name] = result
        print(
            f"{name}: {result['trainer']} {result['curve'].final()} vs random "
            f"{result['random'].final()}; {result['wall_seconds']:.0f} s, env "
            f"{result['env_seconds']:.0f} s, torch {result['torch_seconds']:.0f} s"
        )
    save(results, args.out)
    return results


if __name__ == "__main__":
    main()
