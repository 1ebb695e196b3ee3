"""ARC-AGI-3's interactive grid games on an engine in JAX with the semantics of ARC
Prize's own (`arcengine`): sprites, levels, the camera, collisions, the game loop with
RESET, multi-frame actions, next level, win and lose, undo (docs/arc3.md).

Public submodules: ``rules`` (what a game's rule calls), ``games``.
"""

from gridax.envs.arc3 import games, rules
from gridax.envs.arc3.camera import Camera
from gridax.envs.arc3.env import batch_reset, batch_step, render, reset, step
from gridax.envs.arc3.game import Game, Level, to_json
from gridax.envs.arc3.sprites import Blocking, Sprite, SpriteTable, build_table
from gridax.envs.arc3.types import (
    ACTION1,
    ACTION2,
    ACTION3,
    ACTION4,
    ACTION5,
    CLICK,
    GAME_OVER,
    NOT_FINISHED,
    NOT_PLAYED,
    RESET,
    STATUS_NAMES,
    UNDO,
    WIN,
    Action,
    Arc3State,
)

__all__ = [
    "ACTION1",
    "ACTION2",
    "ACTION3",
    "ACTION4",
    "ACTION5",
    "CLICK",
    "GAME_OVER",
    "NOT_FINISHED",
    "NOT_PLAYED",
    "RESET",
    "STATUS_NAMES",
    "UNDO",
    "WIN",
    "Action",
    "Arc3State",
    "Blocking",
    "Camera",
    "Game",
    "Level",
    "Sprite",
    "SpriteTable",
    "batch_reset",
    "batch_step",
    "build_table",
    "games",
    "render",
    "reset",
    "rules",
    "step",
    "to_json",
]
