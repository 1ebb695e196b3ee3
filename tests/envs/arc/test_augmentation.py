"""Task augmentation: the group laws, NumPy's dihedral transforms, colour 0 kept by
default, every evaluation test pair of ARC-AGI-1 and ARC-AGI-2 solved under random
augmentations and mapped back by invert, checkpoints, pictures and evaluate."""

import json

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
import gridax.testing
from gridax.envs import arc
from gridax.envs.arc import augmentation as augment
from gridax.serialization import load_state, save_state

ASYMMETRIC = np.array([[1, 2, 3], [4, 5, 6]], np.int8)  # no symmetry of the square fixes it


def canvas(grid):
    out = np.zeros((30, 30), np.int8)
    out[: grid.shape[0], : grid.shape[1]] = grid
    return jnp.asarray(out), jnp.array(grid.shape, jnp.int32)


def live(grid, shape):
    return np.asarray(grid)[: int(shape[0]), : int(shape[1])]


def numpy_dihedral(grid, transform):
    flipped = np.fliplr(grid) if transform >= 4 else grid
    return np.rot90(flipped, k=-(transform % 4))  # clockwise quarter turns


@pytest.mark.parametrize("transform", range(8))
def test_dihedral_transforms_match_numpy_and_invert(transform):
    grid, shape = canvas(ASYMMETRIC)
    aug = augment.Augmentation(transform, jnp.arange(10), jnp.zeros(2))
    out, out_shape = augment.apply(grid, shape, aug)
    np.testing.assert_array_equal(live(out, out_shape), numpy_dihedral(ASYMMETRIC, transform))
    assert not np.asarray(out)[int(out_shape[0]) :].any()  # dead cells stay 0
    back, back_shape = augment.invert(out, out_shape, aug)
    np.testing.assert_array_equal(np.asarray(back), np.asarray(grid))
    assert back_shape.tolist() == [2, 3]


def test_eight_distinct_results_and_random_augmentations_invert():
    grid, shape = canvas(ASYMMETRIC)
    results = set()
    for t in range(8):
        out, out_shape = augment.apply(grid, shape, augment.Augmentation(t, jnp.arange(10), [0, 0]))
        results.add(live(out, out_shape).tobytes() + bytes(out_shape.tolist()))
    assert len(results) == 8
    rng = np.random.default_rng(0)
    draws = jax.random.uniform(jax.random.key(0), (200, augment.DRAWS))
    for u in draws:
        height, width = rng.integers(1, 12, 2)
        original = rng.integers(0, 10, (height, width)).astype(np.int8)
        grid, shape = canvas(original)
        aug = augment.draw(u, permute_zero=bool(rng.integers(2)), max_offset=30 - 11)
        out, out_shape = augment.apply(grid, shape, aug)
        assert int(out_shape.max()) <= 30
        back, back_shape = augment.invert(out, out_shape, aug)
        np.testing.assert_array_equal(np.asarray(back), np.asarray(grid))
        np.testing.assert_array_equal(back_shape, shape)


def test_colour_zero_is_kept_unless_all_ten_are_permuted():
    draws = jax.random.uniform(jax.random.key(1), (500, augment.DRAWS))
    kept = jax.vmap(lambda u: augment.draw(u, False, 0).colours)(draws)
    every = jax.vmap(lambda u: augment.draw(u, True, 0).colours)(draws)
    assert (np.asarray(kept)[:, 0] == 0).all()
    assert (np.sort(np.asarray(every), axis=1) == np.arange(10)).all()
    assert 0.05 < (np.asarray(every)[:, 0] != 0).mean() < 1.0  # 0 moves in 9 of 10
    assert len({tuple(c) for c in np.asarray(kept).tolist()}) > 400  # 9! orders


@pytest.mark.parametrize("source", ["arc-agi-1", "arc-agi-2"])
def test_every_evaluation_test_pair_is_solved_augmented_and_inverted_back(source):
    tasks = arc.load_tasks(source, "evaluation")
    config = arc.ArcConfig(
        mode="eval", selection_format="mask", max_episode_steps=12, augment=True,
        augment_all_colours=True, augment_translate=True,
    )  # fmt: skip
    counts = np.asarray(tasks.num_test)
    task_index = np.repeat(np.arange(len(tasks)), counts)
    pair_index = np.concatenate([np.arange(c) for c in counts])
    for seed in range(3):
        keys = jax.random.split(jax.random.key(seed), len(task_index))
        states, _ = arc.batch_reset(keys, config, tasks, task_index, pair_index)
        played = arc.demonstrations.replay(states, arc.demonstrations.paint(states, config), config)
        assert bool(played.success.all())
        final = played.states
        grids, shapes = jax.vmap(arc.invert)(
            final.working_grid, final.working_shape, final.augmentation
        )
        outputs = tasks.test_outputs[task_index, pair_index]
        np.testing.assert_array_equal(grids, outputs)
        np.testing.assert_array_equal(shapes, tasks.test_output_shapes[task_index, pair_index])
        assert len(np.unique(np.asarray(final.augmentation.transform))) == 8


def test_the_same_key_picks_the_same_episode_with_and_without_augmentation():
    tasks = arc.load_tasks("arc-agi-1")
    plain, _ = arc.reset(jax.random.key(7), arc.ArcConfig(), tasks)
    augmented, _ = arc.reset(jax.random.key(7), arc.ArcConfig(augment=True), tasks)
    assert plain.augmentation is None
    assert (augmented.task_index, augmented.pair_index) == (plain.task_index, plain.pair_index)
    expected = augment.apply(plain.target_grid, plain.target_shape, augmented.augmentation)
    np.testing.assert_array_equal(augmented.target_grid, expected[0])
    assert eqx.tree_equal(augmented.key, plain.key)


def test_checkpoints_restore_augmented_grids_and_context(tmp_path):
    env = gridax.make("ArcAgi1-v0", augment=True, augment_translate=True, context=True)
    states, _ = env.batch_reset(jax.random.split(jax.random.key(3), 6))
    path = save_state(tmp_path / "a.ckpt", states, env)
    like, _ = env.batch_reset(jax.random.split(jax.random.key(4), 6))
    assert eqx.tree_equal(load_state(path, like, env), states)
    gridax.testing.check_env(env, num_envs=2, num_steps=3)


def test_pictures_say_how_the_episode_was_augmented(tmp_path):
    env = gridax.make("ArcAgi1-v0", augment=True)
    state, _ = env.reset(jax.random.key(0))
    words = augment.describe(state.augmentation)
    assert "colours 0" in words
    plain = gridax.make("ArcAgi1-v0")
    assert env.render(state).shape[1] > plain.render(plain.reset(jax.random.key(0))[0]).shape[1]


def test_evaluate_inverts_augmented_answers(tmp_path):
    copy = {"input": [[1, 2], [0, 3]], "output": [[1, 2], [0, 3]]}
    tasks = arc.tasks_from_dict({"copy": {"train": [copy], "test": [copy]}})
    config = arc.ArcConfig(mode="eval", augment=True, augment_translate=True)

    def submit(obs, key):
        return arc.PointAction(arc.SUBMIT, 0, 0)

    evaluation = arc.evaluate(submit, tasks, config, attempts=2)
    assert evaluation.score.score == 1.0  # the augmented input, inverted, is the answer
    json.dumps(arc.scoring.to_submission(evaluation.attempts))


def test_bad_augmentation_settings_are_named():
    with pytest.raises(ValueError, match="ArcConfig.augment_translate needs augment=True"):
        arc.ArcConfig(augment_translate=True)
    env = gridax.make("ArcGen-Translate-v0", augment=True, selection_format="mask")
    states, _ = env.batch_reset(jax.random.split(jax.random.key(0), 2))
    with pytest.raises(ValueError, match="natural demonstrations follow the family's own rule"):
        arc.demonstrations.natural(states, env.config, env.default_params)
    with pytest.raises(ValueError, match="the state is augmented but the ArcConfig"):
        arc.step(
            jax.tree.map(lambda x: x[0], states),
            arc.MaskAction(0, states.input_grid[0] > 0),
            arc.ArcConfig(selection_format="mask"),
        )
