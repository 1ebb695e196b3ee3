"""Similarity to the target and the reward of the ARC environment (when an episode
ends is :mod:`~gridax.envs.arc.termination`)."""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Bool, Float32, Int8, Int32

from gridax.envs.arc.config import ArcConfig
from gridax.envs.arc.grid import live_mask


def similarity(
    grid: Int8[Array, "30 30"],
    shape: Int32[Array, 2],
    target: Int8[Array, "30 30"],
    target_shape: Int32[Array, 2],
) -> tuple[Float32[Array, ""], Bool[Array, ""]]:
    """Fraction of matching cells over the union of the two live rectangles.

    A cell counts as matching when it is live in both grids and has the same colour, so
    extra working cells outside the target lower the score and a grid of the wrong shape
    is never a full match. Returns ``(similarity, exact)`` where ``exact`` is true iff
    the shapes are equal and every cell matches (i.e. similarity is exactly 1).
    """
    overlap = jnp.minimum(shape, target_shape)
    matches = jnp.sum(live_mask(overlap) & (grid == target), dtype=jnp.int32)
    union = shape[0] * shape[1] + target_shape[0] * target_shape[1] - overlap[0] * overlap[1]
    return matches.astype(jnp.float32) / union.astype(jnp.float32), matches == union


def reward(
    config: ArcConfig,
    similarity_before: Float32[Array, ""],
    similarity_after: Float32[Array, ""],
    submitted: Bool[Array, ""],
    solved: Bool[Array, ""],
    invalid: Bool[Array, ""],
) -> Float32[Array, ""]:
    """The reward of one live step (see ``docs/arc.md``)."""
    success = submitted & solved
    if config.reward_mode == "sparse":
        return jnp.where(success, jnp.float32(config.success_bonus), jnp.float32(0.0))
    terms = (
        config.similarity_weight * (similarity_after - similarity_before)
        + config.step_penalty
        + jnp.where(success, jnp.float32(config.success_bonus), jnp.float32(0.0))
        + jnp.where(
            submitted & ~solved, jnp.float32(config.failed_submit_penalty), jnp.float32(0.0)
        )
        + jnp.where(invalid, jnp.float32(config.invalid_action_penalty), jnp.float32(0.0))
    )
    return terms.astype(jnp.float32)
