"""ARC-AGI-3's interactive grid games on an engine in JAX with the semantics of ARC
Prize's own (`arcengine`): sprites, levels, the camera, collisions, the game loop with
RESET, multi-frame actions, next level, win and lose, undo (docs/arc3.md).

Public submodules: ``rules`` (what a game's rule calls), ``games``, ``official`` (the
level data of ARC Prize's games that ``games`` ports), ``scoring`` (ARC Prize's score),
``evaluation`` (a policy on the games, scored), ``pictures`` (PNG and GIF of frames),
``search`` (shortest solutions), ``plays`` (plays as ARC Prize's toolkit sees them).
``Arc3Env`` is a game behind :class:`gridax.Env` (ids ``Arc3-<Game>-v0``).
"""

from gridax.envs.arc3 import games, rules
from gridax.envs.arc3.engine.camera import Camera
from gridax.envs.arc3.engine.drawing import draw_frame
from gridax.envs.arc3.engine.game import Game, Level, to_json
from gridax.envs.arc3.engine.sprites import Blocking, Sprite, SpriteTable, build_table
from gridax.envs.arc3.engine.types import (
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
from gridax.envs.arc3.env import batch_reset, batch_step, frame, reset, step
from gridax.envs.arc3.interface import (
    Arc3Config,
    Arc3Env,
    Arc3EnvState,
    baseline_actions,
    make_env,
    registered_ids,
)
from gridax.envs.arc3.tools import evaluation, official, pictures, plays, scoring, search

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
    "Arc3Config",
    "Arc3Env",
    "Arc3EnvState",
    "Arc3State",
    "Blocking",
    "Camera",
    "Game",
    "Level",
    "Sprite",
    "SpriteTable",
    "baseline_actions",
    "batch_reset",
    "batch_step",
    "build_table",
    "draw_frame",
    "evaluation",
    "frame",
    "games",
    "make_env",
    "official",
    "pictures",
    "plays",
    "registered_ids",
    "reset",
    "rules",
    "scoring",
    "search",
    "step",
    "to_json",
]
