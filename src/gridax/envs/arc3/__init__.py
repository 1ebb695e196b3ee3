"""ARC-AGI-3's interactive grid games on an engine in JAX with ARC Prize's semantics
(`arcengine`): sprites, levels, the camera, collisions (docs/arc3.md)."""

from gridax.envs.arc3.camera import Camera
from gridax.envs.arc3.sprites import Blocking, Sprite, SpriteTable, build_table

__all__ = ["Blocking", "Camera", "Sprite", "SpriteTable", "build_table"]
