"""Generated ARC tasks: valid grids, every pair obeys its family's rule (checked by the
NumPy rules below, written independently of the generator), determinism per seed, a
4,096-env jitted reset, and the env features (checkpoints, registry) on generated tasks."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gridax
from gridax.envs import arc
from gridax.envs.arc.tasks.generators import FAMILIES, MIXTURE, Generator
from gridax.serialization import load_state, save_state

SEEDS = np.arange(24) * 7919 + 11  # 24 tasks per family


def bounds(grid):
    rows, cols = np.nonzero(grid)
    return rows.min(), rows.max(), cols.min(), cols.max()


def np_flip_object(grid, p):
    top, bottom, left, right = bounds(grid)
    out = grid.copy()
    out[top : bottom + 1, left : right + 1] = grid[top : bottom + 1, left : right + 1][:, ::-1]
    return out


def np_rotate_object(grid, p):
    top, bottom, left, right = bounds(grid)
    assert bottom - top == right - left  # a square object
    out = grid.copy()
    out[top : bottom + 1, left : right + 1] = np.rot90(grid[top : bottom + 1, left : right + 1], -1)
    return out


def np_translate(grid, p):
    step = {0: (-1, 0), 1: (1, 0), 2: (0, -1), 3: (0, 1)}[p["direction"]]
    out = np.zeros_like(grid)
    for row, col in zip(*np.nonzero(grid), strict=True):
        out[row + step[0] * p["distance"], col + step[1] * p["distance"]] = grid[row, col]
    return out


def np_draw_box(grid, p):
    top, bottom, left, right = bounds(grid)
    assert top >= 1 and left >= 1 and bottom + 1 < grid.shape[0] and right + 1 < grid.shape[1]
    out = grid.copy()
    out[top - 1, left - 1 : right + 2] = out[bottom + 1, left - 1 : right + 2] = p["c"]
    out[top - 1 : bottom + 2, left - 1] = out[top - 1 : bottom + 2, right + 1] = p["c"]
    return out


def np_recolour(grid, p):
    assert (grid == p["a"]).any()  # the rule is visible in every pair
    return np.where(grid == p["a"], p["b"], grid)


def np_fill(grid, p):
    assert (grid == 0).any()
    return np.where(grid == 0, p["c"], grid)


NUMPY_RULES = {
    "copy": lambda g, p: g,
    "recolour": np_recolour,
    "fill_background": np_fill,
    "flip_horizontal": lambda g, p: g[:, ::-1],
    "flip_vertical": lambda g, p: g[::-1],
    "rotate": lambda g, p: np.rot90(g, -1),
    "flip_object": np_flip_object,
    "rotate_object": np_rotate_object,
    "translate": np_translate,
    "draw_box": np_draw_box,
    "scale": lambda g, p: np.kron(g, np.ones((p["factor"], p["factor"]), g.dtype)),
    "flip_recolour": lambda g, p: np_recolour(g[:, ::-1], p),
    "translate_recolour": lambda g, p: np_recolour(np_translate(g, p), p),
    "rotate_fill": lambda g, p: np_fill(np.rot90(g, -1), p),
}
ONE_OBJECT = {"flip_object", "rotate_object", "translate", "draw_box", "translate_recolour"}


def live(grids, shapes, task, part, pair):
    height, width = (int(v) for v in shapes[task, pair])
    grid = np.asarray(grids[task, pair])
    assert 1 <= height <= 30 and 1 <= width <= 30
    assert grid.min() >= 0 and grid.max() <= 9
    assert not grid[height:].any() and not grid[:, width:].any(), f"{part}: dead cells"
    return grid[:height, :width]


def check_task(generator, bank, index, seed):
    parameters = jax.device_get(generator.parameters(jnp.int32(seed)))
    family = FAMILIES[int(parameters.family)]
    p = {
        "a": int(parameters.source_colour),
        "b": int(parameters.new_colour),
        "c": int(parameters.new_colour),
        "direction": int(parameters.direction),
        "distance": int(parameters.distance),
        "factor": int(parameters.factor),
    }
    assert p["a"] != p["b"] and 1 <= p["a"] <= 9 and 1 <= p["b"] <= 9
    for part in ("train", "test"):
        pairs = bank.pairs(part)
        for pair in range(int(pairs.count[index])):
            grid = live(pairs.inputs, pairs.input_shapes, index, part, pair)
            expected = NUMPY_RULES[family](grid, p)
            output = live(pairs.outputs, pairs.output_shapes, index, part, pair)
            np.testing.assert_array_equal(output, expected, err_msg=f"{family} {seed} {pair}")
            colours = set(np.unique(grid)) - {0}
            assert len(colours) <= generator.num_colours, colours
            if family in ONE_OBJECT:
                assert grid.any()
    return family


@pytest.mark.parametrize("family", FAMILIES)
def test_every_pair_of_every_family_obeys_its_rule(family):
    generator = Generator(family, min_size=4, max_size=12, num_objects=3, num_colours=4)
    bank = generator.bank(SEEDS)
    assert bank.train_inputs.shape == (len(SEEDS), 3, 30, 30) and bank.num_test.tolist() == [1] * 24
    for index, seed in enumerate(SEEDS):
        assert check_task(generator, bank, index, seed) == family


def test_the_mixture_draws_every_family_and_each_obeys_its_rule():
    generator = Generator(MIXTURE, max_size=8)
    seeds = np.arange(300)
    bank = generator.bank(seeds)
    families = {check_task(generator, bank, i, s) for i, s in enumerate(seeds)}
    assert families == set(FAMILIES)


def test_knobs_bound_sizes_objects_and_colours():
    generator = Generator("copy", min_size=5, max_size=7, num_objects=1, num_colours=1)
    bank = generator.bank(SEEDS)
    shapes = np.asarray(bank.train_input_shapes)
    assert shapes.min() == 5 and shapes.max() == 7
    grids = np.asarray(bank.train_inputs)
    assert all(len(set(np.unique(g)) - {0}) == 1 for g in grids.reshape(-1, 900))
    scale = Generator("scale", max_size=30).bank(SEEDS)
    assert int(scale.train_input_shapes.max()) == 10  # room for a factor of 3
    assert int(scale.train_output_shapes.max()) <= 30


def test_generation_is_a_function_of_the_seed():
    generator = Generator("translate_recolour")
    alone, batched = jax.jit(generator.task)(123), generator.bank([5, 123, 124])
    second = jax.tree.map(lambda x: x[1:2], batched.arrays_only())
    assert eqx.tree_equal(alone.arrays_only(), second)  # one program alone, one batched
    assert not np.array_equal(batched.train_inputs[1], batched.train_inputs[2])
    config = arc.ArcConfig()
    state, _ = arc.reset(jax.random.key(5), config, generator)
    replay, _ = arc.reset(jax.random.key(9), config, generator, task_index=state.task_index)
    assert int(replay.task_index) == int(state.task_index)
    seed, pair = int(state.task_index), int(state.pair_index)
    assert np.array_equal(state.input_grid, generator.bank([seed]).train_inputs[0, pair])
    assert np.array_equal(replay.input_grid, state.input_grid) or pair != int(replay.pair_index)


def test_a_batch_of_4096_generates_inside_one_jitted_reset():
    config = arc.ArcConfig(mode="eval")
    keys = jax.random.split(jax.random.key(0), 4096)
    states, obs = arc.batch_reset(keys, config, Generator(MIXTURE))
    assert states.input_grid.shape == (4096, 30, 30)
    assert len(np.unique(np.asarray(states.task_index))) > 4000  # fresh task per env
    assert np.asarray(states.pair_index).max() == 0  # eval plays the test pair
    assert np.asarray(states.target_shape).max() <= 30


def test_checkpoints_and_pictures_of_generated_episodes(tmp_path):
    """A checkpoint keeps the seed, not the grids; a render shows the regenerated task."""
    env = gridax.make("ArcGen-FlipRecolour-v0", max_size=9)
    states, _ = env.batch_reset(jax.random.split(jax.random.key(2), 6))
    path = save_state(tmp_path / "gen.ckpt", states, env)
    loaded = load_state(path, states, env)
    assert eqx.tree_equal(loaded, states)
    image = env.render(loaded, path=tmp_path / "gen.png", show_target=True)
    assert image.dtype == np.uint8 and (tmp_path / "gen.png").stat().st_size > 0
    other = gridax.make("ArcGen-FlipRecolour-v0", max_size=10).default_params
    with pytest.raises(ValueError, match=r"refers to tasks of 'generator:flip_recolour\(sizes 3-9"):
        load_state(path, states, env, other)


def test_registry_ids_and_knob_errors():
    ids = [i for i in gridax.registered_ids() if i.startswith("ArcGen-")]
    assert "ArcGen-Recolour-v0" in ids and "ArcGen-Mixture-v0" in ids and len(ids) == 15
    env = gridax.make("ArcGen-Translate-v0", num_pairs=2, selection_format="mask")
    assert env.default_params == Generator("translate", num_pairs=2)
    assert env.config.selection_format == "mask"
    with pytest.raises(ValueError, match="Generator: max_size must be an integer in 3..30; got 31"):
        gridax.make("ArcGen-Recolour-v0", max_size=31)
    with pytest.raises(ValueError, match="min_size \\(9\\) must not exceed max_size \\(5\\)"):
        gridax.make("ArcGen-Recolour-v0", min_size=9, max_size=5)
    with pytest.raises(ValueError, match="argument 'num_object'; did you mean 'num_objects'"):
        gridax.make("ArcGen-Copy-v0", num_object=2)
    with pytest.raises(ValueError, match="family must be one of 'copy', "):
        Generator("rotate_cw")
    with pytest.raises(ValueError, match="task_index=-1 must be in 0..2\\^31-1"):
        arc.reset(jax.random.key(0), arc.ArcConfig(), Generator(), task_index=-1)
