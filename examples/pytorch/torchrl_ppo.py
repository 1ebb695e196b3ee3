"""TorchRL's PPO on gridax, unchanged: ``GymWrapper`` over the vector env, a
``Collector``, ``GAE`` and ``ClipPPOLoss``.

    python examples/pytorch/torchrl_ppo.py                 # arc-copy and ForagaxTwoBiome-v1
    python examples/pytorch/torchrl_ppo.py --tasks ForagaxTwoBiome-v1 --steps 50000

``GymWrapper(gymnasium.make_vec("gridax/<id>", n, vectorization_mode=
"vector_entry_point", autoreset_mode="Disabled", flat_actions=True,
observations="flat"), categorical_action_encoding=True)``: TorchRL resets the envs that
finished itself (through the adapter's ``reset(options={"reset_mask": ...})``), which is
why it asks for ``Disabled``. (``GymEnv("gridax/<id>", num_envs=n)`` would fork one
process per env: JAX does not survive a fork, and one jitted batch is faster anyway.)
The policy is an MLP with one categorical head per entry of the flat action.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gymnasium
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torch.distributions import Categorical
from torchrl.collectors import Collector
from torchrl.data import Unbounded
from torchrl.envs import GymWrapper
from torchrl.envs.libs.gym import default_info_dict_reader
from torchrl.modules import ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

import gridax.wrappers.gymnasium  # noqa: F401  (registers the gridax/ ids)

sys.path.insert(0, str(Path(__file__).parent))
from common import Curve, Stopwatch, random_curve, save, task  # noqa: E402


class MultiCategorical(torch.distributions.Distribution):
    """Independent categoricals over the entries of a flat action (``nvec``), from one
    vector of logits; ``scalar`` for a ``Discrete`` action (one entry, no last axis)."""

    arg_constraints: dict = {}

    def __init__(self, logits, nvec, scalar=False):
        self.heads = [Categorical(logits=part) for part in logits.split(list(nvec), dim=-1)]
        self.scalar = scalar
        super().__init__(batch_shape=logits.shape[:-1], validate_args=False)

    def sample(self, sample_shape=()):
        action = torch.stack([head.sample(sample_shape) for head in self.heads], dim=-1)
        return action[..., 0] if self.scalar else action

    @property
    def deterministic_sample(self):
        action = torch.stack([head.probs.argmax(-1) for head in self.heads], dim=-1)
        return action[..., 0] if self.scalar else action

    def log_prob(self, action):
        action = action[..., None] if self.scalar else action
        return sum(head.log_prob(action[..., i]) for i, head in enumerate(self.heads))

    def entropy(self):
        return sum(head.entropy() for head in self.heads)


def make_env(name: str, num_envs: int, forms: dict | None = None) -> GymWrapper:
    gym_id, options = task(name)
    vec = gymnasium.make_vec(
        gym_id,
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode="Disabled",
        **{**options, **(forms or {})},
    )
    env = GymWrapper(vec, categorical_action_encoding=True)
    if vec.unwrapped.env.kind == "arc":  # ARC's info["success"] beside the reward
        spec = {"success": Unbounded(shape=(num_envs,), dtype=torch.bool)}
        env.set_info_dict_reader(default_info_dict_reader(["success"], spec=spec))
    return env


def _mlp(inputs: int, outputs: int, hidden: int = 256) -> nn.Module:
    return nn.Sequential(
        nn.Flatten(start_dim=-1),
        nn.Linear(inputs, hidden),
        nn.Tanh(),
        nn.Linear(hidden, hidden),
        nn.Tanh(),
        nn.Linear(hidden, outputs),
    )


def train(
    name: str,
    steps: int,
    *,
    seed: int = 0,
    num_envs: int = 64,
    frames_per_batch: int = 2048,
    epochs: int = 4,
    minibatch: int = 512,
    forms: dict | None = None,
    window: int = 8192,
) -> dict:
    """PPO for ``steps`` env steps on a task of :mod:`common` or a gridax id."""
    torch.manual_seed(seed)
    env = make_env(name, num_envs, forms)
    env.set_seed(seed)
    single = env._env.single_action_space
    scalar = isinstance(single, gymnasium.spaces.Discrete)
    nvec = [int(single.n)] if scalar else [int(n) for n in single.nvec]
    inputs = int(torch.tensor(env._env.single_observation_space.shape).prod())
    policy = ProbabilisticActor(
        TensorDictModule(_mlp(inputs, sum(nvec)), in_keys=["observation"], out_keys=["logits"]),
        in_keys=["logits"],
        distribution_class=MultiCategorical,
        distribution_kwargs={"nvec": nvec, "scalar": scalar},
        return_log_prob=True,
    )
    critic = ValueOperator(_mlp(inputs, 1), in_keys=["observation"])
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    loss = ClipPPOLoss(policy, critic, clip_epsilon=0.2, entropy_coeff=0.01)
    optimiser = torch.optim.Adam(loss.parameters(), lr=2.5e-4)
    collector = Collector(
        env,
        policy,
        frames_per_batch=frames_per_batch,
        total_frames=steps,
        auto_register_policy_transforms=False,
    )
    curve, watch = Curve(window), Stopwatch()

    start = time.perf_counter()
    collected = time.perf_counter()
    for data in collector:  # [num_envs, time]
        watch.seconds["collect"] = watch.seconds.get("collect", 0.0) + (
            time.perf_counter() - collected
        )
        steps_first = data.transpose(0, 1)  # [time, num_envs], as the curve is fed
        success = steps_first["next"].get("success", None)
        for t in range(steps_first.shape[0]):
            step = steps_first[t]["next"]
            curve.add(step["reward"].numpy(), step["done"].numpy(),
                      None if success is None else success[t].numpy())  # fmt: skip
        with watch("update"):
            for _ in range(epochs):
                with torch.no_grad():
                    advantage(data)
                flat = data.reshape(-1)
                for index in torch.randperm(flat.shape[0]).split(minibatch):
                    losses = loss(flat[index])
                    parts = ("loss_objective", "loss_critic", "loss_entropy")
                    total = sum(losses[part] for part in parts)
                    optimiser.zero_grad()
                    total.backward()
                    nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                    optimiser.step()
            collector.update_policy_weights_()
        collected = time.perf_counter()
    wall = time.perf_counter() - start
    collector.shutdown()
    return {
        "trainer": "TorchRL ClipPPOLoss",
        "steps": curve.count,
        "seed": seed,
        "num_envs": num_envs,
        "wall_seconds": wall,
        # The collector steps the env and runs the policy: its time is both.
        "collect_seconds": watch.seconds["collect"],
        "update_seconds": watch.seconds["update"],
        "curve": curve,
        "policy": policy,
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", default=["arc-copy", "ForagaxTwoBiome-v1"])
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/torch/torchrl"))
    args = parser.parse_args(argv)
    results = {}
    for name in args.tasks:
        result = train(name, args.steps, seed=args.seed)
        result.pop("policy")
        gym_id, options = task(name)
        envs = gymnasium.make_vec(gym_id, 64, vectorization_mode="vector_entry_point", **options)
        result["random"] = random_curve(envs, result["steps"], result["curve"].window, args.seed)
        results[name] = result
        print(
            f"{name}: {result['trainer']} {result['curve'].final()} vs random "
            f"{result['random'].final()}; {result['wall_seconds']:.0f} s, collect "
            f"{result['collect_seconds']:.0f} s, update {result['update_seconds']:.0f} s"
        )
    save(results, args.out)
    return results


if __name__ == "__main__":
    main()
