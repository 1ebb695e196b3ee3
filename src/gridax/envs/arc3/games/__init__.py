"""The ARC-AGI-3 games: each a module with its levels, rule and ``GAME``."""

from gridax.envs.arc3.games import keys, push

GAMES = {"Keys": keys.GAME, "Push": push.GAME}

__all__ = ["GAMES", "keys", "push"]
