"""Throughput of the ARC environment beside a roofline kernel, measured in one run.

Every figure is env-steps per second: batch size times steps, divided by the median
wall time of at least three timed runs after compilation. Compile time is reported
separately. The roofline kernel is the cheapest possible ARC step on the same layout
(paint one random cell of a 30x30 int8 grid, recompute the similarity to the target),
so each env figure is also a fraction of what this machine can do at all.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Int32

from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.envs import arc
from gridax.envs.arc import operations as ops
from gridax.grid import GRID_SIZE

FORMATS = ("point", "bbox", "mask")
BATCH_SIZES = (1, 16, 64, 256, 1024, 4096)


def action_mix(num_steps: int) -> str:
    """What the benchmark's actions and rollouts are, for its output."""
    return (
        "random operation 0-33 (submit left out), coordinates uniform over the live grid "
        f"(resize: over the canvas); episodes of {num_steps} steps rolled out {num_steps} "
        "steps from reset, so every step is live"
    )


def random_actions(
    key,
    working_shape: Int32[Array, "batch 2"],
    selection_format: str,
    num_operations: int = ops.SUBMIT,
):
    """One random action per env in ``selection_format``, for grids of ``working_shape``.

    Operations are uniform over ``0 .. num_operations - 1``, by default 0-33: submit is
    left out, so that a rollout no longer than the episode measures only live steps.
    Coordinates are uniform over the live grid, except for resize, whose corner is
    uniform over the whole canvas so that grids grow as well as shrink. Bbox corners are
    two such cells; a mask is the rectangle between them.
    """
    batch = working_shape.shape[0]
    op_key, a_key, b_key = jax.random.split(key, 3)
    operation = jax.random.randint(op_key, (batch,), 0, num_operations, dtype=jnp.int32)
    resizes = operation == ops.RESIZE
    limit = jnp.where(resizes[:, None], GRID_SIZE, working_shape).astype(jnp.float32)

    def corner(k):
        return jnp.floor(jax.random.uniform(k, (batch, 2)) * limit).astype(jnp.int32)

    first, second = corner(a_key), corner(b_key)
    if selection_format == "point":
        return PointAction(operation, first[:, 0], first[:, 1])
    boxes = BboxAction(operation, first[:, 0], first[:, 1], second[:, 0], second[:, 1])
    if selection_format == "bbox":
        return boxes
    return MaskAction(operation, boxes.to_selection_mask())


def make_rollout(config: arc.ArcConfig, num_steps: int):
    """A jitted ``(states, key) -> (states, total_reward)`` ``lax.scan`` of ``num_steps``."""

    def body(carry, _):
        states, key = carry
        key, action_key = jax.random.split(key)
        actions = random_actions(action_key, states.working_shape, config.selection_format)
        states, _, rewards, _, _ = arc.batch_step(states, actions, config)
        return (states, key), jnp.sum(rewards)

    @eqx.filter_jit
    def rollout(states, key):
        (states, _), rewards = jax.lax.scan(body, (states, key), None, length=num_steps)
        return states, jnp.sum(rewards)

    return rollout


def make_roofline_rollout(num_steps: int):
    """The cheapest ARC step: paint one random cell, recompute similarity to the target."""

    def step(grid, target, key):
        row_key, col_key, colour_key = jax.random.split(key, 3)
        row = jax.random.randint(row_key, (), 0, GRID_SIZE)
        col = jax.random.randint(col_key, (), 0, GRID_SIZE)
        colour = jax.random.randint(colour_key, (), 0, 10).astype(jnp.int8)
        grid = grid.at[row, col].set(colour)
        similarity = jnp.mean(grid == target, dtype=jnp.float32)
        return grid, similarity

    def body(carry, _):
        grids, targets, key = carry
        key, step_key = jax.random.split(key)
        keys = jax.random.split(step_key, grids.shape[0])
        grids, similarity = jax.vmap(step)(grids, targets, keys)
        return (grids, targets, key), jnp.sum(similarity)

    @jax.jit
    def rollout(grids, targets, key):
        (grids, _, _), similarity = jax.lax.scan(body, (grids, targets, key), None, num_steps)
        return grids, jnp.sum(similarity)

    return rollout


@dataclasses.dataclass
class Row:
    """One measured configuration."""

    env: str  # "arc" or "roofline"
    selection_format: str
    rollout: str  # "scan" (lax.scan inside one jit) or "loop" (Python loop over batch_step)
    num_envs: int
    num_steps: int
    steps_per_second: float
    compile_seconds: float
    bytes_per_state: int
    roofline_fraction: float | None = None


def state_bytes(states) -> int:
    """Bytes of one env's state: the batch's leaves divided by the batch size."""
    leaves = jax.tree.leaves(states)
    return sum(leaf.nbytes for leaf in leaves) // leaves[0].shape[0]


def median_seconds(run: Callable[[int], object], repeats: int) -> float:
    timings = []
    for repeat in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(run(repeat))
        timings.append(time.perf_counter() - started)
    return sorted(timings)[len(timings) // 2]


def scan_row(env: str, label: str, rollout, args: tuple, num_steps: int, repeats: int) -> Row:
    """Compiles ``rollout(*args, key)`` (a jitted scan of ``num_steps`` steps over a batch
    whose state is ``args``), times ``repeats`` runs and returns the row."""
    num_envs = jax.tree.leaves(args)[0].shape[0]
    started = time.perf_counter()
    compiled = rollout.lower(*args, jax.random.key(1)).compile()
    compile_seconds = time.perf_counter() - started
    seconds = median_seconds(lambda r: compiled(*args, jax.random.key(2 + r)), repeats)
    return Row(
        env,
        label,
        "scan",
        num_envs,
        num_steps,
        num_envs * num_steps / seconds,
        compile_seconds,
        state_bytes(args),
    )


def measure_roofline(tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    states, _ = arc.batch_reset(
        jax.random.split(jax.random.key(0), num_envs), arc.ArcConfig(), tasks
    )
    args = (states.working_grid, states.target_grid)
    return scan_row("roofline", "-", make_roofline_rollout(num_steps), args, num_steps, repeats)


def measure_scan(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    """``lax.scan`` over ``num_steps`` steps inside one jit, as RL training loops run."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    rollout = make_rollout(config, num_steps)
    return scan_row("arc", config.selection_format, rollout, (states,), num_steps, repeats)


def measure_loop(config, tasks, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    """A Python loop calling a jitted policy and the jitted ``batch_step`` every step."""
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    policy = jax.jit(
        lambda key, states: random_actions(key, states.working_shape, config.selection_format)
    )
    keys = jax.random.split(jax.random.key(1), num_steps)

    def run(_):
        current = states
        for key in keys:
            current = arc.batch_step(current, policy(key, current), config)[0]
        return current

    started = time.perf_counter()
    jax.block_until_ready(arc.batch_step(states, policy(keys[0], states), config))
    compile_seconds = time.perf_counter() - started
    seconds = median_seconds(run, repeats)
    return Row(
        "arc",
        config.selection_format,
        "loop",
        num_envs,
        num_steps,
        num_envs * num_steps / seconds,
        compile_seconds,
        state_bytes(states),
    )


def make_moves_rollout(step, num_envs: int, num_steps: int, num_actions: int = 4):
    """A jitted ``lax.scan`` of uniformly random moves over a batch.

    ``step(states, actions, key) -> (states, obs, rewards)``; observations are consumed
    (summed) so that the compiler cannot skip them.
    """

    def body(states, key):
        move_key, step_key = jax.random.split(key)
        actions = jax.random.randint(move_key, (num_envs,), 0, num_actions)
        states, obs, rewards = step(states, actions, step_key)
        seen = sum(jnp.sum(leaf) for leaf in jax.tree.leaves(obs))
        return states, jnp.sum(rewards) + seen

    @jax.jit
    def rollout(states, key):
        states, totals = jax.lax.scan(body, states, jax.random.split(key, num_steps))
        return states, jnp.sum(totals)

    return rollout


def make_forage_rollout(config, num_envs: int, num_steps: int):
    """:func:`make_moves_rollout` of the forage env's batched step."""
    from gridax.envs import forage

    structure = config.structure()
    batch_step = jax.vmap(lambda state, action: forage.env._step(state, action, structure))

    def step(states, actions, _):
        states, obs, rewards, _, _ = batch_step(states, actions)
        return states, obs, rewards

    return make_moves_rollout(step, num_envs, num_steps, forage.NUM_ACTIONS)


def measure_forage(env_id: str, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    from gridax.envs import forage

    config = forage.make_config(env_id)
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), num_envs), config)
    rollout = make_forage_rollout(config, num_envs, num_steps)
    label = env_id.removeprefix("Foragax")
    return scan_row("forage", label, rollout, (states,), num_steps, repeats)


AUTORESET_MODES = ("none", "always", "any_done", "pool")


def make_autoreset_rollout(env, mode: str, num_steps: int):
    """A jitted ``lax.scan`` of ``num_steps`` steps of random point actions, submit included
    (about one step in 35 ends an episode), through ``AutoReset(env, mode)``; mode
    ``"none"`` is plain ``batch_step`` without resets, the baseline."""
    from gridax.wrappers import AutoReset

    wrapper = AutoReset(env, "always" if mode == "none" else mode)

    def body(carry, key):
        state, bank = carry
        env_states = state.env_state
        actions = random_actions(key, env_states.working_shape, "point", ops.NUM_OPERATIONS)
        if mode == "none":
            env_states, _, rewards, _, _ = env.batch_step(env_states, actions)
            state = eqx.tree_at(lambda s: s.env_state, state, env_states)
        else:
            state, _, rewards, _, _ = wrapper.step(state, actions, bank)
        return (state, bank), jnp.sum(rewards)

    @jax.jit
    def rollout(state, bank, key):
        (state, _), rewards = jax.lax.scan(body, (state, bank), jax.random.split(key, num_steps))
        return state, jnp.sum(rewards)

    return wrapper, rollout


def measure_autoreset(mode: str, num_envs: int, num_steps: int, repeats: int = 3) -> Row:
    from gridax.registry import make

    env = make("ArcAgi1-v0")
    wrapper, rollout = make_autoreset_rollout(env, mode, num_steps)
    bank = env.default_params.arrays_only()
    state, _ = wrapper.reset(jax.random.key(0), num_envs, bank)
    row = scan_row("autoreset", mode, rollout, (state, bank), num_steps, repeats)
    row.bytes_per_state = state_bytes(state.env_state)
    return row


def make_sharded_rollout(config: arc.ArcConfig, num_steps: int, mesh):
    """:func:`make_rollout` run device-locally on every device of ``mesh`` (each device
    draws its own actions: the key is folded with the device index)."""
    from gridax import sharding

    rollout = make_rollout(config, num_steps)

    def local(states, key):
        key = jax.random.fold_in(key, jax.lax.axis_index(sharding.AXIS))
        states, total = rollout(states, key)
        return states, jax.lax.psum(total, sharding.AXIS)

    return sharding.device_local(local, mesh, batched=(True, False), out_batched=(True, False))


def measure_devices(tasks, num_devices: int, num_envs: int, num_steps: int, repeats: int = 3):
    """ARC point actions, a batch of ``num_envs`` split over ``num_devices`` devices."""
    from gridax import sharding

    if num_devices > jax.device_count():
        raise ValueError(
            f"{num_devices} devices asked for, {jax.device_count()} present (gridax bench "
            "--devices N simulates N CPU devices when it starts JAX)"
        )
    mesh = sharding.make_mesh(jax.devices()[:num_devices])
    config = arc.ArcConfig(max_episode_steps=num_steps)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(0), num_envs), config, tasks)
    states = sharding.shard_batch(states, mesh)
    rollout = make_sharded_rollout(config, num_steps, mesh)
    label = f"point, {num_devices} device" + ("s" if num_devices > 1 else "")
    return scan_row("sharded", label, rollout, (states,), num_steps, repeats)


def sweep(
    formats: Sequence[str] = FORMATS,
    batch_sizes: Sequence[int] = BATCH_SIZES,
    num_steps: int = 100,
    repeats: int = 3,
    rollouts: Sequence[str] = ("scan", "loop"),
    progress: Callable | None = None,
    forage_ids: Sequence[str] = (),
    autoreset: Sequence[str] = (),
    devices: Sequence[int] = (),
) -> list[Row]:
    """Measures the roofline, every ARC (format, batch size, rollout style), every
    forage id and every auto-reset mode (scan rollouts) in one run."""
    tasks = arc.load_tasks("arc-agi-1", split="training")
    plan = [("roofline", None, n) for n in batch_sizes]
    plan += [(style, fmt, n) for fmt in formats for style in rollouts for n in batch_sizes]
    plan += [("forage", env_id, n) for env_id in forage_ids for n in batch_sizes]
    plan += [("autoreset", mode, n) for mode in autoreset for n in batch_sizes]
    plan += [("sharded", d, n) for d in devices for n in batch_sizes if n % d == 0]
    rows, roofline = [], {}
    for style, fmt, n in progress(plan) if progress else plan:
        if style == "roofline":
            row = measure_roofline(tasks, n, num_steps, repeats)
            roofline[n] = row.steps_per_second
        elif style == "forage":
            row = measure_forage(fmt, n, num_steps, repeats)
        elif style == "autoreset":
            row = measure_autoreset(fmt, n, num_steps, repeats)
        elif style == "sharded":
            row = measure_devices(tasks, fmt, n, num_steps, repeats)
        else:
            config = arc.ArcConfig(selection_format=fmt, max_episode_steps=num_steps)
            measure = measure_scan if style == "scan" else measure_loop
            row = measure(config, tasks, n, num_steps, repeats)
            row.roofline_fraction = row.steps_per_second / roofline[n]
        rows.append(row)
    return rows


def format_table(rows: Sequence[Row]) -> str:
    header = (
        f"{'env':<10}{'format':<24}{'rollout':<8}{'envs':>6}{'steps/s':>13}"
        f"{'of roofline':>12}{'compile s':>10}{'bytes/state':>12}"
    )
    lines = [header]
    for r in rows:
        fraction = "" if r.roofline_fraction is None else f"{r.roofline_fraction:.3f}"
        # Envs that are not JAX (ARCLE) have neither a compilation nor a state pytree.
        compiled = f"{r.compile_seconds:.2f}" if r.compile_seconds else "-"
        size = f"{r.bytes_per_state:,}" if r.bytes_per_state else "-"
        lines.append(
            f"{r.env:<10}{r.selection_format:<24}{r.rollout:<8}{r.num_envs:>6}"
            f"{r.steps_per_second:>13,.0f}{fraction:>12}{compiled:>10}{size:>12}"
        )
    return "\n".join(lines)


def write_rows(
    rows: Sequence[Row], out_dir: Path, metadata: dict, name: str = "bench"
) -> list[Path]:
    """Writes ``<name>.json`` (rows and run metadata) and ``<name>.csv``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [dataclasses.asdict(r) for r in rows]
    json_path, csv_path = out_dir / f"{name}.json", out_dir / f"{name}.csv"
    json_path.write_text(json.dumps({"metadata": metadata, "rows": records}, indent=2))
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    return [json_path, csv_path]


def plot(rows: Sequence[Row], path: Path) -> Path:
    """Log-log plot of steps/s against batch size, one line per (env, format, rollout)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    series: dict[str, list[Row]] = {}
    for r in rows:
        if r.env == "roofline":
            label = "roofline"
        elif r.env == "forage":
            label = f"forage {r.selection_format}"
        else:
            label = f"{r.selection_format} ({r.rollout})"
        series.setdefault(label, []).append(r)
    for label, points in series.items():
        style = "k--" if label == "roofline" else "o-"
        axes.plot(
            [p.num_envs for p in points], [p.steps_per_second for p in points], style, label=label
        )
    axes.set(
        xscale="log",
        yscale="log",
        xlabel="environments",
        ylabel="env-steps per second",
        title="gridax throughput",
    )
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
