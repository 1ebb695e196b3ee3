"""Steps/s of forage ``batch_step`` with and without ``ContinualMetrics``, 1,024 envs, in
one process (``python benchmarks/metrics_cost.py``; results in RESULTS.md)."""

import time

import jax
import numpy as np

import gridax
from gridax.envs import forage

NUM_ENVS, STEPS, REPEATS = 1024, 100, 5


def scanned(step):
    """A jitted ``lax.scan`` of ``step`` over actions drawn before the call."""

    def rollout(state, actions):
        return jax.lax.scan(lambda s, a: (step(s, a)[0], None), state, actions)[0]

    return jax.jit(rollout)


def measure(env_id: str) -> tuple[float, float]:
    env = gridax.make(env_id)
    tracker = forage.ContinualMetrics(env)
    keys = jax.random.split(jax.random.key(0), NUM_ENVS)
    actions = jax.random.randint(jax.random.key(1), (STEPS, NUM_ENVS), 0, 4)
    runs = {
        "plain": (scanned(env.batch_step), env.batch_reset(keys)[0]),
        "metrics": (scanned(tracker.batch_step), tracker.batch_reset(keys)[0]),
    }
    rates = {name: [] for name in runs}
    for run, state in runs.values():
        jax.block_until_ready(run(state, actions))  # compile
    for _ in range(REPEATS):  # alternating, so that both see the same machine
        for name, (run, state) in runs.items():
            start = time.perf_counter()
            jax.block_until_ready(run(state, actions))
            rates[name].append(STEPS * NUM_ENVS / (time.perf_counter() - start))
    return float(np.median(rates["plain"])), float(np.median(rates["metrics"]))


if __name__ == "__main__":
    for env_id in ("ForagaxTwoBiome-v1", "ForagaxBig-v5"):
        plain, metrics = measure(env_id)
        print(f"{env_id}: plain {plain:,.0f} steps/s, with ContinualMetrics {metrics:,.0f} "
              f"steps/s, ratio {metrics / plain:.2f}")  # fmt: skip
