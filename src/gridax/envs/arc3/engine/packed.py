"""A game's memory variables packed into one int32 vector (``rules.Packed``).

The engine carries a game's memory through every branch, loop and batch merge of a step
leaf by leaf, and compiles each of them per leaf: sb26's 50 variables took 5.5 s of its
compile with an empty rule, one vector of the same numbers no more than no memory at all
(benchmarks/RESULTS.md). A game with many variables declares them in a :class:`Packed`,
gives the engine its one variable, and its rule works on the unpacked dict as before.
"""

from __future__ import annotations

from collections.abc import Mapping

import jax.numpy as jnp
import numpy as np

from gridax.envs.arc3.engine.game import Var


class Packed:
    """``variables`` (a dict of :class:`Var` by name, none ``kept``) laid end to end in
    one int32 vector: :attr:`var` is the variable the game declares, :meth:`values` a
    level's starting vector, :meth:`unpack` and :meth:`pack` go between the vector and a
    dict of arrays in each variable's own dtype and shape (values must fit int32)."""

    def __init__(self, variables: Mapping[str, Var]):
        kept = sorted(name for name, var in variables.items() if var.kept)
        if kept:
            raise ValueError(f"packed memory: {kept} are kept from level to level; pack "
                             "only variables a level starts again")  # fmt: skip
        self.variables = dict(variables)
        self.sizes = {name: int(np.prod(var.shape, dtype=int)) for name, var in variables.items()}
        ends = np.cumsum(list(self.sizes.values())).tolist()
        self.offsets = {
            name: end - self.sizes[name] for name, end in zip(self.sizes, ends, strict=True)
        }
        self.size = sum(self.sizes.values())

    @property
    def var(self) -> Var:
        return Var(shape=(self.size,))

    def values(self, given: Mapping | None = None) -> tuple[int, ...]:
        """A level's starting vector: each variable's value in ``given`` (by name), or its
        own; a named error for a name that is not a variable."""
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.variables))
        if unknown:
            raise ValueError(f"packed memory: {unknown} are not among {sorted(self.variables)}")
        parts = [
            var.array(given.get(name), f"packed memory {name!r}").astype(np.int64).ravel()
            for name, var in self.variables.items()
        ]
        return tuple(np.concatenate(parts).tolist())

    def unpack(self, vector) -> dict:
        """The variables of a packed ``vector``, each in its dtype and shape."""
        return {
            name: vector[
                self.offsets[name] : self.offsets[name] + int(np.prod(var.shape, dtype=int))
            ]
            .reshape(var.shape)
            .astype(var.dtype)
            for name, var in self.variables.items()
        }

    def pack(self, memory: Mapping) -> jnp.ndarray:
        """The vector of ``memory`` (every variable, by name)."""
        parts = [jnp.ravel(jnp.asarray(memory[name]).astype(jnp.int32)) for name in self.variables]
        return jnp.concatenate(parts)
