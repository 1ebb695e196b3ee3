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
from jax import core as jax_core


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


def cond_rare(
    pred, true_fun: Callable, operand, *args, compact_to: float = 0.0, chunks: bool = False
):
    """``true_fun(operand, *args) if pred else operand``, as ``lax.cond`` for one env.

    Batched, the branch runs (for the whole batch, selected per env) only when some env
    in the batch needs it; otherwise the step costs a count of ``pred``. With
    ``compact_to`` > 0, when at most ``max(1, int(batch size * compact_to))`` envs need
    it, the branch runs on those envs alone, gathered into a sub-batch of that size (one
    more compiled branch): for events that a few envs meet at a time, not all at once.
    With ``chunks`` too, more envs than that run a sub-batch at a time in a loop instead
    of on the whole batch: the branch is compiled once, not twice (a branch that is
    costly to compile), and many envs needing it at once cost more.
    ``true_fun`` returns a pytree like ``operand`` (structure, shapes, dtypes). Pass
    every per-env value it needs through ``args``: a custom batching rule cannot see
    batched values that ``true_fun`` closes over. Unbatched ``args`` (the same for every
    env) reach the branch unbatched, never copied per env.
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
        pred_batched, operand_batched, args_batched = in_batched
        pred, operand = broadcast_unbatched(
            axis_size, [pred_batched, operand_batched], [pred, operand]
        )
        # What is the same for every env (a table the branch reads) stays unbatched.
        branch_axes = (0, jax.tree.map(lambda batched: 0 if batched else None, args_batched))

        size = max(1, int(axis_size * compact_to)) if compact_to else axis_size

        def every(operand, args):
            return select_envs(pred, jax.vmap(branch, in_axes=branch_axes)(operand, args), operand)

        def run_on(needing, operand, args):
            """The branch on up to ``size`` of the ``needing`` envs, and those envs."""
            # Padding ids (axis_size) read the last env and their writes are dropped.
            ids = jnp.nonzero(needing, size=size, fill_value=axis_size)[0]

            def gather(x, batched=True):
                return x.at[ids].get(mode="clip") if batched else x

            gathered = jax.tree.map(gather, operand), jax.tree.map(gather, args, args_batched)
            out = jax.vmap(branch, in_axes=branch_axes)(*gathered)
            return jax.tree.map(lambda x, y: x.at[ids].set(y, mode="drop"), operand, out), ids

        def only_needed(operand, args):
            return run_on(pred, operand, args)[0]

        def in_chunks(operand, args):
            def next_chunk(carry):
                operand, needing = carry
                operand, ids = run_on(needing, operand, args)
                return operand, needing.at[ids].set(False, mode="drop")

            carry = (operand, pred)
            return jax.lax.while_loop(lambda c: jnp.any(c[1]), next_chunk, carry)[0]

        count = jnp.sum(pred, dtype=jnp.int32)
        branches = [keep, every]
        if chunks and size < axis_size:
            branches = [keep, in_chunks]
            index = (count > 0).astype(jnp.int32)
        elif size < axis_size:
            branches.insert(1, only_needed)
            index = (count > 0).astype(jnp.int32) + (count > size).astype(jnp.int32)
        else:
            index = (count > 0).astype(jnp.int32)
        out = jax.lax.switch(index, branches, operand, args)
        return out, jax.tree.map(lambda _: True, out)

    return run(pred, operand, args)


def with_constants_passed(fun: Callable, *args):
    """``(replay, consts)``: ``fun`` traced on ``args``, as a function of its constants
    (the arrays it makes from NumPy data: a lookup table, a level's pixels) and the same
    arguments, ``replay(consts, *args) == fun(*args)``. For custom batching rules: inside
    a batched loop JAX counts the constants a rule's function closes over as batched,
    and refuses them; passed as arguments, they are what they are."""
    closed, shape = jax.make_jaxpr(fun, return_shape=True)(*args)

    def replay(consts, *args):
        out = jax_core.eval_jaxpr(closed.jaxpr, consts, *jax.tree.leaves(args))
        return jax.tree.unflatten(jax.tree.structure(shape), out)

    return replay, list(closed.consts)


def cond_select(pred, true_fun: Callable, false_fun: Callable, *operands):
    """``lax.cond(pred, true_fun, false_fun, *operands)`` for one env; batched, both
    branches run on the whole batch and are selected per env, as ``lax.cond`` does under
    ``vmap``, but what is not batched stays so: ``lax.cond`` batches every operand,
    the constants its branches close over included (a game's level data copied once per
    env, every step)."""
    on_true, true_consts = with_constants_passed(true_fun, *operands)
    on_false, false_consts = with_constants_passed(false_fun, *operands)

    def branches(consts, operands):
        return on_true(consts[0], *operands), on_false(consts[1], *operands)

    @jax.custom_batching.custom_vmap
    def run(pred, consts, operands):
        return jax.lax.cond(
            pred,
            lambda c, o: on_true(c[0], *o),
            lambda c, o: on_false(c[1], *o),
            consts,
            operands,
        )

    @run.def_vmap
    def rule(axis_size, in_batched, pred, consts, operands):
        pred_batched, consts_batched, operands_batched = in_batched
        if not pred_batched:
            pred = jnp.broadcast_to(pred, (axis_size,))
        axes = jax.tree.map(
            lambda batched: 0 if batched else None, (consts_batched, operands_batched)
        )
        if_true, if_false = jax.vmap(branches, in_axes=axes)(consts, operands)
        chosen = select_envs(pred, if_true, if_false)
        return chosen, jax.tree.map(lambda _: True, chosen)

    return run(pred, [true_consts, false_consts], operands)


def loop_to_largest(count, body: Callable, init, *operands):
    """``lax.fori_loop(0, count, lambda i, c: body(i, c, *operands), init)`` for one
    env, where a pass past an env's ``count`` leaves its carry as it is (a list painted
    a chunk at a time, whose chunks past its end paint nothing:
    :func:`gridax.envs.arc3.engine.painting.paint_view`).

    Batched, the loop runs the batch's largest ``count`` of passes over the whole batch,
    with no select per env: a batched ``fori_loop`` selects every env's carry at every
    pass. Pass every per-env value ``body`` needs through ``operands`` (as for
    :func:`cond_rare`); unbatched ones stay unbatched."""

    @jax.custom_batching.custom_vmap
    def run(count, init, operands):
        return jax.lax.fori_loop(0, count, lambda i, c: body(i, c, *operands), init)

    @run.def_vmap
    def rule(axis_size, in_batched, count, init, operands):
        _, init_batched, operands_batched = in_batched
        (init,) = broadcast_unbatched(axis_size, [init_batched], [init])
        axes = jax.tree.map(lambda batched: 0 if batched else None, tuple(operands_batched))
        passes = jax.vmap(body, in_axes=(None, 0, *axes))
        out = jax.lax.fori_loop(0, jnp.max(count), lambda i, c: passes(i, c, *operands), init)
        return out, jax.tree.map(lambda _: True, out)

    return run(count, init, operands)
