"""gridax.geometry: rectangles on grids, corners included, batched or not."""

import jax.numpy as jnp
import numpy as np

from gridax.geometry import box_mask


def test_box_mask_includes_its_corners():
    mask = np.asarray(box_mask(1, 2, 2, 4, (4, 6)))
    expected = np.zeros((4, 6), bool)
    expected[1:3, 2:5] = True
    np.testing.assert_array_equal(mask, expected)


def test_box_mask_of_a_batch_and_of_no_cell():
    masks = np.asarray(box_mask(jnp.array([0, 2]), 0, jnp.array([0, 1]), 1, (3, 3)))
    assert masks.shape == (2, 3, 3)
    assert masks[0].sum() == 2 and masks[1].sum() == 0  # bottom above top: empty
