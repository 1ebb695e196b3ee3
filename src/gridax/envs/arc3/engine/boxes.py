"""Sprites whose shape never changes, as a few boxes: collisions by arithmetic.

arcengine tests a collision of pixel-perfect sprites pixel by pixel, and the engine's
``collisions`` reads every cell of the moving sprite's box in every other sprite (its
pixels turned, mirrored and scaled as drawn). A game whose movable sprites keep their
shape (their pixels change colour, never to or from transparent) can hold each one's
solid cells as a few boxes instead, worked out once when its levels are built
(:func:`solid_boxes`), and test them against each other (:func:`boxes_meet`) or against
cells (:func:`in_boxes`) by comparisons alone. ka59's blocks, bombs and stones (every
one a box, or a cross of two) made its rule 2x cheaper that way (benchmarks/RESULTS.md).

A box is ``(left, top, right, bottom)`` in cells, right and bottom exclusive; an empty
box (``right <= left``) meets nothing, so a sprite's list is padded with zeros.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3.engine.sprites import TRANSPARENT, Sprite


def drawn_grid(sprite: Sprite) -> np.ndarray:
    """A sprite's pixels as drawn (turned clockwise, mirrored, scaled up)."""
    pixels = np.rot90(np.asarray(sprite.pixels), k=-(sprite.rotation // 90))
    pixels = np.flipud(pixels) if sprite.mirror_ud else pixels
    pixels = np.fliplr(pixels) if sprite.mirror_lr else pixels
    up = max(sprite.scale, 1)
    return np.repeat(np.repeat(pixels, up, axis=0), up, axis=1)


def solid_boxes(sprite: Sprite, most: int) -> np.ndarray:
    """``[most, 4]``: boxes from the sprite's corner whose union is the cells where it
    is drawn solid (any pixel but -1), zeros past the last: each the first cell not yet
    covered (row by row) grown right, then down, as far as the cells stay solid. A
    ``ValueError`` names the sprite if it takes more than ``most``."""
    solid = drawn_grid(sprite) != TRANSPARENT
    height, width = solid.shape
    uncovered = solid.copy()
    boxes = np.zeros((most, 4), np.int32)
    for n in range(most):
        if not uncovered.any():
            break
        top, left = np.argwhere(uncovered)[0]
        right = left
        while right < width and solid[top, right]:
            right += 1
        bottom = top
        while bottom < height and solid[bottom, left:right].all():
            bottom += 1
        boxes[n] = left, top, right, bottom
        uncovered[top:bottom, left:right] = False
    if uncovered.any():
        raise ValueError(f"sprite {sprite.kind!r}: its solid cells take more than {most} boxes")
    return boxes


def boxes_at(boxes, x, y):
    """``boxes`` (``[..., K, 4]``, from a sprite's corner) moved to world cell ``(x,
    y)`` (its corner; arrays of the boxes' leading shape)."""
    corner = jnp.stack([x, y, x, y], axis=-1)
    return boxes + corner[..., None, :]


def boxes_meet(a, b):
    """Whether any box of ``a`` (``[..., K, 4]``) overlaps any of ``b`` (``[..., J,
    4]``; leading shapes of one rank that broadcast): ``[...]``."""
    a, b = a[..., :, None, :], b[..., None, :, :]
    overlap = (a[..., 0] < b[..., 2]) & (b[..., 0] < a[..., 2])
    overlap = overlap & (a[..., 1] < b[..., 3]) & (b[..., 1] < a[..., 3])
    return jnp.any(overlap, axis=(-2, -1))


def in_boxes(x, y, boxes):
    """Whether cells ``(x, y)`` (arrays that broadcast together) lie in any of
    ``boxes`` (``[K, 4]``)."""
    shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
    x, y = (jnp.broadcast_to(v, shape)[..., None] for v in (x, y))
    boxes = jnp.reshape(boxes, (1,) * len(shape) + boxes.shape)
    inside = (x >= boxes[..., 0]) & (x < boxes[..., 2]) & (y >= boxes[..., 1])
    return jnp.any(inside & (y < boxes[..., 3]), axis=-1)
