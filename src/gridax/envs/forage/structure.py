"""The static half of a lowered :class:`~gridax.envs.forage.ForageConfig`: the few facts
that fix shapes and Python branches, the only thing the jitted functions see statically."""

from __future__ import annotations

import equinox as eqx

from gridax.envs.forage.temperatures import Series


class Structure(eqx.Module):
    """What fixes shapes and branches: the static argument of the jitted step."""

    width: int
    height: int
    wrap: bool
    aperture: tuple[int, int] | None
    observation: str
    episode_length: int | None
    num_objects: int  # object ids 1..K; 0 is empty, K + 1 is padding
    num_biomes: int
    num_food_biomes: int
    num_colours: int
    generations_kept: int
    fourier: bool
    waves: bool  # sine, square or weather objects, whose rewards change every step
    expiry: bool
    dynamic_biomes: bool
    center_reward: bool
    horizon: int  # slots of the regrowth calendar behind the centred reward (0: none)
    hint: bool
    temperatures: Series | None

    @property
    def padding(self) -> bool:
        """Cells beyond a walled world's edge show in the aperture as the padding object."""
        return not self.wrap and self.aperture is not None

    @property
    def aperture_size(self) -> tuple[int, int]:
        """``(h, w)`` of the agent's view; only for worlds with an aperture."""
        if self.aperture is None:
            raise ValueError("this world has no aperture (aperture=None): the agent sees it all")
        return self.aperture

    @property
    def padding_id(self) -> int:
        return self.num_objects + 1
