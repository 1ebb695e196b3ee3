"""The ARC-AGI-3 games: each a module with its levels, rule and ``GAME``."""

from gridax.envs.arc3.games import keys, lights, push

GAMES = {"Keys": keys.GAME, "Lights": lights.GAME, "Push": push.GAME}

__all__ = ["GAMES", "keys", "lights", "push"]
