"""Agents written for ARC Prize's toolkit (arc-agi), unchanged: first on the official
game file under ARC Prize's engine, then on gridax, with the scorecard and time of each.

    python examples/arc3/toolkit_agents.py --game ls20 --official ENVIRONMENT_FILES

Needs Python 3.12+ with ``pip install 'gridax[arc-agi]'``. ENVIRONMENT_FILES is where
the toolkit keeps its games (``<game>/<version>/<game>.py`` and ``metadata.json``, as
``Arcade`` downloads them; ``../shared/reference/arc-agi-3`` here); without it, only
gridax is played. The two agents are in the style of ARC Prize's ARC-AGI-3-Agents
(``choose_action(frames, latest_frame)`` and ``is_done``) and know nothing of gridax;
the only line that differs between the two runs is which ``Arcade`` makes the game.
With the same seed an agent plays the same actions on both, so the two scorecards are
equal; the times exclude gridax's compile, which ``make`` does (10-35 s a game).
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import random
import time
from collections import defaultdict

from arc_agi import Arcade as ToolkitArcade
from arc_agi import OperationMode
from arcengine import FrameDataRaw, GameAction, GameState

from gridax.wrappers.arc_agi import Arcade


class RandomAgent:
    """RESET when not playing; otherwise one of the offered actions, clicks anywhere."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def is_done(self, frames: list[FrameDataRaw], latest_frame: FrameDataRaw) -> bool:
        return latest_frame.state is GameState.WIN

    def choose_action(self, frames, latest_frame) -> tuple[GameAction, dict]:
        if latest_frame.state in (GameState.NOT_PLAYED, GameState.GAME_OVER):
            return GameAction.RESET, {}
        action = GameAction.from_id(self.rng.choice(latest_frame.available_actions))
        if action is GameAction.ACTION6:
            return action, {"x": self.rng.randrange(64), "y": self.rng.randrange(64)}
        return action, {}


class FrameChangeExplorer(RandomAgent):
    """Remembers, per frame seen, which actions left it unchanged, and never repeats one
    of those from that frame while another is untried (clicks on the frame's non-
    background pixels first)."""

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.useless = defaultdict(set)  # frame hash -> actions that changed nothing
        self.last = None  # (frame hash, action key) of the previous choice

    @staticmethod
    def key(frame_data) -> str:
        return hashlib.sha1(frame_data.frame[-1].tobytes()).hexdigest() if frame_data.frame else ""

    def choose_action(self, frames, latest_frame) -> tuple[GameAction, dict]:
        seen = self.key(latest_frame)
        if self.last is not None and self.last[0] == seen:
            self.useless[seen].add(self.last[1])
        if latest_frame.state in (GameState.NOT_PLAYED, GameState.GAME_OVER) or not seen:
            self.last = None
            return GameAction.RESET, {}
        frame = latest_frame.frame[-1]
        candidates = []
        for action_id in latest_frame.available_actions:
            if action_id == GameAction.ACTION6.value:
                ys, xs = (frame != frame[0, 0]).nonzero()
                points = list(zip(xs.tolist(), ys.tolist(), strict=True)) or [(32, 32)]
                for x, y in self.rng.sample(points, min(8, len(points))):
                    candidates.append((action_id, x, y))
            else:
                candidates.append((action_id, 0, 0))
        untried = [c for c in candidates if c not in self.useless[seen]] or candidates
        choice = self.rng.choice(untried)
        self.last = (seen, choice)
        action = GameAction.from_id(choice[0])
        return action, ({"x": choice[1], "y": choice[2]} if choice[0] == 6 else {})


def run(arcade, game: str, agent, max_actions: int) -> tuple[dict, float]:
    """The agent on one play of ``game``: the scorecard's summary and the seconds taken."""
    env = arcade.make(game)
    frames = [env.observation_space]
    started = time.perf_counter()
    for _ in range(max_actions):
        if agent.is_done(frames, frames[-1]):
            break
        action, data = agent.choose_action(frames, frames[-1])
        frames.append(env.step(action, data=data))
    seconds = time.perf_counter() - started
    card = arcade.get_scorecard()
    summary = {
        "score": round(card.score, 2),
        "levels_completed": card.total_levels_completed,
        "actions": card.total_actions,
    }
    return summary, seconds


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="ls20", help="a game id, e.g. ls20 or ft09")
    parser.add_argument("--official", help="the toolkit's folder of official game files")
    parser.add_argument("--max-actions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logger = logging.getLogger("toolkit_agents")
    logger.setLevel(logging.WARNING)
    arcades = {"gridax": lambda: Arcade(logger=logger)}
    if args.official:
        arcades = {
            "ARC Prize's engine": lambda: ToolkitArcade(
                operation_mode=OperationMode.OFFLINE,
                environments_dir=args.official,
                logger=logger,
            ),
            **arcades,
        }
    results = {}
    for agent_type in (RandomAgent, FrameChangeExplorer):
        for where, arcade in arcades.items():
            summary, seconds = run(arcade(), args.game, agent_type(args.seed), args.max_actions)
            results[(agent_type.__name__, where)] = summary
            print(
                f"{agent_type.__name__:20s} on {where:18s}: score {summary['score']:6.2f}, "
                f"levels {summary['levels_completed']}, {summary['actions']} actions, "
                f"{seconds:.2f} s"
            )
    return results


if __name__ == "__main__":
    main()
