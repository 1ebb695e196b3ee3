"""The traced half of a lowered :class:`~gridax.envs.forage.ForageConfig`: every number of
the variant as arrays, carried in the state, so variants of one structure share a
compilation and a batch may mix them."""

from __future__ import annotations

import equinox as eqx
from jaxtyping import Array, Bool, Float32, Int8, Int32, UInt8


class ForageParams(eqx.Module):
    """A variant's numbers as arrays. Object tables are indexed by object id 0..K+1."""

    colour: UInt8[Array, "*b K2 3"]
    colour_channel: Int8[Array, "*b K2"]  # channel of the colour observation, -1 for none
    blocking: Bool[Array, "*b K2"]
    collectable: Bool[Array, "*b K2"]
    schedule: Int8[Array, "*b K2"]
    reward: Float32[Array, "*b K2"]
    amplitude: Float32[Array, "*b K2"]
    period: Float32[Array, "*b K2"]
    phase: Float32[Array, "*b K2"]
    repeat: Int32[Array, "*b K2"]
    regen: Float32[Array, "*b K2 3"]  # a regrowth rule (kind, a, b): kinds.encode_delay
    expiry_regen: Float32[Array, "*b K2 3"]
    expiry_time: Int32[Array, "*b K2"]  # int32 max: never
    random_respawn: Bool[Array, "*b K2"]
    regenerated: Bool[Array, "*b K2"]
    biome_bounds: Int32[Array, "*b B 4"]  # x0, y0, x1, y1
    frequencies: Float32[Array, "*b B K1"]
    biome_order: Int32[Array, "*b B"]
    biome_time_varying: Bool[Array, "*b B"]
    biome_map: Int8[Array, "*b H W"]  # -1 outside every biome
    region_map: Int8[Array, "*b H W"]  # food biome index, or the number of food biomes
    deterministic_spawn: Bool[Array, "*b"]
    threshold: Float32[Array, "*b"]
    threshold_is_fraction: Bool[Array, "*b"]
    spawn_empty: Float32[Array, "*b"]
    random_shift: Int32[Array, "*b"]
    hint_every: Int32[Array, "*b"]
    hint_duration: Int32[Array, "*b"]
