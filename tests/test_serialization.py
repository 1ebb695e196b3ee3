"""Checkpoints: bit-identical round trips without task data, and every mismatch named."""

import io
import json
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

import gridax
from gridax import serialization
from gridax.envs import arc, forage
from gridax.serialization import load_state, save_state


def arc_env(config, source="arc-agi-1", split="training"):
    """The ARC env of ``config`` over a built-in bank, as checkpoints take it."""
    return arc.ArcEnv(f"ArcAgi{source[-1]}-v0", config, source, split)


def stepped_arc(config, tasks, num_envs, steps=5, seed=0):
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(seed), num_envs), config, tasks)
    for t in range(steps):
        key = jax.random.key(100 + t)
        actions = arc.random_actions(key, states.working_shape, config.selection_format)
        states, *_ = arc.batch_step(states, actions, config)
    return states


def next_steps(states, config, steps=3):
    out = []
    for t in range(steps):
        key = jax.random.key(200 + t)
        actions = arc.random_actions(key, states.working_shape, config.selection_format)
        states, obs, reward, done, _ = arc.batch_step(states, actions, config)
        out.append((states, obs, reward, done))
    return out


@pytest.mark.parametrize("fmt", ["point", "bbox", "mask"])
def test_arc_batch_round_trip_is_bit_identical(fmt, arc_agi_1, tmp_path):
    config = arc.ArcConfig(selection_format=fmt, max_episode_steps=20)
    states = stepped_arc(config, arc_agi_1, num_envs=3)
    path = save_state(tmp_path / "s.ckpt", states, arc_env(config), arc_agi_1)
    like, _ = arc.batch_reset(jax.random.split(jax.random.key(9), 3), config, arc_agi_1)
    loaded = load_state(path, like, arc_env(config), arc_agi_1)
    assert eqx.tree_equal(loaded, states)  # key, history and re-attached grids included
    assert eqx.tree_equal(next_steps(loaded, config), next_steps(states, config))


def test_single_arc_state_in_eval_mode(tmp_path):
    tasks = arc.load_tasks("arc-agi-2", split="evaluation")
    config = arc.ArcConfig(mode="eval", initial_grid="empty")
    state, _ = arc.reset(jax.random.key(3), config, tasks)
    env = arc_env(config, "arc-agi-2", "evaluation")
    save_state(tmp_path / "one.ckpt", state, env, tasks)
    like, _ = arc.reset(jax.random.key(4), config, tasks)
    assert eqx.tree_equal(load_state(tmp_path / "one.ckpt", like, env, tasks), state)


def test_task_data_is_left_out(arc_agi_1, tmp_path):
    config = arc.ArcConfig()
    states = stepped_arc(config, arc_agi_1, num_envs=8, steps=1)
    path = save_state(tmp_path / "s.ckpt", states, arc_env(config), arc_agi_1)
    header, payload = serialization.read_header(path)
    kept = jax.tree.leaves(arc_env(config).checkpoint_filter(states))
    task_bytes = sum(x.nbytes for x, k in zip(jax.tree.leaves(states), kept, strict=True) if not k)
    whole = io.BytesIO()
    eqx.tree_serialise_leaves(whole, states)
    # The four task leaves are missing, with their .npy headers (128 bytes each).
    assert len(whole.getvalue()) - len(payload) == task_bytes + 4 * 128
    assert header["task_source"] == "arc-agi-1/training" and header["num_tasks"] == 400


def test_forage_round_trip(tmp_path):
    config = forage.make_config("ForagaxDiwali-v5")
    states, _ = forage.batch_reset(jax.random.split(jax.random.key(0), 4), config)
    for t in range(30):
        states, *_ = forage.batch_step(states, jnp.full(4, t % 4, jnp.int32), config)
    env = forage.ForageEnv("ForagaxDiwali-v5", config)
    save_state(tmp_path / "f.ckpt", states, env)
    like, _ = forage.batch_reset(jax.random.split(jax.random.key(1), 4), config)
    loaded = load_state(tmp_path / "f.ckpt", like, env)
    assert eqx.tree_equal(loaded, states)
    actions = jnp.array([0, 1, 2, 3], jnp.int32)
    assert eqx.tree_equal(
        forage.batch_step(loaded, actions, config), forage.batch_step(states, actions, config)
    )


@pytest.fixture
def saved(arc_agi_1, tmp_path):
    config = arc.ArcConfig(max_episode_steps=20)
    states = stepped_arc(config, arc_agi_1, num_envs=2, steps=2)
    path = save_state(tmp_path / "s.ckpt", states, arc_env(config), arc_agi_1)
    return path, states, config


def corrupt(path, change):
    data = bytearray(path.read_bytes())
    path.write_bytes(bytes(change(data)))


def rewrite_header(path, edit):
    header, payload = serialization.read_header(path)
    edit(header)
    encoded = json.dumps(header).encode()
    path.write_bytes(serialization.MAGIC + len(encoded).to_bytes(8, "little") + encoded + payload)


def test_mismatches_are_named(saved, arc_agi_1, tmp_path):
    path, states, config = saved
    with pytest.raises(ValueError, match=r"config \(max_episode_steps: saved 20, given 100"):
        load_state(path, states, arc_env(arc.ArcConfig()), arc_agi_1)
    other = arc.load_tasks("arc-agi-1", split="evaluation")
    with pytest.raises(ValueError, match="tasks of 'arc-agi-1/training' .* 'arc-agi-1/evaluation'"):
        load_state(path, states, arc_env(config), other)
    single = jax.tree.map(lambda x: x[0], states)
    with pytest.raises(ValueError, match=r"batch of shape \(2,\), but like= has batch shape \(\)"):
        load_state(path, single, arc_env(config), arc_agi_1)
    forage_env = gridax.make("ForagaxTwoBiome-v1")
    forage_like, _ = forage_env.batch_reset(jax.random.split(jax.random.key(0), 2))
    with pytest.raises(ValueError, match="holds a state of the arc env; env= is forage"):
        load_state(path, forage_like, forage_env)
    with pytest.raises(TypeError, match="state must be a ForageState or a Tracked, got ArcState"):
        save_state(tmp_path / "x.ckpt", states, forage_env)
    with pytest.raises(TypeError, match="take the env and its params since gridax 0.2"):
        save_state(tmp_path / "x.ckpt", states, config, arc_agi_1)


def test_damaged_files_are_named(saved, arc_agi_1, tmp_path):
    path, states, config = saved

    def load(p):
        return load_state(p, states, arc_env(config), arc_agi_1)

    with pytest.raises(ValueError, match="cannot read checkpoint .*missing.ckpt"):
        load(tmp_path / "missing.ckpt")
    (tmp_path / "other.bin").write_bytes(b"hello")
    with pytest.raises(ValueError, match="not a gridax state checkpoint"):
        load(tmp_path / "other.bin")
    good = path.read_bytes()
    corrupt(path, lambda d: d[:-100])
    with pytest.raises(ValueError, match="is truncated"):
        load(path)
    path.write_bytes(good)
    corrupt(path, lambda d: d[:-1] + bytes([d[-1] ^ 1]))
    with pytest.raises(ValueError, match="is corrupted"):
        load(path)
    path.write_bytes(good)
    rewrite_header(path, lambda h: h.update(format_version=99))
    with pytest.raises(
        ValueError, match="format version 99; this gridax reads arc states of version 1 or 2"
    ):
        load(path)


def test_a_failed_save_keeps_the_previous_file(saved, arc_agi_1, monkeypatch):
    path, states, config = saved
    before = path.read_bytes()

    def fail(*_):
        raise OSError("disk full")

    monkeypatch.setattr(serialization.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        save_state(path, states, arc_env(config), arc_agi_1)
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left


SAVE_IN_A_LOOP = """
import sys
import jax
import gridax
from gridax.serialization import save_state
env = gridax.make("ArcAgi1-v0", selection_format="mask")
states, _ = env.batch_reset(jax.random.split(jax.random.key(1), 8192))  # 123 MB on disk
print("saving", flush=True)
while True:
    save_state(sys.argv[1], states, env)
"""


def test_killing_a_save_midway_leaves_the_previous_checkpoint_intact(saved, arc_agi_1):
    """SIGKILL a process while it writes a large batch over a checkpoint: the file still
    holds the previous checkpoint, whole, or (killed after the rename) the new one."""
    import os
    import signal
    import subprocess
    import sys
    import time

    path, states, config = saved
    previous = path.read_bytes()
    child = subprocess.Popen(
        [sys.executable, "-c", SAVE_IN_A_LOOP, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "saving"
        deadline = time.monotonic() + 60
        while not list(path.parent.glob(f".{path.name}.*.tmp")):  # a save is under way
            assert time.monotonic() < deadline and child.poll() is None
            time.sleep(0.001)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
    leftovers = list(path.parent.glob(f".{path.name}.*.tmp"))
    if path.read_bytes() == previous:
        loaded = load_state(path, states, arc_env(config), arc_agi_1)
        assert eqx.tree_equal(loaded, states)
    else:  # the first save had completed: the new checkpoint is whole and verified
        header, _ = serialization.read_header(path)
        assert header["batch_shape"] == [8192]
    assert leftovers, "the kill did not land during a save"
    # The partial temporary file is inert: the next save and load work beside it.
    save_state(path, states, arc_env(config), arc_agi_1)
    load_state(path, states, arc_env(config), arc_agi_1)


FIXTURES = Path(__file__).parent / "fixtures"


def test_format_1_arc_checkpoints_still_load(arc_agi_1):
    """Written by gridax before the state layout moved (format 1): an ARC state's layout
    did not change, so it loads bit for bit as it was saved."""
    env = gridax.make("ArcAgi1-v0", selection_format="bbox", max_episode_steps=8)
    like, _ = env.batch_reset(jax.random.split(jax.random.key(0), 2))
    state = load_state(FIXTURES / "arc-format-1.ckpt", like, env, arc_agi_1)
    assert int(state.step_count.sum()) == 2 and state.input_grid.shape == (2, 30, 30)


def test_format_1_forage_checkpoints_are_refused_by_name():
    env = gridax.make("ForagaxTwoBiome-v1")
    like, _ = env.batch_reset(jax.random.split(jax.random.key(0), 2))
    with pytest.raises(ValueError, match=r"format version 1; .* forage states of version 2 \("):
        load_state(FIXTURES / "forage-format-1.ckpt", like, env)


SAVE_ARC3 = """
import sys, jax, gridax
from gridax.serialization import save_state
env = gridax.make("Arc3-Lights-v0")
state, _ = env.reset(jax.random.key(0))
state, *_ = env.step(state, env.action_space.sample(jax.random.key(1)))
save_state(sys.argv[1], state, env)
"""


def test_an_arc3_checkpoint_loads_in_another_process(tmp_path):
    """The header records the game by name and a digest of its levels (its generated repr
    held the rule's address, which no other process shared)."""
    import subprocess
    import sys

    path = tmp_path / "lights.ckpt"
    subprocess.run([sys.executable, "-c", SAVE_ARC3, str(path)], check=True)
    env = gridax.make("Arc3-Lights-v0")
    state, _ = env.reset(jax.random.key(0))
    state, *_ = env.step(state, env.action_space.sample(jax.random.key(1)))
    like, _ = env.reset(jax.random.key(5))
    assert eqx.tree_equal(load_state(path, like, env), state)
    assert "levels_sha256" in serialization.read_header(path)[0]["config"]["game"]


def test_a_state_of_another_layout_is_refused_naming_the_leaf(tmp_path):
    """An ARC-AGI-3 game without undo kept one undo snapshot in its state before 0.1.0;
    such a checkpoint is refused, not loaded into shapes no step expects."""
    env = gridax.make("Arc3-Lights-v0")
    like, _ = env.reset(jax.random.key(0))
    history = like.game_state.history
    snapshot = jax.tree.map(lambda h: jnp.zeros((1, *h.shape[1:]), h.dtype), history)
    old = eqx.tree_at(lambda s: s.game_state.history, like, snapshot)
    save_state(tmp_path / "old.ckpt", old, env)
    with pytest.raises(ValueError, match=r"old\.ckpt.*'history'.*'table'.*from \(0, .* to \(1,"):
        load_state(tmp_path / "old.ckpt", like, env)
