"""ARC Prize's toolkit on gridax against the toolkit on the official files: actions per
second through the toolkit's own interface, one process (Python 3.12+ with gridax and
``arc-agi``: ``.venv-arcengine``).

- ``official``: the toolkit's ``LocalEnvironmentWrapper`` on the official file (one play);
- ``gridax``: ``gridax.wrappers.arc_agi``'s wrapper (one play);
- ``batch N``: ``Arcade.make_batch`` with N plays, one ``step`` answering all N
  (actions per second counts every play's).

Each variant plays the same seeded random actions (the game's own, clicks anywhere,
no RESET), answers built in full (every frame, the toolkit's types); no recording, no
scorecard. The variants alternate within each repeat; the median of the repeats is
kept. gridax's compile (in ``make``) is timed apart.

    python benchmarks/toolkit_cost.py --games ls20 ft09 --steps 200 --plays 1 64
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time

import numpy as np
from arc_agi import Arcade as ToolkitArcade
from arc_agi import OperationMode
from arcengine import GameAction

from gridax.bench.arc3 import official_games_folder
from gridax.envs.arc3.engine.types import CLICK
from gridax.envs.arc3.games import GAMES
from gridax.wrappers.arc_agi import Arcade


def random_actions(game, steps: int, seed: int = 0) -> list[tuple[GameAction, dict | None]]:
    rng = np.random.default_rng(seed)
    ids = rng.choice(game.available_actions, steps)
    points = rng.integers(0, 64, (steps, 2)).tolist()
    return [
        (GameAction.from_id(int(a)), {"x": x, "y": y} if a == CLICK else None)
        for a, (x, y) in zip(ids, points, strict=True)
    ]


def rate_one(env, actions) -> float:
    started = time.perf_counter()
    for action, data in actions:
        env.step(action, data=data)
    return len(actions) / (time.perf_counter() - started)


def rate_batch(batch, actions) -> float:
    n = batch.num_plays
    started = time.perf_counter()
    for action, data in actions:
        batch.step([action] * n, [data] * n)
    return n * len(actions) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=["ls20", "ft09", "cn04"])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--plays", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logger = logging.getLogger("toolkit_cost")
    logger.setLevel(logging.WARNING)
    official = ToolkitArcade(
        operation_mode=OperationMode.OFFLINE,
        environments_dir=str(official_games_folder()),
        logger=logger,
    )
    ours = Arcade(logger=logger)
    print("| game | official | gridax | " + " | ".join(f"batch {n}" for n in args.plays) + " |")
    print("|---|" + "---:|" * (2 + len(args.plays)))
    for name in args.games:
        actions = random_actions(GAMES[name], args.steps)
        started = time.perf_counter()
        variants = {"official": official.make(name), "gridax": ours.make(name)}
        compile_seconds = time.perf_counter() - started
        for n in args.plays:
            variants[f"batch {n}"] = ours.make_batch(name, n)
        rates = {key: [] for key in variants}
        for _ in range(args.repeats):
            for key, env in variants.items():
                env.reset()
                rate = rate_batch if key.startswith("batch") else rate_one
                rates[key].append(rate(env, actions))
        medians = {key: statistics.median(r) for key, r in rates.items()}
        base = medians["official"]
        cells = [f"{medians[k]:,.0f} ({medians[k] / base:.2f})" for k in variants]
        print(f"| {name} | " + " | ".join(cells) + f" |  (make: {compile_seconds:.1f} s)")


if __name__ == "__main__":
    main()
