"""The ARC-AGI-3 games: each a module with its levels, rule and ``GAME``."""

from gridax.envs.arc3.games import crumble, explore, glue, keys, lights, push

GAMES = {
    "Crumble": crumble.GAME,
    "Explore": explore.GAME,
    "Glue": glue.GAME,
    "Keys": keys.GAME,
    "Lights": lights.GAME,
    "Push": push.GAME,
}

__all__ = ["GAMES", "crumble", "explore", "glue", "keys", "lights", "push"]
