"""Batching rules that keep rare or heavy work out of the common ``vmap`` path.

Under ``vmap`` a per-env ``lax.cond`` turns into a ``select``: both branches run for
every env on every step. :func:`cond_rare` keeps the single-env ``lax.cond`` and,
when batched, skips the branch for the whole batch when no env needs it, which is
what makes rare events (a biome regenerating, an object expiring) cheap in
``batch_step``.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp


def broadcast_unbatched(axis_size: int, in_batched, args):
    """``args`` with every unbatched leaf given the batch axis of its batched peers."""
    return jax.tree.map(
        lambda x, batched: x if batched else jnp.broadcast_to(x, (axis_size,) + jnp.shape(x)),
        args,
        in_batched,
    )


def whole_batch_rule(function: Callable):
    """A ``custom_vmap`` rule that runs ``function`` once on the whole batch.

    ``function`` handles any leading axes itself, so the batched call is the function
    applied to the batched arrays (unbatched arguments are broadcast first). Nested
    ``vmap`` works the same way, one level at a time.
    """

    def rule(axis_size, in_batched, *args):
        return function(*broadcast_unbatched(axis_size, list(in_batched), list(args))), True

    return rule


def select_envs(mask, new, old):
    """Per env of a batch: ``new`` where ``mask`` (one bool per env), ``old`` elsewhere,
    for trees whose leaves all carry the batch axis first."""

    def pick(a, b):
        return jnp.where(mask.reshape(mask.shape + (1,) * (a.ndim - 1)), a, b)

    return jax.tree.map(pick, new, old)


def cond_rare(pred, true_fun: Callable, operand, *args):
    """``true_fun(operand, *args) if pred else operand``, as ``lax.cond`` for one env.

    Batched, the branch runs (for the whole batch, selected per env) only when some env
    in the batch needs it; otherwise the step costs one ``any`` over ``pred``.
    ``true_fun`` returns a pytree like ``operand`` (structure, shapes, dtypes). Pass
    every per-env value it needs through ``args``: a custom batching rule cannot see
    batched values that ``true_fun`` closes over.
    """

    def branch(operand, args):
        return true_fun(operand, *args)

    def keep(operand, args):
        return operand

    @jax.custom_batching.custom_vmap
    def run(pred, operand, args):
        return jax.lax.cond(pred, branch, keep, operand, args)

    @run.def_vmap
    def rule(axis_size, in_batched, pred, operand, args):
        pred, operand, args = broadcast_unbatched(
            axis_size, list(in_batched), [pred, operand, args]
        )

        def some(operand, args):
            return select_envs(pred, jax.vmap(branch)(operand, args), operand)

        out = jax.lax.cond(jnp.any(pred), some, keep, operand, args)
        return out, jax.tree.map(lambda _: True, out)

    return run(pred, operand, args)
