"""A policy that reads the demonstrations, trained by behaviour cloning.

The policy sees the observation of ``ArcConfig(context=True)``: the working grid, the
input and the task's demonstration pairs. A small convolutional encoder turns each
demonstration pair (input and output side by side, as channels) into a vector; their
mean over the visible pairs is the task's embedding. A convolutional trunk over the
working grid and the input, with that embedding and the step count broadcast to every
cell, gives the mask action: one logit per cell (select where positive) and, pooled,
the operation.

It is trained on the natural demonstrations of the generated families
(``demonstrations.natural``: one flip, one recolouring fill, a few moves...), each step's
observation and action one example, on ``--train-tasks`` tasks per family, then
evaluated greedily on held-out generator seeds per family (test pair, all demonstrations
visible), with and without augmentation, beside a uniform random policy of the same
action format, and on ARC-AGI-1 evaluation with ``arc.evaluate``.

    python examples/bc_context.py                       # the measured run, ~30 minutes
    python examples/bc_context.py --minutes 0.2 --train-tasks 8 --eval-tasks 8  # smoke

Measured results: docs/interop.md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from gridax.envs import arc
from gridax.envs.arc import demonstrations

STEPS = demonstrations.LENGTH  # episode length: the longest natural demonstration fits
CHANNELS = 32


def config(mode: str, augment: bool = False) -> arc.ArcConfig:
    return arc.ArcConfig(
        selection_format="mask", max_episode_steps=STEPS, mode=mode, context=True,
        augment=augment,
    )  # fmt: skip


# --- the policy ------------------------------------------------------------------------


def one_hot_grid(grid, shape):
    """(30, 30, 11): the colours one-hot and the live mask."""
    live = arc.grid.live_mask(shape)
    colours = jax.nn.one_hot(grid.astype(jnp.int32), 10) * live[..., None]
    return jnp.concatenate([colours, live[..., None].astype(jnp.float32)], axis=-1)


class Conv(eqx.Module):
    layers: list

    def __init__(self, channels_in: int, key, depth: int = 3):
        keys = jax.random.split(key, depth)
        sizes = [channels_in] + [CHANNELS] * depth
        self.layers = [
            eqx.nn.Conv2d(sizes[i], sizes[i + 1], 3, padding=1, key=keys[i]) for i in range(depth)
        ]

    def __call__(self, x):  # (C, 30, 30)
        for layer in self.layers:
            x = jax.nn.relu(layer(x))
        return x


class Policy(eqx.Module):
    pair_encoder: Conv
    trunk: Conv
    select: eqx.nn.Conv2d
    operation: eqx.nn.Linear

    def __init__(self, key):
        keys = jax.random.split(key, 4)
        self.pair_encoder = Conv(22, keys[0], depth=2)
        self.trunk = Conv(22 + CHANNELS + STEPS + 1, keys[1])
        self.select = eqx.nn.Conv2d(CHANNELS, 1, 1, key=keys[2])
        self.operation = eqx.nn.Linear(2 * CHANNELS + STEPS + 1, arc.NUM_OPERATIONS, key=keys[3])

    def task_embedding(self, context) -> jax.Array:
        def pair(inputs, input_shape, outputs, output_shape):
            x = jnp.concatenate(
                [one_hot_grid(inputs, input_shape), one_hot_grid(outputs, output_shape)], -1
            )
            return jnp.mean(self.pair_encoder(jnp.moveaxis(x, -1, 0)), axis=(1, 2))

        vectors = jax.vmap(pair)(
            context.inputs, context.input_shapes, context.outputs, context.output_shapes
        )
        weights = context.mask.astype(jnp.float32)
        return (weights @ vectors) / jnp.maximum(weights.sum(), 1.0)

    def __call__(self, obs):
        """One env's observation -> (selection logits (30, 30), operation logits (35,))."""
        task = self.task_embedding(obs.context)
        step = jax.nn.one_hot(obs.step_count, STEPS + 1)
        grids = jnp.concatenate(
            [one_hot_grid(obs.working_grid, obs.working_shape),
             one_hot_grid(obs.input_grid, obs.input_shape)], -1,
        )  # fmt: skip
        broadcast = jnp.broadcast_to(jnp.concatenate([task, step]), (30, 30, CHANNELS + STEPS + 1))
        features = self.trunk(jnp.moveaxis(jnp.concatenate([grids, broadcast], -1), -1, 0))
        pooled = jnp.mean(features, axis=(1, 2))
        return self.select(features)[0], self.operation(jnp.concatenate([pooled, task, step]))

    def act(self, obs, key=None) -> arc.MaskAction:
        selection, operation = self(obs)
        return arc.MaskAction(jnp.argmax(operation).astype(jnp.int32), selection > 0)


# --- data: the natural demonstrations, step by step -------------------------------------


def natural_examples(family: str, seeds: np.ndarray):
    """Every step of the natural demonstration of tasks ``seeds`` of ``family``: the
    observation before it and its action (NumPy, stacked over steps and tasks)."""
    generator = arc.Generator(family)
    train = config("train")
    keys = jax.random.split(jax.random.key(int(seeds[0])), len(seeds))
    states, _ = arc.batch_reset(keys, train, generator, task_index=jnp.asarray(seeds, jnp.int32))
    demonstration = demonstrations.natural(states, train, generator)

    def step(states, action):
        return arc.batch_step(states, action, train)[0], arc.observe(states, train)

    _, observations = jax.lax.scan(step, states, demonstration.actions)
    live = np.arange(STEPS)[:, None] < np.asarray(demonstration.length)[None]  # (steps, tasks)
    take = lambda tree: jax.tree.map(lambda x: np.asarray(x)[live], tree)  # noqa: E731
    return take(observations), take(demonstration.actions)


def loss(policy: Policy, obs, action):
    selection, operation = jax.vmap(policy)(obs)
    operation_loss = optax.softmax_cross_entropy_with_integer_labels(operation, action.operation)
    target = action.selection.astype(jnp.float32)
    selection_loss = optax.sigmoid_binary_cross_entropy(selection, target).mean(axis=(1, 2))
    return jnp.mean(operation_loss + 10.0 * selection_loss)


def train(examples, minutes: float, batch_size: int, seed: int):
    obs, actions = examples
    size = len(actions.operation)
    policy = Policy(jax.random.key(seed))
    optimiser = optax.adam(1e-3)
    weights, static = eqx.partition(policy, eqx.is_array)
    opt_state = optimiser.init(weights)

    @jax.jit
    def update(weights, opt_state, batch):
        value, grads = jax.value_and_grad(lambda w: loss(eqx.combine(w, static), *batch))(weights)
        updates, opt_state = optimiser.update(grads, opt_state)
        return optax.apply_updates(weights, updates), opt_state, value

    rng = np.random.default_rng(seed)
    started, curve, updates = time.perf_counter(), [], 0
    while time.perf_counter() - started < minutes * 60:
        index = rng.integers(0, size, batch_size)
        batch = jax.tree.map(lambda x, i=index: jnp.asarray(x[i]), (obs, actions))
        weights, opt_state, value = update(weights, opt_state, batch)
        updates += 1
        if updates % 25 == 0:
            curve.append((time.perf_counter() - started, updates, float(value)))
            print(f"  {curve[-1][0]:7.0f} s  update {updates:5d}  loss {curve[-1][2]:.4f}")
    return eqx.combine(weights, static), curve


# --- evaluation --------------------------------------------------------------------------


@eqx.filter_jit
def play(act, states, key, evaluation: arc.ArcConfig):
    """``STEPS`` greedy steps of ``act`` over a batch; the final states."""

    def body(states, key):
        keys = jax.random.split(key, states.step_count.shape[0])
        actions = jax.vmap(act)(arc.observe(states, evaluation), keys)
        return arc.batch_step(states, actions, evaluation)[0], None

    return jax.lax.scan(body, states, jax.random.split(key, STEPS))[0]


def success_rate(act, family: str, seeds: np.ndarray, augment: bool) -> float:
    """Greedy episodes on the test pairs of tasks ``seeds``: the fraction solved."""
    generator = arc.Generator(family)
    evaluation = config("eval", augment)
    keys = jax.random.split(jax.random.key(7), len(seeds))
    task_index = jnp.asarray(seeds, jnp.int32)
    states, _ = arc.batch_reset(keys, evaluation, generator, task_index=task_index)
    return float(np.mean(np.asarray(play(act, states, jax.random.key(8), evaluation).success)))


def random_act(obs, key):
    return arc.random_policy(config("eval"))(obs, key)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=28.0, help="training time")
    parser.add_argument("--train-tasks", type=int, default=1024, help="tasks per family")
    parser.add_argument("--eval-tasks", type=int, default=200, help="held-out tasks per family")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", default="all", help="comma-separated, or 'all'")
    parser.add_argument(
        "--arc-tasks", type=int, default=400, help="ARC-AGI-1 evaluation tasks to score (0: none)"
    )
    parser.add_argument("--out", default="out/bc", help="folder for results.json")
    args = parser.parse_args(argv)

    every = arc.generators.FAMILIES
    families = list(every) if args.families == "all" else args.families.split(",")
    print(f"collecting natural demonstrations of {args.train_tasks} tasks per family")
    parts = [natural_examples(f, np.arange(args.train_tasks) + 1) for f in families]
    examples = jax.tree.map(lambda *xs: np.concatenate(xs), *parts)
    print(f"{len(examples[1].operation):,} examples; training for {args.minutes} minutes")
    policy, curve = train(examples, args.minutes, args.batch_size, args.seed)

    held_out = np.arange(args.eval_tasks) + 10**6  # seeds never trained on
    rows = {}
    print(f"{'family':<20}{'BC':>8}{'BC, augmented':>16}{'random':>9}")
    for family in families:
        rows[family] = {
            "bc": success_rate(policy.act, family, held_out, augment=False),
            "bc_augmented": success_rate(policy.act, family, held_out, augment=True),
            "random": success_rate(random_act, family, held_out, augment=False),
        }
        r = rows[family]
        print(f"{family:<20}{r['bc']:>8.3f}{r['bc_augmented']:>16.3f}{r['random']:>9.3f}")
    solved = [f for f, r in rows.items() if r["bc"] >= 0.5]
    print(f"families at 0.5 or more: {len(solved)} of {len(families)}: {', '.join(solved)}")
    results = {"families": rows, "curve": curve}
    if args.arc_tasks:
        files = arc.builtin_task_files("arc-agi-1", "evaluation")
        chosen = {task_id: files[task_id] for task_id in sorted(files)[: args.arc_tasks]}
        tasks = arc.tasks_from_dict(chosen, source="arc-agi-1/evaluation")
        score = arc.evaluate(policy.act, tasks, config("eval"), attempts=2).score
        print(f"ARC-AGI-1 evaluation ({len(tasks)} tasks), arc.evaluate: {score}")
        results["arc_agi_1_evaluation"] = score.score
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
