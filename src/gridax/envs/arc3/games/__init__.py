"""The ARC-AGI-3 games: each a module with its levels, rule and ``GAME``."""

from gridax.envs.arc3.games import crumble, explore, glue, keys, lights, m0r0, push

# Each game's module defines its GAME; listing the module here registers it
# (gridax.make("Arc3-<name>-v0")).
GAMES = {
    module.GAME.name: module.GAME for module in (crumble, explore, glue, keys, lights, m0r0, push)
}

__all__ = ["GAMES", "crumble", "explore", "glue", "keys", "lights", "m0r0", "push"]
