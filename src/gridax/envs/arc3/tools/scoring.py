"""ARC Prize's score for ARC-AGI-3 games, as the ``arc-agi`` toolkit 0.9.9 computes it in
its scorecard (``arc_agi/scorecard.py``, with arcengine 0.9.3), written anew as small pure
functions in NumPy (float64, equal to the toolkit's numbers bit for bit) and in JAX
(jittable, batched over leading axes, in JAX's default float dtype).

What the scorecard counts
-------------------------
The scorecard keeps, for each game, a list of *plays*. A play has a running action count
and, each time its number of completed levels changes, a record of the running count at
that moment.

* ACTION1 to ACTION7 add one to the running count. An action sent while the game is in
  GAME_OVER or WIN makes no frame, and the toolkit leaves the scorecard alone for an
  answer without frames: it costs nothing.
* A RESET that arcengine makes a *level reset* (the level has had an action since it began
  or was last reset, and the game is not won; so also a RESET after GAME_OVER) adds one to
  the running count, charged to the level being played, and one to the play's resets.
* A RESET that arcengine makes a *full reset* (no action yet on the current level, as right
  after a level reset or first thing on a level just reached, or any RESET after WIN) starts
  a new play from level 1 with a count of 0; the old play stays on the card as it was.
  Making the game starts its first play the same way. (With ``ONLY_RESET_LEVELS=true``
  arcengine resets only the level unless the game is won. Under the toolkit's server in
  competition mode, a RESET at the start of a level never reaches the game: the scorecard
  is given the last frame again, which adds one to the running count.)
* So a completed level's action count is every counted action from the previous level's
  completion to its own, the completing action included: failed attempts, the resets
  after a game over, level resets. The first level not completed gets all the actions
  after the last completion, and the levels after it none.

What it scores
--------------
* The levels scored are the entries of the game's ``baseline_actions`` (its
  metadata.json): level ``i`` (from 1) is held against entry ``i - 1`` and weighs ``i``,
  whatever number of levels the game has. cn04 (65d47d14) lists 6 baselines for its 5
  levels, so it is scored on 6 levels of total weight 21, the 6th never completed: its
  best possible score is ``100 * 15 / 21 = 71.43``.
* Levels ``1 .. levels_completed`` are completed (the play's number of completion
  records). A completed level with ``a > 0`` actions and baseline ``b`` scores
  ``min(100 * (b / a) ** 2, 115)``; one with no action scores 0, as does a level not
  completed. Nothing is rounded anywhere.
* A play's score is the weighted mean ``sum(i * s_i) / sum(i)`` over all its levels,
  capped at ``100 * sum(i for s_i > 0) / sum(i)``: the cap counts the levels whose score
  is positive (so a completed level of baseline 0 counts as not completed).
* A play scores 0 (all its levels 0) when the game has no metadata, no baselines, or fewer
  baselines than the play has completion records ("Human baseline actions size mismatch").
* A game's score on the scorecard is the best of its plays' scores (the maximum).
* The scorecard's score is the mean of the games' scores over the games played, that is
  made at least once: a game never made is left out, not counted as 0. Only the toolkit's
  server in competition mode makes every available game as the scorecard closes, so that
  those count 0. The sum of that mean is Python's ``sum``, which from Python 3.12 (the
  toolkit needs 3.12) is Neumaier's compensated sum.

API
---
NumPy: :func:`level_scores`, :func:`game_score`, :func:`best_play_score`,
:func:`overall_score`; JAX: :func:`level_scores_jax`, :func:`game_score_jax`,
:func:`best_play_score_jax`, :func:`overall_score_jax`; :func:`pad_baselines` lays the
baselines of games with different numbers of levels out as one array.

Inputs, broadcast together (``...`` are any leading axes, ``L`` the levels):

* ``level_actions`` ``[..., L]``: the actions charged to each level, as counted above
  (only those of completed levels matter).
* ``levels_completed`` ``[...]``: the number of levels completed in the play.
* ``baseline_actions`` ``[..., L]``: the human baselines, level 1 first.
* ``level_count`` ``[...]``, optional: how many of the ``L`` entries are the game's
  baselines; those past it are padding that weighs nothing. Defaults to ``L``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

ARC_AGI_VERSION = "0.9.9"
LEVEL_SCORE_CEILING = 115.0  # a completed level scores at most this
SCORE_SCALE = 100.0  # a level done in exactly its baseline's actions scores this


def _level_scores(
    xp, float_dtype, square, level_actions, levels_completed, baseline_actions, level_count
):
    """Per-level scores and level weights (0 past ``level_count``), in array module ``xp``
    with ``square`` squaring."""
    level_actions = xp.asarray(level_actions)
    baseline_actions = xp.asarray(baseline_actions)
    levels_completed = xp.asarray(levels_completed)
    number_of_levels = level_actions.shape[-1]
    if level_count is None:
        level_count = number_of_levels
    level_count = xp.asarray(level_count)
    batch_shape = xp.broadcast_shapes(
        level_actions.shape[:-1],
        baseline_actions.shape[:-1],
        levels_completed.shape,
        level_count.shape,
    )
    shape = (*batch_shape, number_of_levels)
    level_actions = xp.broadcast_to(level_actions, shape)
    baseline_actions = xp.broadcast_to(baseline_actions, shape)
    levels_completed = xp.broadcast_to(levels_completed[..., None], shape)
    level_count = xp.broadcast_to(level_count[..., None], shape)

    level_index = xp.broadcast_to(xp.arange(number_of_levels), shape)
    is_baseline = level_index < level_count
    # More completion records than baselines: the scorecard gives the play 0.
    scored = levels_completed <= level_count
    completed = (level_index < levels_completed) & is_baseline & scored
    acted = completed & (level_actions > 0)
    actions = xp.where(acted, level_actions, 1).astype(float_dtype)
    ratio = baseline_actions.astype(float_dtype) / actions
    scores = xp.minimum(square(ratio) * SCORE_SCALE, LEVEL_SCORE_CEILING)
    scores = xp.where(acted, scores, xp.zeros((), float_dtype))
    weights = xp.where(is_baseline, level_index + 1, 0)
    return scores, weights


_libm_pow = np.frompyfunc(math.pow, 2, 1)


def _square_as_python_does(x: np.ndarray) -> np.ndarray:
    """``x ** 2`` as Python computes it for a float: with the C library's ``pow``, whose
    answer now and then (for about 1 ratio in 1,400 here) differs in the last bit from
    ``x * x``, which is what NumPy's ``x ** 2`` computes."""
    return np.asarray(_libm_pow(x, 2.0), np.float64).reshape(np.shape(x))


def _square(x):
    return x * x


def _sum_last_axis_in_order(x: np.ndarray) -> np.ndarray:
    """The sum over the last axis, added left to right as the scorecard's loop does."""
    if x.shape[-1] == 0:
        return np.zeros(x.shape[:-1], x.dtype)
    return np.cumsum(x, axis=-1)[..., -1]


def _exact_level_scores(level_actions, levels_completed, baseline_actions, level_count):
    """:func:`_level_scores` in float64 NumPy, squared as Python squares."""
    return _level_scores(
        np,
        np.float64,
        _square_as_python_does,
        level_actions,
        levels_completed,
        baseline_actions,
        level_count,
    )


def level_scores(level_actions, levels_completed, baseline_actions, level_count=None) -> np.ndarray:
    """Each level's score ``[..., L]`` (float64) as arc-agi 0.9.9's scorecard gives it: a
    completed level with ``a > 0`` actions and baseline ``b`` scores ``min(100 * (b / a) **
    2, 115)``; a completed level without actions, a level not completed and padding past
    ``level_count`` score 0, as do all levels of a play that completed more levels than
    there are baselines. Inputs as in the module's docstring."""
    scores, _ = _exact_level_scores(level_actions, levels_completed, baseline_actions, level_count)
    return scores


def _game_score_from(xp, scores, weights, sum_last_axis):
    float_dtype = scores.dtype
    total_weight = weights.sum(-1).astype(float_dtype)
    weighted_total = sum_last_axis(scores * weights.astype(float_dtype))
    positive_weight = xp.where(scores > 0, weights, 0).sum(-1).astype(float_dtype)
    some_level = total_weight > 0
    divisor = xp.where(some_level, total_weight, xp.ones((), float_dtype))
    mean = weighted_total / divisor
    cap = positive_weight / divisor * SCORE_SCALE
    return xp.where(some_level, xp.minimum(mean, cap), xp.zeros((), float_dtype))


def game_score(level_actions, levels_completed, baseline_actions, level_count=None) -> np.ndarray:
    """A play's score ``[...]`` (float64) as arc-agi 0.9.9's scorecard gives it: the mean
    of :func:`level_scores` weighted by level number (1, 2, ... up to ``level_count``, the
    number of baselines), capped at 100 times the share of that weight held by levels that
    scored more than 0. No baselines (``level_count`` 0) or more levels completed than
    baselines give 0. Equal bit for bit to the toolkit's float arithmetic.

    >>> float(game_score([10, 20, 5], 2, [10, 10, 10]))  # 100 and 25 of 6: 150 / 6
    25.0
    """
    scores, weights = _exact_level_scores(
        level_actions, levels_completed, baseline_actions, level_count
    )
    return _game_score_from(np, scores, weights, _sum_last_axis_in_order)


def best_play_score(play_scores, axis: int = -1) -> np.ndarray:
    """A game's score on the scorecard from its plays' :func:`game_score`: the best one
    (arc-agi 0.9.9 scores every play; a full reset starts a new play)."""
    return np.max(np.asarray(play_scores, np.float64), axis=axis)


def _neumaier_sum_last_axis(x: np.ndarray) -> np.ndarray:
    """Python 3.12's ``sum`` of floats over the last axis: Neumaier's compensated sum,
    the compensation added at the end when it is nonzero and finite."""
    total = np.zeros(x.shape[:-1], np.float64)
    compensation = np.zeros(x.shape[:-1], np.float64)
    for index in range(x.shape[-1]):
        value = x[..., index]
        new_total = total + value
        compensation += np.where(
            np.abs(total) >= np.abs(value), (total - new_total) + value, (value - new_total) + total
        )
        total = new_total
    return np.where((compensation != 0) & np.isfinite(compensation), total + compensation, total)


def overall_score(game_scores, played=None) -> np.ndarray:
    """The scorecard's score ``[...]`` (float64) from its games' scores ``[..., G]`` (each
    the :func:`best_play_score` of the game): their mean over the games ``played``
    (``[..., G]`` bools, default all), as arc-agi 0.9.9 takes it; games not played are
    left out, not counted as 0, and a scorecard with no game played scores 0. The sum is
    Python 3.12's compensated ``sum``, so the result is the toolkit's bit for bit."""
    game_scores = np.asarray(game_scores, np.float64)
    played = np.ones(game_scores.shape, bool) if played is None else np.asarray(played, bool)
    game_scores, played = np.broadcast_arrays(game_scores, played)
    total = _neumaier_sum_last_axis(np.where(played, game_scores, 0.0))
    count = played.sum(-1)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


def _default_float():
    return jnp.zeros(()).dtype


@jax.jit
def level_scores_jax(
    level_actions, levels_completed, baseline_actions, level_count=None
) -> jax.Array:
    """:func:`level_scores` in JAX (jitted; JAX's default float dtype, float32 unless
    ``jax_enable_x64``)."""
    scores, _ = _level_scores(
        jnp,
        _default_float(),
        _square,
        level_actions,
        levels_completed,
        baseline_actions,
        level_count,
    )
    return scores


@jax.jit
def game_score_jax(
    level_actions, levels_completed, baseline_actions, level_count=None
) -> jax.Array:
    """:func:`game_score` in JAX (jitted; JAX's default float dtype, so equal to the
    scorecard's to that dtype's rounding)."""
    scores, weights = _level_scores(
        jnp,
        _default_float(),
        _square,
        level_actions,
        levels_completed,
        baseline_actions,
        level_count,
    )
    return _game_score_from(jnp, scores, weights, lambda x: x.sum(-1))


@jax.jit
def best_play_score_jax(play_scores) -> jax.Array:
    """:func:`best_play_score` in JAX, over the last axis."""
    return jnp.max(play_scores, axis=-1)


@jax.jit
def overall_score_jax(game_scores, played=None) -> jax.Array:
    """:func:`overall_score` in JAX (jitted; a plain sum in JAX's default float dtype)."""
    game_scores = jnp.asarray(game_scores)
    if not jnp.issubdtype(game_scores.dtype, jnp.floating):
        game_scores = game_scores.astype(_default_float())
    played = jnp.ones(game_scores.shape, bool) if played is None else jnp.asarray(played, bool)
    shape = jnp.broadcast_shapes(game_scores.shape, played.shape)
    game_scores, played = jnp.broadcast_to(game_scores, shape), jnp.broadcast_to(played, shape)
    total = jnp.where(played, game_scores, 0).sum(-1)
    count = played.sum(-1)
    mean = total / jnp.maximum(count, 1).astype(game_scores.dtype)
    return jnp.where(count > 0, mean, 0)


def pad_baselines(baselines_per_game: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The baselines of several games as one ``[G, L]`` int32 array, each game's padded
    with 0 to the longest, and each game's ``level_count`` ``[G]``: what the functions
    above take to score games of different numbers of levels together. Give each game all
    the entries of its ``baseline_actions`` (``official.load(game).baseline_actions``),
    even past its number of levels, as the scorecard does."""
    counts = np.array([len(b) for b in baselines_per_game], np.int32)
    table = np.zeros((len(counts), int(counts.max(initial=0))), np.int32)
    for row, baselines in enumerate(baselines_per_game):
        table[row, : len(baselines)] = baselines
    return table, counts
