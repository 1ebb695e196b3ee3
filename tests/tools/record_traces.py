"""Records the reference traces that tests/envs/arc3/test_games.py replays, answered by
arcengine (Python 3.12+).

For an invented game (answered by its reference in tests/envs/arc3/arcengine/games.py):
per level an episode that plays the solutions of the levels before it and then 60 random
actions (seed 0), for a game with undo one that undoes past the bottom of a full stack,
and one that plays every level's solution, then acts on the won game and resets it.

For a port of a real game (answered by ARC Prize's own file, read from
``../shared/reference/arc-agi-3`` or GRIDAX_ARC3_REFERENCE): per level an episode that
starts there (arcengine's ``set_level``) and plays 60 random actions, clicks half on the
level's sprites and half anywhere; for a game with undo, the same undo episode; the
game's ``SCRIPTED`` episodes, if any; and the winning run.

    python tests/tools/record_traces.py PYTHON_WITH_ARCENGINE [GAME ...]
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from gridax.bench.arc3 import is_ported, official_games_folder
from gridax.envs.arc3 import env
from gridax.envs.arc3.engine.game import to_json
from gridax.envs.arc3.engine.types import CLICK, UNDO
from gridax.envs.arc3.games import GAMES
from gridax.envs.arc3.tools import official

HERE = Path(__file__).parent
REFERENCE = HERE.parent / "envs" / "arc3" / "arcengine" / "games.py"
OFFICIAL_RUNNER = HERE.parent / "envs" / "arc3" / "arcengine" / "official.py"


OFFICIAL_GAMES = official_games_folder()
FIXTURES = HERE.parent / "fixtures" / "arc3"


def as_triples(moves) -> list[list[int]]:
    return [list(m) if isinstance(m, tuple) else [m, 0, 0] for m in moves]


def solving_episode(game) -> list[list[int]]:
    """Every level's solution in turn, one more action on the won game, then RESET."""
    actions = [a for moves in game.solutions for a in as_triples(moves)]
    return actions + [[game.available_actions[0], 0, 0], [0, 0, 0]]


def random_actions(
    rng: np.random.Generator,
    game,
    count: int,
    targets=None,
    reset_rate: float = 0.05,
    on_targets: float = 0.5,
) -> list[list[int]]:
    """The game's actions, now and then RESET (``reset_rate``); clicks anywhere on the
    screen, or a share ``on_targets`` of them on ``targets`` (``[k, 2]`` screen pixels)
    where given."""
    actions = []
    for _ in range(count):
        action_id = 0 if rng.random() < reset_rate else int(rng.choice(game.available_actions))
        x, y = rng.integers(0, 64, 2).tolist() if action_id == CLICK else (0, 0)
        if (
            action_id == CLICK
            and targets is not None
            and len(targets)
            and rng.random() < on_targets
        ):
            x, y = targets[rng.integers(len(targets))].tolist()
        actions.append([action_id, x, y])
    return actions


def sprite_pixels(game, level: int) -> np.ndarray:
    """The screen pixels ``[k, 2]`` (x, y) of level ``level``'s first frame that show a
    sprite: not the colour most of the frame has (the background)."""
    _, frame = env.reset(game, level)
    frame = np.asarray(frame)
    background = np.bincount(frame.ravel() & 15).argmax()
    ys, xs = np.nonzero(frame != background)
    return np.stack([xs, ys], axis=1)


def clicks(points: dict[str, tuple[int, int]], run: str) -> list[list[int]]:
    """Clicks on the named ``points``, a run given as their names, comma-separated; a
    name may be repeated as ``name*count``."""
    named = [part.partition("*") for part in run.split(",")]
    return [[CLICK, *points[name]] for name, _, n in named for _ in range(int(n or 1))]


# Episodes a port needs beyond random play: states random play seldom reaches.
S5I5_LEVEL_6 = {  # the buttons of s5i5's level 6 (t: turn, s/g: shrink/grow), by colour
    "t11": (17, 51), "t9": (39, 51), "g11": (8, 51), "s14": (6, 58), "g14": (8, 58),
    "s9": (28, 51), "s12": (28, 58), "g12": (30, 58),
}  # fmt: skip
# Its chain of arms led out under the walls, the last arm grown up through a gap to 108
# cells, longer than the 72-pixel sprites of the port's table.
S5I5_LONG_ARM = clicks(S5I5_LEVEL_6, "s14,s9,t11,t11,t9,g11*8,g14*12,g12*35")
# sk48's level 6: the right arm lowered and slid left until a slide pushes a block onto
# the other arm (its shadow appended) and a later block stops it: the shadow waits, and
# the next action only clears it.
SK48_STOPPED_SLIDE = [[1, 0, 0], [CLICK, 30, 3], [2, 0, 0], [2, 0, 0], [4, 0, 0], [2, 0, 0]]
SK48_STOPPED_SLIDE += [[3, 0, 0]] * 3
TN36_BEAMS = [(34, 33), (34, 48), (39, 33), (39, 48), (44, 33), (44, 48), (57, 58)]
TN36_BEAMS += [(34, 33), (34, 48), (39, 33), (39, 48), (44, 33), (44, 48), (49, 33), (49, 48)]
TN36_BEAMS += [(54, 33), (54, 48), (59, 33), (59, 48), (57, 58)]
TN36_LEVEL_7 = [(x, y) for _, x, y in GAMES["tn36"].solutions[6]]


def keys(digits: str) -> list[list[int]]:
    """Key actions (ACTION1-5) written as a string of their numbers."""
    return [[int(d), 0, 0] for d in digits]


SB26_LAST_LEVEL = [
    list(a) if isinstance(a, tuple) else [a, 0, 0] for a in GAMES["sb26"].solutions[-1]
]

SCRIPTED = {
    "ar25": [
        # level 2: the upright mirror moved 16 times, never switching (the hint blinks
        # at the 15th), then ACTION5 and more moves
        {
            "start_level": 1,
            "actions": [[3, 0, 0], [4, 0, 0]] * 8 + [[5, 0, 0], [3, 0, 0], [4, 0, 0]],
        },
        # level 1: ACTION5 until no step is left (GAME_OVER), an action, RESET, a move
        {"start_level": 0, "actions": [[5, 0, 0]] * 64 + [[1, 0, 0], [0, 0, 0], [2, 0, 0]]},
        # level 5: clicks where the mirrors cross (each selects the other), on the piece,
        # moves, undos past the first move
        {
            "start_level": 4,
            "actions": [[CLICK, 10, 16], [CLICK, 10, 16], [CLICK, 43, 37], [CLICK, 10, 16]]
            + [[1, 0, 0], [3, 0, 0], [4, 0, 0], [CLICK, 10, 40], [2, 0, 0], [1, 0, 0]]
            + [[UNDO, 0, 0]] * 6
            + [[4, 0, 0]],
        },
    ],
    "sk48": [
        {
            "start_level": 6,
            "actions": SK48_STOPPED_SLIDE
            + [[CLICK, 6, 27], [3, 0, 0], [1, 0, 0], [UNDO, 0, 0], [3, 0, 0], [3, 0, 0]]
            + [[UNDO, 0, 0], [UNDO, 0, 0], [2, 0, 0]],
        },
        {  # level 3's paired arms selected (their bases above and below the bar), moved
            # and undone; the unpaired arm's base clicked (nothing) and arrows without rails
            "start_level": 3,
            "actions": [[CLICK, 36, 57], [2, 0, 0], [2, 0, 0], [CLICK, 12, 57], [2, 0, 0]]
            + [[1, 0, 0], [CLICK, 24, 1], [3, 0, 0], [CLICK, 6, 43], [2, 0, 0], [CLICK, 37, 2]]
            + [[4, 0, 0], [UNDO, 0, 0], [UNDO, 0, 0], [UNDO, 0, 0], [2, 0, 0]],
        },
    ],
    # level 2's purple body onto its target (a blink), off it (the overlay goes) and back,
    # then the orange body into the water (a flash and the step back)
    "r11l": [
        {
            "start_level": 1,
            "actions": [[CLICK, 54, 48], [CLICK, 63, 10], [CLICK, 52, 8], [CLICK, 63, 10]]
            + [[CLICK, 17, 6], [CLICK, 0, 40]],
        }
    ],
    # level 7: a beam switched on over the block (33, 33, 33, 0, 0, 0), the block into
    # a beam's emitter (0, 0, 0, 33, 33, 33), a selector's program, then the winning
    # run from there; levels 4 and 5: a move and a scale into a wall
    "tn36": [
        {
            "start_level": 6,
            "actions": [[CLICK, x, y] for x, y in TN36_BEAMS]
            + [[CLICK, 16, 58]]
            + [[CLICK, x, y] for x, y in TN36_LEVEL_7],
        },
        {
            "start_level": 3,
            "actions": [[CLICK, 54, 33], [CLICK, 54, 36], [CLICK, 59, 33], [CLICK, 59, 36]]
            + [[CLICK, 57, 58]],
        },
        {
            "start_level": 4,
            "actions": [[CLICK, 54, 33], [CLICK, 54, 36], [CLICK, 59, 42], [CLICK, 57, 58]],
        },
    ],
    # level 9: two enemies captured and merged into the second kind, chases, a knock
    # (a size-5 fruit shrinks and flies), a bad merge's flash, undos back past them;
    # level 5: clicks among the fruits and both enemies
    "su15": [
        {
            "start_level": 8,
            "actions": [[CLICK, 16, 19], [CLICK, 16, 19], [CLICK, 30, 25], [CLICK, 40, 20]]
            + [[UNDO, 0, 0], [CLICK, 50, 20], [CLICK, 45, 25], [CLICK, 35, 40], [CLICK, 20, 50]]
            + [[UNDO, 0, 0], [UNDO, 0, 0], [CLICK, 16, 19], [CLICK, 25, 19], [CLICK, 35, 19]]
            + [[CLICK, 45, 19], [CLICK, 52, 22]],
        },
        {
            "start_level": 4,
            "actions": [[CLICK, 8, 40], [CLICK, 48, 40], [CLICK, 20, 30], [CLICK, 30, 30]]
            + [[CLICK, 40, 30], [CLICK, 15, 55], [CLICK, 45, 55], [CLICK, 30, 45]],
        },
        # level 3: a bad merge again and again until its growing fines take the steps
        # below 0 (GAME_OVER; the bar's negative count), then an action and RESET
        {"start_level": 2, "actions": [[CLICK, 31, 27]] * 8 + [[0, 0, 0], [CLICK, 31, 27]]},
        # level 2: clicks on the empty board until no step is left
        {"start_level": 1, "actions": [[CLICK, 5, 20]] * 33 + [[UNDO, 0, 0], [0, 0, 0]]},
    ],
    # the long arm, then turns (each an overlap, put back), shrunk and grown
    "s5i5": [
        {
            "start_level": 6,
            "actions": S5I5_LONG_ARM + clicks(S5I5_LEVEL_6, "t9,s12,s12,t9,t9,g12,g12,t11"),
        }
    ],
    # Programs that end a run other ways than the winning runs (tests/tools/solve_sb26.py):
    # level 7's main frame done with targets left (the banner drawn by the UI), then the
    # placements undone and the run again (an empty slot); level 8's the same (the wide
    # banner's sprite), then a call into itself from a first slot (the loop's error);
    # level 5's loop; level 1 with a palette item selected as the run starts; level 8
    # won after a failed run.
    "sb26": [
        {
            "start_level": 6,
            "actions": [[CLICK, 20, 58], [CLICK, 25, 16], [CLICK, 13, 58], [CLICK, 31, 16]]
            + [[CLICK, 41, 58], [CLICK, 37, 16], [5, 0, 0], [UNDO, 0, 0], [UNDO, 0, 0]]
            + [[5, 0, 0], [UNDO, 0, 0], [UNDO, 0, 0], [5, 0, 0]],
        },
        {
            "start_level": 7,
            "actions": [[CLICK, 27, 58], [CLICK, 22, 26], [CLICK, 13, 58], [CLICK, 28, 26]]
            + [[CLICK, 20, 58], [CLICK, 34, 26], [CLICK, 34, 58], [CLICK, 40, 26], [5, 0, 0]]
            + [[0, 0, 0], [CLICK, 48, 58], [CLICK, 22, 26], [5, 0, 0]],
        },
        {
            "start_level": 4,
            "actions": [[CLICK, 48, 58], [CLICK, 19, 22], [CLICK, 55, 58], [CLICK, 25, 36]]
            + [[5, 0, 0]],
        },
        {"start_level": 0, "actions": [[CLICK, 35, 58], [5, 0, 0], [CLICK, 35, 58], [5, 0, 0]]},
        # the last level won after a run that failed (the ghost of that run's target
        # cursor is gone while the winning run's last frames fade the backgrounds)
        {"start_level": 7, "actions": [[5, 0, 0], *SB26_LAST_LEVEL]},
    ],
    # levels 6 and 7: the selected shape walked toward the wall in the middle (found by a
    # biased random walk on gridax's game): crosses whose bars the wall slides, frames
    # squashed
    "re86": [
        {
            "start_level": 5,
            "actions": keys(
                "533222233233242131431212434243233455111544134445242143544211"
                "14131143424331142411315212132544323311443"
            ),
        },
        {
            "start_level": 6,
            "actions": keys(
                "522443424445114424112123111451114315534343443113143243143111"
                "11441334211113413421245114534353143354442"
            ),
        },
    ],
}


# Levels a port plays again from their start with no RESET (``2 * count`` random actions,
# clicks on sprites): where a mechanic needs many actions in a row (ka59's bombs count
# down 3-6 moves, then blast what they face onto gulches that it slides along).
UNBROKEN = {"ka59": (4, 5, 6)}


def official_episodes(game, seed: int, count: int) -> list[dict]:
    """Per level, ``count`` random actions from its start (``set_level``); then one long
    episode from the first level with no RESET and every click on a sprite (``5 *
    count`` actions: into the limits on actions that many games have, and their
    GAME_OVER); for a game with undo, the undo episode of :func:`random_episodes` (from
    the first level); then the game's ``SCRIPTED`` episodes and its ``UNBROKEN`` plays."""
    rng = np.random.default_rng(seed)
    episodes = [
        {"start_level": n, "actions": random_actions(rng, game, count, sprite_pixels(game, n))}
        for n in range(len(game.levels))
    ]
    targets = sprite_pixels(game, 0)
    long = random_actions(rng, game, 5 * count, targets, reset_rate=0.0, on_targets=1.0)
    episodes.append({"start_level": 0, "actions": long})
    if UNDO in game.available_actions:
        undoing = random_episodes(game, seed, count)[-1]
        episodes.append({"start_level": 0, "actions": undoing})
    unbroken = [
        {
            "start_level": n,
            "actions": random_actions(rng, game, 2 * count, sprite_pixels(game, n), 0.0),
        }
        for n in UNBROKEN.get(game.name, ())
    ]
    return episodes + SCRIPTED.get(game.name, []) + unbroken


def random_episodes(game, seed: int, count: int) -> list[list[list[int]]]:
    """Per level, its predecessors' solutions, then ``count`` random actions; for a game
    with undo, one more that fills the undo stack past its depth in the last level and
    then empties it."""
    rng = np.random.default_rng(seed)
    episodes = [
        [a for moves in game.solutions[:level] for a in as_triples(moves)]
        + random_actions(rng, game, count)
        for level in range(len(game.levels))
    ]
    if UNDO in game.available_actions:
        # Into the last level, half its solution (distinct states), random actions up
        # to past the stack's depth, then undo until the stack is empty and beyond.
        before = [a for moves in game.solutions[:-1] for a in as_triples(moves)]
        last = as_triples(game.solutions[-1])
        played = last[: len(last) // 2]
        moves = [a for a in game.available_actions if a != UNDO]
        extra = max(game.undo_depth + 8 - len(played), 0)
        played += [[int(rng.choice(moves)), 0, 0] for _ in range(extra)]
        undos = [[UNDO, 0, 0]] * (len(played) + 2)
        episodes.append(before + played + undos + random_actions(rng, game, count))
    return episodes


def trace_path(name: str) -> Path:
    return FIXTURES / f"{name.lower()}_trace.json.gz"


def ask_official(python: str, game, episodes: list[dict]) -> list:
    """ARC Prize's own game file's record of ``episodes`` (``{"start_level", "actions"}``)."""
    if not (OFFICIAL_GAMES / game.name).is_dir():
        raise FileNotFoundError(
            f"ARC Prize's game files are not at {OFFICIAL_GAMES} (set GRIDAX_ARC3_REFERENCE)"
        )
    with tempfile.TemporaryDirectory() as folder:
        played = Path(folder) / "episodes.json"
        played.write_text(json.dumps(episodes))
        which = f"{game.name}/{official.load(game.name).version}"  # the version ported
        command = [python, str(OFFICIAL_RUNNER), str(OFFICIAL_GAMES), which, str(played)]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"the official game failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)["episodes"]


def ask_reference(python: str, game, episodes: list) -> list:
    """The reference's record of ``episodes`` on ``game`` (its ``games.py``)."""
    with tempfile.TemporaryDirectory() as folder:
        levels, played = Path(folder) / "levels.json", Path(folder) / "episodes.json"
        levels.write_text(json.dumps(to_json(game)))
        played.write_text(json.dumps(episodes))
        command = [python, str(REFERENCE), str(levels), str(played)]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"the arcengine reference failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)["episodes"]


def record(python: str, name: str) -> Path:
    game = GAMES[name]
    if is_ported(name):
        episodes = official_episodes(game, seed=0, count=60)
        episodes.append({"start_level": 0, "actions": solving_episode(game)})
        answers = ask_official(python, game, episodes)
        data = {
            "game": name,
            "source_sha256": official.load(name).source_sha256,
            "start_levels": [e["start_level"] for e in episodes],
            "episodes": answers,
        }
    else:
        episodes = random_episodes(game, seed=0, count=60) + [solving_episode(game)]
        answers = ask_reference(python, game, episodes)
        data = {"game": name, "levels": to_json(game), "episodes": answers}
    out = trace_path(name)
    out.write_bytes(gzip.compress(json.dumps(data).encode(), mtime=0))
    return out


if __name__ == "__main__":
    for name in sys.argv[2:] or sorted(GAMES):
        print(record(sys.argv[1], name))
