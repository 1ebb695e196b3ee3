"""A policy that reads the demonstrations, trained by behaviour cloning.

The policy sees the observation of ``ArcConfig(context=True)``: the working grid, the
input and the task's demonstration pairs, each cut to its top-left ``VIEW`` corner. A
small convolutional encoder turns each demonstration pair (input and output side by
side, as channels, with every cell's row and column) into a vector (mean and max over
cells); their mean over the visible pairs is the task's embedding. A convolutional trunk
over the working grid and the input, with that embedding and the step count broadcast to
every cell, gives the mask action: one logit per cell (select where positive) and, from
the pooled trunk, the operation.

It is trained on the natural demonstrations of the generated families
(``demonstrations.natural``: one flip, one recolouring fill, a few moves...), each step's
observation and action one example, on ``--train-tasks`` tasks per family, then
evaluated greedily on held-out generator seeds per family (test pair, all demonstrations
visible), with and without augmentation, beside a uniform random policy of the same
action format, and on ARC-AGI-1 evaluation with ``arc.evaluate``.

    python examples/bc_context.py       # the measured run: 28 minutes of training, 35 in all
    python examples/bc_context.py --minutes 0.2 --train-tasks 8 --eval-tasks 8  # smoke

Measured results and curves (``OUT/bc-context.png``): docs/interop.md.
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

from gridax import compile_cache
from gridax.envs import arc
from gridax.envs.arc import demonstrations

STEPS = demonstrations.LENGTH  # episode length: the longest natural demonstration fits
CHANNELS = 32
# The policy looks at the top-left VIEW x VIEW corner of every grid: the generated
# families' inputs are at most 10x10 (the generator's default max_size), and a 12x12 view
# costs a sixth of the whole 30x30 canvas. A policy for ARC's own tasks would use 30.
VIEW = 12


def config(mode: str, augment: bool = False) -> arc.ArcConfig:
    return arc.ArcConfig(
        selection_format="mask", max_episode_steps=STEPS, mode=mode, context=True,
        augment=augment,
    )  # fmt: skip


def crop(tree):
    """Every 30x30 grid of an observation (or a selection) cut to its VIEW x VIEW corner."""
    size = arc.grid.GRID_SIZE
    return jax.tree.map(lambda x: x[..., :VIEW, :VIEW] if x.shape[-2:] == (size, size) else x, tree)


# --- the policy ------------------------------------------------------------------------

# Row and column of every cell, in [0, 1]: with them a convolution followed by a mean over
# cells can tell where things are (a centroid), which is how a move's direction and
# distance can be read off a demonstration pair.
COORDINATES = jnp.stack(jnp.meshgrid(*[jnp.linspace(0, 1, VIEW)] * 2, indexing="ij"), -1)


def one_hot_grid(grid, shape):
    """(VIEW, VIEW, 11): the colours one-hot and the live mask."""
    live = arc.grid.live_mask(shape)[:VIEW, :VIEW]
    colours = jax.nn.one_hot(grid[:VIEW, :VIEW].astype(jnp.int32), 10) * live[..., None]
    return jnp.concatenate([colours, live[..., None].astype(jnp.float32)], axis=-1)


def channels_first(*features):
    return jnp.moveaxis(jnp.concatenate([*features, COORDINATES], -1), -1, 0)


class Conv(eqx.Module):
    layers: list

    def __init__(self, channels_in: int, key, depth: int = 3):
        keys = jax.random.split(key, depth)
        sizes = [channels_in] + [CHANNELS] * depth
        self.layers = [
            eqx.nn.Conv2d(sizes[i], sizes[i + 1], 3, padding=1, key=keys[i]) for i in range(depth)
        ]

    def __call__(self, x):  # (C, VIEW, VIEW)
        for layer in self.layers:
            x = jax.nn.relu(layer(x))
        return x


def pooled(features):
    """(C, VIEW, VIEW) -> (2C,): mean and max over cells."""
    return jnp.concatenate([jnp.mean(features, axis=(1, 2)), jnp.max(features, axis=(1, 2))])


class Policy(eqx.Module):
    pair_encoder: Conv
    trunk: Conv
    select: eqx.nn.Conv2d
    operation: eqx.nn.MLP

    def __init__(self, key):
        keys = jax.random.split(key, 4)
        task, step = 2 * CHANNELS, STEPS + 1
        self.pair_encoder = Conv(22 + 2, keys[0])
        self.trunk = Conv(22 + 2 + task + step, keys[1])
        self.select = eqx.nn.Conv2d(CHANNELS, 1, 1, key=keys[2])
        self.operation = eqx.nn.MLP(
            2 * CHANNELS + task + step, arc.NUM_OPERATIONS, 128, 1, key=keys[3]
        )

    def task_embedding(self, context) -> jax.Array:
        def pair(inputs, input_shape, outputs, output_shape):
            x = channels_first(
                one_hot_grid(inputs, input_shape), one_hot_grid(outputs, output_shape)
            )
            return pooled(self.pair_encoder(x))

        vectors = jax.vmap(pair)(
            context.inputs, context.input_shapes, context.outputs, context.output_shapes
        )
        weights = context.mask.astype(jnp.float32)
        return (weights @ vectors) / jnp.maximum(weights.sum(), 1.0)

    def __call__(self, obs):
        """One env's observation -> (selection logits (VIEW, VIEW), operation logits (35,))."""
        task = self.task_embedding(obs.context)
        step = jax.nn.one_hot(obs.step_count, STEPS + 1)
        broadcast = jnp.broadcast_to(
            jnp.concatenate([task, step]), (VIEW, VIEW, task.size + step.size)
        )
        features = self.trunk(channels_first(
            one_hot_grid(obs.working_grid, obs.working_shape),
            one_hot_grid(obs.input_grid, obs.input_shape),
            broadcast,
        ))  # fmt: skip
        operation = self.operation(jnp.concatenate([pooled(features), task, step]))
        return self.select(features)[0], operation

    def act(self, obs, key=None) -> arc.MaskAction:
        selection, operation = self(obs)
        size = arc.grid.GRID_SIZE
        selection = jnp.pad(selection > 0, ((0, size - VIEW), (0, size - VIEW)))
        return arc.MaskAction(jnp.argmax(operation).astype(jnp.int32), selection)


# --- data: the natural demonstrations, step by step -------------------------------------


def natural_examples(family: str, seeds: np.ndarray):
    """Every step of the natural demonstration of tasks ``seeds`` of ``family``: the
    observation before it and its action (NumPy, stacked over steps and tasks, cropped to
    the policy's view)."""
    generator = arc.Generator(family)
    train = config("train")
    keys = jax.random.split(jax.random.key(int(seeds[0])), len(seeds))
    states, _ = arc.batch_reset(keys, train, generator, task_index=jnp.asarray(seeds, jnp.int32))
    demonstration = demonstrations.natural(states, train, generator)

    def step(states, action):
        return arc.batch_step(states, action, train)[0], crop(arc.observe(states, train))

    _, observations = jax.lax.scan(step, states, demonstration.actions)
    live = np.arange(STEPS)[:, None] < np.asarray(demonstration.length)[None]  # (steps, tasks)
    take = lambda tree: jax.tree.map(lambda x: np.asarray(x)[live], tree)  # noqa: E731
    return take(observations), take(crop(demonstration.actions))


def loss(policy: Policy, obs, action):
    selection, operation = jax.vmap(policy)(obs)
    operation_loss = optax.softmax_cross_entropy_with_integer_labels(operation, action.operation)
    target = action.selection.astype(jnp.float32)
    selection_loss = optax.sigmoid_binary_cross_entropy(selection, target).mean(axis=(1, 2))
    return jnp.mean(operation_loss + 10.0 * selection_loss)


def train(examples, minutes: float, batch_size: int, seed: int, check=None, check_every=5.0):
    """Adam on random batches of ``examples`` for ``minutes`` of wall time (step size
    1e-3, decaying to 0 along a half cosine); every
    ``check_every`` minutes ``check(policy)`` (the held-out success per family) is noted."""
    size = len(examples[1].operation)
    examples = jax.tree.map(jnp.asarray, examples)
    policy = Policy(jax.random.key(seed))
    optimiser = optax.adam(1e-3)
    weights, static = eqx.partition(policy, eqx.is_array)
    opt_state = optimiser.init(weights)

    @jax.jit
    def update(weights, opt_state, key, progress):
        index = jax.random.randint(key, (batch_size,), 0, size)
        batch = jax.tree.map(lambda x: x[index], examples)
        value, grads = jax.value_and_grad(lambda w: loss(eqx.combine(w, static), *batch))(weights)
        updates, opt_state = optimiser.update(grads, opt_state)
        # The step size decays along a half cosine over the training time: the last
        # updates settle instead of jumping between policies.
        decay = 0.5 * (1 + jnp.cos(jnp.pi * progress))
        updates = jax.tree.map(lambda u: u * decay, updates)
        return optax.apply_updates(weights, updates), opt_state, value

    key = jax.random.key(seed + 1)
    started, curve, checks, updates, losses = time.perf_counter(), [], [], 0, []
    next_check = check_every
    while (elapsed := time.perf_counter() - started) < minutes * 60:
        key, draw = jax.random.split(key)
        progress = elapsed / (minutes * 60)
        weights, opt_state, value = update(weights, opt_state, draw, progress)
        updates, losses = updates + 1, losses + [value]
        if updates % 100 == 0:
            curve.append((elapsed, updates, float(np.mean(losses))))
            losses = []
            print(f"  {elapsed:7.0f} s  update {updates:6d}  loss {curve[-1][2]:.4f}")
        if check is not None and elapsed >= next_check * 60:
            checks.append((elapsed, updates, check(eqx.combine(weights, static))))
            next_check += check_every
    return eqx.combine(weights, static), curve, checks


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


def plot(curve, checks, families, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    left.plot([c[0] / 60 for c in curve], [c[2] for c in curve])
    left.set(xlabel="training time (minutes)", ylabel="loss", title="behaviour cloning loss")
    minutes = [c[0] / 60 for c in checks]
    colours = plt.get_cmap("tab20")
    for i, family in enumerate(families):
        right.plot(minutes, [c[2][family] for c in checks], "o-", color=colours(i), label=family)
    right.axhline(0.5, color="grey", linestyle=":")
    right.set(xlabel="training time (minutes)", ylabel="success, held-out seeds",
              title="greedy success per family", ylim=(-0.02, 1.02))  # fmt: skip
    right.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=28.0, help="training time")
    parser.add_argument("--check-every", type=float, default=4.0, help="minutes between checks")
    parser.add_argument("--train-tasks", type=int, default=2048, help="tasks per family")
    parser.add_argument("--eval-tasks", type=int, default=200, help="held-out tasks per family")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--families", default="all", help="comma-separated, or 'all'")
    parser.add_argument(
        "--arc-tasks", type=int, default=400, help="ARC-AGI-1 evaluation tasks to score (0: none)"
    )
    parser.add_argument("--out", default="out/bc", help="folder for results.json and the curves")
    args = parser.parse_args(argv)

    every = arc.generators.FAMILIES
    families = list(every) if args.families == "all" else args.families.split(",")
    print(f"collecting natural demonstrations of {args.train_tasks} tasks per family")
    parts = [natural_examples(f, np.arange(args.train_tasks) + 1) for f in families]
    examples = jax.tree.map(lambda *xs: np.concatenate(xs), *parts)
    held_out = np.arange(args.eval_tasks) + 10**6  # seeds never trained on
    checked = held_out[: max(1, args.eval_tasks // 4)]

    def check(policy):
        rates = {f: success_rate(policy.act, f, checked, augment=False) for f in families}
        print("  held-out success:", " ".join(f"{f} {r:.2f}" for f, r in rates.items()))
        return rates

    print(f"{len(examples[1].operation):,} examples; training for {args.minutes} minutes")
    policy, curve, checks = train(
        examples, args.minutes, args.batch_size, args.seed, check, args.check_every
    )

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
    results = {"families": rows, "curve": curve, "checks": checks}
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
    if checks:
        plot(curve, checks, families, out / "bc-context.png")
    return results


if __name__ == "__main__":
    compile_cache.enable()  # a rerun loads the compiled code (docs/performance.md)
    main()
