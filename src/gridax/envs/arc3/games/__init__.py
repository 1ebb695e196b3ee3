"""The ARC-AGI-3 games: each a module with its levels, rule and ``GAME``.

Six are gridax's own (crumble, explore, glue, keys, lights, push); the others are ports
of ARC Prize's public games (cn04, ft09, ...), frame-exact against the official files,
with their level data in ``arc3/data`` (``arc3.official``)."""

from gridax.envs.arc3.games import (
    ar25,
    cd82,
    cn04,
    crumble,
    explore,
    ft09,
    glue,
    ka59,
    keys,
    lights,
    ls20,
    m0r0,
    push,
    r11l,
    re86,
    s5i5,
    sb26,
    sk48,
    sp80,
    su15,
    tn36,
    tr87,
    tu93,
    vc33,
    wa30,
)

INVENTED = (crumble, explore, glue, keys, lights, push)
PORTED = (
    ar25, cd82, cn04, ft09, ka59, ls20, m0r0, r11l, re86, s5i5, sb26, sk48, sp80, su15, tn36, tr87,
    tu93, vc33, wa30,
)  # fmt: skip

# Each game's module defines its GAME; listing the module here registers it
# (gridax.make("Arc3-<name>-v0")).
GAMES = {module.GAME.name: module.GAME for module in INVENTED + PORTED}

__all__ = [
    "GAMES",
    "ar25",
    "cd82",
    "cn04",
    "crumble",
    "explore",
    "ft09",
    "glue",
    "ka59",
    "keys",
    "lights",
    "ls20",
    "m0r0",
    "push",
    "r11l",
    "re86",
    "s5i5",
    "sb26",
    "sk48",
    "sp80",
    "su15",
    "tn36",
    "tr87",
    "tu93",
    "vc33",
    "wa30",
]
