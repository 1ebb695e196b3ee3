"""Soak run: a million steps or more per env, random and adversarial, invariants checked.

    python benchmarks/soak.py                          # the recorded run: 10^6 steps each
    python benchmarks/soak.py --quick                  # the short version `make test` runs
    python benchmarks/soak.py --steps 10000000 --json benchmarks/results/soak.json

Each env runs ``--envs`` envs through ``AutoReset(env, "any_done")`` (episodes end and
restart throughout). Every step a quarter of the envs, chosen at random, take an
adversarial action: for ARC operation ids such as -1, 35 and +-2^31, coordinates off
the canvas and at the int32 limits, empty and full masks, submit and resize; for forage
action ids outside 0-3. The rest act at random inside the rules (submit included).

Every ``--check-every`` steps the batch's ``env.invariant_violations`` are counted, the
state's leaf shapes and dtypes are compared with those after reset, and the process's
resident memory is read; every step counts non-finite rewards. The run fails (exit 1)
on any violation or if resident memory after the last chunk exceeds that after the
chunk half way through by more than ``--memory-slack`` MiB (the first chunks settle
allocator pools; a leak keeps growing). With more than one env, each runs in a fresh
process so that its memory figures are its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import gridax
from gridax.actions import BboxAction, MaskAction, PointAction
from gridax.batching import select_envs
from gridax.envs.arc import NUM_OPERATIONS, RESIZE, SUBMIT, random_actions
from gridax.wrappers import AutoReset

INT32 = np.iinfo(np.int32)
# name: (env id, make overrides)
ENVS = {
    "arc-point": ("ArcAgi1-v0", {}),
    "arc-bbox": ("ArcAgi2-v0", {"selection_format": "bbox"}),
    "arc-mask": ("ArcAgi1-v0", {"selection_format": "mask", "split": "evaluation"}),
    **{env_id: (env_id, {}) for env_id in gridax.registered_ids() if env_id.startswith("Foragax")},
}
QUICK = ("arc-mask", "ForagaxBig-v5")
ADVERSARIAL_OPERATIONS = jnp.array([-1, NUM_OPERATIONS, 99, INT32.min, INT32.max, SUBMIT, RESIZE])
ADVERSARIAL_COORDINATES = jnp.array([-1, 30, 31, INT32.min, INT32.max, 0, 29])
ADVERSARIAL_MOVES = jnp.array([-1, 4, 5, INT32.min, INT32.max])
ADVERSARIAL_SHARE = 0.25


def pick(key, table, shape):
    return table[jax.random.randint(key, shape, 0, table.shape[0])]


def adversarial_arc_actions(key, selection_format: str, num_envs: int):
    op_key, coord_key, mask_key, kind_key = jax.random.split(key, 4)
    operation = pick(op_key, ADVERSARIAL_OPERATIONS, (num_envs,))
    coordinates = pick(coord_key, ADVERSARIAL_COORDINATES, (4, num_envs))
    if selection_format == "point":
        return PointAction(operation, coordinates[0], coordinates[1])
    if selection_format == "bbox":
        return BboxAction(operation, *coordinates)
    # Empty, full or random masks, a third each.
    kind = jax.random.randint(kind_key, (num_envs, 1, 1), 0, 3)
    noise = jax.random.bernoulli(mask_key, 0.5, (num_envs, 30, 30))
    return MaskAction(operation, (kind == 1) | ((kind == 2) & noise))


def arc_actions(selection_format: str):
    def actions(key, obs):
        num_envs = obs.working_shape.shape[0]
        normal_key, adversarial_key, choice_key = jax.random.split(key, 3)
        normal = random_actions(normal_key, obs.working_shape, selection_format, NUM_OPERATIONS)
        adversarial = adversarial_arc_actions(adversarial_key, selection_format, num_envs)
        chosen = jax.random.bernoulli(choice_key, ADVERSARIAL_SHARE, (num_envs,))
        return select_envs(chosen, adversarial, normal)

    return actions


def forage_actions(key, obs):
    num_envs = jax.tree.leaves(obs)[0].shape[0]
    normal_key, adversarial_key, choice_key = jax.random.split(key, 3)
    normal = jax.random.randint(normal_key, (num_envs,), 0, 4)
    adversarial = pick(adversarial_key, ADVERSARIAL_MOVES, (num_envs,))
    chosen = jax.random.bernoulli(choice_key, ADVERSARIAL_SHARE, (num_envs,))
    return jnp.where(chosen, adversarial, normal)


def make_chunk(wrapper: AutoReset, make_actions, num_steps: int):
    """A jitted scan of ``num_steps`` steps, then the invariants of the batch."""

    def body(carry, key):
        state, obs, params = carry
        actions = make_actions(key, obs)
        state, obs, reward, done, _ = wrapper.step(state, actions, params)
        non_finite = jnp.sum(~jnp.isfinite(reward), dtype=jnp.int32)
        return (state, obs, params), (non_finite, jnp.sum(done, dtype=jnp.int32))

    @jax.jit
    def chunk(state, obs, params, key):
        keys = jax.random.split(key, num_steps)
        (state, obs, _), (non_finite, ended) = jax.lax.scan(body, (state, obs, params), keys)
        violations = wrapper.env.invariant_violations(state.env_state)
        return state, obs, jnp.sum(non_finite), jnp.sum(ended), violations

    return chunk


def resident_mib() -> float:
    """Resident memory of this process now (Linux), in MiB."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def leaf_types(tree) -> list[tuple]:
    return [(x.shape, x.dtype) for x in jax.tree.leaves(tree)]


@dataclass
class SoakResult:
    name: str
    env_id: str
    num_envs: int
    env_steps: int
    episodes_ended: int
    invariant_violations: dict
    non_finite_rewards: int
    type_changes: int
    memory_after_first_chunk_mib: float  # compiled and warm
    memory_half_way_mib: float
    memory_after_last_chunk_mib: float
    peak_memory_mib: float  # of the process, compilation included
    compile_seconds: float
    steps_per_second: float

    @property
    def violations(self) -> int:
        return sum(self.invariant_violations.values()) + self.non_finite_rewards + self.type_changes

    def passed(self, memory_slack: float) -> bool:
        return self.violations == 0 and self.memory_growth_mib <= memory_slack

    @property
    def memory_growth_mib(self) -> float:
        """Growth over the second half of the run: a leak grows steadily, while
        allocator pools settle during the first chunks."""
        return self.memory_after_last_chunk_mib - self.memory_half_way_mib


def soak(name: str, num_envs: int, env_steps: int, check_every: int, seed: int) -> SoakResult:
    env_id, overrides = ENVS[name]
    env = gridax.make(env_id, **overrides)
    params = env.default_params
    if env_id.startswith("Arc"):
        params = params.arrays_only()
        make_actions = arc_actions(env.config.selection_format)
    else:
        make_actions = forage_actions
    wrapper = AutoReset(env, "any_done")
    chunk = make_chunk(wrapper, make_actions, check_every)
    num_chunks = max(1, -(-env_steps // (num_envs * check_every)))

    key, reset_key = jax.random.split(jax.random.key(seed))
    state, obs = wrapper.reset(reset_key, num_envs, params)
    types = leaf_types(state)
    violations = dict.fromkeys(env.invariant_violations(state.env_state), 0)
    non_finite = ended = type_changes = 0
    memory = []
    started = time.perf_counter()
    for number in range(num_chunks):
        key, chunk_key = jax.random.split(key)
        state, obs, bad, done, broken = jax.block_until_ready(chunk(state, obs, params, chunk_key))
        if number == 0:
            compile_seconds = time.perf_counter() - started
            started = time.perf_counter()
        memory.append(resident_mib())
        non_finite += int(bad)
        ended += int(done)
        type_changes += int(leaf_types(state) != types)
        for invariant, count in broken.items():
            violations[invariant] += int(count)
    elapsed = time.perf_counter() - started
    timed_steps = (num_chunks - 1) * num_envs * check_every
    return SoakResult(
        name=name,
        env_id=env_id,
        num_envs=num_envs,
        env_steps=num_chunks * num_envs * check_every,
        episodes_ended=ended,
        invariant_violations=violations,
        non_finite_rewards=non_finite,
        type_changes=type_changes,
        memory_after_first_chunk_mib=round(memory[0], 1),
        memory_half_way_mib=round(memory[num_chunks // 2], 1),
        memory_after_last_chunk_mib=round(memory[-1], 1),
        peak_memory_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        compile_seconds=round(compile_seconds, 2),
        steps_per_second=round(timed_steps / elapsed) if timed_steps else 0,
    )


def report(result: SoakResult, memory_slack: float) -> bool:
    ok = result.passed(memory_slack)
    print(
        f"{'ok  ' if ok else 'FAIL'} {result.name:32s} {result.env_steps:>11,} steps  "
        f"{result.episodes_ended:>9,} episodes  violations {result.violations}  memory "
        f"{result.memory_after_first_chunk_mib:.0f} / {result.memory_half_way_mib:.0f} / "
        f"{result.memory_after_last_chunk_mib:.0f} MiB (peak {result.peak_memory_mib:.0f})  "
        f"{result.steps_per_second:>9,} steps/s",
        flush=True,
    )
    if result.violations:
        print(
            f"     {result.invariant_violations}, non-finite rewards "
            f"{result.non_finite_rewards}, type changes {result.type_changes}"
        )
    return ok


def soak_in_subprocess(name: str, args) -> SoakResult:
    """One env in a fresh process, so that its memory figures are its own."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "result.json"
        options = ["--steps", args.steps, "--envs", args.envs, "--check-every", args.check_every]
        options += ["--seed", args.seed, "--memory-slack", args.memory_slack, "--json", out]
        subprocess.run([sys.executable, __file__, name, *map(str, options)], check=False)
        if not out.exists():
            raise RuntimeError(f"the soak run of {name} crashed (see its output above)")
        return SoakResult(**json.loads(out.read_text())[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"envs to soak (default: all): {', '.join(ENVS)}")
    parser.add_argument("--steps", type=int, default=1_000_000, help="env-steps per env")
    parser.add_argument("--envs", type=int, default=1024, help="batch size")
    parser.add_argument("--check-every", type=int, default=100, help="steps per checked chunk")
    parser.add_argument("--memory-slack", type=float, default=64.0, help="allowed growth, MiB")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help=f"{', '.join(QUICK)}, 10^4 steps")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if args.quick:
        args.names, args.steps, args.envs, args.check_every = list(QUICK), 12_800, 64, 50
    unknown = [name for name in args.names if name not in ENVS]
    if unknown:
        parser.error(f"unknown env {unknown[0]!r}; choose from {', '.join(ENVS)}")

    names = args.names or list(ENVS)
    if len(names) == 1:
        results = [soak(names[0], args.envs, args.steps, args.check_every, args.seed)]
        failed = not report(results[0], args.memory_slack)
    else:  # each child prints its own line
        results = [soak_in_subprocess(name, args) for name in names]
        failed = not all(r.passed(args.memory_slack) for r in results)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
