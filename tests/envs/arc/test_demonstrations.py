"""Expert demonstrations: painted ones solve every ARC-AGI-1 and ARC-AGI-2 evaluation test
pair, natural ones every generated family, both replayed through batch_step; the dataset
export writes what a replay gives and reads back into the same episode."""

import jax
import numpy as np
import pytest

from gridax.actions import MaskAction
from gridax.envs import arc
from gridax.envs.arc import demonstrations as demos
from gridax.envs.arc.tasks.generators import FAMILIES, MIXTURE, Generator

MASK = {"selection_format": "mask", "max_episode_steps": demos.LENGTH}


def every_pair(tasks, part):
    counts = np.asarray(tasks.pairs(part).count)
    task_index = np.repeat(np.arange(len(tasks)), counts)
    return task_index, np.concatenate([np.arange(c) for c in counts])


def assert_solved(states, demonstration, config):
    played = demos.replay(states, demonstration, config)
    assert bool(played.success.all()), np.nonzero(~np.asarray(played.success))[0]
    final = played.states
    np.testing.assert_array_equal(final.working_grid, final.target_grid)  # the exact target
    np.testing.assert_array_equal(final.working_shape, final.target_shape)
    first_done = np.argmax(np.asarray(played.done), axis=0) + 1
    np.testing.assert_array_equal(first_done, demonstration.length)
    return played


@pytest.mark.parametrize("source", ["arc-agi-1", "arc-agi-2"])
def test_painting_solves_every_evaluation_test_pair(source):
    tasks = arc.load_tasks(source, "evaluation")
    task_index, pair_index = every_pair(tasks, "test")
    config = arc.ArcConfig(mode="eval", **MASK)
    keys = jax.random.split(jax.random.key(0), len(task_index))
    states, _ = arc.batch_reset(keys, config, tasks, task_index, pair_index)
    assert_solved(states, demos.paint(states, config), config)
    assert len(task_index) == {"arc-agi-1": 419, "arc-agi-2": 167}[source]


@pytest.mark.parametrize("initial_grid", ["input", "empty"])
def test_natural_demonstrations_solve_every_family_in_few_steps(initial_grid):
    generator = Generator(MIXTURE, max_size=12)
    config = arc.ArcConfig(initial_grid=initial_grid, **MASK)
    states, _ = arc.batch_reset(jax.random.split(jax.random.key(1), 300), config, generator)
    demonstration = demos.natural(states, config, generator)
    assert_solved(states, demonstration, config)
    families = np.asarray(jax.vmap(lambda s: generator.parameters(s).family)(states.task_index))
    assert set(families.tolist()) == set(range(len(FAMILIES)))
    lengths = np.asarray(demonstration.length) - (initial_grid == "empty")  # copy_input first
    by_family = {FAMILIES[f]: set(lengths[families == f].tolist()) for f in set(families)}
    assert by_family["flip_horizontal"] == by_family["rotate"] == {2}  # one operation, submit
    assert by_family["copy"] == {1}
    assert max(by_family["translate_recolour"]) <= 5  # a fill, up to 3 moves, submit
    painted = demos.paint(states, config)
    assert_solved(states, painted, config)


def test_a_single_state_gets_an_unbatched_demonstration():
    generator = Generator("flip_vertical")
    config = arc.ArcConfig(**MASK)
    state, _ = arc.reset(jax.random.key(3), config, generator)
    demonstration = demos.natural(state, config, generator)
    assert demonstration.actions.operation.shape == (demos.LENGTH,)
    assert int(demonstration.actions.operation[0]) == arc.OPERATION_NAMES.index("flip_vertical")
    for t in range(int(demonstration.length)):
        action = MaskAction(demonstration.actions.operation[t], demonstration.actions.selection[t])
        state, _, _, done, info = arc.step(state, action, config)
    assert bool(done) and bool(info["success"])


def test_exported_shards_hold_the_replayed_episodes(tmp_path):
    tasks = Generator("translate_recolour", num_pairs=2).bank(np.arange(5))
    paths = demos.export_dataset(tmp_path / "bc", tasks, part="train", shard_size=5)
    assert [p.name for p in paths] == ["train-00000.npz", "train-00001.npz"]
    shards = [dict(np.load(p)) for p in paths]
    data = {k: np.concatenate([s[k] for s in shards]) for k in shards[0]}
    steps = demos.LENGTH
    assert data["working_grid"].shape == (10, steps + 1, 30, 30)
    assert data["operation"].shape == (10, steps) and data["reward"].shape == (10, steps)
    assert data["selection"].shape == (10, steps, 30, 4)  # 30 bits packed into 4 bytes
    assert data["success"].all() and data["task_id"].tolist()[:3] == ["0", "0", "1"]
    # Replaying the stored actions from the stored start gives the stored grids.
    config = arc.ArcConfig(**MASK)
    keys = jax.random.split(jax.random.key(0), 10)
    states, _ = arc.batch_reset(keys, config, tasks, data["task_index"], data["pair_index"])
    np.testing.assert_array_equal(states.working_grid, data["working_grid"][:, 0])
    selection = np.unpackbits(data["selection"], axis=-1, count=30).astype(bool)
    for t in range(steps):
        action = MaskAction(data["operation"][:, t], selection[:, t])
        states, _, reward, _, _ = arc.batch_step(states, action, config)
        np.testing.assert_array_equal(states.working_grid, data["working_grid"][:, t + 1])
        np.testing.assert_array_equal(reward, data["reward"][:, t])


def test_export_arguments_are_checked(tmp_path):
    tasks = Generator("copy").bank([1])
    with pytest.raises(ValueError, match="part must be 'train' or 'test', got 'eval'"):
        demos.export_dataset(tmp_path, tasks, part="eval")
    with pytest.raises(ValueError, match="needs selection_format='mask'"):
        demos.export_dataset(tmp_path, tasks, arc.ArcConfig(selection_format="point"))
    with pytest.raises(ValueError, match="shard_size must be an integer >= 1; got 0"):
        demos.export_dataset(tmp_path, tasks, shard_size=0)
