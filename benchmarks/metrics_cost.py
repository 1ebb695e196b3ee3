"""Steps/s of forage batch_step with and without ContinualMetrics, 1,024 envs, one process
(`python benchmarks/metrics_cost.py`; docs/forage.md)."""

import time

import jax
import numpy as np

import gridax
from gridax.envs import forage


def rollout(step, state, actions):
    def body(s, a):
        s, *_ = step(s, a)
        return s, None

    return jax.lax.scan(body, state, actions)[0]


for env_id in ("ForagaxTwoBiome-v1", "ForagaxBig-v5"):
    env = gridax.make(env_id)
    tracker = forage.ContinualMetrics(env)
    keys = jax.random.split(jax.random.key(0), 1024)
    actions = jax.random.randint(jax.random.key(1), (100, 1024), 0, 4)
    plain = jax.jit(lambda s, a: rollout(env.batch_step, s, a))
    tracked = jax.jit(lambda s, a: rollout(tracker.batch_step, s, a))
    s0, _ = env.batch_reset(keys)
    t0, _ = tracker.batch_reset(keys)
    jax.block_until_ready(plain(s0, actions))
    jax.block_until_ready(tracked(t0, actions))
    rates = {"plain": [], "metrics": []}
    for _ in range(5):
        for name, f, s in (("plain", plain, s0), ("metrics", tracked, t0)):
            start = time.perf_counter()
            jax.block_until_ready(f(s, actions))
            rates[name].append(100 * 1024 / (time.perf_counter() - start))
    p, m = np.median(rates["plain"]), np.median(rates["metrics"])
    print(
        f"{env_id}: plain {p:,.0f} steps/s, with ContinualMetrics {m:,.0f} steps/s, ratio {m / p:.2f}"
    )
