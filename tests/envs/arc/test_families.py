"""Family records: each rule on a hand-made grid against the NumPy rules of
test_generators, each record's input options as its rule needs them, and the order of
the records, which numbers the families."""

import jax.numpy as jnp
import numpy as np
import pytest

from gridax.envs.arc.tasks import families
from gridax.envs.arc.tasks.families import TaskParameters
from gridax.envs.arc.tasks.generators import FAMILIES, MIXTURE, Generator
from tests.envs.arc.test_generators import NUMPY_RULES, ONE_OBJECT

GRID = np.array([[0, 0, 0, 0, 0], [0, 3, 3, 0, 0], [0, 3, 0, 0, 0], [0, 0, 0, 0, 0]], np.int8)


def parameters(direction=3, distance=1):
    return TaskParameters(
        family=jnp.int32(0),
        palette=jnp.arange(1, 10, dtype=jnp.int32),
        source_colour=jnp.int32(3),
        new_colour=jnp.int32(7),
        direction=jnp.int32(direction),
        distance=jnp.int32(distance),
        factor=jnp.int32(2),
        pairs_key=jnp.zeros(2, jnp.uint32),
    )


@pytest.mark.parametrize("name", list(families.FAMILIES))
def test_each_rule_matches_its_numpy_rule(name):
    canvas = np.zeros((30, 30), np.int8)
    canvas[: GRID.shape[0], : GRID.shape[1]] = GRID
    shape = jnp.array(GRID.shape, jnp.int32)
    output, output_shape = families.FAMILIES[name].rule(jnp.asarray(canvas), shape, parameters())
    height, width = (int(v) for v in output_shape)
    p = {"a": 3, "b": 7, "c": 7, "direction": 3, "distance": 1, "factor": 2}
    np.testing.assert_array_equal(np.asarray(output)[:height, :width], NUMPY_RULES[name](GRID, p))
    assert not np.asarray(output)[height:].any() and not np.asarray(output)[:, width:].any()


def test_records_say_what_their_inputs_need():
    assert {n for n, f in families.FAMILIES.items() if f.one_object} == ONE_OBJECT
    for name, family in families.FAMILIES.items():
        rotates = "rotate" in name and "object" not in name
        assert family.square_grid == rotates, name  # a rotated non-square grid changes shape
        assert family.ends_with_moves == family.room_for_move == ("translate" in name), name
        assert (family.demonstration is None) == (name == "scale"), name


def test_a_mixture_seed_names_the_same_family_as_before():
    """The records' order numbers the families (``TaskParameters.family``), so moving a
    record, or adding one, changes the task a saved mixture seed (a checkpoint's
    ``task_index``) names. A new family changes this list on purpose: say so in the
    CHANGELOG."""
    assert FAMILIES == (
        "copy",
        "recolour",
        "fill_background",
        "flip_horizontal",
        "flip_vertical",
        "rotate",
        "flip_object",
        "rotate_object",
        "translate",
        "draw_box",
        "scale",
        "flip_recolour",
        "translate_recolour",
        "rotate_fill",
    )
    # ... and the draw of a family from a seed is stable.
    generator = Generator(MIXTURE)
    named = [FAMILIES[int(generator.parameters(jnp.int32(seed)).family)] for seed in range(8)]
    assert named == [
        "rotate_fill",
        "rotate_object",
        "draw_box",
        "flip_horizontal",
        "translate",
        "flip_recolour",
        "recolour",
        "flip_horizontal",
    ]
