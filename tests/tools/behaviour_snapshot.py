"""Captures what every registered env does, to prove a refactoring changed nothing.

    python tests/tools/behaviour_snapshot.py capture DIR [PREFIX ...]  # DIR/<env id>.npz
    python tests/tools/behaviour_snapshot.py compare OLD NEW

``PREFIX`` (``Arc``, ``Foragax``, ``Arc3``...) captures only the ids and extras whose
names start with one of them; ``compare`` then compares the files both captures hold.

For every id of ``gridax.registered_ids()``: one env's reset and first step, a batched
trajectory of 8 envs over 24 random actions (states, observations, rewards, dones,
infos), ``terminated``/``truncated``, the invariants, the episode metrics, a rendered
picture and the checkpoint file of the last batch. Beside them: generated ARC banks and
their demonstrations (paint and natural), augmentation, forage diagnostics and
continual metrics. ``compare`` diffs leaf by leaf and exits 1 on any difference.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import gridax
from gridax import serialization
from gridax.envs import arc, forage

NUM_ENVS = 8
NUM_STEPS = 24


def _leaves(tree, prefix: str) -> dict[str, np.ndarray]:
    out = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        if isinstance(leaf, jax.Array) and jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        out[prefix + jax.tree_util.keystr(path)] = np.asarray(leaf)
    return out


def _make(env_id: str):
    if env_id == "ArcFolder-v0":
        folder = Path(tempfile.gettempdir()) / "gridax-snapshot-tasks"  # fixed: the header names it
        folder.mkdir(exist_ok=True)
        tasks = arc.builtin_task_files("arc-agi-1", "training")
        for name in sorted(tasks)[:5]:
            (folder / f"{name}.json").write_text(json.dumps(tasks[name]))
        return gridax.make(env_id, path=folder)
    return gridax.make(env_id)


def capture_env(env_id: str) -> dict[str, np.ndarray]:
    env = _make(env_id)
    out = {}
    state, obs = env.reset(jax.random.key(0))
    action = env.action_space.sample(jax.random.key(1))
    out |= _leaves((state, obs), "reset")
    out |= _leaves(env.step(state, action), "step")
    out |= _leaves(env.observe(state), "observe")

    keys = jax.random.split(jax.random.key(2), NUM_ENVS)
    states, obs = env.batch_reset(keys)
    out |= _leaves((states, obs), "batch_reset")
    sample = jax.vmap(env.action_space.sample)
    for t in range(NUM_STEPS):
        actions = sample(jax.random.split(jax.random.key(100 + t), NUM_ENVS))
        states, obs, reward, done, info = env.batch_step(states, actions)
        out |= _leaves((states, obs, reward, done, info), f"batch_step{t}")
        out |= _leaves(env.episode_metrics(info, jnp.full(NUM_ENVS, t + 1)), f"metrics{t}")
    out |= _leaves((env.terminated(states), env.truncated(states)), "ends")
    out |= _leaves(env.invariant_violations(states), "invariants")
    out |= _leaves(env.checkpoint_filter(states), "checkpoint_filter")
    out["render"] = np.asarray(env.render(state))
    with tempfile.TemporaryDirectory() as tmp:
        path = serialization.save_state(Path(tmp) / "state.ckpt", states, env)
        out["checkpoint"] = np.frombuffer(path.read_bytes(), np.uint8)
        out |= _leaves(serialization.load_state(path, states, env), "loaded")
    return out


def arc_extras() -> dict[str, dict[str, np.ndarray]]:
    extras = {}
    for env_id in [i for i in gridax.registered_ids() if i.startswith("ArcGen-")]:
        env = gridax.make(env_id)
        generator = env.default_params
        out = _leaves(generator.bank(jnp.arange(6)), "bank")
        states, _ = env.batch_reset(jax.random.split(jax.random.key(3), 4))
        out |= _leaves(arc.demonstrations.paint(states, env.config), "paint")
        out |= _leaves(arc.demonstrations.natural(states, env.config, generator), "natural")
        extras[f"extra-{env_id}"] = out
    env = gridax.make("ArcAgi1-v0", augment=True, augment_translate=True, context=True)
    extras["extra-augmented"] = _leaves(env.batch_reset(jax.random.split(jax.random.key(4), 4)), "")
    return extras


def forage_extras() -> dict[str, dict[str, np.ndarray]]:
    extras = {}
    for env_id in ("ForagaxBig-v5", "ForagaxTwoBiome-v1"):
        env = gridax.make(env_id)
        states, _ = env.batch_reset(jax.random.split(jax.random.key(5), 2))
        out = _leaves(jax.vmap(lambda s, c=env.config: forage.diagnostics(s, c))(states), "diag")
        extras[f"extra-{env_id}"] = out
    return extras


def capture(directory: Path, prefixes: tuple[str, ...] = ("",)) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for env_id in gridax.registered_ids():
        if env_id.startswith(prefixes):
            np.savez_compressed(directory / f"{env_id}.npz", **capture_env(env_id))
            print("captured", env_id, flush=True)
    extras = {}
    if "ArcGen-".startswith(prefixes):
        extras |= arc_extras()
    if "Foragax".startswith(prefixes):
        extras |= forage_extras()
    for name, arrays in extras.items():
        np.savez_compressed(directory / f"{name}.npz", **arrays)
        print("captured", name, flush=True)


def _checkpoint_parts(data: np.ndarray) -> tuple[dict, bytes]:
    """A checkpoint's header without the config (an ARC-AGI-3 config's repr held the
    addresses of the game's functions) or a temporary task folder, and its leaf bytes."""
    raw = data.tobytes()
    start = len(serialization.MAGIC) + 8
    size = int.from_bytes(raw[len(serialization.MAGIC) : start], "little")
    header = json.loads(raw[start : start + size])
    header.pop("config")
    if tempfile.gettempdir() in str(header.get("task_source")):  # a capture's own folder
        header.pop("task_source")
    return header, raw[start + size :]


def _same(key: str, a: np.ndarray, b: np.ndarray) -> bool:
    if key == "checkpoint":
        return _checkpoint_parts(a) == _checkpoint_parts(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def compare(old: Path, new: Path) -> int:
    differences = 0
    names = sorted({p.name for p in old.glob("*.npz")} & {p.name for p in new.glob("*.npz")})
    for name in names:
        a, b = np.load(old / name), np.load(new / name)
        for key in sorted(set(a.files) | set(b.files)):
            if key not in a.files or key not in b.files:
                print(f"{name} {key}: only in {'new' if key in b.files else 'old'}")
                differences += 1
            elif not _same(key, a[key], b[key]):
                print(f"{name} {key}: {a[key].dtype}{a[key].shape} -> {b[key].dtype}{b[key].shape}")
                differences += 1
    print(f"{len(names)} files, {differences} differences")
    return int(differences > 0)


if __name__ == "__main__":
    command, *paths = sys.argv[1:]
    if command == "capture":
        capture(Path(paths[0]), tuple(paths[1:]) or ("",))
    else:
        sys.exit(compare(Path(paths[0]), Path(paths[1])))
