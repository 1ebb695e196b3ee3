"""Step-by-step parity with pinned Foragax releases.

Foragax records a trajectory (``tests/tools/foragax_trace.py``, run in a Python that has
the release: this one, or the one an environment variable names). Every step, gridax
starts from the exact world Foragax was in (objects, regrowth timers, agent, clock),
takes the same action, and must reach the same position, collection, reward, ``info`` figures,
observation and world, except the one thing the two draw differently: the regrowth delay
of what was just collected (and, for random respawn, where it regrows). Then gridax is
put back on Foragax's world, so the comparison runs the whole trajectory instead of
stopping at the first collection.

The releases come from the extra ``compare`` (0.54.1) or from virtual environments of
their own (``make parity`` makes both and runs these tests); the tests are skipped,
saying which release is missing and how to get it, where they are not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs import forage
from gridax.envs.forage import kinds, reward
from gridax.envs.forage.metrics import ContinualMetrics

TRACER = Path(__file__).parents[2] / "tools" / "foragax_trace.py"
APERTURE = 5
STEPS = 300
# The releases and the ids each is compared on: 0.54.1 is the last release with most of
# the ids; the ids only later releases register are compared with 0.58.0.
RELEASES = {
    "0.54.1": [
        "ForagaxTwoBiome-v1",
        "ForagaxSineTwoBiome-v1",
        "ForagaxSquareWaveTwoBiome-v11",
        "ForagaxWeather-v5",
        "ForagaxDiwali-v5",
        "ForagaxBig-v5",
    ],
    "0.58.0": [
        "ForagaxTwoBiomeLarge-v1",
        "ForagaxNeverEndingRelearning-v1",
        "ForagaxUnendingTasks-v1",
    ],
}
METRICS = ("biome_regret", "biome_rank", "current_biome_mean", "max_biome_mean")
CASES = [(release, env_id) for release, ids in RELEASES.items() for env_id in ids]


def variable(release: str) -> str:
    return "GRIDAX_FORAGAX_" + release.replace(".", "_") + "_PYTHON"


def installed_here() -> str | None:
    """The Foragax release this Python has (the extra ``compare``), if any."""
    try:
        return version("continual-foragax")
    except PackageNotFoundError:
        return None


def python_for(release: str) -> str:
    """The interpreter that has Foragax ``release``, or skips the test saying how to get one."""
    named = os.environ.get(variable(release))
    if named:
        return named
    if installed_here() == release:
        return sys.executable
    pytest.skip(
        f"Foragax {release} is not installed: `make parity` sets up virtual environments "
        f"with the pinned releases and runs these tests (or set {variable(release)} to a "
        f"Python that has continual-foragax=={release})"
    )


def run_foragax(release: str, mode: str, env_id: str, steps: int, out_dir: str, *extra):
    out = Path(out_dir) / f"{mode}-{env_id}-{release}.npz"
    command = [python_for(release), str(TRACER), mode, env_id, "0", str(steps), str(APERTURE)]
    result = subprocess.run([*command, str(out), *map(str, extra)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    recorded = dict(np.load(out))
    assert str(recorded["foragax_version"]) == release
    return recorded


def make_config(env_id: str, recorded: dict):
    overrides = {"aperture": APERTURE, "observation": "object"}
    if "temperatures" in recorded:  # Foragax's record instead of gridax's synthetic one
        overrides["temperatures"] = forage.Series(recorded["temperatures"])
    return forage.make_config(env_id, **overrides)


STATE_FIELDS = (
    "object_id",
    "respawn_timer",
    "respawn_object_id",
    "state_params",
    "generation",
    "biome_id",
    "row_col",
    "time",
    "offset",
)


def world_at(recorded, t: int, like: forage.ForageState, config) -> forage.ForageState:
    """gridax's state for Foragax's state ``t`` (``foragax_world``)."""
    cells = {name: jnp.asarray(recorded[name][t]) for name in STATE_FIELDS}
    return foragax_world(like, cells, config.structure())


@eqx.filter_jit
def foragax_world(like: forage.ForageState, foragax: dict, structure) -> forage.ForageState:
    """``like`` on Foragax's world: a regrowing cell holds the object its timer brings
    back, visible from state time ``time + timer``; Foragax copies one fourier curve per
    biome, generation and object into every cell it spawns, which gridax keeps once per
    biome and generation slot."""
    timer, time = foragax["respawn_timer"], foragax["time"]
    objects = jnp.where(timer > 0, foragax["respawn_object_id"], foragax["object_id"])
    origin = jnp.maximum(foragax["biome_id"], 0).astype(jnp.int32)
    curves = like.biomes.curves
    if curves.shape[-1]:
        slot = foragax["generation"] % curves.shape[1]
        where = (origin, slot, objects)
        fourier = kinds.is_fourier(like.params.schedule)[objects]
        # Cells of other objects write back the value they read: no other curve changes.
        values = jnp.where(fourier[..., None], foragax["state_params"], curves[where])
        curves = curves.at[where].set(values)
    state = eqx.tree_at(
        lambda s: (
            s.cells.object,
            s.cells.ready_at,
            s.cells.origin,
            s.cells.generation,
            s.biomes.curves,
            s.position,
            s.time,
            s.offset,
        ),
        like,
        (
            objects.astype(jnp.int8),
            jnp.where(timer > 0, time + timer, 0).astype(jnp.int32),
            origin.astype(jnp.int8),
            foragax["generation"].astype(jnp.int32),
            curves,
            foragax["row_col"].astype(jnp.int32),
            time.astype(jnp.int32),
            foragax["offset"].astype(jnp.int32),
        ),
    )
    return reward.refresh_rewards(state, jnp.bool_(True), structure)


def pending_until(state: forage.ForageState) -> np.ndarray:
    """Per cell: the state time its object shows again, 0 if it shows now."""
    ready_at = np.asarray(state.cells.ready_at)
    return np.where(ready_at <= int(state.time), 0, ready_at)


def newly_pending(before: forage.ForageState, after: forage.ForageState) -> list:
    """Cells other than the agent's whose object is regrowing after the step but was not
    before (where a random respawn put the collected object)."""
    was = pending_until(before) > 0
    now = pending_until(after) > 0
    now[tuple(np.asarray(after.position))] = False
    return np.argwhere(now & ~was).tolist()


@pytest.fixture(autouse=True)
def fresh_caches():
    # Each id compiles its own step and conversion; a run over every id otherwise keeps
    # them all (and once crashed in LLVM).
    yield
    jax.clear_caches()


@pytest.fixture(scope="module")
def traces_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("foragax"))


@pytest.mark.parametrize(("release", "env_id"), CASES)
def test_steps_match_foragax_from_its_own_worlds(release, env_id, traces_dir):
    recorded = run_foragax(release, "trace", env_id, STEPS, traces_dir)
    config = make_config(env_id, recorded)
    env = forage.ForageEnv(env_id, config)
    tracker = ContinualMetrics(env)
    like, _ = forage.reset(jax.random.key(0), config)
    # gridax draws its own world; every step below starts from Foragax's instead.
    assert (np.asarray(like.visible()) != recorded["object_id"][0]).any()
    step = jax.jit(lambda tracked, action: tracker.step(tracked, action))
    mismatches = []
    for t, action in enumerate(recorded["actions"]):
        before = world_at(recorded, t, like, config)
        tracked = forage.Tracked(before, forage.initial_metrics(config))
        tracked, obs, reward, _, info = step(tracked, action)
        after = tracked.state
        expected = {
            "position": recorded["row_col"][t + 1],
            "reward": recorded["reward"][t],
            "collected": recorded["object_collected_id"][t],
            "biome": recorded["info_biome_id"][t],
            "observation": recorded["obs"][t + 1],
            **{name: recorded[name][t] for name in METRICS},
        }
        got = {
            "position": after.position,
            "reward": reward,
            "collected": info["collected"],
            "biome": info["biome"],
            "observation": obs["image"] if isinstance(obs, dict) else obs,
            **{name: info[name] for name in METRICS},
        }
        if isinstance(obs, dict):
            expected["hint"], got["hint"] = recorded["hint"][t + 1], obs["hint"]
        for name, value in expected.items():
            if not np.allclose(np.asarray(got[name]), value, rtol=1e-5, atol=1e-5):
                mismatches.append(f"step {t}: {name} {np.asarray(got[name])} != {value}")
        # The world after the step: equal except where this step drew a regrowth delay
        # (the collected cell) or, for random respawn, the cell it regrows in.
        foragax_next = world_at(recorded, t + 1, like, config)
        differ = pending_until(foragax_next) != pending_until(after)
        collected = int(info["collected"])
        if collected > 0:
            differ[tuple(np.asarray(after.position))] = False
            if bool(config.params().random_respawn[collected]):
                for state in (after, foragax_next):
                    # None: it regrows where it was collected.
                    destination = newly_pending(before, state)
                    biome = np.asarray(state.params.biome_map)
                    assert len(destination) <= 1, f"step {t}: respawns at {destination}"
                    for cell in map(tuple, destination):
                        assert int(state.cells.object[cell]) == collected
                        assert biome[cell] == biome[tuple(np.asarray(after.position))]
                        differ[cell] = False
        if differ.any():
            mismatches.append(f"step {t}: regrowth timers differ at {np.argwhere(differ).tolist()}")
        if not (np.asarray(after.visible()) == recorded["object_id"][t + 1]).all():
            mismatches.append(f"step {t}: visible objects differ")
    assert not mismatches, "\n".join(mismatches[:20])
    assert (recorded["object_collected_id"] > 0).sum() > 3, "the trajectory collects little"


# Free-running: both draw their own randomness, so only distributions can agree.
STATISTICS_ENVS, STATISTICS_STEPS = 64, 1000


@pytest.mark.parametrize(("release", "env_id"), CASES)
def test_free_running_statistics_agree_with_foragax(release, env_id, traces_dir):
    """Per-env totals over 1,000 uniform random steps (reward, biome regret, collections
    per object id) of 64 Foragax worlds and 64 gridax worlds: each mean within 4.5
    standard errors of the other's."""
    theirs = run_foragax(release, "stats", env_id, STATISTICS_STEPS, traces_dir, STATISTICS_ENVS)
    config = make_config(env_id, theirs)
    tracker = ContinualMetrics(forage.ForageEnv(env_id, config))
    keys = jax.random.split(jax.random.key(1), STATISTICS_ENVS)

    @jax.jit
    def run(tracked):
        def body(carry, key):
            tracked, reward, regret = carry
            actions = jax.random.randint(key, (STATISTICS_ENVS,), 0, 4)
            tracked, _, r, _, info = tracker.batch_step(tracked, actions)
            return (tracked, reward + r, regret + info["biome_regret"]), None

        zeros = jnp.zeros(STATISTICS_ENVS)
        steps = jax.random.split(jax.random.key(2), STATISTICS_STEPS)
        return jax.lax.scan(body, (tracked, zeros, zeros), steps)[0]

    tracked, reward, regret = run(tracker.batch_reset(keys)[0])
    collections = np.asarray(tracked.metrics.collections)
    compared = {
        "reward": (np.asarray(reward), theirs["reward"]),
        "regret": (np.asarray(regret), theirs["regret"]),
        **{
            f"collections of id {i}": (collections[:, i], theirs["collections"][:, i])
            for i in range(1, len(config.objects) + 1)
        },
    }
    far = []
    for name, (a, b) in compared.items():
        error = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        if abs(a.mean() - b.mean()) > 4.5 * max(error, 1e-6):
            far.append(f"{name}: gridax {a.mean():.3f}, Foragax {b.mean():.3f} (se {error:.3f})")
    assert not far, "; ".join(far)
