"""Which ARC-AGI-3 games the longest per-game tests run on.

Each program a test compiles for a ported game takes 10-40 s on a 2-core CPU, and a
port's checks compile several: ``make test`` runs those checks on every invented game
and on two ports (tr87, tu93: level loads, animations of up to 58 frames, a camera of
five sizes; cd82 and cn04 too until session 33, when ``make test`` took 26-27 minutes on
a slow day of this machine), and ``make arc3-parity`` (CI) sets
``GRIDAX_ARC3_ALL_GAMES=1`` to run them on every game. The frame-exact replay of every
port's recorded trace runs on every game in both; ``make test`` replays a sample of each
trace's episodes (:func:`sampled_episodes`: every level's first 30 random actions, the
scripted episodes and the winning run), ``make arc3-parity`` all of them.
"""

from __future__ import annotations

import os

from gridax.envs.arc3 import games

EVERY_GAME = bool(os.environ.get("GRIDAX_ARC3_ALL_GAMES"))
SAMPLE_PORTS = ("tr87", "tu93")
INVENTED = tuple(sorted(module.GAME.name for module in games.INVENTED))


def sampled(name: str) -> bool:
    """Whether the longest per-game tests run on the game ``name`` in this run."""
    return EVERY_GAME or name in INVENTED or name in SAMPLE_PORTS


# The ports whose animations end in one call (``Game.finish``) that make test also holds
# with frames="last" (alone and batched): sb26, whose finish always ends the action
# (``Game.finish_completes``), and sp80, whose finish leaves a long pour to the frame
# loop; ft09's and ka59's run in make arc3-parity (make test took 25 min 15 s with all
# four, session 41).
FINISH_SAMPLE = ("sb26", "sp80")


def last_sampled(name: str) -> bool:
    """Whether this run holds the game ``name``'s frames="last" path against its frames."""
    return sampled(name) or name in FINISH_SAMPLE


SAMPLED_ACTIONS = 30  # of each level's random episode, in make test


def sampled_episodes(episodes: list, levels: int, undo: bool) -> list[tuple[int, list]]:
    """``(index, episode)`` of a port's recorded episodes that this run replays: every
    one with ``GRIDAX_ARC3_ALL_GAMES``; else every level's random episode cut to its
    first actions, the scripted episodes and the winning run, without the long episode
    from the first level and the undo episode (which follow the levels' episodes)."""
    if EVERY_GAME:
        return list(enumerate(episodes))
    skipped = {levels, levels + 1} if undo else {levels}
    return [
        (number, episode[:SAMPLED_ACTIONS] if number < levels else episode)
        for number, episode in enumerate(episodes)
        if number not in skipped
    ]
